// Package ignorecheck asks git itself whether directories are ignored under
// a given set of ignore rules, without reading or touching the repository
// the rules come from. The rules (an info/exclude file and .gitignore files,
// possibly content that is only planned and not on disk yet) are laid out in
// a throwaway repository in a temporary directory, and `git check-ignore
// --no-index` judges the directories there. A user's global excludes
// (core.excludesFile) and system or global git config are not consulted:
// they are not the repository's rules.
//
// It replaces go-git's gitignore matcher, whose package links os/user (and
// with it cgo and a dynamically linked hookwarden binary). adopt and audit
// call it once per repository; it is never on the hook path.
package ignorecheck

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
)

// File is one .gitignore: Dir is its directory, slash-separated and relative
// to the work tree root ("" for the root itself), and Data its content
// (LF or CRLF line endings, as git reads them).
type File struct {
	Dir  string
	Data []byte
}

// Rules are the ignore rules of one work tree: Exclude is the content of
// its $GIT_COMMON_DIR/info/exclude (nil when there is none), Files its
// .gitignore files (at most one per directory).
type Rules struct {
	Exclude []byte
	Files   []File
}

// Ignored reports whether git ignores at least one of dirs (directories,
// slash-separated and relative to the work tree root; a directory is
// ignored too when a directory above it is) under rules. It runs the git
// found on PATH (exec.CommandContext: ctx ends it). It returns an error,
// naming the directory or file concerned, when a path is not a clean
// relative path, the temporary repository cannot be written, or git is
// missing or fails.
func Ignored(ctx context.Context, rules Rules, dirs []string) (bool, error) {
	if len(dirs) == 0 {
		return false, errors.New("ignorecheck: no directory to check")
	}
	tmp, err := os.MkdirTemp("", "hookwarden-ignorecheck-")
	if err != nil {
		return false, fmt.Errorf("ignorecheck: temporary repository: %w", err)
	}
	defer os.RemoveAll(tmp)
	gitDir := filepath.Join(tmp, ".git")
	work := filepath.Join(tmp, "w")
	// A directory git accepts as a repository: HEAD, objects/ and refs/.
	for _, d := range []string{filepath.Join(gitDir, "objects"), filepath.Join(gitDir, "refs"), filepath.Join(gitDir, "info"), work} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return false, fmt.Errorf("ignorecheck: temporary repository %s: %w", d, err)
		}
	}
	if err := os.WriteFile(filepath.Join(gitDir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o600); err != nil {
		return false, fmt.Errorf("ignorecheck: temporary repository: %w", err)
	}
	if rules.Exclude != nil {
		if err := os.WriteFile(filepath.Join(gitDir, "info", "exclude"), rules.Exclude, 0o600); err != nil {
			return false, fmt.Errorf("ignorecheck: temporary info/exclude: %w", err)
		}
	}
	for _, f := range rules.Files {
		dir, err := local(work, f.Dir)
		if err != nil {
			return false, err
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return false, fmt.Errorf("ignorecheck: temporary %s: %w", f.Dir, err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".gitignore"), f.Data, 0o600); err != nil {
			return false, fmt.Errorf("ignorecheck: temporary %s/.gitignore: %w", f.Dir, err)
		}
	}
	args := []string{"--git-dir=" + gitDir, "--work-tree=" + work,
		"-c", "core.excludesFile=" + filepath.Join(tmp, "no-global-excludes"),
		"check-ignore", "--no-index", "--"}
	for _, d := range dirs {
		full, err := local(work, d)
		if err != nil {
			return false, err
		}
		if full == work {
			return false, errors.New("ignorecheck: the work tree root cannot be ignored")
		}
		// Existing directories, so directory-only patterns ("dir/") apply.
		if err := os.MkdirAll(full, 0o700); err != nil {
			return false, fmt.Errorf("ignorecheck: temporary %s: %w", d, err)
		}
		// "./" keeps a leading ':' from reading as pathspec magic;
		// check-ignore matches the path itself, never as a glob.
		args = append(args, "./"+path.Clean(d))
	}
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = work
	cmd.Env = gitEnv(os.Environ())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		return false, nil
	}
	msg := strings.TrimSpace(stderr.String())
	if len(msg) > 512 {
		msg = msg[:512]
	}
	if msg != "" {
		return false, fmt.Errorf("ignorecheck: git check-ignore: %w (%s)", err, msg)
	}
	return false, fmt.Errorf("ignorecheck: git check-ignore: %w", err)
}

// local returns rel (slash-separated, relative) below root, or an error for
// an absolute path, a ".." step or a .git component.
func local(root, rel string) (string, error) {
	if rel == "" || rel == "." {
		return root, nil
	}
	if path.IsAbs(rel) || !filepath.IsLocal(filepath.FromSlash(rel)) {
		return "", fmt.Errorf("ignorecheck: %q is not a relative path inside the work tree", rel)
	}
	for _, c := range strings.Split(path.Clean(rel), "/") {
		if strings.EqualFold(c, ".git") {
			return "", fmt.Errorf("ignorecheck: %q names a .git directory", rel)
		}
	}
	return filepath.Join(root, filepath.FromSlash(rel)), nil
}

// gitEnv returns env without the GIT_* variables that would point git at
// another repository or add configuration (a hook or an agent may have set
// them), with system and global git config switched off.
func gitEnv(env []string) []string {
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		if strings.HasPrefix(kv, "GIT_") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
}

// Cache remembers Ignored's verdicts within one fleet run: git's answer is
// a function of the rules and the directories alone (no user or system
// configuration is read), and a fleet's repositories mostly share their
// ignore rules, so each distinct set is asked of git once. Errors are not
// remembered. A nil *Cache remembers nothing. Safe for concurrent use; the
// zero value is ready.
type Cache struct {
	mu      sync.Mutex
	verdict map[[sha256.Size]byte]bool
}

// Ignored is the package's Ignored, answered from c when the same rules
// and dirs were judged before in c (the key is a SHA-256 of both,
// length-prefixed). Concurrent first asks of one key may each run git.
func (c *Cache) Ignored(ctx context.Context, rules Rules, dirs []string) (bool, error) {
	if c == nil {
		return Ignored(ctx, rules, dirs)
	}
	key := cacheKey(rules, dirs)
	c.mu.Lock()
	v, ok := c.verdict[key]
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := Ignored(ctx, rules, dirs)
	if err != nil {
		return false, err
	}
	c.mu.Lock()
	if c.verdict == nil {
		c.verdict = map[[sha256.Size]byte]bool{}
	}
	c.verdict[key] = v
	c.mu.Unlock()
	return v, nil
}

// cacheKey hashes rules and dirs, each field length-prefixed (a nil
// Exclude differs from an empty one).
func cacheKey(rules Rules, dirs []string) [sha256.Size]byte {
	h := sha256.New()
	field := func(b []byte) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	if rules.Exclude == nil {
		h.Write([]byte{0})
	} else {
		h.Write([]byte{1})
		field(rules.Exclude)
	}
	field([]byte(fmt.Sprint(len(rules.Files))))
	for _, f := range rules.Files {
		field([]byte(f.Dir))
		field(f.Data)
	}
	for _, d := range dirs {
		field([]byte(d))
	}
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}
