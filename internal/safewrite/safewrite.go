// Package safewrite does the file IO of every hookwarden write into a
// governed repository (or into a client's own home, such as $CODEX_HOME):
// a preflight that reads a file and refuses what must not be written, then a
// write through a temporary file renamed in the same directory (renameio),
// a compare-and-swap against the bytes the preflight read, a read-back, and
// the file's mode kept.
//
// Refused, always: a symbolic link at or below the root (the file itself, or
// any directory between the root and the file), a FIFO, a device, a socket,
// any other non-regular file, and a path that leaves the root. The root
// itself is taken as the caller names it (callers resolve it once with
// filepath.EvalSymlinks): a repository reached through a symlinked parent is
// still the operator's choice of repository.
package safewrite

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/renameio/v2"
)

// ErrRefused is wrapped by every refusal of a path that is not a regular file
// or directory (symlink, FIFO, device, socket) or that leaves the root.
var ErrRefused = errors.New("refused")

// ErrConflict is wrapped when the file changed between the preflight and the
// write (compare-and-swap failed); the file is left as it is.
var ErrConflict = errors.New("changed since it was planned")

// ErrReadBack is wrapped when the bytes read back after the rename differ
// from the bytes written.
var ErrReadBack = errors.New("read-back differs from the bytes written")

// Snapshot is what a preflight read: the file at Root/Rel (Rel slash
// separated), whether it Exists, its bytes Data (nil when absent) and its
// permission bits Mode (0 when absent).
type Snapshot struct {
	Root   string
	Rel    string
	Exists bool
	Data   []byte
	Mode   fs.FileMode
}

// Abs returns the snapshot's absolute path (Root joined with Rel).
func (s Snapshot) Abs() string { return filepath.Join(s.Root, filepath.FromSlash(s.Rel)) }

// MaxFileBytes caps how much a preflight reads (8 MiB); a larger file is
// refused rather than half-read.
const MaxFileBytes = 8 << 20

// Preflight checks and reads root/rel (rel slash separated, relative, no
// ".."). It returns a Snapshot with Exists false when the file is absent (a
// missing directory on the way is fine: Write creates it). It returns an
// error wrapping ErrRefused for a symlink at any component at or below root,
// a FIFO, device, socket or other non-regular file, or a rel that leaves the
// root; other errors wrap the os error and name the path.
func Preflight(root, rel string) (Snapshot, error) {
	s := Snapshot{Root: root, Rel: rel}
	if err := checkRel(rel); err != nil {
		return s, err
	}
	parts := strings.Split(rel, "/")
	cur := root
	for i, p := range parts {
		cur = filepath.Join(cur, p)
		fi, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return s, nil
		}
		if err != nil {
			return s, fmt.Errorf("%s: %w", cur, err)
		}
		last := i == len(parts)-1
		if err := checkMode(cur, fi.Mode(), last); err != nil {
			return s, err
		}
	}
	data, mode, err := readRegular(cur)
	if err != nil {
		return s, err
	}
	s.Exists, s.Data, s.Mode = true, data, mode
	return s, nil
}

// CheckDir reports whether root/rel, a directory path (slash separated), is
// free of symlinks and non-directories at every existing component. It
// returns nil when every existing component is a real directory, and an
// error wrapping ErrRefused otherwise.
func CheckDir(root, rel string) error {
	_, err := checkDir(root, rel)
	return err
}

// checkDir is CheckDir that also reports whether every component exists.
func checkDir(root, rel string) (complete bool, err error) {
	if err := checkRel(rel); err != nil {
		return false, err
	}
	cur := root
	for _, p := range strings.Split(rel, "/") {
		cur = filepath.Join(cur, p)
		fi, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("%s: %w", cur, err)
		}
		if err := checkMode(cur, fi.Mode(), false); err != nil {
			return false, err
		}
	}
	return true, nil
}

func checkRel(rel string) error {
	if rel == "" || strings.HasPrefix(rel, "/") || filepath.IsAbs(rel) {
		return fmt.Errorf("%q: %w: not a relative path", rel, ErrRefused)
	}
	for _, p := range strings.Split(rel, "/") {
		if p == "" || p == "." || p == ".." {
			return fmt.Errorf("%q: %w: path leaves or does not name a file below the root", rel, ErrRefused)
		}
	}
	return nil
}

func checkMode(path string, m fs.FileMode, last bool) error {
	switch {
	case m&fs.ModeSymlink != 0:
		return fmt.Errorf("%s: %w: a symbolic link (hookwarden writes no file through a link at or below the repository root; replace the link with the real file or directory)", path, ErrRefused)
	case m&fs.ModeNamedPipe != 0:
		return fmt.Errorf("%s: %w: a FIFO, not a regular file", path, ErrRefused)
	case m&fs.ModeDevice != 0 || m&fs.ModeCharDevice != 0:
		return fmt.Errorf("%s: %w: a device, not a regular file", path, ErrRefused)
	case m&fs.ModeSocket != 0:
		return fmt.Errorf("%s: %w: a socket, not a regular file", path, ErrRefused)
	case !last && !m.IsDir():
		return fmt.Errorf("%s: %w: not a directory", path, ErrRefused)
	case last && !m.IsRegular():
		if m.IsDir() {
			return fmt.Errorf("%s: %w: a directory where a file belongs", path, ErrRefused)
		}
		return fmt.Errorf("%s: %w: not a regular file (mode %s)", path, ErrRefused, m)
	}
	return nil
}

// readRegular opens path without following a final symlink (O_NOFOLLOW) and
// without blocking on a FIFO (O_NONBLOCK), checks the opened file is regular
// and reads at most MaxFileBytes.
func readRegular(path string) ([]byte, fs.FileMode, error) {
	f, err := openNoFollow(path)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	if err := checkMode(path, fi.Mode(), true); err != nil {
		return nil, 0, err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > MaxFileBytes {
		return nil, 0, fmt.Errorf("%s: %w: larger than %d bytes", path, ErrRefused, MaxFileBytes)
	}
	if data == nil {
		data = []byte{}
	}
	return data, fi.Mode().Perm(), nil
}

// Write replaces the file of snap with data, provided the file still holds
// exactly what the preflight read (compare-and-swap; absent stays absent).
// Missing directories are created with mode 0755 after a symlink check of
// every component. The write goes through a renameio temporary file in the
// file's own directory, renamed over the target; the target keeps snap.Mode
// when it existed, else gets newMode (subject to the umask). The file is read
// back and compared. Errors wrap ErrRefused, ErrConflict or ErrReadBack, or
// the os error, and name the path. Two writers racing between the final CAS
// read and the rename are not excluded (the window is one syscall wide);
// hookwarden's own runs never write one file twice concurrently.
func Write(snap Snapshot, data []byte, newMode fs.FileMode) error {
	path := snap.Abs()
	dirRel := pathDir(snap.Rel)
	if dirRel != "" {
		complete, err := checkDir(snap.Root, dirRel)
		if err != nil {
			return err
		}
		if !complete {
			if err := os.MkdirAll(filepath.Join(snap.Root, filepath.FromSlash(dirRel)), 0o755); err != nil {
				return fmt.Errorf("%s: %w", filepath.Dir(path), err)
			}
			// MkdirAll follows links; check again that it created real directories.
			if err := CheckDir(snap.Root, dirRel); err != nil {
				return err
			}
		}
	}
	if err := compare(snap); err != nil {
		return err
	}
	opts := []renameio.Option{renameio.WithTempDir(filepath.Dir(path))}
	if snap.Exists {
		opts = append(opts, renameio.WithStaticPermissions(snap.Mode.Perm()))
	} else {
		if newMode == 0 {
			newMode = 0o644
		}
		opts = append(opts, renameio.WithPermissions(newMode.Perm()))
	}
	pf, err := renameio.NewPendingFile(path, opts...)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer pf.Cleanup()
	if _, err := pf.Write(data); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	// Compare-and-swap: the last look before the rename.
	if err := compare(snap); err != nil {
		return err
	}
	if err := pf.CloseAtomicallyReplace(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	got, _, err := readRegular(path)
	if err != nil {
		return fmt.Errorf("read back: %w", err)
	}
	if !bytes.Equal(got, data) {
		return fmt.Errorf("%s: %w", path, ErrReadBack)
	}
	return nil
}

// compare checks the file still matches snap (content and existence), and
// that it is still a regular file, not a link.
func compare(snap Snapshot) error {
	path := snap.Abs()
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if snap.Exists {
			return fmt.Errorf("%s: %w (it was removed)", path, ErrConflict)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := checkMode(path, fi.Mode(), true); err != nil {
		return err
	}
	if !snap.Exists {
		return fmt.Errorf("%s: %w (it was created by someone else)", path, ErrConflict)
	}
	cur, _, err := readRegular(path)
	if err != nil {
		return err
	}
	if !bytes.Equal(cur, snap.Data) {
		return fmt.Errorf("%s: %w (rerun to plan against the new content)", path, ErrConflict)
	}
	return nil
}

func pathDir(rel string) string {
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		return ""
	}
	return rel[:i]
}
