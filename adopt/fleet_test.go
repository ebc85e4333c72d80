package adopt

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// genFleet creates n repositories below base with a rotation of shapes; every
// 50th has a malformed .gitignore block and every 7th is not a git repository
// (the engine would guard nothing there): both must fail alone, untouched. It
// returns the directory paths and which of them must fail.
func genFleet(t testing.TB, base string, n int) (paths []string, bad map[string]bool) {
	bad = map[string]bool{}
	for i := 0; i < n; i++ {
		p := filepath.Join(base, fmt.Sprintf("repo%03d", i))
		files := map[string]string{}
		switch i % 4 {
		case 1:
			for k, v := range operatorFiles {
				files[k] = v
			}
		case 2:
			files[".gitignore"] = "dist/\n"
			files[".claude/settings.json"] = "{\n\t\"model\": \"sonnet\"\n}\n"
		case 3:
			files[ManifestFile] = "version: 1\nclients: [claude, gemini]\ndecline: [interceptor]\n"
		}
		if i%50 == 49 {
			files[".gitignore"] = "# BEGIN hookwarden\n"
			bad[p] = true
		}
		if i%7 == 6 {
			bad[p] = true
		}
		makeRepo(t, p, i%7 != 6, files, nil)
		paths = append(paths, p)
	}
	return paths, bad
}

// TestFleet200 adopts 200 generated repositories in one run: the broken ones
// fail alone and untouched, every other one is governed with our rows, and
// a second run finds nothing to do.
func TestFleet200(t *testing.T) {
	base := t.TempDir()
	paths, bad := genFleet(t, base, 200)
	found, err := Discover(base, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := 200 - 200/7; len(found) != want {
		t.Fatalf("discovered %d git repositories, want %d", len(found), want)
	}
	badBefore := map[string]map[string]string{}
	for p := range bad {
		badBefore[p] = tree(t, p)
	}
	opts := testOptions(t)
	opts.Jobs = 4
	var phases []string
	opts.Progress = func(phase string, done, total int) {
		if done == total {
			phases = append(phases, fmt.Sprintf("%s %d", phase, total))
		}
	}
	rep, err := Adopt(context.Background(), paths, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Failed != len(bad) || rep.Summary.Changed != 200-len(bad) {
		t.Fatalf("summary %+v, want %d failed", rep.Summary, len(bad))
	}
	if strings.Join(phases, ",") != "plan 200,write 200" {
		t.Fatalf("progress phases %v", phases)
	}
	for i, r := range rep.Repositories {
		if r.Path != paths[i] {
			t.Fatalf("report order: %s at %d", r.Path, i)
		}
		if bad[r.Path] {
			if diff := cmp.Diff(badBefore[r.Path], tree(t, r.Path)); diff != "" {
				t.Errorf("%s failed but was changed:\n%s", r.Path, diff)
			}
			continue
		}
		data, err := os.ReadFile(filepath.Join(r.Path, ".claude/settings.json"))
		if err != nil || !strings.Contains(string(data), "claude pre-tool") {
			t.Errorf("%s: claude settings: %v %s", r.Path, err, data)
		}
		if _, err := os.Stat(filepath.Join(r.Path, ManifestFile)); err != nil {
			t.Errorf("%s: no manifest", r.Path)
		}
	}
	rep2, _ := Adopt(context.Background(), paths, opts)
	if rep2.Summary.Unchanged != 200-len(bad) || rep2.Summary.Failed != len(bad) {
		t.Fatalf("second run summary %+v", rep2.Summary)
	}
}

// benchJobs is the parallelism of BenchmarkAdoptFleet200 (0: the CPU count,
// as --jobs defaults to).
var benchJobs = 0

// BenchmarkAdoptFleet200 reports repositories adopted per second on a fleet
// of 200 generated repositories (fresh fleet each iteration).
func BenchmarkAdoptFleet200(b *testing.B) {
	var elapsed time.Duration
	repos := 0
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		base := b.TempDir()
		paths, _ := genFleet(b, base, 200)
		opts := testOptions(b)
		opts.Jobs = benchJobs
		b.StartTimer()
		start := time.Now()
		rep, err := Adopt(context.Background(), paths, opts)
		elapsed += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		repos += rep.Summary.Repositories
	}
	b.ReportMetric(float64(repos)/elapsed.Seconds(), "repos/s")
}
