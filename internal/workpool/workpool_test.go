package workpool

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestRunBoundedAndComplete: every index runs exactly once, never more than
// jobs at a time, and after is called once per job.
func TestRunBoundedAndComplete(t *testing.T) {
	for _, tc := range []struct{ n, jobs int }{{0, 4}, {1, 4}, {10, 1}, {50, 3}, {7, 0}} {
		var running, most, after atomic.Int64
		var mu sync.Mutex
		seen := make([]int, tc.n)
		Run(tc.n, tc.jobs, func(i int) {
			r := running.Add(1)
			for {
				m := most.Load()
				if r <= m || most.CompareAndSwap(m, r) {
					break
				}
			}
			time.Sleep(time.Millisecond)
			mu.Lock()
			seen[i]++
			mu.Unlock()
			running.Add(-1)
		}, func() { after.Add(1) })
		limit := int64(max(tc.jobs, 1))
		if most.Load() > limit {
			t.Errorf("n=%d jobs=%d: %d ran at once", tc.n, tc.jobs, most.Load())
		}
		if tc.n > 1 && tc.jobs > 1 && most.Load() < 2 {
			t.Errorf("n=%d jobs=%d: never ran two at once", tc.n, tc.jobs)
		}
		for i, c := range seen {
			if c != 1 {
				t.Errorf("n=%d jobs=%d: index %d ran %d times", tc.n, tc.jobs, i, c)
			}
		}
		if after.Load() != int64(tc.n) {
			t.Errorf("n=%d jobs=%d: after called %d times", tc.n, tc.jobs, after.Load())
		}
	}
}
