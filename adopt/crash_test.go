package adopt

import (
	"context"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// renameioTemp matches the temporary files renameio leaves when a process
// dies between creating and renaming one: "." + the target's base name +
// decimal digits, in the target's own directory.
var renameioTemp = regexp.MustCompile(`^\..+[0-9]+$`)

// buildBinary builds cmd/hookwarden into dir and returns its path.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "hookwarden")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "../cmd/hookwarden").CombinedOutput()
	if err != nil {
		t.Fatalf("building hookwarden: %v\n%s", err, out)
	}
	return bin
}

func runAdopt(t *testing.T, bin, fleet, codexHome string) *exec.Cmd {
	cmd := exec.Command(bin, "adopt", "--fleet", fleet, "--jobs", "2", "--json")
	cmd.Env = append(os.Environ(), "CODEX_HOME="+codexHome)
	return cmd
}

// fleetTree reads a whole fleet: repo-relative path → content, for every
// repository below base.
func fleetTree(t *testing.T, base string) map[string]string {
	out := map[string]string{}
	ents, _ := os.ReadDir(base)
	for _, e := range ents {
		for p, c := range tree(t, filepath.Join(base, e.Name())) {
			out[e.Name()+"/"+p] = c
		}
	}
	return out
}

// TestCrashSafety builds the real binary, kills it with SIGKILL at seeded
// random points of a fleet adopt, and checks after each kill that every file
// holds either its old or its new content (no partial file; leftovers only
// renameio temporaries, which nothing reads), and that a rerun converges to
// the tree of an uninterrupted run.
func TestCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs it many times; skipped with -short")
	}
	bin := buildBinary(t)
	codexHome := t.TempDir()
	const repos = 40

	// Reference: one uninterrupted run.
	ref := filepath.Join(t.TempDir(), "fleet")
	genFleet(t, ref, repos)
	old := fleetTree(t, ref)
	start := time.Now()
	// genFleet makes no failing repository below 50: exit 0 expected.
	if out, err := runAdopt(t, bin, ref, codexHome).CombinedOutput(); err != nil {
		t.Fatalf("reference run: %v\n%s", err, out)
	}
	full := time.Since(start)
	want := fleetTree(t, ref)
	if len(want) <= len(old) {
		t.Fatal("reference run wrote nothing")
	}

	rng := rand.New(rand.NewSource(20261129))
	const iterations = 8
	killedMidway := 0
	for it := 0; it < iterations; it++ {
		fleet := filepath.Join(t.TempDir(), "fleet")
		genFleet(t, fleet, repos)
		cmd := runAdopt(t, bin, fleet, codexHome)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		delay := time.Duration(rng.Int63n(int64(full)))
		time.Sleep(delay)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()

		got := fleetTree(t, fleet)
		changed := 0
		for p, c := range got {
			base := filepath.Base(p)
			switch {
			case strings.Contains(p, "/"+BackupDir+"/"):
				// A backup is a complete copy of the old file.
				rel := p[strings.Index(p, BackupDir+"/")+len(BackupDir)+1:]
				rel = rel[strings.IndexByte(rel, '/')+1:]
				orig := p[:strings.IndexByte(p, '/')] + "/" + rel
				if renameioTemp.MatchString(base) {
					continue
				}
				if oc, ok := old[orig]; !ok || content(oc) != content(c) {
					t.Errorf("iteration %d: backup %s is not the old content of %s", it, p, orig)
				}
			case c == old[p]:
			case c == want[p]:
				changed++
			case renameioTemp.MatchString(base) && old[p] == "" && want[p] == "":
				// a temporary of an interrupted write; never read by anyone
			default:
				t.Errorf("iteration %d (killed after %v): %s is neither its old nor its new content:\n%s", it, delay, p, c)
			}
		}
		if changed > 0 && changed < len(want)-len(old) {
			killedMidway++
		}
		// Rerun converges to the uninterrupted tree.
		if out, err := runAdopt(t, bin, fleet, codexHome).CombinedOutput(); err != nil {
			t.Fatalf("iteration %d: rerun failed: %v\n%s", it, err, out)
		}
		after := fleetTree(t, fleet)
		for p, c := range want {
			if strings.Contains(p, "/"+BackupDir+"/") {
				continue
			}
			if after[p] != c {
				t.Errorf("iteration %d: after rerun %s differs from the uninterrupted run", it, p)
			}
		}
		for p := range after {
			if _, ok := want[p]; !ok && !strings.Contains(p, "/"+BackupDir+"/") && !renameioTemp.MatchString(filepath.Base(p)) {
				t.Errorf("iteration %d: after rerun %s exists, not in the uninterrupted run", it, p)
			}
		}
	}
	t.Logf("uninterrupted run %v; %d of %d kills landed mid-run", full, killedMidway, iterations)
	if killedMidway == 0 {
		t.Errorf("no kill landed in the middle of the writes; the test proved nothing")
	}
}

// content strips tree()'s mode line.
func content(s string) string { return s[strings.IndexByte(s, '\n')+1:] }
