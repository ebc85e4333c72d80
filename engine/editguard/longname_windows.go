//go:build windows

package editguard

import (
	"golang.org/x/sys/windows"

	"github.com/hookwarden/hookwarden/policy"
)

// longName returns the long form of the existing path p: Windows resolves
// an 8.3 short name (.CLAUD~1 for .claude) to the same file, so the guard's
// name checks read the long name GetLongPathNameW gives (Win32 API
// reference, GetLongPathNameW). p itself when that fails.
func longName(p string) string {
	u, err := windows.UTF16PtrFromString(p)
	if err != nil {
		return p
	}
	buf := make([]uint16, windows.MAX_LONG_PATH)
	n, err := windows.GetLongPathName(u, &buf[0], uint32(len(buf)))
	if err != nil || n == 0 || int(n) > len(buf) {
		return p
	}
	return windows.UTF16ToString(buf[:n])
}

// win32Component returns a path component as Win32 opens it
// (policy.Win32Name: a "::$DATA" suffix and trailing dots and spaces
// dropped).
func win32Component(c string) string { return policy.Win32Name(c) }
