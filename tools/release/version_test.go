package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/internal/buildinfo"
	"github.com/hookwarden/hookwarden/internal/testbin"
)

// TestVersionFlagMustMatch: a release cannot stamp a version other than
// the commit's, which a clone of that commit would not report.
func TestVersionFlagMustMatch(t *testing.T) {
	_, err := Build(t.Context(), Config{Version: "99.0.0", Root: "../..", Out: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "internal/buildinfo/VERSION") {
		t.Fatalf("Build with -version 99.0.0: %v, want a refusal naming internal/buildinfo/VERSION", err)
	}
}

// TestCloneAndReleaseAgree: the binary a clone builds (go build, as go
// install does) and the release binary of the same commit print the same
// --version, and a repository adopted by either is clean for the other's
// audit: a team with mixed installs does not flip-flop rendered-stale.
func TestCloneAndReleaseAgree(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		skipOrFail(t, "git not found")
	}
	dir, v := release(t)
	rel := filepath.Join(dir, "hookwarden_"+v+"_"+runtime.GOOS+"_"+runtime.GOARCH, "hookwarden")
	clone := testbin.Hookwarden(t)
	want := "hookwarden version " + buildinfo.Current()
	for _, bin := range []string{rel, clone} {
		if out, err := exec.Command(bin, "--version").Output(); err != nil || strings.TrimSpace(string(out)) != want {
			t.Fatalf("%s --version: %q (%v), want %q", bin, out, err, want)
		}
	}
	for _, pair := range [][2]string{{rel, clone}, {clone, rel}} {
		home := t.TempDir()
		repo := filepath.Join(home, "repo")
		env := append(os.Environ(), "HOME="+home, "CODEX_HOME="+filepath.Join(home, ".codex"), "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
			"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "HOOKWARDEN_CONFIG=", "HOOKWARDEN_FLEET_CONFIG=")
		run := func(bin string, args ...string) (string, error) {
			cmd := exec.Command(bin, args...)
			cmd.Env = env
			out, err := cmd.CombinedOutput()
			return string(out), err
		}
		if out, err := run("git", "init", "-q", repo); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
		if out, err := run(pair[0], "adopt", repo); err != nil {
			t.Fatalf("adopt with %s: %v\n%s", pair[0], err, out)
		}
		out, err := run(pair[1], "audit", "--json", repo)
		if err != nil || strings.Contains(out, "rendered-") {
			t.Fatalf("adopted with %s, audited with %s: %v\n%s", pair[0], pair[1], err, out)
		}
	}
}
