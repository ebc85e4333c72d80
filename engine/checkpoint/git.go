package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/hookwarden/hookwarden/internal/gitrun"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// ErrNotRepository is returned (wrapped, naming the directory) by Evaluate
// when cwd is not inside a git work tree, so there is nothing to checkpoint.
// Callers answer it with a stated skip, never a silent allow.
var ErrNotRepository = errors.New("not inside a git work tree")

// ErrNoGit is returned (wrapped) by Evaluate when no git executable is found
// on PATH. Callers answer it with a stated skip: the agent cannot fix it, so
// denying would only cost a turn.
var ErrNoGit = errors.New("git is not installed (not found on PATH)")

// runGit runs git with args in dir and returns its stdout. A context that
// ends first kills git and yields an error wrapping ctx.Err() (so
// errors.Is(err, context.DeadlineExceeded) holds on a slow git).
func runGit(ctx context.Context, dir string, args ...string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("git %s in %s: %w", args[0], dir, err)
	}
	cmd := gitrun.Command(ctx, dir, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, fmt.Errorf("git %s in %s: %w", args[0], dir, ctxErr)
	}
	if errors.Is(err, exec.ErrNotFound) {
		return nil, fmt.Errorf("git %s in %s: %w", args[0], dir, ErrNoGit)
	}
	if err != nil {
		msg := firstLine(stderr.String())
		if strings.Contains(msg, "not a git repository") || strings.Contains(msg, "must be run in a work tree") {
			return nil, fmt.Errorf("%s: %w", dir, ErrNotRepository)
		}
		if msg != "" {
			return nil, fmt.Errorf("git %s in %s: %w: %s", args[0], dir, err, msg)
		}
		return nil, fmt.Errorf("git %s in %s: %w", args[0], dir, err)
	}
	return stdout.Bytes(), nil
}

// firstLine returns the first non-empty line of s, cut to 200 bytes.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if len(l) > 200 {
			l = l[:200]
		}
		return l
	}
	return ""
}

// snapshot is what one status read of a checkout tells us.
type snapshot struct {
	root       string    // absolute top level of the checkout
	files      []string  // changed paths relative to root, slash-separated, as git reports them
	hasCommit  bool      // HEAD names a commit
	lastCommit time.Time // committer date of HEAD (zero without a commit)
}

// readCLI reads the checkout that contains cwd with the git CLI: three short
// processes (rev-parse, status, log).
func readCLI(ctx context.Context, cwd string) (snapshot, error) {
	var s snapshot
	top, err := runGit(ctx, cwd, "rev-parse", "--show-toplevel")
	if err != nil {
		return s, err
	}
	s.root = strings.TrimRight(string(top), "\n")
	if s.root == "" {
		// A bare repository or the inside of .git has no work tree.
		return s, fmt.Errorf("%s: %w", cwd, ErrNotRepository)
	}
	out, err := runGit(ctx, s.root, "status", "--porcelain=v2", "-z", "--branch",
		"--untracked-files=all", "--no-renames", "--ignored=no")
	if err != nil {
		return s, err
	}
	oid, files, err := parsePorcelainV2(out)
	if err != nil {
		return s, fmt.Errorf("git status in %s: %w", s.root, err)
	}
	s.files = files
	if oid == "" {
		return s, nil
	}
	s.hasCommit = true
	ct, err := runGit(ctx, s.root, "log", "-1", "--format=%ct", oid)
	if err != nil {
		return s, err
	}
	sec, err := strconv.ParseInt(strings.TrimSpace(string(ct)), 10, 64)
	if err != nil {
		return s, fmt.Errorf("git log in %s: commit time %q: %w", s.root, strings.TrimSpace(string(ct)), err)
	}
	s.lastCommit = time.Unix(sec, 0)
	return s, nil
}

// parsePorcelainV2 parses `git status --porcelain=v2 -z --branch` output
// (git-status(1) "Porcelain Format Version 2"). It returns the HEAD commit
// id ("" for "(initial)", a repository with no commits) and every changed
// path: ordinary (1), renamed or copied (2, both paths), unmerged (u) and
// untracked (?) entries. Ignored (!) entries are not changes.
func parsePorcelainV2(out []byte) (oid string, files []string, err error) {
	recs := bytes.Split(out, []byte{0})
	for i := 0; i < len(recs); i++ {
		r := string(recs[i])
		if r == "" {
			continue
		}
		switch r[0] {
		case '#':
			if v, ok := strings.CutPrefix(r, "# branch.oid "); ok && v != "(initial)" {
				oid = v
			}
		case '1':
			f := strings.SplitN(r, " ", 9)
			if len(f) != 9 {
				return "", nil, fmt.Errorf("malformed status entry %q", clip(r))
			}
			files = append(files, f[8])
		case '2':
			f := strings.SplitN(r, " ", 10)
			if len(f) != 10 || i+1 >= len(recs) {
				return "", nil, fmt.Errorf("malformed status entry %q", clip(r))
			}
			i++
			files = append(files, f[9], string(recs[i]))
		case 'u':
			f := strings.SplitN(r, " ", 11)
			if len(f) != 11 {
				return "", nil, fmt.Errorf("malformed status entry %q", clip(r))
			}
			files = append(files, f[10])
		case '?':
			files = append(files, strings.TrimPrefix(r, "? "))
		case '!':
		default:
			return "", nil, fmt.Errorf("unknown status entry %q", clip(r))
		}
	}
	return oid, files, nil
}

// clip cuts s to 80 bytes for a diagnostic.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80]
	}
	return s
}
