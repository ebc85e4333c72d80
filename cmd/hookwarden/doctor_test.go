package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorExitCodes runs the built binary: exit 2 on a directory that is
// not governed and on two paths; on an adopted repository whose engine is
// not installed and with no python3 (PATH holds only sh and git), exit 1
// with every pre-tool row answered by the launcher's own refusal, the
// prompt row's stated skip without the clock line (no date(1) on PATH) and
// the stop row's stated skip (no engine judges the stop).
func TestDoctorExitCodes(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	if code := exitCode(t, exec.Command(bin, "doctor", dir).Run()); code != 2 {
		t.Errorf("doctor on an ungoverned directory: exit %d, want 2", code)
	}
	if code := exitCode(t, exec.Command(bin, "doctor", dir, dir).Run()); code != 2 {
		t.Errorf("doctor with two paths: exit %d, want 2", code)
	}
	repo := filepath.Join(dir, "repo")
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	home := filepath.Join(dir, "home")
	os.MkdirAll(home, 0o755)
	adopt := exec.Command(bin, "adopt", "--clients", "claude", repo)
	adopt.Env = append(os.Environ(), "HOME="+home, "CODEX_HOME="+home)
	if out, err := adopt.CombinedOutput(); err != nil {
		t.Fatalf("adopt: %v %s", err, out)
	}
	tools := filepath.Join(dir, "tools")
	os.MkdirAll(tools, 0o755)
	for _, tool := range []string{"sh", "git"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Fatal(err)
		}
		os.Symlink(p, filepath.Join(tools, tool))
	}
	cmd := exec.Command(bin, "doctor", repo)
	cmd.Env = []string{"PATH=" + tools, "HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(dir, "cache")}
	out, err := cmd.Output()
	if code := exitCode(t, err); code != 1 {
		t.Fatalf("doctor without engine or python3: exit %d, want 1:\n%s", code, out)
	}
	for _, s := range []string{"claude pre-tool: DOES NOT GUARD", "deny canary: deny (launcher) by launcher: no engine and no fallback", "claude prompt: DOES NOT GUARD", "prompt canary: skip, no clock line", "claude stop: DOES NOT GUARD", "block canary: skip by launcher", "claude pre-skill-shell: DOES NOT GUARD", "doctor: 5 of 5 rows do not guard"} {
		if !strings.Contains(string(out), s) {
			t.Errorf("report lacks %q:\n%s", s, out)
		}
	}
}

// TestDoctorOptInClientsCLI runs `hookwarden doctor` on a repository
// adopted with --clients claude,copilot,cursor,windsurf,qwen,droid: with the
// engine on PATH every pre-tool, pre-edit and stop row of the six clients
// guards and Claude's and Droid's prompt rows answer with the clock line (exit 0), and
// the documented-only spawns are marked unverified; without the engine (and
// without python3) every gating and stop row fails and doctor exits 1.
func TestDoctorOptInClientsCLI(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	repo, home := filepath.Join(dir, "repo"), filepath.Join(dir, "home")
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	os.MkdirAll(home, 0o755)
	adopt := exec.Command(bin, "adopt", "--clients", "claude,copilot,cursor,windsurf,qwen,droid", repo)
	adopt.Env = append(os.Environ(), "HOME="+home, "CODEX_HOME="+home)
	if out, err := adopt.CombinedOutput(); err != nil {
		t.Fatalf("adopt: %v %s", err, out)
	}
	rows := []string{"claude pre-tool", "claude pre-edit", "claude pre-skill-shell", "claude stop", "copilot pre-tool", "copilot pre-edit", "copilot stop", "cursor pre-tool", "cursor pre-edit", "cursor stop",
		"windsurf pre-tool", "windsurf pre-edit", "qwen pre-tool", "qwen pre-edit", "qwen stop", "droid pre-tool", "droid pre-edit", "droid stop"}
	doctor := func(withEngine bool) (int, string) {
		tools := filepath.Join(dir, fmt.Sprintf("tools-%v", withEngine))
		os.MkdirAll(tools, 0o755)
		// The launcher's own tools (adopt/doctor's test machine), no python3.
		for _, tool := range []string{"sh", "bash", "git", "cat", "sleep", "rm", "mkdir", "dirname", "env", "date"} {
			p, err := exec.LookPath(tool)
			if err != nil {
				t.Fatal(err)
			}
			os.Symlink(p, filepath.Join(tools, tool))
		}
		if withEngine {
			os.Symlink(bin, filepath.Join(tools, "hookwarden"))
		}
		cmd := exec.Command(bin, "doctor", repo)
		cmd.Env = []string{"PATH=" + tools, "HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(dir, "cache")}
		out, err := cmd.Output()
		return exitCode(t, err), string(out)
	}
	code, out := doctor(true)
	if code != 0 {
		t.Fatalf("doctor with the engine: exit %d, want 0:\n%s", code, out)
	}
	want := []string{"doctor: 20 rows guard", "droid prompt: guards", "block canary: block (checkpoint-due) by engine", "prompt canary: allow, clock line carried by engine", "spawn unverified: Cursor", "spawn unverified: Windsurf", "spawn unverified: Factory Droid"}
	for _, r := range rows {
		want = append(want, r+": guards")
	}
	for _, s := range want {
		if !strings.Contains(out, s) {
			t.Errorf("report lacks %q:\n%s", s, out)
		}
	}
	code, out = doctor(false)
	if code != 1 {
		t.Fatalf("doctor without engine or python3: exit %d, want 1:\n%s", code, out)
	}
	// The launcher's stated skip still carries the clock line (sh, date).
	for _, r := range []string{"claude prompt", "droid prompt"} {
		if !strings.Contains(out, r+": guards") {
			t.Errorf("report lacks the %s row guarding:\n%s", r, out)
		}
	}
	for _, r := range rows {
		if !strings.Contains(out, r+": DOES NOT GUARD") {
			t.Errorf("report lacks %q:\n%s", r+": DOES NOT GUARD", out)
		}
	}
	if !strings.Contains(out, "doctor: 18 of 20 rows do not guard") {
		t.Errorf("closing line:\n%s", out)
	}
}
