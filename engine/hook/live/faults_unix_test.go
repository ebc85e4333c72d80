//go:build unix

package live

import (
	"os"
	"syscall"
)

// minorFaults returns the minor page faults of an ended process
// (getrusage's ru_minflt).
func minorFaults(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Minflt)
	}
	return 0
}
