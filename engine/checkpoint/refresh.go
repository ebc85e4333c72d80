package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// RefreshAge is the age at which a cached answer also starts a refresh in
// the background (Refresher): 15 s, half of MaxCacheAge, so that an agent
// editing at least once per 15 s in a monorepo keeps finding a fresh entry
// and the pre-edit row never scans inside the call (at 500,000 files one
// scan takes 2-3 s of the 5 s pre-edit budget; docs/performance.md).
const RefreshAge = MaxCacheAge / 2

// RefreshBound is how long one background refresh may run (its scan is
// stopped at the deadline) and how old a refresh lock must be before another
// call takes it over from a refresh that died: 2 minutes.
const RefreshBound = 2 * time.Minute

// RefreshVerb is the first argument of the process a Refresher starts
// (`hookwarden checkpoint-refresh DIR`); cmd/hookwarden serves it before
// building its CLI, with RunRefresh.
const RefreshVerb = "checkpoint-refresh"

// refreshLock is the lock file, under <git dir>/hookwarden, that a started
// refresh holds until it ends, so concurrent hook calls start one scan.
const refreshLock = "refresh.lock"

// Refresher starts, without waiting for it, a scan of the checkout
// containing dir that stores a new cache entry. EvaluateCachedWith calls it
// with an absolute dir when it answers from an entry at least RefreshAge
// old; it must return at once. A nil Refresher starts nothing.
type Refresher func(dir string)

// ProcessRefresher returns the Refresher the hook path uses: it takes the
// checkout's refresh lock (created exclusively; a lock older than
// RefreshBound is taken over) and starts exe (the hookwarden binary) as
// `exe checkpoint-refresh DIR` in a session of its own, stdin, stdout and
// stderr on the null device, without waiting for it, so the client sees
// the hook exit as before. Nothing is started when the lock is held or
// anything fails (the next call past MaxCacheAge scans inside the call, as
// it would without a refresh).
func ProcessRefresher(exe string) Refresher {
	return func(dir string) {
		place, ok := locate(dir)
		if !ok || exe == "" {
			return
		}
		lock := filepath.Join(place.dir, refreshLock)
		if !takeLock(lock, time.Now()) {
			return
		}
		cmd := exec.Command(exe, RefreshVerb, dir)
		cmd.Dir = dir
		detach(cmd)
		if err := cmd.Start(); err != nil {
			_ = os.Remove(lock)
			return
		}
		_ = cmd.Process.Release()
	}
}

// takeLock creates lock exclusively, replacing one last written more than
// RefreshBound before now; it reports whether this call holds it.
func takeLock(lock string, now time.Time) bool {
	if err := os.MkdirAll(filepath.Dir(lock), 0o700); err != nil {
		return false
	}
	for range 2 {
		f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			_, werr := f.WriteString(strconv.FormatInt(now.UnixNano(), 10) + "\n")
			if cerr := f.Close(); werr != nil || cerr != nil {
				_ = os.Remove(lock)
				return false
			}
			return true
		}
		if !errors.Is(err, os.ErrExist) {
			return false
		}
		st, err := os.Stat(lock)
		if err != nil || now.Sub(st.ModTime()) <= RefreshBound {
			return false
		}
		_ = os.Remove(lock)
	}
	return false
}

// RunRefresh is the background refresh itself (RefreshVerb): it scans the
// checkout containing dir (Evaluate, which stores the entry) within
// RefreshBound and then removes the checkout's refresh lock. It returns the
// scan's error, wrapped with dir.
func RunRefresh(ctx context.Context, dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("checkpoint refresh %s: %w", dir, err)
	}
	ctx, cancel := context.WithTimeout(ctx, RefreshBound)
	defer cancel()
	_, err = Evaluate(ctx, abs, DefaultConfig(), false)
	if place, ok := locate(abs); ok {
		_ = os.Remove(filepath.Join(place.dir, refreshLock))
	}
	if err != nil {
		return fmt.Errorf("checkpoint refresh %s: %w", abs, err)
	}
	return nil
}
