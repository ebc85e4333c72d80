//go:build !linux

package audit

import (
	"os"
	"testing"
)

// openPTY skips the test: the pseudo-terminal is opened through Linux's
// /dev/ptmx, which this platform does not have.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	t.Skip("no pseudo-terminal here: the test opens Linux's /dev/ptmx")
	return nil, nil
}
