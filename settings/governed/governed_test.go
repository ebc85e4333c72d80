package governed

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/hookwarden/hookwarden/internal/posixtest"
)

// mkdirs makes each directory and writes each file (empty) below root.
func mkdirs(t *testing.T, root string, dirs, files []string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(root, f), []byte("version: 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAbove: a nested repository, a submodule's .git file and a plain
// directory inside a governed repository all lead to it; the walk goes past
// a nested governed repository to the outer one; a repository without a
// manifest, or a manifest without a .git, is not governed.
func TestAbove(t *testing.T) {
	root := t.TempDir()
	g := filepath.Join(root, "g")
	mkdirs(t, g, []string{".git", "x/.git", "sub", "inner/.git", "inner/deep", "nomark/.git", "nogit/d"},
		[]string{".hookwarden.yaml", "inner/.hookwarden.yaml", "nogit/.hookwarden.yaml"})
	if err := os.WriteFile(filepath.Join(g, "sub", ".git"), []byte("gitdir: /nonexistent\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	j := func(p string) string { return filepath.Join(g, filepath.FromSlash(p)) }
	for dir, want := range map[string][]string{
		j("x"):          {g},
		j("sub"):        {g},
		j("inner/deep"): {j("inner"), g},
		j("nomark"):     {g},
		j("nogit/d"):    {g},
		root:            nil,
	} {
		if got := Above(dir); !slices.Equal(got, want) {
			t.Errorf("Above(%s) = %v, want %v", dir, got, want)
		}
	}
}

// TestRootUninspectable: a manifest that is a directory or a symbolic link
// leading nowhere, and a .git or manifest that cannot be inspected (a
// directory reached through a symbolic-link loop; a directory without
// search permission), count as governed (fail closed).
func TestRootUninspectable(t *testing.T) {
	root := t.TempDir()
	mkdirs(t, root, []string{"dirmark/.git", "dirmark/.hookwarden.yaml", "dangling/.git", "plain/.git"}, nil)
	posixtest.Symlink(t, filepath.Join(root, "nowhere"), filepath.Join(root, "dangling", ".hookwarden.yaml"))
	posixtest.Symlink(t, filepath.Join(root, "loop"), filepath.Join(root, "loop"))
	for name, want := range map[string]bool{"dirmark": true, "dangling": true, "loop": true, "plain": false, "missing": false} {
		if got := Root(filepath.Join(root, name)); got != want {
			t.Errorf("Root(%s) = %v, want %v", name, got, want)
		}
	}
	t.Run("no search permission", func(t *testing.T) {
		if runtime.GOOS == "windows" || os.Geteuid() == 0 {
			t.Skip("skipped: permission bits do not stop this user (root, or Windows)")
		}
		locked := filepath.Join(root, "locked")
		mkdirs(t, locked, []string{"sub"}, nil)
		if err := os.Chmod(locked, 0o000); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(locked, 0o755) })
		if !Root(locked) {
			t.Errorf("Root(%s) = false for a directory whose .git cannot be inspected, want true", locked)
		}
		if got := Above(filepath.Join(locked, "sub")); !slices.Contains(got, locked) {
			t.Errorf("Above(%s/sub) = %v, want it to hold %s", locked, got, locked)
		}
	})
}

// TestAboveThroughLink: a directory reached through a symbolic link into a
// governed repository (out/l -> g/src, a shell's logical cd l) lies in that
// repository, as the kernel and git see it, though no lexical ancestor of
// out/l is governed; the lexical roots come first.
func TestAboveThroughLink(t *testing.T) {
	root := t.TempDir()
	mkdirs(t, root, []string{"g/.git", "g/src/deep", "out/.git", "outer/.git", "outer/inner"}, []string{"g/.hookwarden.yaml", "outer/.hookwarden.yaml"})
	posixtest.Symlink(t, filepath.Join(root, "g", "src"), filepath.Join(root, "out", "l"))
	posixtest.Symlink(t, filepath.Join(root, "g", "src"), filepath.Join(root, "outer", "inner", "l"))
	posixtest.Symlink(t, filepath.Join(root, "g"), filepath.Join(root, "out", "lg"))
	g, outer := filepath.Join(root, "g"), filepath.Join(root, "outer")
	for dir, want := range map[string][]string{
		filepath.Join(root, "out", "l"):            {g},
		filepath.Join(root, "out", "l", "deep"):    {g},
		filepath.Join(root, "outer", "inner", "l"): {outer, g},
		filepath.Join(root, "out"):                 nil,
	} {
		if got := Above(dir); !slices.Equal(got, want) {
			t.Errorf("Above(%s) = %v, want %v", dir, got, want)
		}
	}
}
