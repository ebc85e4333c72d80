package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpawnCLIRefusals builds the binary and checks the spawn verbs' refusal
// contract as an orchestrator sees it: `spawn exec` refuses before starting
// anything with exit 125 and one line "hookwarden: spawn refused: <reason>"
// (DESIGN.md exit codes), a wrapper such as `env claude` included;
// `spawn compile` exits 1; an engine name missing from PATH is named as such,
// never resolved against the working directory.
func TestSpawnCLIRefusals(t *testing.T) {
	bin := buildBinary(t)
	home, cwd := t.TempDir(), t.TempDir()
	// A file named claude in the cwd must not be taken for the engine.
	os.WriteFile(filepath.Join(cwd, "claude"), []byte("#!/bin/sh\ntouch started\n"), 0o755)
	run := func(args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = cwd
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + home, "HOOKWARDEN_HOME=" + filepath.Join(home, ".hookwarden")}
		var so, se strings.Builder
		cmd.Stdout, cmd.Stderr = &so, &se
		code := exitCode(t, cmd.Run())
		return so.String(), se.String(), code
	}
	cases := []struct {
		name   string
		args   []string
		exit   int
		stderr string
	}{
		{"compile, engine not on PATH", []string{"spawn", "compile", "--engine", "claude"}, 1,
			"hookwarden: spawn refused: engine-not-found: claude not found on PATH\n"},
		{"exec, engine not on PATH", []string{"spawn", "exec", "--", "claude", "-p", "hi"}, 125,
			"hookwarden: spawn refused: engine-not-found:"},
		{"exec through a wrapper", []string{"spawn", "exec", "--", "env", "claude", "-p", "hi"}, 125,
			"hookwarden: spawn refused: "},
		{"exec, blank continuation prompt", []string{"spawn", "exec", "--auto-finish", " ", "--", "claude", "-p", "hi"}, 125,
			"hookwarden: spawn refused: auto-finish-unsupported: the continuation's prompt is empty\n"},
	}
	for _, c := range cases {
		_, se, code := run(c.args...)
		if code != c.exit || !strings.HasPrefix(se, c.stderr) || strings.Count(se, "\n") != 1 {
			t.Errorf("%s: exit %d stderr %q, want exit %d and one line starting %q", c.name, code, se, c.exit, c.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(cwd, "started")); err == nil {
		t.Error("the cwd's ./claude was started")
	}
}
