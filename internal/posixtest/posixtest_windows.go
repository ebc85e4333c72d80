//go:build windows

package posixtest

import (
	"io/fs"
	"os/exec"
	"testing"

	"golang.org/x/sys/windows"
)

const isWindows = true

// Mkfifo skips t: Windows has no FIFO in its file system (named pipes are
// under \\.\pipe\), so a FIFO where a file belongs cannot happen there.
func Mkfifo(t testing.TB, path string, _ fs.FileMode) {
	t.Helper()
	t.Skip("windows: no FIFO can stand where a file belongs (named pipes live under \\\\.\\pipe\\, not in the file system)")
}

// Umask skips t: Windows has no umask, and of the mode bits only the
// read-only attribute exists.
func Umask(t testing.TB, _ int) {
	t.Helper()
	t.Skip("windows: no umask, and no mode bits but the read-only attribute")
}

// KillSelf ends this process at once with TerminateProcess (exit code
// KilledCode): no deferred function runs, as in a crash.
func KillSelf() {
	windows.TerminateProcess(windows.CurrentProcess(), KilledCode)
	select {}
}

// Kill ends process pid with TerminateProcess (exit code KilledCode).
func Kill(pid int) error {
	h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	return windows.TerminateProcess(h, KilledCode)
}

// Alive reports whether process pid still exists and has not exited.
func Alive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == 259 // STILL_ACTIVE
}

func killed(ee *exec.ExitError) bool { return ee.ExitCode() == KilledCode }
