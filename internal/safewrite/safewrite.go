// Package safewrite does the file IO of every hookwarden write into a
// governed repository (or into a client's own home, such as $CODEX_HOME):
// a preflight that reads a file and refuses what must not be written, then a
// write through a temporary file renamed in the same directory
// (internal/atomicfile: renameio/v2, and on Windows os.Rename's
// MoveFileEx(MOVEFILE_REPLACE_EXISTING)),
// a compare-and-swap against the bytes the preflight read, a read-back, and
// the file's mode, owner and group kept (a new file, and a directory created
// for it, take the owner and group of the nearest existing directory).
// CheckWritable preflights what the write needs (permissions, immutable
// flags, a read-only mount, free space), and a temporary left beside a file
// by an interrupted run (Snapshot.Leftovers) is found by Preflight and
// removed by RemoveLeftovers.
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
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hookwarden/hookwarden/internal/atomicfile"
	"github.com/hookwarden/hookwarden/internal/fileowner"
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

// ErrNotWritable is wrapped by CheckWritable (and by Write when it cannot
// keep a file's owner): the write would fail or change what the user owns.
var ErrNotWritable = errors.New("cannot be written as planned")

// Snapshot is what a preflight read: the file at Root/Rel (Rel slash
// separated), whether it Exists, its bytes Data (nil when absent) and its
// permission bits Mode (0 when absent). UID and GID are the owner and group
// a write gives it: the file's own when it exists, else those of its
// nearest existing directory (-1 where the platform has none). Leftovers
// lists, slash separated and relative to Root, the temporaries of an
// interrupted write of this file found beside it (atomicfile's names: "."
// + the file's name + decimal digits).
type Snapshot struct {
	Root      string
	Rel       string
	Exists    bool
	Data      []byte
	Mode      fs.FileMode
	UID, GID  int
	Leftovers []string
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
// root; other errors wrap the os error and name the path. A caller that
// reads several files of one root uses a Reader instead.
func Preflight(root, rel string) (Snapshot, error) {
	return NewReader(root).Preflight(rel)
}

// Reader preflights files below one root as Preflight does, but each file,
// each directory's lstat and each directory's listing (for Leftovers) at
// most once: a plan or an audit that reads a dozen files in half a dozen
// directories pays for each once, and two passes over one repository (an
// audit and the conform dry run it checks) read it as of one moment. The
// Snapshots it returns share their Data and Leftovers between calls, so
// callers only read them. A Reader is used by one goroutine at a time and
// holds what it read until it is dropped: one per repository and pass.
type Reader struct {
	root     string
	rootStat *fileStat
	lstats   map[string]fileStat
	lists    map[string]map[string]fs.FileMode // a directory's entries and their types (nil: unreadable)
	files    map[string]read
}

// fileStat is an (l)stat's result.
type fileStat struct {
	fi  fs.FileInfo
	err error
}

// read is a Preflight's result.
type read struct {
	snap Snapshot
	err  error
}

// NewReader returns a Reader of the files below root (taken as the caller
// names it, as Preflight takes it). It reads nothing yet.
func NewReader(root string) *Reader { return &Reader{root: root} }

// Root returns the root the Reader was made for.
func (r *Reader) Root() string { return r.root }

// Preflight is the package's Preflight of (r.Root(), rel), answered from
// what the Reader read before when it read rel before.
func (r *Reader) Preflight(rel string) (Snapshot, error) {
	if got, ok := r.files[rel]; ok {
		return got.snap, got.err
	}
	s, err := r.preflight(rel)
	if r.files == nil {
		r.files = map[string]read{}
	}
	r.files[rel] = read{s, err}
	return s, err
}

func (r *Reader) preflight(rel string) (Snapshot, error) {
	root := r.root
	s := Snapshot{Root: root, Rel: rel, UID: -1, GID: -1}
	if err := checkRel(rel); err != nil {
		return s, err
	}
	if r.rootStat == nil {
		fi, err := os.Stat(root)
		r.rootStat = &fileStat{fi, err}
	}
	if r.rootStat.err == nil {
		s.UID, s.GID = fileowner.Of(r.rootStat.fi)
	}
	parts := strings.Split(rel, "/")
	base := parts[len(parts)-1]
	if len(parts) == 1 {
		s.Leftovers = r.leftovers(root, "", base)
	}
	cur := root
	for i, p := range parts {
		cur = filepath.Join(cur, p)
		last := i == len(parts)-1
		var fi fs.FileInfo
		var err error
		if last {
			fi, err = os.Lstat(cur)
		} else {
			fi, err = r.lstatDir(cur)
		}
		if errors.Is(err, fs.ErrNotExist) {
			return s, nil
		}
		if err != nil {
			return s, fmt.Errorf("%s: %w", cur, err)
		}
		if err := checkMode(cur, fi.Mode(), last); err != nil {
			return s, err
		}
		if !last {
			s.UID, s.GID = fileowner.Of(fi)
			if i == len(parts)-2 {
				s.Leftovers = r.leftovers(cur, pathDir(rel), base)
			}
		}
	}
	data, mode, uid, gid, err := readRegularOwned(cur)
	if err != nil {
		return s, err
	}
	s.Exists, s.Data, s.Mode, s.UID, s.GID = true, data, mode, uid, gid
	return s, nil
}

// lstatDir is os.Lstat of a directory on the way to a file, once per path.
func (r *Reader) lstatDir(path string) (fs.FileInfo, error) {
	if got, ok := r.lstats[path]; ok {
		return got.fi, got.err
	}
	fi, err := os.Lstat(path)
	if r.lstats == nil {
		r.lstats = map[string]fileStat{}
	}
	r.lstats[path] = fileStat{fi, err}
	return fi, err
}

// IsTemporaryOf reports whether name is a temporary atomicfile creates for a
// file named base in the same directory: "." + base + decimal digits.
func IsTemporaryOf(name, base string) bool {
	digits, ok := strings.CutPrefix(name, "."+base)
	if !ok || digits == "" || len(digits) > 19 {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// leftovers lists the regular files in dir (dirRel below the root, "" for
// the root) that are temporaries of base, listing dir once per Reader.
func (r *Reader) leftovers(dir, dirRel, base string) []string {
	var out []string
	for name, typ := range r.list(dir) {
		if typ.IsRegular() && IsTemporaryOf(name, base) {
			if dirRel == "" {
				out = append(out, name)
			} else {
				out = append(out, dirRel+"/"+name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// list returns dir's entries and their type bits (fs.DirEntry.Type), read
// once per Reader; nil when dir cannot be listed.
func (r *Reader) list(dir string) map[string]fs.FileMode {
	if got, listed := r.lists[dir]; listed {
		return got
	}
	var names map[string]fs.FileMode
	if ents, err := os.ReadDir(dir); err == nil {
		names = make(map[string]fs.FileMode, len(ents))
		for _, e := range ents {
			names[e.Name()] = e.Type()
		}
	}
	if r.lists == nil {
		r.lists = map[string]map[string]fs.FileMode{}
	}
	r.lists[dir] = names
	return names
}

// Exists reports whether rel (slash separated, below the root) names an
// entry of its directory, of any type, a symbolic link included (what
// os.Lstat finds), from one listing of that directory per Reader; false
// when the directory cannot be listed or rel leaves the root.
func (r *Reader) Exists(rel string) bool {
	if checkRel(rel) != nil {
		return false
	}
	_, ok := r.list(filepath.Join(r.root, filepath.FromSlash(pathDir(rel))))[path.Base(rel)]
	return ok
}

// RemoveLeftovers removes the files rels (slash separated, below root:
// temporaries Preflight found, Snapshot.Leftovers), each only while it is
// still a regular file (a link is refused, not followed), calling probe
// (when not nil) after each. A temporary already gone is fine.
func RemoveLeftovers(root string, rels []string, probe func(point string)) error {
	for _, rel := range rels {
		if err := checkRel(rel); err != nil {
			return err
		}
		if err := CheckDir(root, pathDir(rel)); pathDir(rel) != "" && err != nil {
			return err
		}
		p := filepath.Join(root, filepath.FromSlash(rel))
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s: %w: not a regular file, not removed", p, ErrRefused)
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w", p, err)
		}
		if probe != nil {
			probe("leftover-removed")
		}
	}
	return nil
}

// CheckWritable preflights the write of size bytes over snap, before any
// write of the run: the file's owner and group can be kept (or, for a new
// file, given from its directory) by this process; the file (when it
// exists) and the nearest existing directory of its path are writable
// (permissions, an immutable or append-only flag, a read-only mount); and
// that directory's file system has room for the temporary (size bytes plus
// a 64 KiB margin). Errors wrap ErrNotWritable and name the path.
func CheckWritable(snap Snapshot, size int) error {
	path := snap.Abs()
	if !canOwn(snap.UID, snap.GID) {
		what := "it is owned by"
		if !snap.Exists {
			what = "its directory is owned by"
		}
		return fmt.Errorf("%s: %w: %s uid %d gid %d, and this run (uid %d) cannot give a file that owner; run as that user or as root", path, ErrNotWritable, what, snap.UID, snap.GID, os.Geteuid())
	}
	if snap.Exists {
		if err := checkFlags(path); err != nil {
			return err
		}
		if err := writable(path, false); err != nil {
			return err
		}
	}
	dir := filepath.Dir(path)
	for dir != snap.Root && dir != filepath.Dir(dir) {
		if fi, err := os.Lstat(dir); err == nil && fi.IsDir() {
			break
		}
		dir = filepath.Dir(dir)
	}
	if err := checkFlags(dir); err != nil {
		return err
	}
	if err := writable(dir, true); err != nil {
		return err
	}
	free, err := freeBytes(dir)
	if err != nil {
		return fmt.Errorf("%s: %w: free space unknown: %v", dir, ErrNotWritable, err)
	}
	if need := uint64(size) + 64<<10; free < need {
		return fmt.Errorf("%s: %w: %d bytes free, %d needed", dir, ErrNotWritable, free, need)
	}
	return nil
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

// RefusedError is a path refused for its kind: Path is the component
// refused (joined below the root), Mode its mode as Lstat or the opened file
// reports it (a symlink shows as one), Parent true when it stands on the way
// to the file (a directory was needed) rather than being the file itself,
// and Link a symlink's target ("" for other kinds, or when it cannot be
// read). It wraps ErrRefused; its text is "<Path>: refused: <what it is>".
// A caller that words the refusal its own way (compile-context's hand-over
// hints) reads the fields instead of walking the path again.
type RefusedError struct {
	Path   string
	Mode   fs.FileMode
	Parent bool
	Link   string
	what   string
}

// Error returns "<Path>: refused: <what it is>".
func (e *RefusedError) Error() string { return e.Path + ": " + ErrRefused.Error() + ": " + e.what }

// Unwrap returns ErrRefused.
func (e *RefusedError) Unwrap() error { return ErrRefused }

// checkMode refuses path, of mode m, when it cannot stand where it is: the
// file itself (last) must be a regular file, a component on the way a
// directory; a symlink, FIFO, device or socket never. It returns a
// *RefusedError, or nil.
func checkMode(path string, m fs.FileMode, last bool) error {
	what := ""
	switch {
	case m&fs.ModeSymlink != 0:
		what = "a symbolic link (hookwarden writes no file through a link at or below the repository root; replace the link with the real file or directory)"
	case m&fs.ModeNamedPipe != 0:
		what = "a FIFO, not a regular file"
	case m&fs.ModeDevice != 0 || m&fs.ModeCharDevice != 0:
		what = "a device, not a regular file"
	case m&fs.ModeSocket != 0:
		what = "a socket, not a regular file"
	case !last && !m.IsDir():
		what = "not a directory"
	case last && m.IsDir():
		what = "a directory where a file belongs"
	case last && !m.IsRegular():
		what = fmt.Sprintf("not a regular file (mode %s)", m)
	default:
		return nil
	}
	e := &RefusedError{Path: path, Mode: m, Parent: !last, what: what}
	if m&fs.ModeSymlink != 0 {
		e.Link, _ = os.Readlink(path)
	}
	return e
}

// readRegular opens path without following a final symlink (O_NOFOLLOW) and
// without blocking on a FIFO (O_NONBLOCK), checks the opened file is regular
// and reads at most MaxFileBytes.
func readRegular(path string) ([]byte, fs.FileMode, error) {
	data, mode, _, _, err := readRegularOwned(path)
	return data, mode, err
}

// readRegularOwned is readRegular that also returns the file's owner and
// group (-1 where the platform has none).
func readRegularOwned(path string) ([]byte, fs.FileMode, int, int, error) {
	f, err := openNoFollow(path)
	if err != nil {
		return nil, 0, -1, -1, fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, -1, -1, fmt.Errorf("%s: %w", path, err)
	}
	if err := checkMode(path, fi.Mode(), true); err != nil {
		return nil, 0, -1, -1, err
	}
	// Sized from the stat (a file that grows meanwhile still reads whole,
	// up to the limit), so a rendered file of 100 KiB is not read through a
	// dozen reallocations. ReadFrom wants bytes.MinRead free before each
	// read, the one that meets the end included: without that room it
	// doubles the buffer and copies the whole file once more.
	var buf bytes.Buffer
	buf.Grow(int(min(max(fi.Size(), 0), MaxFileBytes)) + bytes.MinRead)
	if _, err := buf.ReadFrom(io.LimitReader(f, MaxFileBytes+1)); err != nil {
		return nil, 0, -1, -1, fmt.Errorf("%s: %w", path, err)
	}
	data := buf.Bytes()
	if len(data) > MaxFileBytes {
		return nil, 0, -1, -1, fmt.Errorf("%s: %w: larger than %d bytes", path, ErrRefused, MaxFileBytes)
	}
	if data == nil {
		data = []byte{}
	}
	uid, gid := fileowner.Of(fi)
	return data, fi.Mode().Perm(), uid, gid, nil
}

// Write replaces the file of snap with data, provided the file still holds
// exactly what the preflight read (compare-and-swap; absent stays absent).
// Missing directories are created with mode 0755 after a symlink check of
// every component, owned like snap (snap.UID, snap.GID). The write goes
// through a temporary file (internal/atomicfile) in the file's own
// directory, given
// snap's owner and group, renamed over the target; the target keeps
// snap.Mode when it existed, else gets newMode (subject to the umask). The
// file is read back and compared. Errors wrap ErrRefused, ErrConflict,
// ErrNotWritable (the owner cannot be kept: nothing is replaced) or
// ErrReadBack, or the os error, and name the path. Two writers racing
// between the final CAS read and the rename are not excluded (the window is
// one syscall wide); hookwarden's own runs never write one file twice
// concurrently.
func Write(snap Snapshot, data []byte, newMode fs.FileMode) error {
	return WriteProbed(snap, data, newMode, nil)
}

// WriteProbed is Write calling probe (when not nil) at each of its write
// points, in order: "dir-created" (after creating missing directories),
// "temp-created", "temp-written" (the temporary complete and owned; the
// rename is next), "renamed". Tests use it to stop a run at every point
// (adopt's crash test); production code calls Write.
func WriteProbed(snap Snapshot, data []byte, newMode fs.FileMode, probe func(point string)) error {
	if probe == nil {
		probe = func(string) {}
	}
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
			// The directories created take the owner of the file to be.
			cur := snap.Root
			for _, p := range strings.Split(dirRel, "/") {
				cur = filepath.Join(cur, p)
				if err := setPathOwner(cur, snap.UID, snap.GID); err != nil {
					return fmt.Errorf("%s: %w: %v", cur, ErrNotWritable, err)
				}
			}
			probe("dir-created")
		}
	}
	if err := compare(snap); err != nil {
		return err
	}
	var pf *atomicfile.Pending
	var err error
	if snap.Exists {
		pf, err = atomicfile.New(path, snap.Mode.Perm())
	} else {
		if newMode == 0 {
			newMode = 0o644
		}
		pf, err = atomicfile.NewUmasked(path, newMode.Perm())
	}
	if err != nil {
		return err
	}
	defer pf.Cleanup()
	probe("temp-created")
	if _, err := pf.Write(data); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := setOwner(pf.File(), snap.UID, snap.GID); err != nil {
		return fmt.Errorf("%s: %w: cannot keep owner uid %d gid %d: %v; not replaced", path, ErrNotWritable, snap.UID, snap.GID, err)
	}
	probe("temp-written")
	// Compare-and-swap: the last look before the rename.
	if err := compare(snap); err != nil {
		return err
	}
	if err := pf.Replace(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	probe("renamed")
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
