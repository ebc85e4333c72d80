// Package posixtest gives tests the POSIX operations they set their scene
// with (a FIFO, a umask, a signal), one call each, and on Windows either the
// counterpart or a stated skip: a test that cannot happen there says why
// instead of failing to compile or passing silently. Only tests import it.
package posixtest

import (
	"io/fs"
	"os"
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

// Perm returns the permission bits a file created or chmod-ed with p shows
// on this platform: p itself on Unix; on Windows, where Go maps the mode to
// the read-only attribute alone, 0666, or 0444 when p has no owner write bit
// (0200). Tests compare a file's mode with Perm(want).
func Perm(p fs.FileMode) fs.FileMode {
	if !isWindows {
		return p.Perm()
	}
	if p&0o200 != 0 {
		return 0o666
	}
	return 0o444
}

// Symlink makes a symbolic link at newname pointing to oldname, failing t
// on an error, and skips t where this system cannot make one that Lstat
// then reports as a link: Windows without Developer Mode or the
// SeCreateSymbolicLinkPrivilege, and wine, whose CreateSymbolicLink
// returns success without creating a link.
func Symlink(t testing.TB, oldname, newname string) {
	t.Helper()
	err := os.Symlink(oldname, newname)
	if isWindows {
		if fi, lerr := os.Lstat(newname); err != nil || lerr != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Skipf("windows: this system made no symbolic link (%v): needs Developer Mode or SeCreateSymbolicLinkPrivilege, and wine creates none", err)
		}
		return
	}
	if err != nil {
		t.Fatalf("symlink %s -> %s: %v", newname, oldname, err)
	}
}
