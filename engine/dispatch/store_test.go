package dispatch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookwarden/hookwarden/policy"
)

// clock is a settable clock for Store.Now.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newStore(t *testing.T) (*Store, *clock) {
	t.Helper()
	c := &clock{t: time.Date(2026, 12, 1, 21, 0, 0, 0, time.UTC)}
	return &Store{Dir: filepath.Join(t.TempDir(), "store"), Now: c.now}, c
}

func put(t *testing.T, s *Store, key string) {
	t.Helper()
	if err := s.Update(context.Background(), key, func(*Row) (*Row, error) { return &Row{}, nil }); err != nil {
		t.Fatal(err)
	}
}

func has(t *testing.T, s *Store, key string) bool {
	t.Helper()
	r, err := s.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	return r != nil
}

// TestStoreEvictsOldestAtTheCap: the 129th row evicts the least recently
// written one, never refuses.
func TestStoreEvictsOldestAtTheCap(t *testing.T) {
	s, c := newStore(t)
	for i := 0; i < MaxRows; i++ {
		c.t = c.t.Add(time.Second)
		put(t, s, AgentKey("s", fmt.Sprint(i)))
	}
	c.t = c.t.Add(time.Second)
	put(t, s, AgentKey("s", "new"))
	if n, err := s.count(); err != nil || n != MaxRows {
		t.Fatalf("%d rows (%v), want %d", n, err, MaxRows)
	}
	if has(t, s, AgentKey("s", "0")) {
		t.Error("the oldest row survived the cap")
	}
	if !has(t, s, AgentKey("s", "1")) || !has(t, s, AgentKey("s", "new")) {
		t.Error("a newer row was evicted")
	}
}

// TestStoreExpiry: pending and provisional hand-back rows expire after five
// minutes, agent rows after a day.
func TestStoreExpiry(t *testing.T) {
	s, c := newStore(t)
	put(t, s, PendingKey("s", "t1"))
	put(t, s, HandbackKey("s", "a1", "hb1"))
	put(t, s, AgentKey("s", "a1"))
	c.t = c.t.Add(PendingTTL - time.Second)
	if !has(t, s, PendingKey("s", "t1")) || !has(t, s, HandbackKey("s", "a1", "hb1")) {
		t.Fatal("a pending row expired early")
	}
	c.t = c.t.Add(2 * time.Second)
	if has(t, s, PendingKey("s", "t1")) {
		t.Error("the pending row outlived five minutes")
	}
	if has(t, s, HandbackKey("s", "a1", "hb1")) {
		t.Error("the provisional hand-back row outlived five minutes")
	}
	if !has(t, s, AgentKey("s", "a1")) {
		t.Error("the agent row expired with the pending one")
	}
	c.t = c.t.Add(ActiveTTL)
	if has(t, s, AgentKey("s", "a1")) {
		t.Error("the agent row outlived a day")
	}
}

// TestStoreLockWaitEndsAtItsBound: a held lock is waited for until the
// call's deadline, then the operation fails (never proceeds unlocked).
func TestStoreLockWaitEndsAtItsBound(t *testing.T) {
	s, _ := newStore(t)
	put(t, s, AgentKey("s", "a"))
	lock := filepath.Join(s.Dir, ".lock")
	if err := os.WriteFile(lock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if err := os.Chtimes(lock, now, now); err != nil {
		t.Fatal(err)
	}
	s.Now = time.Now
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := s.Update(ctx, AgentKey("s", "b"), func(*Row) (*Row, error) { return &Row{}, nil })
	if err == nil || !strings.Contains(err.Error(), "locked") && !strings.Contains(err.Error(), "deadline") {
		t.Fatalf("Update under a held lock: %v, want a lock failure", err)
	}
	os.Remove(lock)
	if has(t, s, AgentKey("s", "b")) {
		t.Error("the row was written although the lock was held")
	}
}

// TestStoreReclaimsAStaleLock: a lock older than the lease belonged to a
// dead hook and is taken over.
func TestStoreReclaimsAStaleLock(t *testing.T) {
	s, _ := newStore(t)
	put(t, s, AgentKey("s", "a"))
	lock := filepath.Join(s.Dir, ".lock")
	if err := os.WriteFile(lock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-LockLease - time.Minute)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	s.Now = time.Now
	put(t, s, AgentKey("s", "b"))
	if !has(t, s, AgentKey("s", "b")) {
		t.Error("the row was not written after reclaiming the stale lock")
	}
}

// TestStoreUnremovableStaleLockEndsAtItsBound: a stale .lock the store
// cannot remove (a non-empty directory an agent made) is waited on up to the
// bound and is an error, not a retry loop that outlives the call's deadline
// (before, the failed removal retried at once, forever, and the client's
// hook timeout ended the call instead of a verdict).
func TestStoreUnremovableStaleLockEndsAtItsBound(t *testing.T) {
	s, _ := newStore(t)
	put(t, s, AgentKey("s", "a"))
	lock := filepath.Join(s.Dir, ".lock")
	if err := os.MkdirAll(filepath.Join(lock, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-LockLease - time.Minute)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	s.Now = time.Now
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := s.Get(ctx, AgentKey("s", "a")); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("Get under an unremovable stale lock succeeded, want a lock failure")
		}
	case <-time.After(LockWait + 5*time.Second):
		t.Fatal("Get under an unremovable stale lock did not return within the lock wait")
	}
}

// TestStoreScanBoundFailsClosed: a directory with more entries than the
// scan bound is an error naming the bound, not a partial read; the bound
// is not the row cap (foreign entries count against the scan only).
func TestStoreScanBoundFailsClosed(t *testing.T) {
	s, _ := newStore(t)
	put(t, s, AgentKey("s", "a"))
	for i := 0; i < ScanLimit-10; i++ {
		if err := os.WriteFile(filepath.Join(s.Dir, fmt.Sprintf("foreign-%d", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if !has(t, s, AgentKey("s", "a")) {
		t.Fatal("foreign entries below the scan bound broke the store")
	}
	for i := 0; i < 20; i++ {
		os.WriteFile(filepath.Join(s.Dir, fmt.Sprintf("more-%d", i)), nil, 0o600)
	}
	_, err := s.Get(context.Background(), AgentKey("s", "a"))
	if err == nil || !strings.Contains(err.Error(), fmt.Sprint(ScanLimit)) {
		t.Fatalf("over the scan bound: %v, want an error naming %d", err, ScanLimit)
	}
}

// TestStoreSweepsDebris: a temporary a killed writer left behind goes once
// it is older than the lease; an unreadable row is dropped; neither counts
// against the cap.
func TestStoreSweepsDebris(t *testing.T) {
	s, c := newStore(t)
	put(t, s, AgentKey("s", "a"))
	row := strings.Repeat("0a", 16) + ".row"
	tmp := filepath.Join(s.Dir, ".row-123.tmp")               // os.CreateTemp's name, before renameio
	renameioTmp := filepath.Join(s.Dir, "."+row+"8310375417") // renameio's name
	fresh := filepath.Join(s.Dir, "."+row+"42")               // a writer's, younger than the lease
	bad := filepath.Join(s.Dir, row)
	var foreign []string
	for _, n := range []string{"notes.row", "." + row + "x1", ".notes123", "." + strings.Repeat("0A", 16) + ".row1"} {
		foreign = append(foreign, filepath.Join(s.Dir, n))
	}
	for _, p := range append([]string{tmp, renameioTmp, fresh, bad}, foreign...) {
		if err := os.WriteFile(p, []byte("{half"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := c.t.Add(-LockLease - time.Minute)
	for _, p := range append([]string{tmp, renameioTmp}, foreign...) {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(fresh, c.t, c.t); err != nil {
		t.Fatal(err)
	}
	if n, err := s.count(); err != nil || n != 1 {
		t.Fatalf("%d rows (%v), want 1", n, err)
	}
	for _, p := range []string{tmp, renameioTmp, bad} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s survived the sweep", filepath.Base(p))
		}
	}
	for _, p := range append([]string{fresh}, foreign...) {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(p), err)
		}
	}
}

// TestStoreWritesThroughRenameio: rows are written with renameio in the
// store's own directory: every row is 0600 after a write, also when the
// file it replaces was widened to 0644; no temporary stays behind; and
// $TMPDIR is never touched (renameio tries os.TempDir() first unless
// told the directory: a row's temporary outside the store would escape
// its sweep). The sync before the rename is renameio's and not observed.
func TestStoreWritesThroughRenameio(t *testing.T) {
	s, _ := newStore(t)
	tmpdir := t.TempDir()
	t.Setenv("TMPDIR", tmpdir)
	past := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(tmpdir, past, past); err != nil {
		t.Fatal(err)
	}
	key := AgentKey("s", "a")
	put(t, s, key)
	path := filepath.Join(s.Dir, rowFile(key))
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	put(t, s, key)
	put(t, s, PendingKey("s", "t"))
	ents, err := os.ReadDir(s.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		fi, _ := e.Info()
		if !ourRowName(e.Name()) || fi.Mode() != 0o600 {
			t.Errorf("the store holds %s (mode %v); want only rows, each 0600", e.Name(), fi.Mode())
		}
	}
	if len(ents) != 2 {
		t.Errorf("%d entries, want the 2 rows", len(ents))
	}
	fi, err := os.Stat(tmpdir)
	if err != nil {
		t.Fatal(err)
	}
	if es, _ := os.ReadDir(tmpdir); len(es) > 0 || !fi.ModTime().Equal(past) {
		t.Errorf("the writes touched $TMPDIR (entries %d, modified %v)", len(es), fi.ModTime())
	}
}

// TestStoreProtectedByPolicy: the store's directory is the one the command
// policy and the edit guard refuse to let an agent remove or write
// (policy.StoreDirName), so renaming StoreSubdir cannot silently leave the
// new directory unprotected.
func TestStoreProtectedByPolicy(t *testing.T) {
	first, _, _ := strings.Cut(StoreSubdir, "/")
	if first != policy.StoreDirName {
		t.Fatalf("StoreSubdir %q starts with %q, policy protects %q", StoreSubdir, first, policy.StoreDirName)
	}
	p, err := policy.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"rm -rf .git/" + StoreSubdir, "rm -rf \"$(git rev-parse --git-common-dir)/" + StoreSubdir + "\""} {
		if d := p.Judge(cmd); d.Allowed {
			t.Errorf("%s: allowed, want a deny", cmd)
		}
	}
}
