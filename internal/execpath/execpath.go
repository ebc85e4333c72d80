// Package execpath finds a program on a PATH that is given, not the
// process's own (os/exec.LookPath reads the process environment): the
// PATH of a hook, a spawned client or a judged command.
package execpath

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Find returns the path of the first executable regular file called name
// in the directories of pathList (a PATH value, filepath.ListSeparator
// between entries) and true, or "" and false when none holds one. A
// relative entry (an empty one included) is taken relative to dir when dir
// is absolute, and passed over otherwise. Symbolic links are followed for
// the check; the returned path is the entry joined with the name found.
//
// Executable means, on Unix, any execute bit set. On Windows a file has no
// execute bits (Go reports 0666 or 0444), and a program is found by its
// extension as os/exec's LookPath does there (src/os/exec/lp_windows.go):
// name itself when it already ends in one of the extensions, else name
// with each of .com, .exe, .bat and .cmd in turn (LookPath's list when
// PATHEXT is unset; the PATHEXT of the PATH's owner is not given here).
func Find(name, pathList, dir string) (string, bool) {
	return find(name, pathList, dir, runtime.GOOS == "windows")
}

// windowsExts are the program extensions Find tries on Windows.
var windowsExts = [...]string{".com", ".exe", ".bat", ".cmd"}

// find is Find with the platform's rule chosen by windows.
func find(name, pathList, dir string, windows bool) (string, bool) {
	names := []string{name}
	if windows {
		names = windowsNames(name)
	}
	for _, d := range filepath.SplitList(pathList) {
		if !filepath.IsAbs(d) {
			if !filepath.IsAbs(dir) {
				continue
			}
			d = filepath.Join(dir, d)
		}
		for _, n := range names {
			full := filepath.Join(d, n)
			fi, err := os.Stat(full)
			if err == nil && fi.Mode().IsRegular() && (windows || fi.Mode().Perm()&0o111 != 0) {
				return full, true
			}
		}
	}
	return "", false
}

// windowsNames returns the file names a Windows PATH search tries for name.
func windowsNames(name string) []string {
	ext := strings.ToLower(filepath.Ext(name))
	for _, e := range windowsExts {
		if ext == e {
			return []string{name}
		}
	}
	out := make([]string, 0, len(windowsExts))
	for _, e := range windowsExts {
		out = append(out, name+e)
	}
	return out
}
