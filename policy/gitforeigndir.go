package policy

import (
	"path/filepath"
	"strings"

	"github.com/hookwarden/hookwarden/internal/gitdisc"
)

// This file judges git run with a git directory other than the work
// tree's own (adversarial pass, stop 45: GIT_DIR=/tmp/empty.git git
// --work-tree=. checkout -f main and git --git-dir=/tmp/x.git
// --work-tree=. clean -fdx were allowed). The governance questions
// (gitask.go) are asked of the repository the command runs in, while git
// then reads its index, refs and objects from the named directory: a
// checkout of a tree without the guard's files, a clean that counts them
// as untracked, a reset to a commit without them. What that directory
// holds is not asked (it may be made or filled earlier in the same
// command), so a work-tree-changing git command pointed at it over a work
// tree that is, or holds, a governed repository is RuleGovernanceRollback;
// one on the repository's own git directory is judged as usual.

// worktreeGitSubs are the git subcommands that change the work tree's
// files (a command known only at run time and an alias count too).
const worktreeGitSubs = " checkout switch restore reset clean stash merge pull rebase cherry-pick revert am apply rm mv read-tree checkout-index worktree bisect submodule sparse-checkout filter-branch "

// foreignGitDir judges git's global options opts (before sub) and the
// environment env at sc, with workTree the work tree they name (nil for
// none): the git directory is GIT_DIR's or --git-dir's (or, with only a
// work tree named, the directory's own repository's), and the work tree
// --work-tree's or GIT_WORK_TREE's (else the directory the command runs
// in). On the work tree's own git directory from a directory outside it
// (cd /tmp && git --git-dir=$REPO/.git --work-tree=$REPO checkout -f),
// the governance questions are asked there (governance.go; with the
// command's directory they would go unasked).
func (j *judge) foreignGitDir(opts []field, env []envVar, sc *scope, workTree *field, sub field, rest []field) {
	if !sub.dynamic() && isGitBuiltin(sub.val) && !strings.Contains(worktreeGitSubs, " "+sub.val+" ") {
		return
	}
	var gitDir *field
	for _, e := range env {
		if e.name == "GIT_DIR" {
			v := e.val
			gitDir = &v
		}
	}
	for i := 0; i < len(opts); i++ {
		v := opts[i].val
		if v == "--git-dir" && i+1 < len(opts) {
			g := opts[i+1]
			gitDir = &g
			i++
		} else if d, ok := strings.CutPrefix(v, "--git-dir="); ok {
			g := withVal(opts[i], d)
			gitDir = &g
		}
	}
	if gitDir == nil && workTree == nil {
		return
	}
	tree := lit(".")
	if workTree != nil {
		tree = *workTree
	}
	if j.dir == "" || sc.cwdUnknown {
		return // where the command runs is not known (no rule places it)
	}
	if tree.dynamic() {
		if here, ok := j.diskPath(sc, "."); !ok || len(j.governedAbove(filepath.Clean(here))) == 0 {
			return
		}
	} else if !j.holdsWord(sc, tree) {
		return
	}
	if !tree.dynamic() && (gitDir == nil || !gitDir.dynamic()) && j.ownGitDir(sc, tree, gitDir) {
		here, ok := j.diskPath(sc, ".")
		wt, wok := j.diskPath(sc, tree.val)
		if ok && wok && !sub.dynamic() && !within(filepath.Clean(here), filepath.Clean(wt)) {
			moved := *sc
			moved.chdir(tree)
			j.governance(sub.val, rest, &moved)
		}
		return
	}
	j.hits.add(RuleGovernanceRollback)
}

// ownGitDir reports whether gitDir (nil: the repository the command's
// directory is in) is the git directory of the repository whose work
// tree's root is tree.
func (j *judge) ownGitDir(sc *scope, tree field, gitDir *field) bool {
	wt, ok := j.diskPath(sc, tree.val)
	if !ok {
		return false
	}
	repo, found, err := gitdisc.Find(wt)
	if err != nil || !found || !samePath(repo.WorkTree, wt) {
		return false
	}
	var gd string
	if gitDir == nil {
		here, ok := j.diskPath(sc, ".")
		if !ok {
			return false
		}
		cur, found, err := gitdisc.Find(here)
		if err != nil || !found {
			return false
		}
		gd = cur.GitDir
	} else if gd, ok = j.diskPath(sc, gitDir.val); !ok {
		return false
	}
	return samePath(gd, repo.GitDir)
}

// samePath reports whether a and b name the same directory once
// symbolic links are followed.
func samePath(a, b string) bool {
	if x, err := filepath.EvalSymlinks(a); err == nil {
		a = x
	}
	if x, err := filepath.EvalSymlinks(b); err == nil {
		b = x
	}
	return filepath.Clean(a) == filepath.Clean(b)
}
