//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package spawn

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// flockSupported: this platform has flock(2).
const flockSupported = true

// errLockHeld is flockFile's error when another open file description
// holds the lock and wait is false.
var errLockHeld = errors.New("the lock is held")

// flockFile takes an exclusive flock(2) on f, waiting for it when wait is
// set; without wait a held lock returns errLockHeld at once. The lock
// belongs to f's open file description and ends when f is closed or the
// process dies.
func flockFile(f *os.File, wait bool) error {
	how := unix.LOCK_EX
	if !wait {
		how |= unix.LOCK_NB
	}
	for {
		err := unix.Flock(int(f.Fd()), how)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EWOULDBLOCK):
			return errLockHeld
		}
		return err
	}
}

// openNoFollow opens path for reading without following a final symbolic
// link and without blocking on a FIFO.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
}
