// Package workpool runs independent jobs on a bounded number of goroutines:
// the one worker pool of a fleet run (adopt's plan and write phases, audit's
// repositories).
package workpool

import (
	"runtime"
	"sync"
)

// JobsPerCPU is how many repositories a fleet run (adopt, conform, audit,
// --commit) works on at once per CPU when --jobs is not given. A fleet
// run waits more than it computes: every written file is synced to disk
// before its rename, and each repository asks git (check-ignore, config)
// in child processes. Measured with BenchmarkFleet1000 (docs/performance.md,
// "Fleet throughput"): on 2 cores one job per CPU left the cores idle
// while the workers waited.
const JobsPerCPU = 4

// DefaultJobs returns the number of repositories a fleet run works on at
// once when the caller gives none: JobsPerCPU per CPU (runtime.NumCPU).
func DefaultJobs() int { return JobsPerCPU * runtime.NumCPU() }

// Run calls fn(i) for every i in 0..n-1 on at most jobs goroutines (jobs < 1
// counts as 1) and returns when every call has returned. Calls may run in
// any order and concurrently; fn must be safe for that. after, when not nil,
// is called once after each fn call, from the goroutine that ran it.
func Run(n, jobs int, fn func(i int), after func()) {
	if jobs < 1 {
		jobs = 1
	}
	idx := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < jobs && w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range idx {
				fn(i)
				if after != nil {
					after()
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		idx <- i
	}
	close(idx)
	wg.Wait()
}
