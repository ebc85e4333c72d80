//go:build windows

package atomicfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/robustio"
)

// Pending is a temporary file beside the file it will replace: write into
// it, then Replace (or Cleanup to abandon it). On Windows it is
// os.CreateTemp in the target's directory and robustio.Rename (see the
// package documentation).
type Pending struct {
	f      *os.File
	path   string
	perm   fs.FileMode
	closed bool
	done   bool
}

// New creates the temporary for path in path's own directory; Replace gives
// it perm (on Windows only the read-only attribute, perm&0200 == 0, exists).
// Errors wrap the os error and name the path.
func New(path string, perm fs.FileMode) (*Pending, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"*")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &Pending{f: f, path: path, perm: perm.Perm()}, nil
}

// NewUmasked is New: Windows has no umask.
func NewUmasked(path string, perm fs.FileMode) (*Pending, error) { return New(path, perm) }

// File returns the open temporary file.
func (p *Pending) File() *os.File { return p.f }

// Write appends b to the temporary file.
func (p *Pending) Write(b []byte) (int, error) { return p.f.Write(b) }

// Replace refuses a target with the read-only attribute (an error wrapping
// fs.ErrPermission), else flushes (FlushFileBuffers) and closes the temporary file, gives it
// the permission bits, and renames it over the target: os.Rename, that is
// MoveFileEx(MOVEFILE_REPLACE_EXISTING), retried on transient sharing errors
// for up to 2 s (robustio.Rename).
func (p *Pending) Replace() error {
	// MoveFileEx refuses to replace a read-only file on Windows
	// (ERROR_ACCESS_DENIED); wine 8.0 replaces it. Refuse it here, the same
	// on both, rather than depend on which one runs.
	if fi, err := os.Lstat(p.path); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o200 == 0 {
		return fmt.Errorf("%w: the file has the read-only attribute; clear it (attrib -r) to let it be replaced", fs.ErrPermission)
	}
	if err := p.f.Sync(); err != nil {
		return err
	}
	p.closed = true
	if err := p.f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(p.f.Name(), p.perm); err != nil {
		return err
	}
	if err := robustio.Rename(p.f.Name(), p.path); err != nil {
		return err
	}
	p.done = true
	return nil
}

// Cleanup closes and removes the temporary file unless Replace succeeded;
// it is safe to defer.
func (p *Pending) Cleanup() error {
	if p.done {
		return nil
	}
	if !p.closed {
		p.f.Close()
	}
	if err := os.Remove(p.f.Name()); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}
