package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/hookwarden/hookwarden/internal/testbin"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// makeFleet builds n repositories under dir/fleet: one adopted by the real
// adopt (the clean fixture), copied n times; every fourth copy has lost its
// .claude/settings.json (five row-missing errors: pre-tool, pre-edit, stop, prompt, pre-skill-shell). It returns the fleet
// directory and the Getenv to audit with.
func makeFleet(t testing.TB, n int) (string, func(string) string) {
	t.Helper()
	tmpl, getenv := sharedCase(t, "clean")
	fleet := filepath.Join(t.TempDir(), "fleet")
	for i := 0; i < n; i++ {
		repo := filepath.Join(fleet, fmt.Sprintf("repo%03d", i))
		copyTree(t, tmpl, repo)
		if i%4 == 0 {
			must(t, os.Remove(filepath.Join(repo, ".claude", "settings.json")))
		}
	}
	return fleet, getenv
}

func fleetPaths(t testing.TB, fleet string) []string {
	t.Helper()
	ents, err := os.ReadDir(fleet)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, filepath.Join(fleet, e.Name()))
	}
	return out
}

// TestFleet200 audits a fleet of 200 generated repositories: every one is
// reported, in order, with exactly its own findings.
func TestFleet200(t *testing.T) {
	fleet, getenv := makeFleet(t, 200)
	paths := fleetPaths(t, fleet)
	rep, err := Audit(context.Background(), paths, Options{Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	want := Summary{Repositories: 200, Clean: 150, Errors: 50 * 5, Warnings: 0, Notes: 200}
	if rep.Summary != want {
		t.Fatalf("summary %+v, want %+v", rep.Summary, want)
	}
	for i, r := range rep.Repositories {
		if r.Path != paths[i] {
			t.Fatalf("repository %d is %s, want %s", i, r.Path, paths[i])
		}
		missing := 0
		for _, f := range r.Findings {
			if f.ID == IDRowMissing && f.Client == "claude" {
				missing++
			}
		}
		if (i%4 == 0) != (missing == 5) {
			t.Errorf("%s: %d claude row-missing findings", r.Path, missing)
		}
	}
}

// BenchmarkAuditFleet200 audits 200 generated repositories per iteration
// (jobs = CPU count) and reports repositories per second. Measured
// 2026-11-29 on the shared 2-core machine (load average 6-9): 780-970
// repos/s (-benchtime 10x, two runs); about 1.2 ms of CPU per repository.
func BenchmarkAuditFleet200(b *testing.B) {
	fleet, getenv := makeFleet(b, 200)
	paths := fleetPaths(b, fleet)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		rep, err := Audit(context.Background(), paths, Options{Getenv: getenv})
		if err != nil || rep.Summary.Repositories != 200 {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(200*b.N)/time.Since(start).Seconds(), "repos/s")
}

// buildBinary returns cmd/hookwarden built from this tree
// (internal/testbin).
func buildBinary(t testing.TB) string {
	t.Helper()
	return testbin.Hookwarden(t)
}

// runBin runs the binary with a private HOME and CODEX_HOME and returns
// stdout, stderr and the exit code.
func runBin(t testing.TB, bin, home string, args ...string) (string, string, int) {
	t.Helper()
	return runBinIn(t, "", bin, home, args...)
}

// runBinIn is runBin with the working directory dir ("" = the test's).
func runBinIn(t testing.TB, dir, bin, home string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + home, "CODEX_HOME=" + home, "PATH=" + os.Getenv("PATH")}
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return so.String(), se.String(), ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return so.String(), se.String(), 0
}

// TestCLI runs the built binary: exit 0 on a clean repository, 1 on an
// error finding, warnings exit 1 only with --strict, 2 on an unusable
// invocation; --format json and sarif; --fleet.
func TestCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := buildBinary(t)
	clean, _ := sharedCase(t, "clean")
	stale, _ := sharedCase(t, "duplicate-handler") // warnings only
	broken, _ := sharedCase(t, "row-missing")
	home := t.TempDir()

	if out, _, code := runBin(t, bin, home, "audit", clean); code != 0 || !strings.Contains(out, "1 clean") {
		t.Errorf("clean: exit %d\n%s", code, out)
	}
	if out, _, code := runBinIn(t, broken, bin, home, "audit", "--json"); code != 1 || !strings.Contains(out, `"path": "."`) {
		t.Errorf("no PATH audits the working directory: exit %d\n%s", code, out)
	}
	if _, _, code := runBin(t, bin, home, "audit", stale); code != 0 {
		t.Errorf("warning only: exit %d, want 0", code)
	}
	if _, _, code := runBin(t, bin, home, "audit", "--strict", stale); code != 1 {
		t.Errorf("warning only with --strict: exit %d, want 1", code)
	}
	out, _, code := runBin(t, bin, home, "audit", "--format", "json", broken)
	var rep Report
	if code != 1 || json.Unmarshal([]byte(out), &rep) != nil || rep.SchemaVersion != 1 || rep.Summary.Errors != 1 {
		t.Errorf("error finding, json: exit %d\n%s", code, out)
	}
	out, _, code = runBin(t, bin, home, "audit", "--format", "sarif", broken)
	if code != 1 || !strings.Contains(out, `"ruleId": "row-missing"`) || !strings.Contains(out, `"version": "2.1.0"`) {
		t.Errorf("sarif: exit %d\n%s", code, out)
	}
	for _, args := range [][]string{
		{"audit", "--format", "xml", clean},
		{"audit", filepath.Join(home, "missing")},
		{"audit", "--fleet", filepath.Join(home, "missing")},
		{"audit", "--fleet", home},
		{"audit", "--json", "--format", "sarif", clean},
	} {
		if _, errOut, code := runBin(t, bin, home, args...); code != 2 || !strings.HasPrefix(errOut, "hookwarden: audit: ") {
			t.Errorf("%q: exit %d, want 2; stderr %q", args, code, errOut)
		}
	}
	fleet := filepath.Dir(clean) // holds repo/ and home/; only repo/ has .git
	out, _, code = runBin(t, bin, home, "audit", "--json", "--fleet", fleet)
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Summary.Repositories != 1 {
		t.Errorf("--fleet: exit %d\n%s", code, out)
	}
}

// BenchmarkAuditProcess execs the built binary on one adopted repository:
// the whole-process time of `hookwarden audit --format sarif <repo>`
// (ns/op), start-up included. Measured 2026-11-29 on the shared 2-core
// machine (load average 6-9): 9.0-10.2 ms per process (-benchtime 100x,
// two runs).
func BenchmarkAuditProcess(b *testing.B) {
	bin := buildBinary(b)
	repo, _ := sharedCase(b, "clean")
	home := b.TempDir()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, errOut, code := runBin(b, bin, home, "audit", "--format", "sarif", repo); code != 0 {
			b.Fatalf("exit %d: %s", code, errOut)
		}
	}
}
