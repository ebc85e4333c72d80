package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
)

// readGoGit is the go-git counterpart of readCLI, kept here only to measure
// it against the CLI (BenchmarkCheckpoint20k). go-git's Status takes no
// context, so it cannot be stopped at a deadline.
func readGoGit(cwd string) (snapshot, error) {
	var s snapshot
	repo, err := git.PlainOpenWithOptions(cwd, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return s, fmt.Errorf("%s: %w", cwd, err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return s, err
	}
	s.root = wt.Filesystem.Root()
	st, err := wt.Status()
	if err != nil {
		return s, err
	}
	for p, fs := range st {
		if fs.Staging != git.Unmodified || fs.Worktree != git.Unmodified {
			s.files = append(s.files, p)
		}
	}
	head, err := repo.Head()
	if err != nil {
		return s, nil // no commit yet
	}
	c, err := repo.CommitObject(head.Hash())
	if err != nil {
		return s, err
	}
	s.hasCommit, s.lastCommit = true, c.Committer.When
	return s, nil
}

// make20k writes a repository of 20,000 files (200 directories of 100
// small files) under dir and commits it.
func make20k(b *testing.B, dir string) {
	b.Helper()
	setupGit(b, dir, time.Time{}, false, "init", "-q", "-b", "main", ".")
	for d := range 200 {
		sub := filepath.Join(dir, fmt.Sprintf("pkg%03d", d))
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
	writeFile(b, filepath.Join(dir, ".gitignore"), "*.log\n")
	setupGit(b, dir, time.Time{}, false, "add", "-A")
	setupGit(b, dir, time.Now().Add(-2*time.Hour), false, "commit", "-q", "-m", "20k files")
}

// BenchmarkCheckpoint20k measures one checkpoint evaluation (status plus
// last-commit time) on a 20,000-file repository, clean and dirty (100
// tracked files modified, 100 untracked files added, 50 ignored files), with
// the git CLI (Evaluate, the shipped path) and with go-git
// (Worktree.Status). Run it with
//
//	go test ./engine/checkpoint -run '^$' -bench Checkpoint20k -benchtime 5x
//
// Measured 2026-11-29 on the shared 2-core build machine (git 2.39.5,
// go-git v5.19.3): see the package doc comment.
func BenchmarkCheckpoint20k(b *testing.B) {
	dir := b.TempDir()
	make20k(b, dir)
	ctx := context.Background()
	cfg := DefaultConfig()
	run := func(name string, wantFiles int) {
		b.Run("cli/"+name, func(b *testing.B) {
			for b.Loop() {
				r, err := Evaluate(ctx, dir, cfg, true)
				if err != nil {
					b.Fatal(err)
				}
				if len(r.Files) != wantFiles {
					b.Fatalf("cli saw %d changed files, want %d", len(r.Files), wantFiles)
				}
			}
		})
		b.Run("gogit/"+name, func(b *testing.B) {
			for b.Loop() {
				s, err := readGoGit(dir)
				if err != nil {
					b.Fatal(err)
				}
				r := judge(s, cfg, true, time.Now())
				if len(r.Files) != wantFiles {
					b.Fatalf("go-git saw %d changed files, want %d", len(r.Files), wantFiles)
				}
			}
		})
	}
	run("clean", 0)
	for d := range 100 {
		writeFile(b, filepath.Join(dir, fmt.Sprintf("pkg%03d", d), "file000.go"), "package changed\n")
		writeFile(b, filepath.Join(dir, fmt.Sprintf("pkg%03d", d), "new.go"), "package added\n")
	}
	for i := range 50 {
		writeFile(b, filepath.Join(dir, fmt.Sprintf("debug%02d.log", i)), "ignored\n")
	}
	run("dirty", 200)
}
