// Package governed answers the one question the judge (policy) and the live
// hook path (engine/workspace) both ask of a directory: is it a governed
// repository's root, a directory holding a `.git` entry and a
// settings.RepoFileName. Above lists the governed roots that contain a
// directory.
//
// An entry that cannot be inspected (lstat(2) fails other than "does not
// exist" or "a path component is a file": permission denied, a loop, an I/O
// error) counts as there, so a directory whose `.git` or manifest cannot be
// inspected counts as governed: the judge then applies the stricter verdict
// (self-protect for a command that removes it), and the hook reads its
// manifest as a settings layer, which fails and refuses the call. Whether the
// manifest is a valid settings file is settings' question, not this one: a
// directory, a FIFO or a symbolic link that leads nowhere in its place marks
// the repository governed (never "ungoverned" because it is broken).
package governed

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/hookwarden/hookwarden/settings"
)

// Root reports whether dir is a governed repository's root: it holds a
// `.git` entry (a directory, or the file of a linked worktree or submodule,
// not followed) and a settings.RepoFileName entry (Manifest), either counted
// when it cannot be inspected. Cost: one lstat(2), two for a repository.
func Root(dir string) bool {
	return present(filepath.Join(dir, ".git")) && Manifest(dir)
}

// Manifest reports whether root (a repository's work tree) holds a
// settings.RepoFileName entry of any kind, or one that cannot be inspected.
// Cost: one lstat(2).
func Manifest(root string) bool {
	return present(filepath.Join(root, settings.RepoFileName))
}

// Above returns the root of every governed repository that contains dir
// (absolute, cleaned), dir included, innermost first (Root for dir and each
// of its ancestors). A nested repository does not end the walk, so the
// outermost governed tree is found as well.
//
// dir is walked as written and, when a symbolic link on its way leads
// elsewhere, as the kernel (and git) reach it (filepath.EvalSymlinks): a
// directory reached through a link into a governed repository (pkg/l ->
// /src/gov/sub; a shell's logical `cd l`) lies in that repository, though
// no lexical ancestor of it is governed. The roots of the physical walk
// follow the lexical ones. Cost: one lstat(2) more per component of dir.
func Above(dir string) []string {
	out := above(dir, nil)
	if phys, err := filepath.EvalSymlinks(dir); err == nil && phys != dir {
		out = above(phys, out)
	}
	return out
}

// above appends to out the governed roots among dir and its lexical
// ancestors that out does not hold yet (by name, or as the same directory
// under another spelling: /tmp and /private/tmp on macOS), innermost first.
func above(dir string, out []string) []string {
	for d := dir; ; d = filepath.Dir(d) {
		if Root(d) && !holds(out, d) {
			out = append(out, d)
		}
		if filepath.Dir(d) == d {
			return out
		}
	}
}

// holds reports whether roots holds d, or the directory d names.
func holds(roots []string, d string) bool {
	if slices.Contains(roots, d) {
		return true
	}
	if len(roots) == 0 {
		return false
	}
	fi, err := os.Stat(d)
	if err != nil {
		return false
	}
	for _, r := range roots {
		if ri, err := os.Stat(r); err == nil && os.SameFile(fi, ri) {
			return true
		}
	}
	return false
}

// present reports whether lstat(2) finds p, or fails for a reason other
// than its absence (fail closed).
func present(p string) bool {
	_, err := os.Lstat(p)
	return err == nil || !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR)
}
