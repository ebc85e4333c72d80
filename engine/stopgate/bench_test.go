package stopgate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/hookwarden/hookwarden/internal/testbin"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/hookwarden/hookwarden/engine/checkpoint"
	"github.com/hookwarden/hookwarden/protocol/verdict"
)

// make20k writes a governed repository of 20,000 files (200 directories of
// 100 small files, plus `.hookwarden.yaml`) under dir, committed two hours
// ago, and returns its symlink-free root.
func make20k(b *testing.B, dir string) string {
	b.Helper()
	git(b, dir, time.Time{}, "init", "-q", "-b", "main", "repo")
	root := filepath.Join(dir, "repo")
	for d := range 200 {
		sub := filepath.Join(root, fmt.Sprintf("pkg%03d", d))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 100 {
			p := filepath.Join(sub, fmt.Sprintf("file%03d.go", f))
			if err := os.WriteFile(p, fmt.Appendf(nil, "package pkg%03d\n\n// file %d\n", d, f), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	write(b, filepath.Join(root, ".hookwarden.yaml"), "version: 1\n")
	git(b, root, time.Time{}, "add", "-A")
	git(b, root, time.Now().Add(-2*time.Hour), "commit", "-q", "-m", "20k files")
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		b.Fatal(err)
	}
	return real
}

// dirty modifies 100 tracked files and adds 100 untracked ones.
func dirty(b *testing.B, root string) {
	b.Helper()
	for d := range 100 {
		write(b, filepath.Join(root, fmt.Sprintf("pkg%03d", d), "file000.go"), "package changed\n")
		write(b, filepath.Join(root, fmt.Sprintf("pkg%03d", d), "new.go"), "package added\n")
	}
}

// BenchmarkStop20k measures a stop on a 20,000-file repository, clean and
// dirty (200 changes, last commit 2 hours old), two ways:
//
//   - judge: JudgeStop in process (question check plus checkpoint);
//   - process: the whole `hookwarden hook claude stop` process, built from
//     ./cmd/hookwarden at setup, fed a Claude Stop payload on stdin (the
//     shape recorded in ../shared/e2e/README.md section 1), as the client
//     runs it. A clean tree must exit 0; a dirty one exit 2 (deny).
//
// Run with: go test ./engine/stopgate -run '^$' -bench Stop20k -benchtime 5x
//
// Measured 2026-11-29 on the shared 2-core machine (load average 10-12, two
// runs of 5 iterations): judge clean 79-378 ms, dirty 49-314 ms; whole
// process clean 83-162 ms, dirty 73-198 ms. The stop budget is 20 s
// (protocol/registration table.json budget_ms).
func BenchmarkStop20k(b *testing.B) {
	dir := b.TempDir()
	root := make20k(b, dir)
	bin := testbin.Hookwarden(b)
	payload := fmt.Appendf(nil, `{"session_id":"bench","transcript_path":"/dev/null","cwd":%q,"permission_mode":"default","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"All done; the parser is fixed and tested."}`, root)

	run := func(name string, want verdict.Kind, wantExit int) {
		b.Run("judge/"+name, func(b *testing.B) {
			for b.Loop() {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				v := JudgeStop(ctx, StopInput{Client: "claude", Cwd: root, RepoRoot: root,
					LastMessage: "All done; the parser is fixed and tested.", Config: checkpoint.DefaultConfig()})
				cancel()
				if v.Kind != want {
					b.Fatalf("got %s (%q), want %s", v.Kind, v.Reason, want)
				}
			}
		})
		b.Run("process/"+name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(bin, "hook", "claude", "stop")
				cmd.Dir = root
				cmd.Stdin = bytes.NewReader(payload)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				err := cmd.Run()
				code := 0
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					code = ee.ExitCode()
				} else if err != nil {
					b.Fatal(err)
				}
				if code != wantExit {
					b.Fatalf("exit %d, want %d; stderr: %s", code, wantExit, stderr.String())
				}
			}
		})
	}
	run("clean", verdict.Allow, 0)
	dirty(b, root)
	run("dirty", verdict.Deny, 2)
}
