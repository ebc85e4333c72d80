package policy

import (
	"bytes"
	"context"
	"errors"
	"github.com/hookwarden/hookwarden/internal/gitrun"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/hookwarden/hookwarden/internal/gitdisc"
	"github.com/hookwarden/hookwarden/settings/governed"
)

// This file lets the judge ask git about the repository a command runs in,
// for the few git commands whose effect on the guard's files depends on
// the repository's state (governance.go): whether the guard's files are
// tracked, and which of them a revision holds. Git is asked only while
// such a command is judged, only in a repository whose root holds
// .hookwarden.yaml, and each question once per call (judge.gitReplies).

// gitAskBudget bounds all of one call's questions together (from the
// first); a question git does not answer in time is a refusal
// (gitReply.broken), never an allow.
const gitAskBudget = 3 * time.Second

// maxGitAskOutput bounds what one answer may print; more is broken.
const maxGitAskOutput = 1 << 20

// gitReply is git's answer to one question: out its standard output and
// ok its exit status 0; broken when git could not be run, did not answer
// in time or printed more than maxGitAskOutput.
type gitReply struct {
	out    string
	ok     bool
	broken bool
}

// governedDir returns the absolute directory a git command at sc runs in
// and the root of its work tree, when that repository is governed (its
// root holds .hookwarden.yaml) and the judge knows where the command runs;
// ok is false otherwise (Judge without a directory, a directory known only
// at run time, a command found in another program's words).
func (j *judge) governedDir(sc *scope) (dir, top string, ok bool) {
	if j.dir == "" || j.guesses > 0 || j.adm != nil || j.writing {
		return "", "", false
	}
	dir, ok = j.diskPath(sc, ".")
	if !ok || strings.HasPrefix(dir, evalRoot) || strings.Contains(dir, dyn) || strings.Contains(dir, evalDyn) {
		return "", "", false
	}
	if phys, err := filepath.EvalSymlinks(dir); err == nil {
		dir = phys // git finds its repository from the physical directory (cd l, git -C l/..)
	}
	repo, found, err := gitdisc.Find(dir)
	if err != nil || !found {
		return "", "", false
	}
	if !governed.Manifest(repo.WorkTree) {
		return "", "", false
	}
	return dir, repo.WorkTree, true
}

// askGit answers git args run in dir, once per call.
func (j *judge) askGit(dir string, args ...string) gitReply {
	key := dir + "\x00" + strings.Join(args, "\x00")
	if r, ok := j.gitReplies[key]; ok {
		return r
	}
	if j.gitDeadline.IsZero() {
		j.gitDeadline = time.Now().Add(gitAskBudget)
	}
	r := runGitAsk(j.gitDeadline, dir, args)
	if j.gitReplies == nil {
		j.gitReplies = map[string]gitReply{}
	}
	j.gitReplies[key] = r
	return r
}

// runGitAsk runs git with args in dir until deadline, as every question
// hookwarden asks git (internal/gitrun: no GIT_* variable inherited, so an
// inherited GIT_DIR or GIT_INDEX_FILE cannot answer for another checkout).
func runGitAsk(deadline time.Time, dir string, args []string) gitReply {
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	cmd := gitrun.Command(ctx, dir, args...)
	out := &cappedBuffer{}
	cmd.Stdout = out
	err := cmd.Run()
	var exit *exec.ExitError
	if ctx.Err() != nil || out.over || (err != nil && !errors.As(err, &exit)) {
		return gitReply{broken: true}
	}
	return gitReply{out: out.String(), ok: err == nil}
}

// cappedBuffer keeps at most maxGitAskOutput bytes and notes more.
type cappedBuffer struct {
	bytes.Buffer
	over bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if c.Len()+len(p) > maxGitAskOutput {
		c.over = true
		return len(p), nil
	}
	return c.Buffer.Write(p)
}

// guardSpecs returns the guard's paths as pathspecs from the repository
// root (":(top,literal)PATH").
func guardSpecs() []string {
	paths := guardTables().paths
	out := make([]string, 0, len(paths))
	for _, g := range paths {
		out = append(out, ":(top,literal)"+g.Path)
	}
	return out
}

// guardTouched reports whether rel, a path from the repository root (a
// directory may end in "/"), is one of the guard's files, lies in a guard
// directory, or is a directory holding one of them (the root included).
func guardTouched(rel string) bool {
	return guardRemoved("", rel)
}

// guardRemoved is guardTouched for a path removed from the work tree at
// top: a directory holding guard paths counts only when one of them exists
// there (git clean -d of an empty .claude/ removes no guard file). top ""
// counts every directory holding one.
func guardRemoved(top, rel string) bool {
	rel = path.Clean(strings.TrimSuffix(rel, "/"))
	if rel == "" {
		rel = "."
	}
	if _, ok := LookupGuardPath(rel, false); ok && rel != "." {
		return true
	}
	for _, g := range guardTables().paths {
		if rel != "." && !strings.HasPrefix(g.Path, rel+"/") {
			continue
		}
		if top == "" {
			return true
		}
		if _, err := os.Lstat(filepath.Join(top, filepath.FromSlash(g.Path))); err == nil {
			return true
		}
	}
	return false
}

// guardFilesAt returns the guard's files revision rev tracks (paths from
// the root); ok is false when rev names no tree-ish (git ls-tree fails).
// A rev starting with "-" is never asked (it would be an option).
func (j *judge) guardFilesAt(dir, rev string) (files map[string]bool, r gitReply) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return nil, gitReply{}
	}
	args := append([]string{"ls-tree", "-r", "-z", "--full-tree", "--name-only", rev, "--"}, guardPaths()...)
	r = j.askGit(dir, args...)
	if !r.ok {
		return nil, r
	}
	files = map[string]bool{}
	for _, p := range strings.Split(r.out, "\x00") {
		if p != "" {
			files[p] = true
		}
	}
	return files, r
}

// guardPaths returns the guard's paths from the repository root.
func guardPaths() []string {
	paths := guardTables().paths
	out := make([]string, 0, len(paths))
	for _, g := range paths {
		out = append(out, g.Path)
	}
	return out
}

// guardStatus returns git status's short entries (XY and the path from
// the root) for the guard's files, or for specs (pathspecs from dir) when
// given; untracked files are listed one by one, ignored ones too when
// ignored is set. After a git command of the call that may have staged
// them (judge.gitMoved), an untracked file is reported as added ("A ").
func (j *judge) guardStatus(dir string, specs []string, ignored bool) (entries [][2]string, r gitReply) {
	args := []string{"status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"}
	if ignored {
		args = append(args, "--ignored=matching")
	}
	args = append(args, "--")
	if len(specs) == 0 {
		specs = guardSpecs()
	}
	r = j.askGit(dir, append(args, specs...)...)
	if !r.ok {
		return nil, r
	}
	for _, e := range strings.Split(r.out, "\x00") {
		if len(e) > 3 && guardTouched(e[3:]) {
			xy := e[:2]
			if j.gitMoved && xy == "??" {
				// An earlier git command of the call (git add) may have
				// staged it: a change of the index, not an untracked file.
				xy = "A "
			}
			entries = append(entries, [2]string{xy, e[3:]})
		}
	}
	return entries, r
}
