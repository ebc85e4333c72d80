//go:build unix

package posixtest

import (
	"io/fs"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

const isWindows = false

// Mkfifo makes a FIFO at path with permission bits perm, failing t when it
// cannot. On Windows t is skipped (no FIFO lives in its file system: named
// pipes are under \\.\pipe\, so a FIFO where a file belongs cannot happen).
func Mkfifo(t testing.TB, path string, perm fs.FileMode) {
	t.Helper()
	if err := syscall.Mkfifo(path, uint32(perm.Perm())); err != nil {
		t.Fatalf("mkfifo %s: %v", path, err)
	}
}

// Umask sets the process umask to mask until t ends (restored by
// t.Cleanup). On Windows t is skipped: there is no umask, and of the mode
// bits only the read-only attribute exists.
func Umask(t testing.TB, mask int) {
	t.Helper()
	old := syscall.Umask(mask)
	t.Cleanup(func() { syscall.Umask(old) })
}

// KillSelf ends this process at once, as a crash would (SIGKILL; on
// Windows TerminateProcess with KilledCode): no deferred function runs.
func KillSelf() {
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	time.Sleep(time.Minute) // the signal arrives first
}

// Kill ends process pid at once (SIGKILL; TerminateProcess on Windows).
func Kill(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }

// Alive reports whether process pid still exists (kill(pid, 0)).
func Alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func killed(ee *exec.ExitError) bool {
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}
