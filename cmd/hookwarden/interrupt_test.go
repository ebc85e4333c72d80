package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/urfave/cli/v3"
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
	t.Setenv("CODEX_HOME", t.TempDir())
	for _, verb := range []string{"adopt", "conform", "audit"} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		app := newApp()
		err := app.Run(ctx, []string{"hookwarden", verb, "--json", repo})
		ec, ok := err.(cli.ExitCoder)
		if !ok || ec.ExitCode() != 130 {
			t.Errorf("%s interrupted: %v, want exit 130", verb, err)
		}
		if _, err := os.Stat(filepath.Join(repo, ".hookwarden.yaml")); err == nil {
			t.Fatalf("%s interrupted before it started wrote the manifest", verb)
		}
	}
}
