// Package workspace decides in which repositories a hook call is judged: the
// payload's cwd (agy: its workspacePaths) made absolute, the repository that
// contains it (found in process by internal/gitdisc, no child process), and
// any repository a shell command targets from outside (`git -C <dir>`,
// `--git-dir`, `--work-tree`, GIT_DIR=/GIT_WORK_TREE= assignments,
// `cd <dir>`/`pushd <dir>`, `env -C <dir>`/`env --chdir`, `sudo -D`). A
// repository is governed when its root holds `.hookwarden.yaml`. The
// directory scan (policy.ScanTargets) is linear in the command and fails closed at
// its bounds (policy.BoundError); a directory it cannot follow makes the command
// judged rather than skipped (Target.Unresolved).
package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/hookwarden/hookwarden/internal/gitdisc"
	"github.com/hookwarden/hookwarden/policy"
	"github.com/hookwarden/hookwarden/settings/governed"
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
// governed (governed.Manifest: a `.hookwarden.yaml` that cannot be
// inspected, or is not a regular file, counts). Errors name the path: dir
// missing or unreadable, a `.git` that cannot be inspected, a broken `.git`
// file. A failure is never reported as "ungoverned".
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
	p.Governed = governed.Manifest(repo.WorkTree)
	return p, nil
}

// Target is where a call is judged. Dir is the place the call runs in (the
// base). Roots lists the governed repository roots the call is judged in,
// without duplicates: every governed repository that contains the base
// (innermost first: a nested repository or submodule does not hide the
// governed tree around it), then those the command's targets and named
// paths reach. Outside lists the governed roots reached only through the
// command's own targets or named paths. Unresolved is true when the command
// acts in a directory known only at run time (Scan.Unresolved): the engine
// judges it even when no root is governed.
//
// Holds lists governed repositories found directly below the base, or
// below a directory the command moves into, when no governed repository
// contains the base (GovernedChildren): a folder of repositories, where a
// command may reach one through a glob, a find, a variable or a script
// (`rm -rf g?v`, `find . -name .hookwarden.yaml -delete`, `bash s.sh`);
// failing that, those up to four levels below a directory the command
// removes, moves, re-permissions or cleans (Scan.Holders,
// policy.GovernedBelow: `rm -rf ws` with ws/team/proj governed), or the
// first such directory when that search passes its budget. The engine
// judges such a command instead of skipping it.
type Target struct {
	Base       Place
	Roots      []string
	Outside    []string
	Unresolved bool
	Holds      []string
}

// Locate resolves a call. candidates are the base directories in priority
// order (the payload cwd; for agy its workspacePaths, where the first one
// inside a governed repository wins, an entry that does not exist is passed
// over, and the first existing one is the base otherwise); command is the
// call's shell command (nil when the call has none), whose parses the scan
// keeps for the judge (policy.Command); home expands a leading `~`
// in target directories and named paths; paths are the files the call
// names besides its command (a pre-edit's targets), absolute, `~/`, or
// relative to the base.
//
// Every governed repository that contains the base is a root
// (governed.Above), and so is every one that contains a directory the
// command targets (policy.ScanTargets' Dirs), a path the command names that leaves
// the base's tree (absolute, `~/` or with a `..` component: Scan.Paths) or
// descends into it (a relative path with a slash: Scan.Below, which reaches
// a governed repository nested below an ungoverned base; with no governed
// repository around the base, a bare name too: Scan.Names), or one of
// paths.
//
// Errors: no candidate; no candidate that exists; a candidate that exists
// but cannot be resolved; a *policy.BoundError from policy.ScanTargets (the command passes
// a bound of the directory scan); a command target that exists but cannot
// be inspected (that error does not name the path, which comes from the
// command text). A target directory that does not exist yet
// (`mkdir x && cd x`) is resolved from its nearest existing ancestor.
func Locate(candidates []string, command *policy.Command, home string, paths ...string) (Target, error) {
	t, err := base(candidates)
	if err != nil {
		return Target{}, err
	}
	var reached, nested, dirs, holders []string
	for _, p := range paths {
		if ap := namedPath(p, t.Base.Dir, home); ap != "" {
			reached = append(reached, ap)
		}
	}
	if command != nil {
		sc, err := policy.ScanTargets(command, t.Base.Dir, home, isDir)
		if err != nil {
			return Target{}, err
		}
		t.Unresolved = sc.Unresolved
		below := sc.Below
		if len(t.Roots) == 0 {
			// Nothing governs the base, so the call would be skipped: an
			// entry the command names may be a governed repository.
			below = slices.Concat(below, sc.Names)
		}
		var walked []string
		if nested, walked, err = rootsBelow(t.Base.Dir, below); err != nil {
			return Target{}, err
		}
		reached = slices.Concat(reached, sc.Dirs, sc.Paths, walked)
		dirs, holders = sc.Dirs, sc.Holders
	}
	roots, err := Reached(reached)
	if err != nil {
		return Target{}, err
	}
	for _, r := range slices.Concat(nested, roots) {
		if !contains(t.Roots, r) {
			t.Roots = append(t.Roots, r)
			t.Outside = append(t.Outside, r)
		}
	}
	if len(t.Roots) == 0 && command != nil {
		// Nothing governs where the command runs: a governed repository
		// just below it (or below where it moves) may still be reached.
		for _, d := range slices.Concat([]string{t.Base.Dir}, dirs) {
			if t.Holds, err = GovernedChildren(d); err != nil || len(t.Holds) > 0 {
				return t, err
			}
		}
		// A directory the command removes, moves, re-permissions or
		// cleans may hold one several levels down (rm -rf ws with
		// ws/team/proj governed; found 2026-12-06: skipped from a folder
		// whose entries are not governed, and from an ungoverned
		// repository). Past the search's budget the first such directory
		// is taken to hold one (judged, not skipped).
		roots, unknown := policy.GovernedBelow(holders)
		t.Holds = roots
		if unknown {
			t.Holds = append(t.Holds, holders[0])
		}
	}
	return t, nil
}

// base picks the base of a call among candidates (Locate's): the first one
// inside a governed repository, with the roots of every governed repository
// that contains it; otherwise the first that exists. An absolute candidate
// that does not exist is passed over when there are several.
func base(candidates []string) (Target, error) {
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
		if roots := governed.Above(p.Dir); len(roots) > 0 {
			t.Base, t.Roots = p, roots
			return t, nil
		}
	}
	if !found {
		return Target{}, missing
	}
	return t, nil
}

// MaxChildren bounds how many entries of a directory GovernedChildren
// reads; a directory with more is taken to hold a governed repository
// (fail closed: the command is judged rather than skipped).
const MaxChildren = 4096

// GovernedChildren returns the roots of the governed repositories that are
// entries of dir (absolute; a subdirectory holding `.git` and a
// `.hookwarden.yaml`, a symbolic link to one included), in directory order;
// dir itself when it has more than MaxChildren entries. A dir that does not
// exist or is not a directory holds none. An entry whose `.git` or
// `.hookwarden.yaml` cannot be inspected counts as governed (governed.Root):
// the command is judged with the built-in rules, not refused, so one
// unreadable sibling does not refuse every command in the folder. Errors
// name dir: it cannot be read. Cost: one directory read and, per
// subdirectory, one lstat (two for a repository).
func GovernedChildren(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || isENOTDIR(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	defer f.Close()
	ents, err := f.ReadDir(MaxChildren + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		if isENOTDIR(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	if len(ents) > MaxChildren {
		return []string{dir}, nil
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() && e.Type()&fs.ModeSymlink == 0 {
			continue
		}
		sub := filepath.Join(dir, e.Name())
		if governed.Root(sub) {
			out = append(out, sub)
		}
	}
	return out, nil
}

// rootsBelow returns the roots of the governed repositories nested below
// base (absolute) that the paths below it reach (Scan.Below: relative words
// with a slash, made absolute), looking only at the directories between
// base and each path, each once: the repositories that contain base are
// known already. rest are the paths it leaves to Reached: those not below
// base (read after a cd elsewhere) and those through a symbolic link, which
// may lead anywhere. The error does not name the path, which comes from the
// command text.
func rootsBelow(base string, paths []string) (roots, rest []string, err error) {
	const unreadable = "a directory the command targets could not be inspected (unreadable, or a broken .git file)"
	walked := map[string]bool{} // a directory seen: true when the walk goes on below it
	for _, p := range paths {
		rel, err := filepath.Rel(base, p)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			rest = append(rest, p)
			continue
		}
		d := base
		for _, c := range strings.Split(rel, string(filepath.Separator)) {
			d = filepath.Join(d, c)
			if goOn, seen := walked[d]; seen {
				if !goOn {
					break
				}
				continue
			}
			st, err := os.Lstat(d)
			switch {
			case err != nil && (errors.Is(err, fs.ErrNotExist) || isENOTDIR(err)):
			case err != nil:
				return nil, nil, errors.New(unreadable)
			case st.Mode()&fs.ModeSymlink != 0:
				rest = append(rest, p)
			case st.IsDir():
				walked[d] = true
				if governed.Root(d) && !contains(roots, d) {
					roots = append(roots, d)
				}
				continue
			}
			walked[d] = false
			break
		}
	}
	return roots, rest, nil
}

// Reached returns the roots of the governed repositories that contain the
// paths a command reaches (absolute; a path that does not exist yet counts
// from its nearest existing ancestor, a file from its directory), without
// duplicates, in the order the paths name them. The error does not name the
// path, which comes from the command text: a directory that cannot be
// inspected (unreadable, or a broken .git file).
func Reached(paths []string) ([]string, error) {
	// Many reached paths share their nearest existing directory (cd a; cd a;
	// ... names a, a/a, a/a/a below one directory): each missing path and
	// each directory is inspected once, so the bound of directory operands
	// costs linear work (BenchmarkLocateDirectoryOperands).
	nearest := map[string]Place{}
	seen := map[string]bool{}
	var out []string
	for _, d := range paths {
		p, err := resolveNearestCached(d, nearest)
		if err == nil && seen[p.Dir] {
			continue
		}
		seen[p.Dir] = true
		if err != nil {
			return nil, errors.New("a directory the command targets could not be inspected (unreadable, or a broken .git file)")
		}
		for _, r := range governed.Above(p.Dir) {
			if !contains(out, r) {
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// namedPath returns p (a path a call names) made absolute against base,
// with a leading `~/` as home and NUL bytes dropped; "" when it cannot be placed (empty, another
// user's `~name`, `~/` without a home).
func namedPath(p, base, home string) string {
	// A NUL byte names no file; the spelling without it is the one a
	// client could write (the edit guard judges both).
	p = strings.ReplaceAll(p, "\x00", "")
	switch {
	case p == "":
		return ""
	case p == "~" || strings.HasPrefix(p, "~/"):
		if home == "" {
			return ""
		}
		p = home + p[1:]
	case strings.HasPrefix(p, "~"):
		return ""
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
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

// resolveNearestCached is resolveNearest remembering, in cache, the answer
// for every missing path it walked up through and for the directory it
// resolved.
func resolveNearestCached(d string, cache map[string]Place) (Place, error) {
	var missing []string
	cur := d
	for {
		if p, ok := cache[cur]; ok {
			for _, m := range missing {
				cache[m] = p
			}
			return p, nil
		}
		st, err := os.Stat(cur)
		if err == nil && st.IsDir() {
			p, err := Resolve(cur)
			if err != nil {
				return Place{}, err
			}
			cache[cur] = p
			for _, m := range missing {
				cache[m] = p
			}
			return p, nil
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) && !isENOTDIR(err) {
			return Place{}, fmt.Errorf("%s: %w", cur, err)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return Place{Dir: d}, nil
		}
		missing = append(missing, cur)
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

// isENOTDIR reports whether err is ENOTDIR: a path component is a file.
func isENOTDIR(err error) bool { return errors.Is(err, syscall.ENOTDIR) }
