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
func Above(dir string) []string {
	var out []string
	for d := dir; ; d = filepath.Dir(d) {
		if Root(d) {
			out = append(out, d)
		}
		if filepath.Dir(d) == d {
			return out
		}
	}
}

// present reports whether lstat(2) finds p, or fails for a reason other
// than its absence (fail closed).
func present(p string) bool {
	_, err := os.Lstat(p)
	return err == nil || !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR)
}
