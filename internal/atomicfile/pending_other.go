//go:build !windows

package atomicfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// Pending is a temporary file beside the file it will replace: write into
// it, then Replace (or Cleanup to abandon it). Outside Windows it is
// renameio/v2's PendingFile.
type Pending struct {
	pf *renameio.PendingFile
}

// New creates the temporary for path in path's own directory with
// permission bits exactly perm (no umask applied). Errors wrap the os error
// and name the path.
func New(path string, perm fs.FileMode) (*Pending, error) {
	return open(path, renameio.WithStaticPermissions(perm.Perm()))
}

// NewUmasked is New with perm reduced by the process's umask (a new file
// that should be created as any other tool would create it).
func NewUmasked(path string, perm fs.FileMode) (*Pending, error) {
	return open(path, renameio.WithPermissions(perm.Perm()))
}

func open(path string, mode renameio.Option) (*Pending, error) {
	pf, err := renameio.NewPendingFile(path, renameio.WithTempDir(filepath.Dir(path)), mode)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &Pending{pf: pf}, nil
}

// File returns the open temporary file (to set its owner before Replace).
func (p *Pending) File() *os.File { return p.pf.File }

// Write appends b to the temporary file.
func (p *Pending) Write(b []byte) (int, error) { return p.pf.Write(b) }

// Replace syncs and closes the temporary file and renames it over the
// target (rename(2)); the directory is not synced.
func (p *Pending) Replace() error { return p.pf.CloseAtomicallyReplace() }

// Cleanup closes and removes the temporary file unless Replace succeeded;
// it is safe to defer.
func (p *Pending) Cleanup() error { return p.pf.Cleanup() }
