// Package gitdisc finds the git repository that contains a directory, in
// process and without running git: it walks up from the directory looking for
// a `.git` entry, either a directory (an ordinary clone) or a file holding a
// `gitdir: <path>` line (a linked worktree or a submodule, per
// gitrepository-layout(5), section ".git").
//
// Inherited GIT_DIR and GIT_WORK_TREE are deliberately ignored: the hook
// process inherits the agent's environment, and a stray GIT_DIR must not
// redirect which repository is judged. No environment is read at all.
package gitdisc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxGitFileBytes bounds how much of a `.git` file is read; a real one is a
// single `gitdir:` line.
const maxGitFileBytes = 4096

// Repo is a discovered repository. WorkTree is the absolute, cleaned path of
// the working tree root (the directory that holds `.git`). GitDir is the
// absolute path of the git directory: WorkTree/.git for an ordinary clone, or
// the target of the `gitdir:` line for a linked worktree or submodule.
// Linked is true when `.git` was a file.
type Repo struct {
	WorkTree string
	GitDir   string
	Linked   bool
}

// ErrNotDir is returned (wrapped) by Find when start exists but is not a
// directory.
var ErrNotDir = errors.New("not a directory")

// Find walks up from start (an absolute directory path) to the filesystem
// root and returns the first repository found, with found=true. It returns
// found=false and a nil error when no ancestor holds `.git`.
//
// Errors (each wrapped with %w and naming the path): start is relative,
// missing or not a directory; a `.git` entry cannot be inspected for a reason
// other than absence (permission denied, I/O error); a `.git` file is larger
// than 4096 bytes, lacks the `gitdir: ` prefix, or points at a directory that
// does not exist. A failure is never reported as "no repository", so callers
// can fail closed.
func Find(start string) (repo Repo, found bool, err error) {
	if !filepath.IsAbs(start) {
		return Repo{}, false, fmt.Errorf("%s: start directory is not absolute", start)
	}
	dir := filepath.Clean(start)
	st, err := os.Stat(dir)
	if err != nil {
		return Repo{}, false, fmt.Errorf("%s: %w", dir, err)
	}
	if !st.IsDir() {
		return Repo{}, false, fmt.Errorf("%s: %w", dir, ErrNotDir)
	}
	for {
		r, ok, err := probe(dir)
		if err != nil || ok {
			return r, ok, err
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return Repo{}, false, nil
		}
		dir = parent
	}
}

// probe inspects dir/.git.
func probe(dir string) (Repo, bool, error) {
	dotgit := filepath.Join(dir, ".git")
	st, err := os.Stat(dotgit)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrNotDir) || isENOTDIR(err) {
			return Repo{}, false, nil
		}
		return Repo{}, false, fmt.Errorf("%s: %w", dotgit, err)
	}
	if st.IsDir() {
		return Repo{WorkTree: dir, GitDir: dotgit}, true, nil
	}
	if !st.Mode().IsRegular() {
		return Repo{}, false, fmt.Errorf("%s: neither a directory nor a regular file", dotgit)
	}
	gitdir, err := readGitFile(dotgit)
	if err != nil {
		return Repo{}, false, err
	}
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(dir, gitdir)
	}
	gitdir = filepath.Clean(gitdir)
	gst, err := os.Stat(gitdir)
	if err != nil {
		return Repo{}, false, fmt.Errorf("%s: gitdir %s: %w", dotgit, gitdir, err)
	}
	if !gst.IsDir() {
		return Repo{}, false, fmt.Errorf("%s: gitdir %s: %w", dotgit, gitdir, ErrNotDir)
	}
	return Repo{WorkTree: dir, GitDir: gitdir, Linked: true}, true, nil
}

// readGitFile returns the path named by the `gitdir: ` line of a .git file.
func readGitFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxGitFileBytes+1))
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > maxGitFileBytes {
		return "", fmt.Errorf("%s: larger than %d bytes", path, maxGitFileBytes)
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	s := strings.TrimRight(string(line), "\r")
	const prefix = "gitdir: "
	if !strings.HasPrefix(s, prefix) {
		return "", fmt.Errorf("%s: no %q line", path, strings.TrimSpace(prefix))
	}
	p := strings.TrimSpace(s[len(prefix):])
	if p == "" {
		return "", fmt.Errorf("%s: empty gitdir", path)
	}
	return p, nil
}
