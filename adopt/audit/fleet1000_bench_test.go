package audit

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/hookwarden/hookwarden/adopt"

	"github.com/hookwarden/hookwarden/internal/fleetgc"
	"github.com/hookwarden/hookwarden/internal/workpool"
)

// fleetSize is the number of repositories BenchmarkFleet1000 generates.
const fleetSize = 1000

// pristineFleet returns a directory holding fleetSize ungoverned
// repositories (repo0000 ...), generated once and kept under the system's
// temporary directory between runs (the name carries a version: bump it
// when the shape changes). Each is a real `git init` (one template
// repository, copied) with a README, a .gitignore and client settings
// files of their own, one in three with a foreign Claude hook row.
func pristineFleet(b *testing.B) string {
	b.Helper()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("hookwarden-bench-fleet%d-v1", fleetSize))
	if _, err := os.Stat(filepath.Join(dir, "complete")); err == nil {
		return filepath.Join(dir, "fleet")
	}
	must(b, os.RemoveAll(dir))
	tmpl := filepath.Join(dir, "template")
	if out, err := exec.Command("git", "init", "-q", tmpl).CombinedOutput(); err != nil {
		b.Skipf("git init: %v %s (the benchmark needs git on PATH)", err, out)
	}
	fleet := filepath.Join(dir, "fleet")
	settings := []string{
		"{\n  \"model\": \"sonnet\"\n}\n",
		"{\n  \"hooks\": {\n    \"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"./scripts/lint.sh\"}]}]\n  }\n}\n",
		"{}\n",
	}
	for i := 0; i < fleetSize; i++ {
		repo := filepath.Join(fleet, fmt.Sprintf("repo%04d", i))
		copyTree(b, tmpl, repo)
		files := map[string]string{
			"README.md":             fmt.Sprintf("# service %d\n", i),
			".gitignore":            "dist/\nnode_modules/\n",
			"main.go":               "package main\n\nfunc main() {}\n",
			".claude/settings.json": settings[i%len(settings)],
			".gemini/settings.json": "{\n  \"theme\": \"Default\"\n}\n",
		}
		for p, body := range files {
			full := filepath.Join(repo, filepath.FromSlash(p))
			must(b, os.MkdirAll(filepath.Dir(full), 0o755))
			must(b, os.WriteFile(full, []byte(body), 0o644))
		}
	}
	must(b, os.WriteFile(filepath.Join(dir, "complete"), nil, 0o644))
	return fleet
}

// BenchmarkFleet1000 runs the fleet verbs over fleetSize generated
// repositories, in process, jobs as the CLI defaults (workpool.DefaultJobs;
// HOOKWARDEN_BENCH_JOBS=N runs N at once instead) and the collector's
// pace they set (internal/fleetgc; GOGC in the environment overrides it): adopt
// on a fresh copy of the pristine fleet, then conform (nothing to change)
// and audit of the adopted fleet. Generation and copying are outside the
// timed region. It reports adopt-repos/s, conform-repos/s and
// audit-repos/s (the targets: adopt >= 400/s, audit >= 1,000/s on two
// cores), and each verb's CPU time per repository, its git processes
// included (two idle cores turn c ms/repo into at most 2000/c repos/s).
//
//	go test ./adopt/audit -run '^$' -bench BenchmarkFleet1000 -benchtime 3x
func BenchmarkFleet1000(b *testing.B) {
	pristine := pristineFleet(b)
	home := b.TempDir()
	getenv := emptyEnv(home, nil)
	jobs := workpool.DefaultJobs()
	if v, err := strconv.Atoi(os.Getenv("HOOKWARDEN_BENCH_JOBS")); err == nil && v > 0 {
		jobs = v
	}
	// The collector's pace the CLI's fleet verbs set (internal/fleetgc).
	defer fleetgc.Tune(os.Getenv)()
	var tAdopt, tConform, tAudit time.Duration
	var cAdopt, cConform, cAudit time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		fleet := filepath.Join(b.TempDir(), "fleet")
		copyTree(b, pristine, fleet)
		paths, err := adopt.Discover(fleet, 1)
		if err != nil || len(paths) != fleetSize {
			b.Fatalf("discover: %d repositories, %v", len(paths), err)
		}
		b.StartTimer()
		ctx := context.Background()
		start, cpu := time.Now(), cpuTime()
		rep, err := adopt.Adopt(ctx, paths, adopt.Options{Jobs: jobs, Getenv: getenv})
		tAdopt, cAdopt = tAdopt+time.Since(start), cAdopt+cpuTime()-cpu
		if err != nil || rep.Summary.Changed != fleetSize {
			b.Fatalf("adopt: %+v %v", rep.Summary, err)
		}
		start, cpu = time.Now(), cpuTime()
		rep, err = adopt.Conform(ctx, paths, adopt.Options{Jobs: jobs, Getenv: getenv})
		tConform, cConform = tConform+time.Since(start), cConform+cpuTime()-cpu
		if err != nil || rep.Summary.Unchanged != fleetSize {
			b.Fatalf("conform: %+v %v", rep.Summary, err)
		}
		start, cpu = time.Now(), cpuTime()
		arep, err := Audit(ctx, paths, Options{Jobs: jobs, Getenv: getenv})
		tAudit, cAudit = tAudit+time.Since(start), cAudit+cpuTime()-cpu
		if err != nil || arep.Summary.Repositories != fleetSize || arep.Summary.Errors != 0 {
			b.Fatalf("audit: %+v %v", arep.Summary, err)
		}
	}
	n := float64(fleetSize * b.N)
	b.ReportMetric(n/tAdopt.Seconds(), "adopt-repos/s")
	b.ReportMetric(n/tConform.Seconds(), "conform-repos/s")
	b.ReportMetric(n/tAudit.Seconds(), "audit-repos/s")
	b.ReportMetric(float64(cAdopt.Microseconds())/1000/n, "adopt-cpu-ms/repo")
	b.ReportMetric(float64(cConform.Microseconds())/1000/n, "conform-cpu-ms/repo")
	b.ReportMetric(float64(cAudit.Microseconds())/1000/n, "audit-cpu-ms/repo")
}
