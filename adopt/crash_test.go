package adopt

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/hookwarden/hookwarden/internal/posixtest"
	"github.com/hookwarden/hookwarden/internal/testbin"
)

// buildBinary returns cmd/hookwarden built from this tree
// (internal/testbin).
func buildBinary(t *testing.T) string {
	t.Helper()
	return testbin.Hookwarden(t)
}

// TestCrashChild is the adopt process TestCrashAtEveryWritePoint kills (it
// runs only as that test's child, from the same test binary): it adopts the
// repositories listed in HOOKWARDEN_TEST_CRASH_PATHS (one per line) with
// one job, counting the write points (safewrite.WriteProbed and
// RemoveLeftovers probes); at point HOOKWARDEN_TEST_CRASH_AT it SIGKILLs
// itself. With 0 it runs to the end and writes the count of points to
// HOOKWARDEN_TEST_CRASH_COUNT. The probe is an unexported Options field,
// so no production caller can set it.
func TestCrashChild(t *testing.T) {
	list := os.Getenv("HOOKWARDEN_TEST_CRASH_PATHS")
	if list == "" {
		t.Skip("the child process of TestCrashAtEveryWritePoint")
	}
	at, _ := strconv.Atoi(os.Getenv("HOOKWARDEN_TEST_CRASH_AT"))
	home := os.Getenv("HOOKWARDEN_TEST_CRASH_HOME")
	n := 0
	opts := Options{Jobs: 1, Now: fixedNow, Getenv: func(k string) string {
		if k == "CODEX_HOME" || k == "HOME" {
			return home
		}
		return ""
	}}
	opts.probe = func(string) {
		n++
		if n == at {
			posixtest.KillSelf()
		}
	}
	rep, err := Adopt(context.Background(), filepath.SplitList(list), opts)
	if err != nil || rep.Failed() {
		t.Fatalf("adopt: %v %+v", err, rep)
	}
	if f := os.Getenv("HOOKWARDEN_TEST_CRASH_COUNT"); f != "" {
		if err := os.WriteFile(f, []byte(fmt.Sprint(n)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// RunCrashChild (for the external test package) runs TestCrashChild of this test binary over paths with
// the kill at point at (0: none), HOME and CODEX_HOME set to home, and
// returns the count of write points (at 0) and whether the child was
// killed.
func RunCrashChild(t *testing.T, paths []string, at int, home string) (int, bool) {
	t.Helper()
	countFile := filepath.Join(t.TempDir(), "count")
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(),
		"HOOKWARDEN_TEST_CRASH_PATHS="+joinList(paths),
		"HOOKWARDEN_TEST_CRASH_AT="+strconv.Itoa(at),
		"HOOKWARDEN_TEST_CRASH_HOME="+home,
		"HOOKWARDEN_TEST_CRASH_COUNT="+countFile)
	out, err := cmd.CombinedOutput()
	if posixtest.KilledExit(err) {
		return 0, true
	}
	if err != nil {
		t.Fatalf("crash child (at %d): %v\n%s", at, err, out)
	}
	data, err := os.ReadFile(countFile)
	if err != nil {
		t.Fatalf("crash child wrote no count: %v\n%s", err, out)
	}
	n, _ := strconv.Atoi(string(data))
	return n, false
}

func joinList(paths []string) string {
	s := ""
	for i, p := range paths {
		if i > 0 {
			s += string(filepath.ListSeparator)
		}
		s += p
	}
	return s
}
