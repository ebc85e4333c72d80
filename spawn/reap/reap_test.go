//go:build linux

package reap

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hookwarden/hookwarden/internal/testbin"
)

// TestMain runs Run as the reaper process when REAP_TEST_SCRIPT is set (sh -c that script)
// (the reaper's prctl and wait4(-1) are process-wide: never in the test
// process itself).
func TestMain(m *testing.M) {
	if a := os.Getenv("REAP_TEST_SCRIPT"); a != "" {
		ws, err := Run([]string{"/bin/sh", "-c", a}, os.Getenv("REAP_TEST_REPORT"))
		if err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(99)
		}
		Exit(ws)
	}
	os.Exit(m.Run())
}

func reaper(t *testing.T, script string) (int, Report, string) {
	t.Helper()
	dir := t.TempDir()
	rep := filepath.Join(dir, "report")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "REAP_TEST_SCRIPT="+script, "REAP_TEST_REPORT="+rep)
	cmd.WaitDelay = 30 * time.Second // a leftover holding the output pipe does not hang the test
	out, err := cmd.CombinedOutput()
	code := testbin.ExitCode(t, err)
	b, err := os.ReadFile(rep)
	if err != nil {
		t.Fatalf("no report (%v): %s", err, out)
	}
	r, err := ParseReport(b)
	if err != nil {
		t.Fatal(err)
	}
	return code, r, dir
}

// TestReapEndsLeftovers: a job the engine leaves running, in its own
// session (setsid) and double-forked, is gone when the reaper returns,
// and the engine's exit code is the reaper's.
func TestReapEndsLeftovers(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the subreaper is Linux only; elsewhere only the engine's process group is ended")
	}
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid program to start a job in its own session")
	}
	script := `(setsid sh -c 'echo $$ > pid1; exec sleep 600' &) ; (sh -c 'echo $$ > pid2; exec sleep 600' &) ;
		while [ ! -s pid1 ] || [ ! -s pid2 ]; do sleep 0.05; done; exit 7`
	code, r, dir := reaper(t, script)
	if code != 7 {
		t.Errorf("exit %d, want the engine's 7", code)
	}
	if r.Killed < 2 || r.Survived != 0 {
		t.Errorf("report %+v, want both jobs killed", r)
	}
	for _, f := range []string{"pid1", "pid2"} {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatalf("%s: %q", f, b)
		}
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("the job of %s (pid %d) outlived the reaper: %v", f, pid, err)
		}
	}
}

// TestReapSignal: an engine ended by a signal ends the reaper by the same
// signal.
func TestReapSignal(t *testing.T) {
	code, r, _ := reaper(t, `kill -TERM $$; sleep 5`)
	if code != -1 || r.Survived != 0 {
		t.Errorf("exit %d report %+v, want the reaper killed by SIGTERM", code, r)
	}
}
