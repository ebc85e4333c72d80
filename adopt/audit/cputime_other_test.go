//go:build !unix

package audit

import "time"

// cpuTime is 0 outside Unix: getrusage(2) has no counterpart wired here,
// so the fleet benchmark's cpu-ms/repo metrics read 0 on Windows.
func cpuTime() time.Duration { return 0 }
