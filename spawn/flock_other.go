//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package spawn

import (
	"errors"
	"os"
)

// flockSupported: no flock(2) here, so the sweep judges nothing
// (SweepUnsupported) and a run's lock file only marks its files.
const flockSupported = false

// errLockHeld is flockFile's error for a held lock (never returned here).
var errLockHeld = errors.New("the lock is held")

// flockFile does nothing on this platform (see flockSupported).
func flockFile(*os.File, bool) error { return nil }

// openNoFollow opens path for reading.
func openNoFollow(path string) (*os.File, error) { return os.Open(path) }
