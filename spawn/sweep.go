package spawn

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/hookwarden/hookwarden/internal/fileowner"
)

// Run ownership and the sweep of runs whose spawn exec is gone.
//
// Every `spawn exec` that writes into run/hooks first creates <run id>.lock
// there (exclusive, 0600) and holds an exclusive flock(2) on it for the
// run's life; the lock file records the owner's pid and start time, which
// the sweep reports but never judges by. A spawn exec killed with SIGKILL
// cannot remove its files (ADR-0134 D7 "A parent that dies": the render,
// the table holding raw values, the receipts and the read policy stay), but
// the kernel drops its lock when the process ends, so the next spawn exec
// (sweepRunDir, before it takes its own lock) can tell a dead run from a
// live one without trusting a pid that may have been reused, and a
// concurrent live run, whose lock is held, is never touched. flock, not
// fcntl: flock locks belong to the open file description, so two runs in
// one process (TestRedactionConcurrentRuns) exclude each other, while
// fcntl locks are per process. The lock file is opened close-on-exec, so
// neither the engine nor a command its shell leaves running can hold it
// past spawn exec's own life.

// runLockSuffix ends the name of a run's lock file (<run id>.lock).
const runLockSuffix = ".lock"

// runLockRecord is the content of a lock file: who created it, for the
// sweep's report (never for its judgement).
type runLockRecord struct {
	Version int    `json:"version"`
	PID     int    `json:"pid"`
	Started string `json:"started"` // RFC 3339, UTC
}

// runLock is a run's held lock; release removes its file and drops it.
type runLock struct {
	path string
	f    *os.File
}

// acquireRunLock creates dir/<id>.lock exclusively with mode 0600, takes
// the exclusive flock (blocking: a sweep holds it only while it reads the
// file), writes the owner record, and checks the path still names the file
// it locked (a sweep may remove a lock file whose record is still empty;
// the create is then retried). An existing lock file is a refusal
// (run-file-exists); any other failure run-file-unwritable.
func acquireRunLock(dir, id string) (*runLock, error) {
	path := filepath.Join(dir, id+runLockSuffix)
	for attempt := 0; attempt < 3; attempt++ {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			return nil, refuse(ReasonRunFileExists, "%s already exists", path)
		}
		if err != nil {
			return nil, refuse(ReasonRunFileUnwritable, "%s: %v", path, err)
		}
		l := &runLock{path: path, f: f}
		if err := flockFile(f, true); err != nil {
			l.release()
			return nil, refuse(ReasonRunFileUnwritable, "lock %s: %v", path, err)
		}
		rec, _ := json.Marshal(runLockRecord{Version: 1, PID: os.Getpid(), Started: time.Now().UTC().Format(time.RFC3339Nano)})
		if _, err := f.Write(append(rec, '\n')); err != nil {
			l.release()
			return nil, refuse(ReasonRunFileUnwritable, "%s: %v", path, err)
		}
		held, err1 := f.Stat()
		named, err2 := os.Lstat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, named) {
			return l, nil
		}
		f.Close() // removed by a sweep before its record was written
	}
	return nil, refuse(ReasonRunFileUnwritable, "%s: removed again and again while being created", path)
}

// release removes the lock file, then drops the lock (closing it). It is
// a no-op on nil.
func (l *runLock) release() {
	if l == nil || l.f == nil {
		return
	}
	if held, err := l.f.Stat(); err == nil {
		if named, err := os.Lstat(l.path); err == nil && os.SameFile(held, named) {
			os.Remove(l.path)
		}
	}
	l.f.Close()
	l.f = nil
}

// SweepReason is the stable code of an entry of run/hooks the sweep left
// because it cannot judge it.
type SweepReason string

// The sweep's reasons for leaving an entry of run/hooks.
const (
	SweepDirInsecure   SweepReason = "run-dir-insecure" // run/hooks is not this account's 0700 directory: nothing in it is judged
	SweepSymlink       SweepReason = "symlink"          // a symbolic link (never followed, never removed)
	SweepNotRegular    SweepReason = "not-regular"      // a directory, FIFO, socket or device
	SweepForeignOwner  SweepReason = "foreign-owner"    // owned by another account
	SweepWrongMode     SweepReason = "wrong-mode"       // a mode other than 0600
	SweepLockUnclaimed SweepReason = "lock-unclaimed"   // a free lock whose owner record is missing or invalid, beside run files
	SweepNoOwner       SweepReason = "no-owner-record"  // a redaction run file whose run has no lock file (an older hookwarden, or removed by hand)
	SweepUnknown       SweepReason = "unknown-entry"    // a name no run writes
	SweepUnreadable    SweepReason = "unreadable"       // the directory, an entry or a lock could not be read or locked
	SweepUnsupported   SweepReason = "lock-unsupported" // this platform has no flock(2); nothing is judged
	SweepRemoveFailed  SweepReason = "remove-failed"    // the run was judged dead but a file could not be removed
)

// SweepLeft is one entry the sweep left in run/hooks and why.
type SweepLeft struct {
	Name   string      `json:"name"`
	Reason SweepReason `json:"reason"`
	Detail string      `json:"detail,omitempty"`
}

// SweptRun is one dead run the sweep removed: its id, the owner record of
// its lock (pid and start time) and the files removed (a file it had to
// leave is in SweepResult.Left).
type SweptRun struct {
	RunID   string   `json:"run_id"`
	PID     int      `json:"pid"`
	Started string   `json:"started,omitempty"`
	Files   []string `json:"files"`
}

// SweepResult is what one sweep of run/hooks did.
type SweepResult struct {
	Swept []SweptRun  `json:"swept"`
	Left  []SweepLeft `json:"left"`
	Live  int         `json:"live"` // runs whose lock is held (untouched)
}

// Notes returns one human line per swept run and per entry left, for
// spawn exec's stderr.
func (s SweepResult) Notes() []string {
	var out []string
	for _, r := range s.Swept {
		out = append(out, fmt.Sprintf("sweep: removed the files of run %s, whose spawn exec (pid %d, started %s) is gone; that run's transcript was never scanned by agent_exit", r.RunID, r.PID, r.Started))
	}
	for _, l := range s.Left {
		n := fmt.Sprintf("sweep: left %s in run/hooks: %s", l.Name, l.Reason)
		if l.Detail != "" {
			n += ": " + l.Detail
		}
		out = append(out, n)
	}
	return out
}

// runIDOf returns the run id an entry of run/hooks belongs to: the 32 hex
// characters before its first dot, after one leading dot (renameio's
// temporary files are ".<name><digits>"). ok is false for any other name.
func runIDOf(name string) (string, bool) {
	n := strings.TrimPrefix(name, ".")
	id, rest, found := strings.Cut(n, ".")
	if !found || rest == "" || len(id) != 32 {
		return "", false
	}
	for _, c := range id {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return "", false
		}
	}
	return id, true
}

// sweepRunDir removes from dir (run/hooks) the files of every run whose
// lock file is free: its spawn exec is gone. It judges only what it can:
// dir itself must be this account's 0700 directory (not a link); each file
// it removes must be this account's regular 0600 file; a lock it cannot
// take is a live run, left alone. Everything else is left and reported
// with a SweepReason. A render without a lock file (`spawn compile`'s, the
// caller's to remove) is left without a report. A missing dir is an empty
// result.
func sweepRunDir(dir string) SweepResult {
	var res SweepResult
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return res
	}
	if err != nil {
		return SweepResult{Left: []SweepLeft{{Name: ".", Reason: SweepUnreadable, Detail: err.Error()}}}
	}
	if !fi.IsDir() || fi.Mode().Perm() != 0o700 || !fileowner.Self(fi) {
		return SweepResult{Left: []SweepLeft{{Name: ".", Reason: SweepDirInsecure, Detail: fmt.Sprintf("%s is %v", dir, fi.Mode())}}}
	}
	if !flockSupported {
		return SweepResult{Left: []SweepLeft{{Name: ".", Reason: SweepUnsupported}}}
	}
	es, err := os.ReadDir(dir)
	if err != nil {
		return SweepResult{Left: []SweepLeft{{Name: ".", Reason: SweepUnreadable, Detail: err.Error()}}}
	}
	groups := map[string][]string{} // run id -> names other than its lock
	locks := map[string]bool{}
	for _, e := range es {
		id, ok := runIDOf(e.Name())
		if !ok {
			res.Left = append(res.Left, SweepLeft{Name: e.Name(), Reason: SweepUnknown})
			continue
		}
		if e.Name() == id+runLockSuffix {
			locks[id] = true
		} else {
			groups[id] = append(groups[id], e.Name())
		}
	}
	ids := make([]string, 0, len(groups)+len(locks))
	for id := range groups {
		ids = append(ids, id)
	}
	for id := range locks {
		if _, ok := groups[id]; !ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		names := groups[id]
		if !locks[id] {
			for _, n := range names {
				if n != id+".settings.json" { // a compile's render holds no value
					res.Left = append(res.Left, SweepLeft{Name: n, Reason: SweepNoOwner})
				}
			}
			continue
		}
		sweepRun(dir, id, names, &res)
	}
	return res
}

// sweepRun judges one run that has a lock file and removes its files when
// its lock is free (see sweepRunDir).
func sweepRun(dir, id string, names []string, res *SweepResult) {
	lockName := id + runLockSuffix
	lockPath := filepath.Join(dir, lockName)
	if r, d := judgeRunFile(lockPath); r != "" {
		res.Left = append(res.Left, SweepLeft{Name: lockName, Reason: r, Detail: d})
		return
	}
	f, err := openNoFollow(lockPath)
	if err != nil {
		res.Left = append(res.Left, SweepLeft{Name: lockName, Reason: SweepUnreadable, Detail: err.Error()})
		return
	}
	defer f.Close()
	if err := flockFile(f, false); err != nil {
		if errors.Is(err, errLockHeld) {
			res.Live++
			return
		}
		res.Left = append(res.Left, SweepLeft{Name: lockName, Reason: SweepUnreadable, Detail: err.Error()})
		return
	}
	// held now; the path must still name the file locked (a run that ended
	// removes its lock file before it drops the lock)
	held, err1 := f.Stat()
	named, err2 := os.Lstat(lockPath)
	if err1 != nil || err2 != nil || !os.SameFile(held, named) {
		return
	}
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		res.Left = append(res.Left, SweepLeft{Name: lockName, Reason: SweepUnreadable, Detail: err.Error()})
		return
	}
	var rec runLockRecord
	if len(b) == 0 || json.Unmarshal(b, &rec) != nil || rec.Version != 1 {
		if len(b) == 0 && len(names) == 0 {
			// an owner killed between create and record, or one about to
			// lock it: it re-creates the file when it finds it gone
			os.Remove(lockPath)
			return
		}
		res.Left = append(res.Left, SweepLeft{Name: lockName, Reason: SweepLockUnclaimed, Detail: fmt.Sprintf("%d other file(s) of the run beside it", len(names))})
		return
	}
	run := SweptRun{RunID: id, PID: rec.PID, Started: rec.Started, Files: []string{}}
	keepLock := false
	for _, n := range names {
		p := filepath.Join(dir, n)
		if r, d := judgeRunFile(p); r != "" {
			res.Left = append(res.Left, SweepLeft{Name: n, Reason: r, Detail: d})
			keepLock = true // judged again by the next sweep, and reported again
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			res.Left = append(res.Left, SweepLeft{Name: n, Reason: SweepRemoveFailed, Detail: err.Error()})
			keepLock = true
			continue
		}
		run.Files = append(run.Files, n)
	}
	if !keepLock {
		if err := os.Remove(lockPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
			res.Left = append(res.Left, SweepLeft{Name: lockName, Reason: SweepRemoveFailed, Detail: err.Error()})
		} else {
			run.Files = append(run.Files, lockName)
		}
	}
	res.Swept = append(res.Swept, run)
}

// judgeRunFile returns why the sweep may not remove path ("" when it is
// this account's regular file with mode 0600, as every run file is).
func judgeRunFile(path string) (SweepReason, string) {
	fi, err := os.Lstat(path)
	switch {
	case err != nil:
		return SweepUnreadable, err.Error()
	case fi.Mode()&fs.ModeSymlink != 0:
		return SweepSymlink, ""
	case !fi.Mode().IsRegular():
		return SweepNotRegular, fi.Mode().Type().String()
	case !fileowner.Self(fi):
		uid, _ := fileowner.Of(fi)
		return SweepForeignOwner, fmt.Sprintf("uid %d", uid)
	case fi.Mode().Perm() != 0o600:
		return SweepWrongMode, fmt.Sprintf("%04o", fi.Mode().Perm())
	}
	return "", ""
}
