//go:build unix

package audit

import (
	"syscall"
	"time"
)

// cpuTime returns the user and system CPU time of this process and its
// waited-for children (the git processes) so far: on a shared machine the
// CPU per repository is the figure that does not move with the load.
func cpuTime() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return total
}
