//go:build windows

package editguard

import (
	"strings"

	"golang.org/x/sys/windows"
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

// win32Component returns a path component as Win32 opens it: trailing
// dots and spaces are dropped from a name ("Naming Files, Paths, and
// Namespaces": ".hookwarden.yaml." and ".hookwarden.yaml " open
// .hookwarden.yaml), except for the names made only of dots, and a
// "::$DATA" stream suffix is dropped.
func win32Component(c string) string {
	// NAME::$DATA opens NAME's main stream (NTFS "File Streams"): the
	// same file.
	if n := len(c) - len("::$DATA"); n > 0 && strings.EqualFold(c[n:], "::$DATA") {
		c = c[:n]
	}
	t := c
	for len(t) > 0 && (t[len(t)-1] == '.' || t[len(t)-1] == ' ') {
		t = t[:len(t)-1]
	}
	if t == "" {
		return c
	}
	return t
}
