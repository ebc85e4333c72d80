// Package posixtest gives tests the POSIX operations they set their scene
// with (a FIFO, a umask, a signal), one call each, and on Windows either the
// counterpart or a stated skip: a test that cannot happen there says why
// instead of failing to compile or passing silently. Only tests import it.
package posixtest

import (
	"os/exec"
	"testing"
)

// SkipOnWindows skips t with why when the test binary runs on Windows
// (GOOS=windows, natively or under wine).
func SkipOnWindows(t testing.TB, why string) {
	t.Helper()
	if isWindows {
		t.Skip("windows: " + why)
	}
}

// KilledCode is the exit code KillSelf and Kill give a process on Windows
// (128 + SIGKILL's number, as a Unix shell reports a killed child).
const KilledCode = 137

// KilledExit reports whether err, from an exec.Cmd that ran a process
// which called KillSelf (or was killed with Kill), says the process was
// killed rather than exiting: SIGKILL on Unix, exit code KilledCode from
// TerminateProcess on Windows.
func KilledExit(err error) bool {
	ee, ok := err.(*exec.ExitError)
	return ok && killed(ee)
}
