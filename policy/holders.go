package policy

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/hookwarden/hookwarden/settings/governed"
)

// maxHolderEntries bounds the directory entries one call reads while it
// looks for a governed repository inside the directories it removes, moves
// or re-permissions (holderHit); a call that would read more is refused as
// RuleScanBoundSteps (no bound turns into an allow).
const maxHolderEntries = 16384

// maxHolderDepth is how many levels below such a directory the search for
// a governed repository goes: 1 is the directory's own entries (a folder
// of repositories), 4 reaches ~/src/github.com/org/repo from ~/src.
const maxHolderDepth = 4

// holderState is what one call learned about governed repositories on
// disk (judge.holders): the governed roots above each directory a command
// ran in, and the directory entries read so far.
type holderState struct {
	above map[string][]string
	read  int
	// follow is set while a command that follows every symbolic link it
	// meets (chmod -R -L) is judged: the search enters links too.
	follow bool
	// removing is set while a command that only removes (rm, rmdir, …) is
	// judged: a directory the search cannot read is left out, as the
	// command fails on it too; for any other (mv, chmod, a find, a copy)
	// it counts as a governed root (fail closed: mv ws moves ws/team/proj
	// though ws/team cannot be read).
	removing bool
}

// holderHit judges an operand f of a command that removes, moves or
// re-permissions what it is given (rm -rf, rmdir, mv, chmod -R, chown,
// Remove-Item, …): when it names, or a glob in it matches, an existing
// directory that is a governed repository's root, holds one directly
// (a folder of repositories: rm -rf gov, chmod -R 000 *), or holds the
// governed repository the command runs in (rm -rf ../gov, rm -rf "$PWD",
// rm -rf . at the root, rm -rf .. below it), the whole repository with its
// guard files goes, and that is self-protect. A directory read past
// maxHolderEntries is RuleScanBoundSteps.
//
// A path find hands its -exec command ({}, field.found) is left to find's
// judge, which reads a start path holding a governed repository like one
// of dots (the expression decides whether the guard's files are reached).
func (j *judge) holderHit(sc *scope, f field) {
	if f.found {
		return
	}
	switch j.holderWord(sc, f, false) {
	case holdsYes:
		j.hits.add(RuleSelfProtect)
	case holdsUnknown:
		j.hits.add(RuleScanBoundSteps)
	}
}

// holderHitFollow is holderHit for a command that follows every symbolic
// link it meets in the tree (chmod, chown, chgrp -R -L; setfacl -R -L):
// a link in the directory may lead to a governed repository, or a
// directory holding one, that the command re-permissions through it.
func (j *judge) holderHitFollow(sc *scope, f field) {
	st := j.holderState()
	st.follow = true
	defer func() { st.follow = false }()
	j.holderHit(sc, f)
}

// holderHitRemoving is holderHit for a command that only removes what it
// is given (rm, rmdir, shred, unlink, del, Remove-Item, …): it cannot
// remove a directory it cannot read, so one the search cannot read is
// left out (holderState.removing).
func (j *judge) holderHitRemoving(sc *scope, f field) {
	st := j.holderState()
	st.removing = true
	defer func() { st.removing = false }()
	j.holderHit(sc, f)
}

// removesOnly reports the commands of removesWhole that only remove.
func removesOnly(name string) bool {
	switch name {
	case "rm", "rmdir", "shred", "unlink", "del", "erase", "rd", "remove-item", "ri":
		return true
	}
	return false
}

// followsLinks reports whether the command name with args walks a tree
// following every symbolic link in it: chmod, chown, chgrp and setfacl
// with -R and -L (the last of -H, -L and -P wins; setfacl's -P is
// --physical).
func followsLinks(name string, args []field) bool {
	switch name {
	case "chmod", "chown", "chgrp", "setfacl":
	default:
		return false
	}
	recursive, follow := false, false
	for _, a := range args {
		v := a.val
		if v == "--" {
			break
		}
		switch {
		case v == "--recursive":
			recursive = true
		case v == "--logical":
			follow = true
		case v == "--physical":
			follow = false
		case strings.HasPrefix(v, "--") || !strings.HasPrefix(v, "-") || len(v) < 2:
		default:
			for _, c := range v[1:] {
				switch c {
				case 'R':
					recursive = true
				case 'L':
					follow = true
				case 'H', 'P':
					follow = false
				}
			}
		}
	}
	return recursive && follow
}

// holdsWord reports whether the word f (a path, or a glob matched on disk)
// is or holds a governed repository's root (holdsGoverned); an answer
// past maxHolderEntries counts as yes.
func (j *judge) holdsWord(sc *scope, f field) bool {
	return j.holderWord(sc, f, false) != holdsNo
}

// holderWord is holdsGoverned for every path the word f names; with
// localEntries, a directory's entries are looked at only below the
// directory the command starts in (a write into /tmp does not depend on
// the repositories other work left there).
func (j *judge) holderWord(sc *scope, f field, localEntries bool) holds {
	if j.dir == "" || sc.cwdUnknown {
		return holdsNo
	}
	words := []string{f.val}
	if m, ok := sc.globMatches(f.val); ok {
		words = m
	}
	out := holdsNo
	for _, w := range words {
		if w == "" || strings.Contains(w, dyn) {
			continue
		}
		full, ok := j.diskPath(sc, w)
		if !ok {
			continue
		}
		full = filepath.Clean(full)
		entries := !localEntries || within(full, j.dir)
		if h := j.holdsGoverned(sc, full, entries); h > out {
			out = h
		}
		// Where the kernel takes it (chmod -R 000 l/.., cd l && chmod -R
		// 000 .., with l a link into a governed repository) when that is
		// elsewhere.
		if phys, ok := j.physicalDiskPath(sc, w); ok && phys != full {
			if h := j.holdsGoverned(sc, phys, !localEntries || within(phys, j.dir)); h > out {
				out = h
			}
		}
	}
	return out
}

// holds is holdsGoverned's answer.
type holds int

const (
	holdsNo holds = iota
	holdsYes
	holdsUnknown
)

// holdsGoverned reports whether dir (absolute, cleaned) is an existing
// directory that is or holds a governed repository's root: one above the
// directory the command runs in at sc or above the one it started in, dir
// itself, or, when entries is set and dir lies in no governed repository
// around the command's directory, one up to maxHolderDepth levels below
// dir (governedEntries).
func (j *judge) holdsGoverned(sc *scope, dir string, entries bool) holds {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return holdsNo
	}
	// The governed repositories around where the command is now and
	// around where it started: after cd .. the one it started in is no
	// longer above it, and a directory holding it still holds it.
	var heres []string
	if here, ok := j.diskPath(sc, "."); ok {
		heres = append(heres, filepath.Clean(here))
	}
	if start := filepath.Clean(j.dir); j.dir != "" && (len(heres) == 0 || heres[0] != start) {
		heres = append(heres, start)
	}
	for _, h := range heres {
		for _, root := range j.governedAbove(h) {
			if within(root, dir) {
				return holdsYes
			}
			if within(dir, root) {
				// Inside the governed repository the command runs in
				// (rm -rf node_modules): its entries are that repository's
				// files, not repositories of their own, and reading a
				// large one would cost every such removal.
				entries = false
			}
		}
	}
	if governed.Root(dir) {
		return holdsYes
	}
	if !entries {
		return holdsNo
	}
	return j.governedEntry(dir)
}

// governedEntry reports whether a directory below dir is a governed
// repository's root (governedEntries).
func (j *judge) governedEntry(dir string) holds {
	roots, h := j.governedEntries(dir)
	if len(roots) > 0 {
		return holdsYes
	}
	return h
}

// governedEntries returns the governed repositories' roots below dir, level
// by level down to maxHolderDepth, reading at most what is left of
// maxHolderEntries (holdsUnknown past it, with the roots found so far). It
// descends into real directories only: a symbolic link to a directory is
// itself checked as a root but not entered (a link can loop), nor is a
// `.git` directory, a governed root already found (what it holds goes with
// it) or a `node_modules` directory (a package manager's tree, which holds
// no repository the user put there and would spend the budget: rm -rf of a
// project folder beside governed repositories stays allowed). A directory
// it cannot open or read to the end counts as a governed root, unless the
// command only removes (it fails on that directory as well: unreadable).
func (j *judge) governedEntries(dir string) ([]string, holds) {
	if !j.holderState().follow && inNodeModules(dir) {
		// rm -rf node_modules (or a package in it): a package manager's
		// tree, not entered below either (its entries would spend the
		// budget: refused as scan-bound-steps where rm -rf of the project
		// around it was allowed).
		return nil, holdsNo
	}
	var roots []string
	level := []string{dir}
	for depth := 1; depth <= maxHolderDepth && len(level) > 0; depth++ {
		var next []string
		for _, d := range level {
			sub, h := j.governedLevel(d, &roots)
			if h == holdsUnknown {
				return roots, holdsUnknown
			}
			next = append(next, sub...)
		}
		level = next
	}
	return roots, holdsNo
}

// governedLevel reads the entries of dir within the call's budget, adds
// those that are governed roots to roots and returns the directories to
// read at the next level.
func (j *judge) governedLevel(dir string, roots *[]string) ([]string, holds) {
	d, err := os.Open(dir)
	if err != nil {
		j.unreadable(dir, err, roots)
		return nil, holdsNo
	}
	defer d.Close()
	left := maxHolderEntries - j.holderState().read
	ents, err := d.ReadDir(left + 1)
	if len(ents) > left {
		return nil, holdsUnknown
	}
	j.holderState().read += len(ents)
	if err != nil && !errors.Is(err, io.EOF) {
		j.unreadable(dir, err, roots)
		return nil, holdsNo
	}
	var sub []string
	for _, e := range ents {
		if !e.IsDir() && e.Type()&fs.ModeSymlink == 0 || e.Name() == ".git" {
			continue
		}
		p := filepath.Join(dir, e.Name())
		switch {
		case governed.Root(p):
			*roots = append(*roots, p)
		case e.IsDir() && e.Name() != "node_modules":
			sub = append(sub, p)
		case j.holderState().follow && e.Type()&fs.ModeSymlink != 0 && isDirPath(p):
			sub = append(sub, p) // chmod -R -L enters it (bounded by depth and budget: a loop only spends them)
		}
	}
	return sub, holdsNo
}

// unreadable adds dir, a directory the search could not open or read to
// the end (err), to roots unless the command only removes
// (holderState.removing) or dir is gone: what it holds cannot be inspected,
// and it counts as governed (settings/governed's rule).
func (j *judge) unreadable(dir string, err error, roots *[]string) {
	if j.holderState().removing || errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return
	}
	*roots = append(*roots, dir)
}

// repoNamesUnder returns the base names under which find, started at p,
// meets a governed repository's root: p itself as written when it is one,
// each governed root between it and the command's directory, and each
// governed entry of p (find .. -maxdepth 1 -name repo from inside repo).
// unknown is true past maxHolderEntries.
func (j *judge) repoNamesUnder(sc *scope, p field) (names []string, unknown bool) {
	if j.dir == "" || sc.cwdUnknown || p.dynamic() {
		return nil, false
	}
	full, ok := j.diskPath(sc, p.val)
	if !ok {
		return nil, false
	}
	full = filepath.Clean(full)
	if fi, err := os.Stat(full); err != nil || !fi.IsDir() {
		return nil, false
	}
	if governed.Root(full) {
		names = append(names, filepath.Base(filepath.Clean(p.val)))
	}
	inside := false // in a governed repository around the command: entries not read (holdsGoverned)
	if here, ok := j.diskPath(sc, "."); ok {
		for _, root := range j.governedAbove(filepath.Clean(here)) {
			if root != full && within(root, full) {
				names = append(names, filepath.Base(root))
			}
			inside = inside || root != full && within(full, root)
		}
	}
	if inside {
		return names, false
	}
	roots, h := j.governedEntries(full)
	for _, r := range roots {
		names = append(names, filepath.Base(r))
	}
	return names, h == holdsUnknown
}

// GovernedBelow returns the roots of the governed repositories that dirs
// (absolute, cleaned) are, or hold up to maxHolderDepth levels down, as
// holderHit searches for them (one budget of maxHolderEntries for all of
// dirs; a directory that does not exist holds none); unknown is true past
// the budget. The engine asks it for a command's Scan.Holders where no
// governed repository contains the command's directory, so that `rm -rf
// ws` with ws/team/proj governed is judged rather than skipped.
func GovernedBelow(dirs []string) (roots []string, unknown bool) {
	j := &judge{}
	for _, d := range dirs {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			continue
		}
		if governed.Root(d) {
			roots = append(roots, d)
			continue
		}
		r, h := j.governedEntries(d)
		roots = append(roots, r...)
		if h == holdsUnknown {
			return roots, true
		}
	}
	return roots, false
}

// holderState returns the call's holderState, made on first use.
func (j *judge) holderState() *holderState {
	if j.holders == nil {
		j.holders = &holderState{above: map[string][]string{}}
	}
	return j.holders
}

// governedAbove returns the governed repository roots that contain dir
// (absolute, cleaned), dir included (governed.Above), once per directory
// and call.
func (j *judge) governedAbove(dir string) []string {
	st := j.holderState()
	if roots, ok := st.above[dir]; ok {
		return roots
	}
	roots := governed.Above(dir)
	st.above[dir] = roots
	return roots
}

// inNodeModules reports whether a component of p (absolute, cleaned) is
// node_modules.
func inNodeModules(p string) bool {
	return slices.Contains(strings.Split(filepath.ToSlash(p), "/"), "node_modules")
}

// isDirPath reports whether p leads to a directory (links followed).
func isDirPath(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// within reports whether p is dir or below it (both absolute, cleaned).
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
