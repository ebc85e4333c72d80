//go:build !unix

package spawn

import (
	"fmt"
	"os"
)

// stampOf outside Unix has no inode or change time: size and modification
// time only (a binary replaced in place with the same size within one
// modification-time tick would not be probed again).
func stampOf(path string) (binaryStamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return binaryStamp{}, fmt.Errorf("stat %s: %w", path, err)
	}
	return binaryStamp{Path: path, Size: fi.Size(), Mtime: fi.ModTime().UnixNano()}, nil
}

// foreignOwner outside Unix cannot read an owner; it reports false and the
// mode bits alone decide.
func foreignOwner(fi os.FileInfo) bool { return false }

// lockFile outside Unix takes no lock; the compare before the rename still
// refuses a store that changed underneath.
func lockFile(f *os.File) error { return nil }
