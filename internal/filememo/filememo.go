// Package filememo keeps small values derived from file contents on disk, so
// that a later process can skip deriving them again. The hook process uses it
// to skip the YAML parse of an unchanged settings layer (policy/settings):
// parsing the `.hookwarden.yaml` that adopt writes took about 0.13 ms of a
// cold hook process (README "Benchmarks").
//
// An entry is one file per key in the store's directory, named by the key in
// hex. A value is served only when the entry is a regular file owned by the
// effective user and not writable by group or others (regread.Private) and
// its first line names the key asked for, so an entry planted by another
// user, or linked or copied from another key, is a miss. A miss costs only
// the work the memo would have saved: callers derive the value again.
package filememo

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/renameio/v2"

	"github.com/hookwarden/hookwarden/internal/regread"
)

// MaxEntryBytes is the largest entry read, header included, in bytes.
const MaxEntryBytes = 1 << 20

// Expiry is how long an entry may go unwritten before Put removes it
// (168 hours). Entries are keyed by the executable's identity too, so each
// upgrade leaves the previous version's entries behind for Put to collect.
const Expiry = 7 * 24 * time.Hour

// header starts every entry: the format and the key in hex, then '\n'.
const header = "hookwarden-memo/1 "

// Key addresses one entry: SHA-256 over the parts, each length-prefixed.
type Key [32]byte

// KeyOf returns the Key of parts. Each part is prefixed with its length
// (8 bytes, big-endian), so ("ab","c") and ("a","bc") differ.
func KeyOf(parts ...[]byte) Key {
	h := sha256.New()
	var n [8]byte
	for _, p := range parts {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write(p)
	}
	var k Key
	h.Sum(k[:0])
	return k
}

// String returns k in lower-case hex (64 characters), the entry's file name.
func (k Key) String() string { return hex.EncodeToString(k[:]) }

// Store is a directory of entries. Dir is absolute and belongs to the store
// (Put creates it with mode 0700 and removes expired entries in it); an empty
// Dir disables the store: Get always misses and Put does nothing.
type Store struct {
	Dir string
}

// Get returns the value stored under k and true, or nil and false when there
// is no usable entry: none, unreadable, not private to this user, larger than
// MaxEntryBytes, or headed by another key.
func (s Store) Get(k Key) ([]byte, bool) {
	if s.Dir == "" {
		return nil, false
	}
	name := k.String()
	data, err := regread.Private(filepath.Join(s.Dir, name), MaxEntryBytes)
	if err != nil {
		return nil, false
	}
	h := header + name + "\n"
	if !bytes.HasPrefix(data, []byte(h)) {
		return nil, false
	}
	return data[len(h):], true
}

// Put stores v under k: the directory is created (mode 0700) when missing and
// the entry (mode 0600) is replaced atomically through a temporary file in
// the same directory (renameio). It then removes entries and leftover
// temporary files there that were last written more than Expiry ago. Errors
// name the path; a value larger than MaxEntryBytes with its header is
// refused.
func (s Store) Put(k Key, v []byte) error {
	if s.Dir == "" {
		return nil
	}
	name := k.String()
	h := header + name + "\n"
	if len(h)+len(v) > MaxEntryBytes {
		return fmt.Errorf("filememo: entry %s: %d bytes is more than %d", name, len(h)+len(v), MaxEntryBytes)
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("filememo: %w", err)
	}
	path := filepath.Join(s.Dir, name)
	entry := append([]byte(h), v...)
	if err := renameio.WriteFile(path, entry, 0o600, renameio.WithStaticPermissions(0o600)); err != nil {
		return fmt.Errorf("filememo: %s: %w", path, err)
	}
	return s.prune(time.Now().Add(-Expiry))
}

// prune removes the store's own files (an entry name, or renameio's
// temporary ".<entry name><digits>") not modified since before.
func (s Store) prune(before time.Time) error {
	des, err := os.ReadDir(s.Dir)
	if err != nil {
		return fmt.Errorf("filememo: %w", err)
	}
	var errs []error
	for _, de := range des {
		if !ownName(de.Name()) || !de.Type().IsRegular() {
			continue
		}
		info, err := de.Info()
		if err != nil || !info.ModTime().Before(before) {
			continue
		}
		if err := os.Remove(filepath.Join(s.Dir, de.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("filememo: %w", err))
		}
	}
	return errors.Join(errs...)
}

// ownName reports whether name is an entry name (64 lower-case hex digits)
// or a renameio temporary file of one ("." + entry name + decimal digits).
func ownName(name string) bool {
	tmp := strings.HasPrefix(name, ".")
	if tmp {
		name = name[1:]
	}
	if len(name) < 64 || (!tmp && len(name) != 64) {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		hexDigit := (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')
		if i < 64 && !hexDigit || i >= 64 && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}
