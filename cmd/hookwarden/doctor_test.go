package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorExitCodes runs the built binary: exit 2 on a directory that is
// not governed and on two paths; on an adopted repository whose engine is
// not installed and with no python3 (PATH holds only sh and git), exit 1
// with every pre-tool row answered by the launcher's own refusal.
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
	for _, s := range []string{"claude pre-tool: DOES NOT GUARD", "deny canary: deny (launcher) by launcher: no engine and no fallback", "doctor: 2 of 2 rows do not guard"} {
		if !strings.Contains(string(out), s) {
			t.Errorf("report lacks %q:\n%s", s, out)
		}
	}
}
