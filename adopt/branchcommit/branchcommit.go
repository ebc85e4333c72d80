// Package branchcommit puts an adopt or conform run's change to each
// repository of a fleet on a new branch, as one commit, for review as a pull
// request: `hookwarden adopt|conform --commit --branch NAME`.
//
// Per repository it never touches the work tree, the index or the current
// branch, and never pushes:
//
//   - a repository that is dirty (`git status --porcelain` lists anything,
//     untracked files included), whose HEAD is detached or has no commit
//     yet, that already has a branch NAME, or whose .git belongs to another
//     user (a commit would leave objects its owner cannot write) is skipped,
//     with the reason;
//   - otherwise HEAD's commit is checked out detached into a temporary
//     linked worktree outside the repository (`git worktree add --detach`),
//     adopt or conform runs there, exactly the files its report says it
//     created, merged or updated are staged, and one commit is made whose
//     message lists what changed; the branch is then created at that commit
//     with `git update-ref refs/heads/NAME <commit> ""`, which fails if the
//     branch appeared meanwhile; the temporary worktree is removed.
//
// The repository's own git hooks do not run (core.hooksPath points at an
// empty directory for every git call: worktree add's post-checkout,
// commit's pre-commit, prepare-commit-msg, commit-msg and post-commit,
// update-ref's reference-transaction): a fleet run must not execute each repository's scripts, and
// the change is reviewed in the pull request, where CI runs.
//
// Each result carries the command that pushes the branch and opens the pull
// request with the forge's own CLI (`gh pr create --fill`, GitHub CLI
// manual, https://cli.github.com/manual/gh_pr_create: --fill takes the
// title and body from the commit).
package branchcommit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hookwarden/hookwarden/adopt"
	"github.com/hookwarden/hookwarden/internal/buildinfo"
	"github.com/hookwarden/hookwarden/internal/fileowner"
	"github.com/hookwarden/hookwarden/internal/shellquote"
	"github.com/hookwarden/hookwarden/internal/workpool"
)

// SchemaVersion is the version of the --json report of a --commit run:
//
//	{
//	  "schema_version": 1,
//	  "verb": "adopt" | "conform",
//	  "branch": "hookwarden/adopt",
//	  "repositories": [{
//	    "path": "/abs/repo",
//	    "status": "committed" | "unchanged" | "skipped" | "failed" | "not-governed",
//	    "base": "main",                 // the branch the commit is based on
//	    "commit": "<full object name>", // committed only
//	    "reason": "...",                // skipped, failed: why
//	    "pull_request": "git -C … push -u origin … && …",  // committed only
//	    "report": { … }                 // the adopt/conform report of the repository (adopt.RepoReport)
//	  }],
//	  "summary": {"repositories": n, "committed": n, "unchanged": n, "skipped": n, "failed": n, "not_governed": n}
//	}
const SchemaVersion = 1

// Result statuses.
const (
	StatusCommitted   = "committed"
	StatusUnchanged   = "unchanged"
	StatusSkipped     = "skipped"
	StatusFailed      = "failed"
	StatusNotGoverned = "not-governed"
)

// Options steer a --commit run. Branch is the branch to create in every
// repository (validated with `git check-ref-format --branch`). Jobs bounds
// the repositories processed at once (0: the CPU count). Run holds the
// adopt/conform options (DryRun must be false; its Jobs is ignored: each
// repository runs with one job).
type Options struct {
	Branch string
	Jobs   int
	Run    adopt.Options
}

// Result is what happened in one repository.
type Result struct {
	Path        string            `json:"path"`
	Status      string            `json:"status"`
	Base        string            `json:"base,omitempty"`
	Commit      string            `json:"commit,omitempty"`
	Reason      string            `json:"reason,omitempty"`
	PullRequest string            `json:"pull_request,omitempty"`
	Report      *adopt.RepoReport `json:"report,omitempty"`
}

// Summary counts repositories by status.
type Summary struct {
	Repositories int `json:"repositories"`
	Committed    int `json:"committed"`
	Unchanged    int `json:"unchanged"`
	Skipped      int `json:"skipped"`
	Failed       int `json:"failed"`
	NotGoverned  int `json:"not_governed"`
}

// Report is one --commit run over a fleet, repositories in argument order.
type Report struct {
	SchemaVersion int       `json:"schema_version"`
	Verb          string    `json:"verb"`
	Branch        string    `json:"branch"`
	Repositories  []*Result `json:"repositories"`
	Summary       Summary   `json:"summary"`
}

// Failed reports whether any repository failed (a skipped one has not).
func (r *Report) Failed() bool { return r.Summary.Failed > 0 }

// ErrUsage is wrapped by Run's error for an unusable invocation (a bad
// branch name, a dry run, an unknown verb).
var ErrUsage = errors.New("usage")

// Run performs verb ("adopt" or "conform") on every repository of paths
// with its change committed on a new branch opts.Branch (package doc). It
// returns an error (wrapping ErrUsage) only when the run cannot start;
// per-repository outcomes are in the report.
func Run(ctx context.Context, verb string, paths []string, opts Options) (*Report, error) {
	if verb != "adopt" && verb != "conform" {
		return nil, fmt.Errorf("%w: --commit: verb %q: want adopt or conform", ErrUsage, verb)
	}
	if opts.Run.DryRun {
		return nil, fmt.Errorf("%w: --commit writes a commit; it has no dry run (run without --commit and with --dry-run to see the change)", ErrUsage)
	}
	if err := checkBranchName(ctx, opts.Branch); err != nil {
		return nil, err
	}
	// Validate the adopt options once, before any repository is touched.
	if err := adopt.ValidateDecline(opts.Run.Decline); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUsage, err)
	}
	if opts.Run.Clients != nil {
		if err := adopt.ValidateClients(opts.Run.Clients); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUsage, err)
		}
	}
	hooksOff, err := os.MkdirTemp("", "hookwarden-nohooks-")
	if err != nil {
		return nil, fmt.Errorf("an empty hooks directory: %w", err)
	}
	defer os.RemoveAll(hooksOff)
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = workpool.DefaultJobs()
	}
	rep := &Report{SchemaVersion: SchemaVersion, Verb: verb, Branch: opts.Branch, Repositories: make([]*Result, len(paths))}
	// Two arguments naming one repository would race for its branch: the
	// later one is skipped.
	seen := map[string]int{}
	for i, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		if root, err := filepath.EvalSymlinks(abs); err == nil {
			if j, dup := seen[root]; dup {
				rep.Repositories[i] = &Result{Path: root, Status: StatusSkipped, Reason: fmt.Sprintf("the same repository as argument %d (%s); handled once", j+1, paths[j])}
				continue
			}
			seen[root] = i
		}
	}
	workpool.Run(len(paths), jobs, func(i int) {
		if rep.Repositories[i] == nil {
			rep.Repositories[i] = one(ctx, verb, paths[i], opts, hooksOff)
		}
	}, nil)
	for _, r := range rep.Repositories {
		rep.Summary.Repositories++
		switch r.Status {
		case StatusCommitted:
			rep.Summary.Committed++
		case StatusUnchanged:
			rep.Summary.Unchanged++
		case StatusSkipped:
			rep.Summary.Skipped++
		case StatusFailed:
			rep.Summary.Failed++
		case StatusNotGoverned:
			rep.Summary.NotGoverned++
		}
	}
	return rep, nil
}

// checkBranchName asks git whether name is a valid branch name.
func checkBranchName(ctx context.Context, name string) error {
	if name == "" || strings.HasPrefix(name, "-") {
		return fmt.Errorf("%w: --branch %q: not a branch name", ErrUsage, name)
	}
	if _, err := git(ctx, "", "", "check-ref-format", "--branch", name); err != nil {
		return fmt.Errorf("%w: --branch %q: not a valid branch name (git check-ref-format)", ErrUsage, name)
	}
	return nil
}

// one handles one repository.
func one(ctx context.Context, verb, path string, opts Options, hooksOff string) *Result {
	res := &Result{Path: path}
	fail := func(format string, a ...any) *Result {
		res.Status, res.Reason = StatusFailed, adopt.CapReason(fmt.Sprintf(format, a...))
		return res
	}
	skip := func(format string, a ...any) *Result {
		res.Status, res.Reason = StatusSkipped, fmt.Sprintf(format, a...)
		return res
	}
	if err := ctx.Err(); err != nil {
		return fail("not started: %v", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fail("%s: %v", path, err)
	}
	root, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return fail("%s: %v", abs, err)
	}
	res.Path = root
	// A commit writes objects and refs into .git as this user: into another
	// user's repository that would leave files its owner cannot write (adopt
	// without --commit keeps each file's owner; git would not).
	if fi, err := os.Lstat(filepath.Join(root, ".git")); err == nil && !fileowner.Self(fi) {
		uid, _ := fileowner.Of(fi)
		return skip("its .git belongs to another user (uid %d): a commit made by this user would leave objects and refs there that the owner cannot write; run --commit as the owner", uid)
	}
	top, err := git(ctx, root, hooksOff, "rev-parse", "--show-toplevel")
	if err != nil {
		return fail("not a git repository: %v", err)
	}
	if t, err := filepath.EvalSymlinks(top); err == nil && t != root {
		return fail("inside the git repository %s; name its root instead", t)
	}
	base, err := git(ctx, root, hooksOff, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		return skip("HEAD is detached (a checkout of a commit, a rebase or a bisect): no branch to base the change on; check out a branch and rerun")
	}
	res.Base = base
	head, err := git(ctx, root, hooksOff, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return skip("branch %s has no commit yet: nothing to base the change on", base)
	}
	status, err := git(ctx, root, hooksOff, "status", "--porcelain", "--untracked-files=normal", "--ignore-submodules=none")
	if err != nil {
		return fail("git status: %v", err)
	}
	if status != "" {
		n, noun := strings.Count(status, "\n")+1, "paths"
		if n == 1 {
			noun = "path"
		}
		return skip("the work tree has uncommitted changes (%d %s in git status, untracked files included): commit, stash or remove them and rerun; nothing was touched", n, noun)
	}
	if _, err := git(ctx, root, hooksOff, "rev-parse", "--verify", "--quiet", "refs/heads/"+opts.Branch); err == nil {
		return skip("a branch %s already exists here: delete it or choose another --branch", opts.Branch)
	}

	tmp, err := os.MkdirTemp("", "hookwarden-commit-")
	if err != nil {
		return fail("temporary worktree: %v", err)
	}
	wt := filepath.Join(tmp, "wt")
	defer func() {
		// Remove the linked worktree even when ctx has ended; bounded.
		cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := git(cctx, root, hooksOff, "worktree", "remove", "--force", wt); err != nil {
			os.RemoveAll(tmp)
			git(cctx, root, hooksOff, "worktree", "prune")
		}
		os.RemoveAll(tmp)
	}()
	if _, err := git(ctx, root, hooksOff, "worktree", "add", "--quiet", "--detach", wt, head); err != nil {
		return fail("git worktree add: %v", err)
	}
	wtReal, err := filepath.EvalSymlinks(wt)
	if err != nil {
		return fail("temporary worktree: %v", err)
	}

	ro := opts.Run
	ro.Jobs, ro.Progress = 1, nil
	var run *adopt.Report
	if verb == "adopt" {
		run, err = adopt.Adopt(ctx, []string{wtReal}, ro)
	} else {
		run, err = adopt.Conform(ctx, []string{wtReal}, ro)
	}
	if err != nil {
		return fail("%s: %v", verb, err)
	}
	rr := run.Repositories[0]
	relocate(rr, wtReal, root)
	res.Report = rr
	switch rr.Status {
	case adopt.StatusNotGoverned:
		res.Status = StatusNotGoverned
		return res
	case adopt.StatusFailed:
		first := "failed"
		if len(rr.Errors) > 0 {
			first = rr.Errors[0]
		}
		return fail("%s: %s", verb, first)
	case adopt.StatusUnchanged:
		res.Status = StatusUnchanged
		return res
	}

	var changed []string
	for _, f := range rr.Files {
		switch f.Action {
		case adopt.ActionCreated, adopt.ActionMerged, adopt.ActionUpdated:
			changed = append(changed, f.Path)
		}
	}
	// A path the repository's ignore rules exclude is not committed: say
	// so rather than force it in.
	ignored, err := checkIgnored(ctx, wtReal, changed)
	if err != nil {
		return fail("git check-ignore: %v", err)
	}
	var add []string
	for _, p := range changed {
		if slices.Contains(ignored, p) {
			rr.Warnings = append(rr.Warnings, fmt.Sprintf("%s not committed: the repository's git ignore rules exclude it, so the pull request does not carry it", p))
			continue
		}
		add = append(add, p)
	}
	if len(add) == 0 {
		res.Status = StatusUnchanged
		return res
	}
	if _, err := git(ctx, wtReal, hooksOff, append([]string{"add", "--"}, add...)...); err != nil {
		return fail("git add: %v", err)
	}
	// Only our files: anything else the run left in the worktree (it
	// should leave nothing: backups are ignored) fails the repository.
	left, err := git(ctx, wtReal, hooksOff, "status", "--porcelain", "-z", "--untracked-files=all")
	if err != nil {
		return fail("git status in the temporary worktree: %v", err)
	}
	if other := unstaged(left, add); len(other) > 0 {
		return fail("%s changed files it did not report: %s; nothing committed", verb, strings.Join(other, ", "))
	}
	msgFile := filepath.Join(tmp, "message")
	if err := os.WriteFile(msgFile, []byte(Message(verb, rr, add)), 0o600); err != nil {
		return fail("commit message: %v", err)
	}
	if _, err := git(ctx, wtReal, hooksOff, "commit", "--quiet", "--no-verify", "--file", msgFile); err != nil {
		return fail("git commit: %v", err)
	}
	commit, err := git(ctx, wtReal, hooksOff, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return fail("git rev-parse: %v", err)
	}
	// Create the branch only now, and only if it still does not exist.
	if _, err := git(ctx, root, hooksOff, "update-ref", "-m", "hookwarden "+verb+" --commit", "refs/heads/"+opts.Branch, commit, ""); err != nil {
		return fail("creating branch %s at %s: %v", opts.Branch, commit, err)
	}
	res.Status, res.Commit = StatusCommitted, commit
	res.PullRequest = pullRequestCommand(ctx, root, hooksOff, base, opts.Branch)
	return res
}

// unstaged returns the paths of a `git status --porcelain -z` listing that
// are not exactly the staged files of add: any path outside add, and any
// path of add with a difference between index and work tree.
func unstaged(status string, add []string) []string {
	var other []string
	fields := strings.Split(status, "\x00")
	for i := 0; i < len(fields); i++ {
		e := fields[i]
		if len(e) < 4 {
			continue
		}
		xy, p := e[:2], e[3:]
		if xy[0] == 'R' || xy[0] == 'C' {
			i++ // the rename's source follows
		}
		if xy[1] != ' ' || xy[0] == '?' || !slices.Contains(add, p) {
			other = append(other, p)
		}
	}
	return other
}

// relocate rewrites the temporary worktree's path to the repository's in a
// report's path, warnings, errors and next commands.
func relocate(rr *adopt.RepoReport, from, to string) {
	rr.Path = to
	for _, list := range []*[]string{&rr.Warnings, &rr.Errors, &rr.Next} {
		for i, s := range *list {
			(*list)[i] = strings.ReplaceAll(s, from, to)
		}
	}
}

// checkIgnored returns the paths of paths (slash separated, relative to
// dir) that dir's ignore rules exclude; tracked files are never excluded.
func checkIgnored(ctx context.Context, dir string, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	cmd := exec.CommandContext(ctx, "git", "-C", dir, "check-ignore", "-z", "--stdin")
	cmd.Env = gitEnv()
	cmd.Stdin = strings.NewReader(strings.Join(paths, "\x00") + "\x00")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	// Exit 1: none is ignored.
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s", err, strings.TrimSpace(errb.String()))
	}
	var ign []string
	for _, p := range strings.Split(out.String(), "\x00") {
		if p != "" {
			ign = append(ign, p)
		}
	}
	return ign, nil
}

// Message returns the commit message for verb's change to one repository:
// a subject, the files committed with what changed in each, the files left
// as they were with the reason, the run's warnings and the commands still
// to run after the merge.
func Message(verb string, rr *adopt.RepoReport, committed []string) string {
	var b strings.Builder
	if verb == "adopt" {
		b.WriteString("hookwarden adopt: govern the agent clients' hooks\n\n")
	} else {
		b.WriteString("hookwarden conform: repair drift in the governed hooks\n\n")
	}
	fmt.Fprintf(&b, "Written by `hookwarden %s --commit` (hookwarden %s); this commit\nchanges only the files below.\n\n", verb, buildinfo.Current())
	for _, f := range rr.Files {
		if !slices.Contains(committed, f.Path) {
			continue
		}
		fmt.Fprintf(&b, "- %s %s", f.Action, f.Path)
		if len(f.Changes) > 0 {
			fmt.Fprintf(&b, ": %s", strings.Join(f.Changes, "; "))
		}
		b.WriteByte('\n')
	}
	var kept []string
	for _, f := range rr.Files {
		if f.Action == adopt.ActionSkipped || f.Action == adopt.ActionDeclined {
			kept = append(kept, fmt.Sprintf("- %s %s: %s", f.Action, f.Path, f.Reason))
		}
	}
	if len(kept) > 0 {
		b.WriteString("\nNot changed:\n" + strings.Join(kept, "\n") + "\n")
	}
	if len(rr.Warnings) > 0 {
		b.WriteString("\nWarnings:\n")
		for _, w := range rr.Warnings {
			b.WriteString("- " + w + "\n")
		}
	}
	if len(rr.Next) > 0 {
		b.WriteString("\nAfter this merges, on each workstation:\n")
		for _, n := range rr.Next {
			b.WriteString("- " + n + "\n")
		}
	}
	return b.String()
}

// pullRequestCommand returns the shell command that pushes branch and
// opens its pull request against the base branch's upstream: the remote is
// branch.<base>.remote, else origin, else the first remote; the forge's
// base branch is branch.<base>.merge without refs/heads/, else base. With
// no remote it says so.
func pullRequestCommand(ctx context.Context, root, hooksOff, base, branch string) string {
	remote, _ := git(ctx, root, hooksOff, "config", "--get", "branch."+base+".remote")
	if remote == "" || remote == "." {
		remotes, _ := git(ctx, root, hooksOff, "remote")
		list := strings.Fields(remotes)
		switch {
		case slices.Contains(list, "origin"):
			remote = "origin"
		case len(list) > 0:
			remote = list[0]
		default:
			return "no git remote: add one, then: git -C " + shellquote.Word(root) + " push -u REMOTE " + shellquote.Word(branch) + " && (cd " + shellquote.Word(root) + " && gh pr create --base " + shellquote.Word(base) + " --head " + shellquote.Word(branch) + " --fill)"
		}
	}
	target := base
	if m, _ := git(ctx, root, hooksOff, "config", "--get", "branch."+base+".merge"); strings.HasPrefix(m, "refs/heads/") {
		target = strings.TrimPrefix(m, "refs/heads/")
	}
	return "git -C " + shellquote.Word(root) + " push -u " + shellquote.Word(remote) + " " + shellquote.Word(branch) +
		" && (cd " + shellquote.Word(root) + " && gh pr create --base " + shellquote.Word(target) + " --head " + shellquote.Word(branch) + " --fill)"
}

// git runs git -C dir args with the location variables of the inherited
// environment removed (gitEnv), automatic gc off and, when hooksOff is set,
// core.hooksPath pointing at that empty directory. It returns stdout without its final
// newline, or an error holding git's stderr.
func git(ctx context.Context, dir, hooksOff string, args ...string) (string, error) {
	var argv []string
	if dir != "" {
		argv = append(argv, "-C", dir)
	}
	if hooksOff != "" {
		argv = append(argv, "-c", "core.hooksPath="+hooksOff)
	}
	// No automatic gc or maintenance: git may detach it into the
	// background, and nothing of a run may outlive it.
	argv = append(argv, "-c", "gc.auto=0", "-c", "maintenance.auto=false")
	cmd := exec.CommandContext(ctx, "git", append(argv, args...)...)
	cmd.Env = gitEnv()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			return "", err
		}
		return "", fmt.Errorf("%w: %s", err, msg)
	}
	return strings.TrimSuffix(out.String(), "\n"), nil
}

// gitEnv is the environment for git: the process's, without the variables
// that would point git at another repository, work tree or index
// (git(1), ENVIRONMENT VARIABLES), and with LFS smudging off for the
// temporary worktree's checkout (its files are not read).
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY",
			"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES", "GIT_PREFIX":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GIT_LFS_SKIP_SMUDGE=1", "GIT_TERMINAL_PROMPT=0")
}

// WriteJSON writes the report as indented JSON (SchemaVersion) and a final
// newline. It returns the writer's error.
func (r *Report) WriteJSON(w io.Writer) error { return adopt.EncodeJSON(w, r) }

// WriteText writes the human report: per repository its status line (the
// commit and branch, or why not), the files committed, its warnings and
// errors, and for a commit the command that pushes the branch and opens the
// pull request; then a summary. It returns the writer's error.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, res := range r.Repositories {
		switch res.Status {
		case StatusCommitted:
			fmt.Fprintf(&b, "%s: committed %.12s on branch %s (based on %s)\n", res.Path, res.Commit, r.Branch, res.Base)
		case StatusSkipped, StatusFailed:
			fmt.Fprintf(&b, "%s: %s — %s\n", res.Path, res.Status, res.Reason)
		default:
			fmt.Fprintf(&b, "%s: %s, no branch created\n", res.Path, res.Status)
		}
		if rr := res.Report; rr != nil && res.Status == StatusCommitted {
			for _, f := range rr.Files {
				if f.Action == adopt.ActionUnchanged {
					continue
				}
				fmt.Fprintf(&b, "  %-9s %s", f.Action, f.Path)
				if len(f.Changes) > 0 {
					fmt.Fprintf(&b, ": %s", strings.Join(f.Changes, "; "))
				}
				if f.Reason != "" {
					fmt.Fprintf(&b, " — %s", f.Reason)
				}
				b.WriteByte('\n')
			}
		}
		if rr := res.Report; rr != nil {
			for _, s := range rr.Warnings {
				fmt.Fprintf(&b, "  warning: %s\n", s)
			}
			if res.Status != StatusFailed {
				for _, s := range rr.Errors {
					fmt.Fprintf(&b, "  error: %s\n", s)
				}
			}
		}
		if res.PullRequest != "" {
			fmt.Fprintf(&b, "  pull request: %s\n", res.PullRequest)
		}
	}
	s := r.Summary
	fmt.Fprintf(&b, "\nbranch %s: %d committed, %d unchanged, %d skipped, %d failed, %d not governed, of %d repositories; nothing was pushed\n",
		r.Branch, s.Committed, s.Unchanged, s.Skipped, s.Failed, s.NotGoverned, s.Repositories)
	_, err := io.WriteString(w, b.String())
	return err
}
