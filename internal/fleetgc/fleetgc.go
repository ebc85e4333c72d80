// Package fleetgc sets the garbage collector's pace for the fleet verbs
// (adopt, conform, audit). Each repository they visit reads a dozen files
// (about 330 KiB, most of it the rendered launcher, interceptor and
// plugin) that are garbage once the repository is done, while the heap
// that lives across repositories is a few MiB. At Go's default pace
// (GOGC=100) that made the collector run every few repositories: about 30%
// of audit's CPU time over 1,000 repositories (BenchmarkFleet1000,
// 2026-12-06: 1.79 ms of CPU a repository at GOGC=100, 1.27-1.31 ms at
// 400; docs/performance.md "Fleet throughput").
package fleetgc

import (
	"runtime/debug"
)

// Percent is the GOGC value the fleet verbs run with when the user set
// none: the heap may grow to five times what is live before a collection.
const Percent = 400

// Tune sets the collector's pace to Percent unless getenv("GOGC") is set
// (the user's own choice stands), and returns the function that restores
// the pace it replaced (nothing to restore: a function that does nothing).
func Tune(getenv func(string) string) (restore func()) {
	if getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(Percent)
	return func() { debug.SetGCPercent(old) }
}
