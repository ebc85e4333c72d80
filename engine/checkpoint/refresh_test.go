package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestAgingEntryAsksForRefresh: an answer from an entry at least RefreshAge
// old calls the Refresher once with the directory judged, and still answers
// from the cache (no git); a younger entry calls nothing.
func TestAgingEntryAsksForRefresh(t *testing.T) {
	dir := cachedRepo(t, 2)
	var asked []string
	eval := EvaluateCachedWith(func(d string) { asked = append(asked, d) })
	noGit(t)
	if _, err := eval(context.Background(), dir, DefaultConfig(), false); err != nil || len(asked) != 0 {
		t.Fatalf("fresh entry: err=%v refreshes=%q, want a cached answer and no refresh", err, asked)
	}
	ageEntry(t, dir, RefreshAge+time.Second)
	r, err := eval(context.Background(), dir, DefaultConfig(), false)
	if err != nil || len(r.Files) != 2 {
		t.Fatalf("aging entry: %+v err=%v, want the cached answer", r, err)
	}
	if !slices.Equal(asked, []string{dir}) {
		t.Fatalf("aging entry asked for refreshes of %q, want one of %s", asked, dir)
	}
}

// TestRefreshLockIsExclusive: one refresh lock at a time; a lock older than
// RefreshBound (its refresh died) is taken over.
func TestRefreshLockIsExclusive(t *testing.T) {
	lock := filepath.Join(t.TempDir(), "hookwarden", refreshLock)
	now := time.Now()
	if !takeLock(lock, now) {
		t.Fatal("first takeLock failed")
	}
	if takeLock(lock, now) {
		t.Fatal("a held lock was taken again")
	}
	old := now.Add(-RefreshBound - time.Second)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	if !takeLock(lock, now) {
		t.Fatal("a lock older than RefreshBound was not taken over")
	}
}

// TestRunRefreshStoresAndUnlocks: the refresh scans (a file made after the
// last scan is in the new entry) and removes the lock its starter took.
func TestRunRefreshStoresAndUnlocks(t *testing.T) {
	dir := cachedRepo(t, 1)
	lock := filepath.Join(dir, ".git", "hookwarden", refreshLock)
	if !takeLock(lock, time.Now()) {
		t.Fatal("takeLock failed")
	}
	writeFile(t, filepath.Join(dir, "later.txt"), "x\n")
	if err := RunRefresh(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	if e := readEntry(t, dir); !slices.Contains(e.Files, "later.txt") {
		t.Fatalf("refreshed entry holds %q, want later.txt in it", e.Files)
	}
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Fatalf("the refresh left its lock: %v", err)
	}
}
