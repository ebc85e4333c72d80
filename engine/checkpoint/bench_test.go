package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

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
// the git CLI (Evaluate, the shipped path). Run it with
//
//	go test ./engine/checkpoint -run '^$' -bench Checkpoint20k -benchtime 5x
//
// Measured 2026-11-29 on the shared 2-core build machine (git 2.39.5)
// against go-git v5.19.3's Worktree.Status, which the benchmark then also
// ran: see the package doc comment for both. go-git left go.mod afterwards
// (nothing shipped used it, and it linked cgo, os/user and gob).
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

// makeRepo writes a repository of n files (directories of 100 small files)
// under dir, commits it with one git add, and leaves 10 files modified and
// 10 untracked.
func makeRepo(b *testing.B, dir string, n int) {
	b.Helper()
	setupGit(b, dir, time.Time{}, false, "init", "-q", "-b", "main", ".")
	for i := range n {
		sub := filepath.Join(dir, fmt.Sprintf("d%04d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(sub, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%02d.txt", i%100)), []byte("x\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	setupGit(b, dir, time.Time{}, false, "add", "-A")
	setupGit(b, dir, time.Now().Add(-time.Minute), false, "commit", "-q", "-m", "base")
	for i := range 10 {
		writeFile(b, filepath.Join(dir, fmt.Sprintf("d%04d", i), "f00.txt"), "changed\n")
		writeFile(b, filepath.Join(dir, fmt.Sprintf("d%04d", i), "new.txt"), "new\n")
	}
}

// BenchmarkEditRowCache measures the checkpoint the pre-edit and stop rows
// ask for, interleaved in one run: EvaluateCached with a fresh cache (the
// row's path; no process) against Evaluate (the status scan it replaces),
// on generated repositories of HOOKWARDEN_BENCH_FILES files (default 50000;
// e.g. 50000,100000,200000). It reports p50 and p99 in ms. Run it with
//
//	HOOKWARDEN_BENCH_FILES=50000,100000,200000 go test ./engine/checkpoint -run '^$' -bench EditRowCache -benchtime 40x
//
// Figures: docs/performance.md, "The edit row's checkpoint cache".
func BenchmarkEditRowCache(b *testing.B) {
	sizes := []int{50000}
	if v := os.Getenv("HOOKWARDEN_BENCH_FILES"); v != "" {
		sizes = sizes[:0]
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				b.Fatalf("HOOKWARDEN_BENCH_FILES: %v", err)
			}
			sizes = append(sizes, n)
		}
	}
	ctx := context.Background()
	cfg := DefaultConfig()
	for _, n := range sizes {
		dir := b.TempDir()
		makeRepo(b, dir, n)
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			var cached, fresh []time.Duration
			for b.Loop() {
				t0 := time.Now()
				r, err := Evaluate(ctx, dir, cfg, false)
				t1 := time.Now()
				if err != nil || len(r.Files) != 20 {
					b.Fatalf("fresh: %d files, %v", len(r.Files), err)
				}
				r, err = EvaluateCached(ctx, dir, cfg, false)
				t2 := time.Now()
				if err != nil || len(r.Files) != 20 {
					b.Fatalf("cached: %d files, %v", len(r.Files), err)
				}
				fresh, cached = append(fresh, t1.Sub(t0)), append(cached, t2.Sub(t1))
			}
			b.ReportMetric(pct(cached, 50), "cached-p50-ms")
			b.ReportMetric(pct(cached, 99), "cached-p99-ms")
			b.ReportMetric(pct(fresh, 50), "scan-p50-ms")
			b.ReportMetric(pct(fresh, 99), "scan-p99-ms")
		})
	}
}

// pct returns the p-th percentile of ds in milliseconds (nearest rank).
func pct(ds []time.Duration, p int) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p+99)/100 - 1
	i = max(0, min(i, len(s)-1))
	return float64(s[i]) / float64(time.Millisecond)
}
