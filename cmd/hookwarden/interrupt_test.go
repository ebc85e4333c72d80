package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestInterruptExits130: issue 15 — an interrupted run exited 1. adopt,
// conform and audit stop at the interrupt (SIGINT or SIGTERM cancel their
// context; here the context is cancelled before the run) and exit 130, the
// shell's code for a run ended by SIGINT, not 1 (findings) or 0.
func TestInterruptExits130(t *testing.T) {
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, ".git", "info"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"CODEX_HOME=" + t.TempDir(), "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	for _, verb := range []string{"adopt", "conform", "audit"} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		streams, out, _ := testIO("", env, repo)
		var err error
		if verb == "audit" {
			err = runAudit(ctx, &auditOptions{IO: streams, Paths: []string{repo}, Format: "text", JSON: true, Depth: 1})
		} else {
			err = runFleet(ctx, &fleetOptions{IO: streams, Verb: verb, Paths: []string{repo}, Diff: "settings", JSON: true, Depth: 1})
		}
		if code, msg := runExit(err); code != 130 {
			t.Errorf("%s interrupted: exit %d (%s), want 130; stdout:\n%s", verb, code, msg, out)
		}
		if _, err := os.Stat(filepath.Join(repo, ".hookwarden.yaml")); err == nil {
			t.Fatalf("%s interrupted before it started wrote the manifest", verb)
		}
	}
}
