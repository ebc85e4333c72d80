//go:build unix

package safewrite

import (
	"os"
	"syscall"
)

// openNoFollow opens path read-only, refusing a final symlink (ELOOP) and not
// blocking on a FIFO.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
