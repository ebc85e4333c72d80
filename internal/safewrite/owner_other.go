//go:build !unix

package safewrite

import (
	"fmt"
	"os"
)

func canOwn(int, int) bool { return true }

func setOwner(*os.File, int, int) error { return nil }

func setPathOwner(string, int, int) error { return nil }

// writable refuses a file with the read-only attribute (Windows: the only
// mode bit there is, Go's 0200); for the rest this platform relies on the
// write itself failing.
func writable(path string, dir bool) error {
	if dir {
		return nil
	}
	fi, err := os.Lstat(path)
	if err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o200 == 0 {
		return fmt.Errorf("%s: %w: it has the read-only attribute; clear it (attrib -r) to let hookwarden replace it", path, ErrNotWritable)
	}
	return nil
}

// freeBytes: unknown on this platform; the write itself reports a full disk.
func freeBytes(string) (uint64, error) { return ^uint64(0), nil }
