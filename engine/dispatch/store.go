package dispatch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hookwarden/hookwarden/internal/atomicfile"

	"github.com/hookwarden/hookwarden/internal/gitdisc"
	"github.com/hookwarden/hookwarden/internal/safewrite"
)

// The correlation store ties a Claude dispatch to the agent it starts, so
// the receipt can check the rewritten brief was delivered and the return
// gate judges only returns of agents hookwarden let through (issue 19 item
// 5). It is a directory of small JSON rows under Git's common directory
// (StoreDir), so linked worktrees share it and no working-tree state is
// added. Every operation takes the lock file for one sweep and one write.

// Bounds of the store.
const (
	// MaxRows is the most rows the store holds; a new row at the cap evicts
	// the least recently written one (a leaked binding never blocks later
	// dispatches; an evicted agent's return is a stated skip).
	MaxRows = 128
	// ScanLimit is the most directory entries one sweep reads; a directory
	// with more fails closed with that bound in the error.
	ScanLimit = 1024
	// LockWait is the longest wait for the lock (the call's deadline ends
	// it earlier): half the 10-second budget of the dispatch rows.
	LockWait = 5 * time.Second
	// LockLease is the age after which a lock file, or a temporary file, is
	// taken to belong to a hook process that died, and is removed.
	LockLease = 2 * time.Minute
	// PendingTTL is how long a dispatch (or a hand-back) waits for its
	// receipt.
	PendingTTL = 5 * time.Minute
	// ActiveTTL is how long a bound agent stays bound.
	ActiveTTL = 24 * time.Hour
	// maxRowBytes bounds one row file read.
	maxRowBytes = 64 << 10
)

// StoreSubdir is the store's directory below Git's common directory.
const StoreSubdir = "hookwarden/dispatch-correlations"

// Row is one correlation. Key is "pending\x00<session>\x00<tool_use_id>",
// "handback\x00<session>\x00<agent_id>\x00<tool_use_id>" or
// "agent\x00<session>\x00<agent_id>"; Digest is the lower-case hex SHA-256
// of the rewritten prompt (pending; "" when the brief was not rewritten) or
// of the hand-back message pre-handback judged (handback); HandedBack marks
// a binding whose agent's judged report was delivered through
// SubagentHandback (agent rows); Written is when the row was last written
// (UnixNano).
type Row struct {
	Version    int    `json:"v"`
	Key        string `json:"key"`
	Digest     string `json:"digest,omitempty"`
	HandedBack bool   `json:"handed_back,omitempty"`
	Written    int64  `json:"written"`
}

// PendingKey and AgentKey build the two kinds of row key.
func PendingKey(session, toolUseID string) string {
	return "pending\x00" + session + "\x00" + toolUseID
}

// AgentKey is the key of an agent's binding (see PendingKey).
func AgentKey(session, agentID string) string { return "agent\x00" + session + "\x00" + agentID }

// HandbackKey is the key of the provisional digest of one SubagentHandback
// tool use of agentID (see Row); it expires like a pending row.
func HandbackKey(session, agentID, toolUseID string) string {
	return "handback\x00" + session + "\x00" + agentID + "\x00" + toolUseID
}

// Digest returns the lower-case hex SHA-256 of s.
func Digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// Store is the correlation store of one repository. Now is the clock
// (time.Now when nil).
type Store struct {
	Dir string
	Now func() time.Time
}

// StoreDir returns the store directory of the repository whose work tree
// root is root: <git common dir>/hookwarden/dispatch-correlations.
func StoreDir(root string) (string, error) {
	repo, found, err := gitdisc.Find(root)
	if err != nil {
		return "", fmt.Errorf("correlation store: %w", err)
	}
	if !found {
		return "", fmt.Errorf("correlation store: %s is in no git repository", root)
	}
	common, err := gitdisc.CommonDir(repo)
	if err != nil {
		return "", fmt.Errorf("correlation store: %w", err)
	}
	return filepath.Join(common, filepath.FromSlash(StoreSubdir)), nil
}

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// rowFile returns the file name of key's row.
func rowFile(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:16]) + ".row"
}

// Update runs fn on the row of key under the lock, after one sweep: fn gets
// the row (nil when absent or expired) and returns the row to write (nil:
// remove it) or an error (nothing written). ctx's deadline bounds the lock
// wait below LockWait. Errors: the directory cannot be made or read, more
// than ScanLimit entries, the lock stayed taken, a write failed.
func (s *Store) Update(ctx context.Context, key string, fn func(*Row) (*Row, error)) error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("correlation store %s: %w", s.Dir, err)
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	rows, err := s.sweep()
	if err != nil {
		return err
	}
	name := rowFile(key)
	var cur *Row
	if r, ok := rows[name]; ok && r.Key == key {
		cur = &r
	}
	next, err := fn(cur)
	if err != nil {
		return err
	}
	path := filepath.Join(s.Dir, name)
	if next == nil {
		if cur != nil {
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("correlation store: %w", err)
			}
		}
		return nil
	}
	if cur == nil {
		delete(rows, name)
		for len(rows) >= MaxRows {
			oldest := ""
			for n, r := range rows {
				if oldest == "" || r.Written < rows[oldest].Written || r.Written == rows[oldest].Written && n < oldest {
					oldest = n
				}
			}
			if err := os.Remove(filepath.Join(s.Dir, oldest)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("correlation store: evicting a row: %w", err)
			}
			delete(rows, oldest)
		}
	}
	next.Version, next.Key, next.Written = 1, key, s.now().UnixNano()
	return s.write(path, next)
}

// Get returns the row of key (nil when absent or expired), under the lock.
func (s *Store) Get(ctx context.Context, key string) (*Row, error) {
	var got *Row
	err := s.Update(ctx, key, func(r *Row) (*Row, error) {
		got = r
		return r, errKeep
	})
	if errors.Is(err, errKeep) {
		err = nil
	}
	return got, err
}

// errKeep ends an Update without writing (Get).
var errKeep = errors.New("keep")

// lock takes Dir/.lock, waiting up to LockWait (or ctx's deadline) and
// reclaiming a lock older than LockLease.
func (s *Store) lock(ctx context.Context) (func(), error) {
	path := filepath.Join(s.Dir, ".lock")
	wait := LockWait
	if d, ok := ctx.Deadline(); ok && time.Until(d) < wait {
		wait = time.Until(d)
	}
	end := time.Now().Add(wait)
	delay := 5 * time.Millisecond
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("correlation store: lock %s: %w", path, err)
		}
		if st, err := os.Lstat(path); err == nil && s.now().Sub(st.ModTime()) > LockLease {
			// Its holder died; the next attempt takes it. A lock that cannot
			// be removed (a non-empty directory) is waited on like a held
			// one, so the wait stays bounded.
			if os.Remove(path) == nil {
				continue
			}
		}
		if time.Now().Add(delay).After(end) {
			return nil, fmt.Errorf("correlation store %s remained locked for %s", s.Dir, wait.Round(time.Millisecond))
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("correlation store %s: %w", s.Dir, ctx.Err())
		case <-time.After(delay):
		}
		if delay < 50*time.Millisecond {
			delay *= 2
		}
	}
}

// sweep reads at most ScanLimit entries, removes expired rows and
// temporaries older than LockLease, and returns the live rows by file name.
// Entries it did not write are left alone and do not count.
func (s *Store) sweep() (map[string]Row, error) {
	d, err := os.Open(s.Dir)
	if err != nil {
		return nil, fmt.Errorf("correlation store: %w", err)
	}
	ents, err := d.ReadDir(ScanLimit + 1)
	d.Close()
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("correlation store: %w", err)
	}
	if len(ents) > ScanLimit {
		return nil, fmt.Errorf("correlation store %s holds more than %d entries; the scan stops at that bound (remove the directory to reset the store)", s.Dir, ScanLimit)
	}
	now := s.now()
	rows := map[string]Row{}
	for _, e := range ents {
		name := e.Name()
		path := filepath.Join(s.Dir, name)
		switch {
		case ourTemporary(name):
			if st, err := os.Lstat(path); err == nil && now.Sub(st.ModTime()) > LockLease {
				os.Remove(path)
			}
		case ourRowName(name) && e.Type().IsRegular():
			r, err := readRow(path)
			if err != nil {
				os.Remove(path) // not a row we can read: gone, as if expired
				continue
			}
			ttl := ActiveTTL
			if strings.HasPrefix(r.Key, "pending\x00") || strings.HasPrefix(r.Key, "handback\x00") {
				ttl = PendingTTL
			}
			if now.Sub(time.Unix(0, r.Written)) > ttl {
				os.Remove(path)
				continue
			}
			rows[name] = r
		}
	}
	return rows, nil
}

// ourRowName reports whether name is a row file name the store writes
// (rowFile: 32 lower-case hex digits and ".row"); other entries are left
// alone.
func ourRowName(name string) bool {
	hexPart, ok := strings.CutSuffix(name, ".row")
	if !ok || len(hexPart) != 32 {
		return false
	}
	_, err := hex.DecodeString(hexPart)
	return err == nil && strings.ToLower(hexPart) == hexPart
}

func readRow(path string) (Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return Row{}, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxRowBytes+1))
	if err != nil {
		return Row{}, err
	}
	if len(b) > maxRowBytes {
		return Row{}, errors.New("row too large")
	}
	var r Row
	if err := json.Unmarshal(b, &r); err != nil || r.Version != 1 || r.Key == "" {
		return Row{}, errors.New("not a row")
	}
	return r, nil
}

// write replaces path, a row file in Dir, with r through internal/atomicfile
// (the project's atomic write, as in spawn/redact's WriteRunFile and
// internal/safewrite): a temporary file created in Dir itself (never
// os.TempDir()), written, synced and renamed over path, mode 0600 whatever
// the replaced file's was, so a row widened to 0644 does not stay 0644. A
// temporary a killed writer left is "." + row name + digits; sweep removes
// it (ourTemporary).
func (s *Store) write(path string, r *Row) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("correlation store: %w", err)
	}
	if err := atomicfile.WriteFile(path, b, 0o600); err != nil {
		return fmt.Errorf("correlation store: %w", err)
	}
	return nil
}

// ourTemporary reports whether name is a temporary file of a row write:
// atomicfile's "." + a row file name (ourRowName) + decimal digits
// (safewrite.IsTemporaryOf), or ".row-*.tmp", the os.CreateTemp name rows
// were written through before 2026-12-02 (still swept after an upgrade).
func ourTemporary(name string) bool {
	if strings.HasPrefix(name, ".row-") && strings.HasSuffix(name, ".tmp") {
		return true
	}
	const rowName = 32 + len(".row")
	if len(name) <= 1+rowName || name[0] != '.' {
		return false
	}
	base := name[1 : 1+rowName]
	return ourRowName(base) && safewrite.IsTemporaryOf(name, base)
}

// count returns the number of live rows after a sweep (tests).
func (s *Store) count() (int, error) {
	rows, err := s.sweep()
	return len(rows), err
}
