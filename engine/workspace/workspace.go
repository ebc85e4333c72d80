// Package workspace decides in which repositories a hook call is judged: the
// payload's cwd (agy: its workspacePaths) made absolute, the repository that
// contains it (found in process by internal/gitdisc, no child process), and
// any repository a shell command targets from outside (`git -C <dir>`,
// `--git-dir`, `--work-tree`, GIT_DIR=/GIT_WORK_TREE= assignments,
// `cd <dir>`/`pushd <dir>`, `env -C <dir>`/`env --chdir`, `sudo -D`). A
// repository is governed when its root holds `.hookwarden.yaml`. The
// directory scan (ScanTargets) is linear in the command and fails closed at
// its bounds (BoundError); a directory it cannot follow makes the command
// judged rather than skipped (Target.Unresolved).
package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hookwarden/hookwarden/internal/gitdisc"
	"github.com/hookwarden/hookwarden/policy/settings"
)

// Place is one resolved directory. Dir is the absolute, cleaned directory.
// RepoRoot is the working tree root of the repository containing Dir ("" when
// none). Governed is true when RepoRoot holds `.hookwarden.yaml`.
type Place struct {
	Dir      string
	RepoRoot string
	Governed bool
}

// Resolve finds the repository containing dir (absolute) and whether it is
// governed. Errors name the path: dir missing or unreadable, a broken `.git`
// file, a `.hookwarden.yaml` that is not a regular file or cannot be
// inspected. A failure is never reported as "ungoverned".
func Resolve(dir string) (Place, error) {
	if !filepath.IsAbs(dir) {
		return Place{}, fmt.Errorf("%s: directory is not absolute", dir)
	}
	dir = filepath.Clean(dir)
	repo, found, err := gitdisc.Find(dir)
	if err != nil {
		return Place{}, err
	}
	p := Place{Dir: dir}
	if !found {
		return p, nil
	}
	p.RepoRoot = repo.WorkTree
	p.Governed, err = IsGoverned(repo.WorkTree)
	return p, err
}

// IsGoverned reports whether root holds a `.hookwarden.yaml` regular file. It
// returns an error when the entry exists but is not a regular file (a
// directory, a FIFO, a symbolic link to a missing file) or cannot be
// inspected.
func IsGoverned(root string) (bool, error) {
	path := filepath.Join(root, settings.RepoFileName)
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// A marker that is there but leads nowhere (a dangling
			// symbolic link) is unreadable, not absent: treating it as
			// absent would switch governance off.
			if _, lerr := os.Lstat(path); lerr == nil {
				return false, fmt.Errorf("%s: a symbolic link to a missing file", path)
			}
			return false, nil
		}
		return false, fmt.Errorf("%s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return false, fmt.Errorf("%s: not a regular file", path)
	}
	return true, nil
}

// Target is where a call is judged. Dir is the place the call runs in (the
// base). Roots lists the governed repository roots the call is judged in,
// without duplicates, the base's first. Outside lists the governed roots
// reached only through the command's own targets. Unresolved is true when
// the command acts in a directory known only at run time (Scan.Unresolved):
// the engine judges it even when no root is governed.
type Target struct {
	Base       Place
	Roots      []string
	Outside    []string
	Unresolved bool
}

// Locate resolves a call. candidates are the base directories in priority
// order (the payload cwd; for agy its workspacePaths, where the first
// governed one wins, an entry that does not exist is passed over, and the
// first existing one is the base otherwise); command is the shell command
// text ("" when the call has none); home expands a leading `~` in target
// directories.
//
// Errors: no candidate; no candidate that exists; a candidate that exists
// but cannot be resolved; a *BoundError from ScanTargets (the command passes
// a bound of the directory scan); a command target that exists but cannot
// be inspected (that error does not name the path, which comes from the
// command text). A target directory that does not exist yet
// (`mkdir x && cd x`) is resolved from its nearest existing ancestor.
func Locate(candidates []string, command, home string) (Target, error) {
	if len(candidates) == 0 {
		return Target{}, errors.New("no working directory to judge the call in")
	}
	var t Target
	found := false
	var missing error
	for _, c := range candidates {
		p, err := Resolve(c)
		if err != nil {
			if len(candidates) > 1 && filepath.IsAbs(c) && errors.Is(err, fs.ErrNotExist) {
				// agy lists each --add-dir folder; one that is gone does
				// not hide a governed one after it.
				missing = err
				continue
			}
			return Target{}, err
		}
		if !found {
			t.Base, found = p, true
		}
		if p.Governed {
			t.Base = p
			t.Roots = append(t.Roots, p.RepoRoot)
			break
		}
	}
	if !found {
		return Target{}, missing
	}
	if command == "" {
		return t, nil
	}
	sc, err := ScanTargets(command, t.Base.Dir, home, isDir)
	if err != nil {
		return Target{}, err
	}
	t.Unresolved = sc.Unresolved
	for _, d := range sc.Dirs {
		p, err := resolveNearest(d)
		if err != nil {
			// The path comes from the command text: do not repeat it.
			return Target{}, errors.New("a directory the command targets could not be inspected (unreadable, or a broken .git file)")
		}
		if p.Governed && !contains(t.Roots, p.RepoRoot) {
			t.Roots = append(t.Roots, p.RepoRoot)
			t.Outside = append(t.Outside, p.RepoRoot)
		}
	}
	return t, nil
}

// isDir reports whether d is an existing directory (symbolic links followed).
func isDir(d string) bool {
	st, err := os.Stat(d)
	return err == nil && st.IsDir()
}

// resolveNearest resolves d, or its nearest existing ancestor when d does not
// exist.
func resolveNearest(d string) (Place, error) {
	cur := d
	for {
		st, err := os.Stat(cur)
		if err == nil {
			if !st.IsDir() {
				// `git --git-dir=<file>` or a path to a file: use its directory.
				cur = filepath.Dir(cur)
				continue
			}
			return Resolve(cur)
		}
		if !errors.Is(err, fs.ErrNotExist) && !isENOTDIR(err) {
			return Place{}, fmt.Errorf("%s: %w", cur, err)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return Place{Dir: d}, nil
		}
		cur = parent
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
