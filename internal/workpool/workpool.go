// Package workpool runs independent jobs on a bounded number of goroutines:
// the one worker pool of a fleet run (adopt's plan and write phases, audit's
// repositories).
package workpool

import "sync"

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
