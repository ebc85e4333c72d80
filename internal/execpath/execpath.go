// Package execpath finds a program on a PATH that is given, not the
// process's own (os/exec.LookPath reads the process environment): the
// PATH of a hook, a spawned client or a judged command.
package execpath

import (
	"os"
	"path/filepath"
)

// Find returns the path of the first executable regular file called name
// in the directories of pathList (a PATH value, filepath.ListSeparator
// between entries) and true, or "" and false when none holds one. A
// relative entry (an empty one included) is taken relative to dir when dir
// is absolute, and passed over otherwise. Symbolic links are followed for
// the check; the returned path is the entry joined with name.
func Find(name, pathList, dir string) (string, bool) {
	for _, d := range filepath.SplitList(pathList) {
		if !filepath.IsAbs(d) {
			if !filepath.IsAbs(dir) {
				continue
			}
			d = filepath.Join(dir, d)
		}
		full := filepath.Join(d, name)
		if fi, err := os.Stat(full); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return full, true
		}
	}
	return "", false
}
