package hookplan

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hookwarden/hookwarden/internal/posixtest"
)

// TestClaudeManagedFiles checks the managed files Claude Code 2.1.328 reads
// (and Windsurf's documented system file) per platform and the drop-in folder's filter and order: *.json only, no
// dot-file, a symlink counted, a directory not, sorted by name.
func TestClaudeManagedFiles(t *testing.T) {
	posixtest.SkipOnWindows(t, "the fixture lays out the Linux machine-wide files the recording was made with (/etc/claude-code, /etc/codex); on Windows the plan reads C:\\Program Files\\ClaudeCode and no /etc/codex")
	for goos, want := range map[string]string{
		"linux":   "/etc/claude-code",
		"darwin":  "/Library/Application Support/ClaudeCode",
		"windows": `C:\Program Files\ClaudeCode`,
		"freebsd": "/etc/claude-code",
	} {
		if got := claudeManagedDir(goos); got != want {
			t.Errorf("claudeManagedDir(%s) = %q, want %q", goos, got, want)
		}
	}
	for goos, want := range map[string]string{
		"linux":   "/etc/windsurf/hooks.json",
		"darwin":  "/Library/Application Support/Windsurf/hooks.json",
		"windows": `C:\ProgramData\Windsurf\hooks.json`,
	} {
		if got := windsurfSystem(goos); got != want {
			t.Errorf("windsurfSystem(%s) = %q, want %q", goos, got, want)
		}
	}
	root := t.TempDir()
	dir := filepath.Join(root, "etc", "claude-code", "managed-settings.d")
	if err := os.MkdirAll(filepath.Join(dir, "30-dir.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"20-b.json", "10-a.json", ".05-hidden.json", "40-c.json.bak", "50-d.JSON"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "10-a.json"), filepath.Join(dir, "15-link.json")); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range claudeManagedFiles(root, "linux") {
		rel, _ := filepath.Rel(root, p)
		got = append(got, filepath.ToSlash(rel))
	}
	want := []string{"etc/claude-code/managed-settings.json", "etc/claude-code/managed-settings.d/10-a.json",
		"etc/claude-code/managed-settings.d/15-link.json", "etc/claude-code/managed-settings.d/20-b.json"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("managed files (-want +got):\n%s", diff)
	}
}

// TestCodexHooksView checks the JSON view of a config.toml's inline
// [hooks]: events and handler fields kept, [hooks.state] left out, an
// absent [hooks] an empty object, and the two shapes Codex uses none of.
func TestCodexHooksView(t *testing.T) {
	src := "model = \"x\"\n[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"guard\"\ntimeout = 7\n\n[hooks.state.\"/r/.codex/config.toml:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:00\"\n"
	view, err := codexHooksView([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(view, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash",
		"hooks": []any{map[string]any{"type": "command", "command": "guard", "timeout": float64(7)}}}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("view (-want +got):\n%s", diff)
	}
	if v, err := codexHooksView([]byte("model = \"x\"\n")); err != nil || string(v) != "{\n  \"hooks\": {}\n}" {
		t.Errorf("no [hooks]: %q, %v", v, err)
	}
	for _, bad := range []string{"hooks = 5\n", "[hooks\n"} {
		if _, err := codexHooksView([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestLineFrom checks that repeated commands get the line of each
// occurrence in turn, and that a command written with escapes gets 0.
func TestLineFrom(t *testing.T) {
	src := []byte("a\ncommand = \"x\"\nb\ncommand = \"x\"\ncommand = \"q\\\"\"\n")
	cursor := 0
	var got []int
	for _, c := range []string{"x", "x", `q"`} {
		got = append(got, lineFrom(src, c, &cursor))
	}
	if !cmp.Equal(got, []int{2, 4, 0}) {
		t.Errorf("lines %v, want [2 4 0]", got)
	}
}

// TestPlanDoesNotBlockOnFIFO builds a plan whose user-level Claude settings
// file is a FIFO with no writer: the plan must report the file unreadable,
// not block opening it (run with a deadline so a regression fails instead
// of hanging the package's tests).
func TestPlanDoesNotBlockOnFIFO(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home")
	repo := filepath.Join(root, "repo")
	for _, d := range []string{filepath.Join(home, ".claude"), repo} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	posixtest.Mkfifo(t, filepath.Join(home, ".claude", "settings.json"), 0o644)
	env := map[string]string{"HOME": home}
	done := make(chan *Plan, 1)
	go func() {
		p, err := Build(repo, Options{Getenv: func(k string) string { return env[k] }, Workstation: true, SystemRoot: filepath.Join(root, "system")})
		if err != nil {
			t.Error(err)
		}
		done <- p
	}()
	select {
	case p := <-done:
		for _, c := range p.Clients {
			if c.Client != "claude" {
				continue
			}
			for _, f := range c.Files {
				if f.Scope == ScopeUser && (f.ReasonID != ReasonUnparseable || !strings.Contains(f.Why, "not a regular file")) {
					t.Errorf("FIFO user file: %+v, want client-file-unparseable naming a non-regular file", f)
				}
			}
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Build blocked on a FIFO settings file")
	}
}

// TestCodexProjectLayers checks which .codex folders a session started
// below the root loads (each directory from the root down that has one,
// shallowest first) and whose [projects] key decides each layer's trust:
// the directory's own, else the root's, else untrusted.
func TestCodexProjectLayers(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"a/.codex", "a/b/c/.codex", "a/b/.codex-not"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "a", "b", ".codex"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range codexTreeFiles(root, filepath.Join(root, "a", "b", "c")) {
		rel, _ := filepath.Rel(root, p)
		got = append(got, filepath.ToSlash(rel))
	}
	want := []string{"a/.codex/hooks.json", "a/.codex/config.toml", "a/b/c/.codex/hooks.json", "a/b/c/.codex/config.toml"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("layers (-want +got):\n%s", diff)
	}
	if got := codexTreeFiles(root, root); got != nil {
		t.Errorf("start at the root: %v, want none (the root's own are specs)", got)
	}
	sub := filepath.Join(root, "a")
	// The keys are TOML basic strings: a Windows path's backslashes escaped.
	esc := func(p string) string { return strings.ReplaceAll(p, `\`, `\\`) }
	cfg := func(s string) []byte {
		return []byte(strings.NewReplacer("ROOT", esc(root), "SUB", esc(sub)).Replace(s))
	}
	cases := []struct {
		name, cfg, dir string
		trusted        bool
		key            string
	}{
		{"no config", "", sub, false, root},
		{"root trusted covers a subdirectory", "[projects.\"ROOT\"]\ntrust_level = \"trusted\"\n", sub, true, root},
		{"own key untrusts below a trusted root", "[projects.\"ROOT\"]\ntrust_level = \"trusted\"\n[projects.\"SUB\"]\ntrust_level = \"untrusted\"\n", sub, false, sub},
		{"own key trusts below an untrusted root", "[projects.\"ROOT\"]\ntrust_level = \"untrusted\"\n[projects.\"SUB\"]\ntrust_level = \"trusted\"\n", sub, true, sub},
		{"a key without trust_level falls through", "[projects.\"SUB\"]\nx = 1\n[projects.\"ROOT\"]\ntrust_level = \"trusted\"\n", sub, true, root},
		{"not TOML", "[projects\n", root, false, root},
	}
	for _, c := range cases {
		ok, key := codexProjectTrust(cfg(c.cfg), root, c.dir)
		if ok != c.trusted || key != c.key {
			t.Errorf("%s: trusted %v by %q, want %v by %q", c.name, ok, key, c.trusted, c.key)
		}
	}
}
