package redact

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hookwarden/hookwarden/internal/atomicfile"

	"github.com/hookwarden/hookwarden/internal/fileowner"
	"github.com/hookwarden/hookwarden/internal/regread"
)

// Environment variables naming a redaction run's files, handed to every
// hook process in its environment, never in argv (ADR-0134 D7).
const (
	EnvTable    = "HOOKWARDEN_HOOK_TABLE"
	EnvReceipts = "HOOKWARDEN_HOOK_RECEIPTS"
	EnvPolicy   = "HOOKWARDEN_HOOK_POLICY"
)

// MaxTableBytes bounds a table or values file.
const MaxTableBytes = 4 << 20

// Table is the file shape of a redaction table and of the reference hook's
// configured values file: {"version":1,"values":{"<token>":"<raw value>"}}.
type Table struct {
	Version int               `json:"version"`
	Values  map[string]string `json:"values"`
}

// ReadPrivate reads the file at path after checking that it is a regular
// file (a FIFO or device is refused without blocking), at most
// MaxTableBytes, owned by this process's effective user, and readable or
// writable by nobody else (no group or other permission bits). It returns
// the bytes; every error names path.
func ReadPrivate(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%v)", path, fi.Mode().Type())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s: mode %04o lets another account read or write it; want 0600", path, fi.Mode().Perm())
	}
	if !fileowner.Self(fi) {
		return nil, fmt.Errorf("%s: owned by another account", path)
	}
	b, err := regread.File(path, MaxTableBytes)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// ParseTable decodes b as a version-1 table (unknown fields and trailing
// data refused) and checks it builds a matcher (NewMatcher's rules).
func ParseTable(b []byte) (*Table, *Matcher, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	var t Table
	if err := d.Decode(&t); err != nil {
		return nil, nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, nil, errors.New("trailing data after the JSON document")
	}
	if t.Version != 1 || t.Values == nil {
		return nil, nil, fmt.Errorf("want {\"version\":1,\"values\":{…}}")
	}
	m, err := NewMatcher(t.Values)
	if err != nil {
		return nil, nil, err
	}
	return &t, m, nil
}

// LoadTable is ReadPrivate then ParseTable; it also returns the bytes read
// (for digests and comparisons).
func LoadTable(path string) (*Table, *Matcher, []byte, error) {
	b, err := ReadPrivate(path)
	if err != nil {
		return nil, nil, nil, err
	}
	t, m, err := ParseTable(b)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, m, b, nil
}

// Marshal returns the table's canonical bytes (sorted keys, a final newline).
func (t *Table) Marshal() ([]byte, error) {
	b, err := json.Marshal(Table{Version: 1, Values: t.Values})
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// WriteRunFile replaces the run file at path with data: a temporary file
// created exclusively with mode 0600 in path's directory, synced, then
// renamed over path (internal/atomicfile, permissions set to 0600
// whatever the replaced file's were), so the file is 0600 after every
// write and never holds partial bytes. The directory must
// exist, belong to this account and have mode 0700.
func WriteRunFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() || fi.Mode().Perm() != 0o700 || !fileowner.Self(fi) {
		return fmt.Errorf("%s: the run directory must be this account's with mode 0700 (is %v)", dir, fi.Mode())
	}
	// static 0600, not the replaced file's bits: a table an agent widened
	// to 0644 would otherwise stay 0644 after a rewrite; the temporary in
	// dir itself, so the raw table never passes through /tmp
	// (TestWriteRunFileStaysInRunDir)
	return atomicfile.WriteFile(path, data, 0o600)
}

// Digest returns the lower-case hex SHA-256 of b (agent_exit's
// table_sha256).
func Digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
