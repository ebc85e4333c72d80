//go:build !unix

package live

import "os"

// minorFaults is 0 outside Unix: Windows reports no minor page faults in
// the process's usage (its Rusage holds times only), so the benchmark's
// minflt metric reads 0 there.
func minorFaults(*os.ProcessState) int64 { return 0 }
