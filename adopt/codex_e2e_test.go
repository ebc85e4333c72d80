package adopt

import (
	"context"
	"github.com/hookwarden/hookwarden/internal/testbin"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/hookwarden/hookwarden/adopt/codextrust/codextrusttest"
)

// realCodex returns the pinned real codex binary (../shared/e2e/README.md
// Quick start), or skips with the reason; with HOOKWARDEN_E2E=require its
// absence fails the test instead.
func realCodex(t *testing.T) string {
	dir := os.Getenv("HOOKWARDEN_CLIENTS_DIR")
	if dir == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache")
		}
		dir = filepath.Join(cache, "hookwarden-clients")
	}
	bin := filepath.Join(dir, "node_modules", ".bin", "codex")
	if b := os.Getenv("E2E_CLIENTS_BIN"); b != "" {
		bin = filepath.Join(b, "codex")
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("HOOKWARDEN_E2E") == "require" {
			t.Fatalf("HOOKWARDEN_E2E=require but the real codex is absent: %v", err)
		}
		t.Skipf("real codex not installed at %s; set HOOKWARDEN_E2E=require to make this a failure", bin)
	}
	// npm's .bin/codex is a node script (#!/usr/bin/env node).
	testbin.Need(t, "node")
	return bin
}

// TestAdoptedRowsTrustedByCodex: after adopt and codex-trust --trust-project,
// the real Codex (`codex app-server`, hooks/list) lists exactly our rows of
// .codex/hooks.json, all trusted, and the foreign row untrusted.
func TestAdoptedRowsTrustedByCodex(t *testing.T) {
	codex := realCodex(t)
	base, _ := filepath.EvalSymlinks(t.TempDir())
	root := filepath.Join(base, "repo")
	foreign := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./audit.sh", "timeout": 5}]}]}}` + "\n"
	makeRepo(t, root, true, map[string]string{".codex/hooks.json": foreign}, nil)
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	opts := testOptions(t)
	opts.Clients = []string{"codex"}
	home := opts.Getenv("CODEX_HOME")
	if rep, err := Adopt(context.Background(), []string{root}, opts); err != nil || rep.Failed() {
		t.Fatalf("adopt: %v %+v", err, rep.Repositories[0])
	}
	if tr, err := CodexTrust([]string{root}, TrustOptions{TrustProject: true, Getenv: opts.Getenv, Now: fixedNow}); err != nil || tr.Failed() {
		t.Fatalf("codex-trust: %v", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	hooks, err := codextrusttest.HooksList(ctx, codex, home, root)
	if err != nil {
		t.Fatal(err)
	}
	ours, foreignSeen := 0, 0
	for _, h := range hooks {
		switch {
		case isOurs(t, "codex", h.Command) && h.TrustStatus == "trusted":
			ours++
		case h.Command == "./audit.sh" && h.TrustStatus != "trusted":
			foreignSeen++
		default:
			t.Errorf("codex lists %q as %s", h.Command, h.TrustStatus)
		}
	}
	if want := defaultRowCount(t, "codex"); ours != want || foreignSeen != 1 {
		t.Fatalf("codex: %d of our rows trusted (want %d: pre-tool, stop, prompt), foreign untrusted %d (want 1)", ours, want, foreignSeen)
	}
}
