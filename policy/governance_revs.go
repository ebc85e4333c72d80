package policy

import (
	"maps"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// The revision half of governance.go: git commands that make the work tree
// some revision's, judged by the guard's files that revision lacks.

// lacks reports whether moving the work tree from HEAD to rev removes a
// guard file: one HEAD tracks that rev lacks (a rev known only at run time
// counts when HEAD tracks any). A rev git does not know removes nothing
// (the command fails); one an earlier git branch, tag or fetch of the call
// made is judged as the revision it names (judge.refAsMoved); a question
// git cannot answer counts. After a git command of the call that may have
// committed them (judge.gitMoved), the guard files git would stage count
// as tracked by HEAD.
func (g govCall) lacks(rev field) bool {
	return g.lacksFrom(rev, g.j.gitMoved)
}

// lacksFrom is lacks, counting the guard files git would stage as tracked
// by HEAD only when staged is set.
func (g govCall) lacksFrom(rev field, staged bool) bool {
	rev = g.j.refAsMoved(rev)
	head, broken := g.headGuards(staged)
	if broken {
		return true
	}
	if len(head) == 0 {
		return false // no commit yet, or it tracks none of them
	}
	if rev.dynamic() {
		return true
	}
	target, r := g.j.guardFilesAt(g.dir, rev.val)
	if r.broken {
		return true
	}
	if !r.ok {
		return false
	}
	return missing(head, target)
}

// headGuards returns the guard's files HEAD tracks and, with staged set
// (an earlier git command of the call may have committed them), every one
// git would stage as well; broken when git could not answer.
func (g govCall) headGuards(staged bool) (map[string]bool, bool) {
	head, hr := g.j.guardFilesAt(g.dir, "HEAD")
	if hr.broken {
		return nil, true
	}
	if !staged {
		return head, false
	}
	entries, r := g.j.guardStatus(g.dir, nil, false)
	if r.broken {
		return nil, true
	}
	head = maps.Clone(head)
	if head == nil {
		head = map[string]bool{}
	}
	for _, e := range entries {
		if e[0] != "D" && e[1] != "D" {
			head[e[1]] = true
		}
	}
	return head, false
}

// missing reports a path of from that to lacks.
func missing(from, to map[string]bool) bool {
	for p := range from {
		if !to[p] {
			return true
		}
	}
	return false
}

// revPositionals reads a branch-moving command's words: the operands
// before "--" (whether one was given), and whether an option named in
// valued took the word after it (a new branch name, -m's parent) or an
// option in stops (a sequencer's --continue, --abort …) was given.
func revPositionals(args []field, valued, stops string) (pos []field, dashdash, stopped bool) {
	for i := 0; i < len(args); i++ {
		v := args[i].val
		name, _, hasEq := strings.Cut(v, "=")
		switch {
		case v == "--":
			return pos, true, false
		case strings.Contains(" "+stops+" ", " "+v+" "):
			return nil, false, true
		case strings.HasPrefix(v, "-") && len(v) > 1:
			if !hasEq && strings.Contains(" "+valued+" ", " "+name+" ") {
				i++
			}
		default:
			pos = append(pos, args[i])
		}
	}
	return pos, false, false
}

// checkout reports git checkout <rev> or git switch <branch> (or the
// start point of -b/-B, -c/-C) removing a guard file. git checkout with
// paths (git checkout <rev> -- <paths>) is gitCheckout's.
func (g govCall) checkout(sub string, args []field) bool {
	valued := "-b -B --orphan --conflict --pathspec-from-file"
	if sub == "switch" {
		valued = "-c -C --create --force-create --orphan --conflict"
	}
	pos, _, _ := revPositionals(args, valued, "-p --patch")
	if len(pos) != 1 || pathsAfterDashes(args) {
		return false
	}
	rev := g.j.refAsMoved(pos[0])
	if rev.val == "-" {
		rev = lit("@{-1}")
	}
	if !rev.dynamic() && sub == "checkout" && g.isPath(rev.val) {
		return false // git checkout file.txt restores a file
	}
	if !rev.dynamic() {
		if _, r := g.j.guardFilesAt(g.dir, rev.val); !r.ok && !r.broken {
			return g.remoteGuess(rev.val) // a branch git makes from a remote one
		}
	}
	return g.lacks(rev)
}

// pathsAfterDashes reports words after a "--" (git checkout <rev> --
// <paths>, gitCheckout's).
func pathsAfterDashes(args []field) bool {
	for i, a := range args {
		if a.val == "--" {
			return i+1 < len(args)
		}
	}
	return false
}

// isPath reports a checkout operand that is a path in the work tree and
// not a revision git knows.
func (g govCall) isPath(v string) bool {
	if _, r := g.j.guardFilesAt(g.dir, v); r.ok {
		return false
	}
	_, err := os.Lstat(filepath.Join(g.dir, v))
	return err == nil
}

// remoteGuess judges git checkout/switch NAME where NAME is no revision:
// git makes the branch from the remote-tracking branch of that name
// (git-switch(1) --guess), each of which is judged.
func (g govCall) remoteGuess(name string) bool {
	r := g.j.askGit(g.dir, "for-each-ref", "--format=%(refname)", "refs/remotes/")
	if r.broken {
		return true
	}
	for _, ref := range strings.Split(r.out, "\n") {
		if strings.HasSuffix(ref, "/"+name) && strings.Count(strings.TrimPrefix(ref, "refs/remotes/"), "/") == strings.Count(name, "/")+1 {
			if g.lacks(lit(ref)) {
				return true
			}
		}
	}
	return false
}

// reset reports git reset --hard, --keep or --merge to a revision that
// lacks a guard file; --hard also drops uncommitted changes of tracked
// guard files (a staged new one is removed).
func (g govCall) reset(args []field) bool {
	mode := ""
	for _, a := range args {
		if a.val == "--" {
			break
		}
		if a.val == "--hard" || a.val == "--keep" || a.val == "--merge" {
			mode = a.val
		}
	}
	if mode == "" {
		return false
	}
	pos, _, _ := revPositionals(args, "--pathspec-from-file", "")
	if len(pos) > 0 && g.lacks(pos[0]) {
		return true
	}
	if mode != "--hard" {
		return false
	}
	if len(pos) == 0 && g.movedHead() {
		return true // git reset --soft nogov && git reset --hard
	}
	entries, r := g.j.guardStatus(g.dir, nil, false)
	if r.broken {
		return true
	}
	for _, e := range entries {
		if e[0] != "??" && e[0] != "!!" {
			return true
		}
	}
	return false
}

// revert reports git revert of a commit that added a guard file (its
// parent lacks it), or of a range A..B over which one was added.
func (g govCall) revert(args []field) bool {
	return g.picks(args, func(parent, commit string) bool { return g.added(parent, commit) })
}

// cherryPick reports git cherry-pick of a commit that removed a guard
// file (its parent holds one it lacks), or of a range A..B over which one
// was removed: picking it removes the file from HEAD's work tree too
// (adversarial pass, stop 44: git cherry-pick of a branch's commit that
// deleted .hookwarden.yaml was allowed).
func (g govCall) cherryPick(args []field) bool {
	return g.picks(args, func(parent, commit string) bool { return g.added(commit, parent) })
}

// picks reads git revert's or cherry-pick's commits, each C as the pair
// (C^, C) and each range A..B as (A, B), and reports whether changes says
// one of them changes a guard file as the command would undo or replay
// it; a commit known only at run time counts as g.lacks says, and a
// sequencer step (--continue, --abort, --skip, --quit) counts not.
func (g govCall) picks(args []field, changes func(parent, commit string) bool) bool {
	pos, _, stopped := revPositionals(args, "-m --mainline --strategy -X --strategy-option --cleanup", "--continue --abort --skip --quit")
	if stopped {
		return false
	}
	for _, c := range pos {
		if c.dynamic() {
			return g.lacks(c)
		}
		from, to := c.val+"^", c.val
		if a, b, ok := strings.Cut(c.val, ".."); ok {
			from, to = a, strings.TrimPrefix(b, ".")
			if from == "" {
				from = "HEAD"
			}
			if to == "" {
				to = "HEAD"
			}
		}
		if changes(from, to) {
			return true
		}
	}
	return false
}

// added reports a guard file to holds that from lacks (from failing to
// resolve: to is a root commit, everything in it was added).
func (g govCall) added(from, to string) bool {
	after, r := g.j.guardFilesAt(g.dir, to)
	if r.broken {
		return true
	}
	before, rb := g.j.guardFilesAt(g.dir, from)
	if rb.broken {
		return true
	}
	return missing(after, before)
}

// rebase reports git rebase or git merge bringing in a revision that
// removed a guard file HEAD tracks (replays), and git rebase -i (or
// --interactive, or --root with it) whose todo list may drop a commit
// that added one.
func (g govCall) rebase(sub string, args []field) bool {
	valued := "--onto -s --strategy -X --strategy-option -x --exec -C --whitespace --empty"
	if sub == "merge" {
		valued = "-m --message -F --file -s --strategy -X --strategy-option --cleanup --into-name"
	}
	pos, _, stopped := revPositionals(args, valued, "--continue --abort --skip --quit --edit-todo --show-current-patch")
	if stopped {
		return false
	}
	interactive := sub == "rebase" && rebaseInteractive(args)
	if sub == "rebase" && optionIn(args, "--root", "") {
		// every commit HEAD reaches is replayed: only an interactive
		// todo list can drop the one that added a guard file
		return interactive && g.lacks(lit(emptyTree))
	}
	upstream := lit("@{upstream}")
	if len(pos) > 0 {
		upstream = pos[0]
	}
	onto := upstream
	for i, a := range args {
		if a.val == "--onto" && i+1 < len(args) {
			onto = args[i+1]
		} else if v, ok := strings.CutPrefix(a.val, "--onto="); ok {
			onto = withVal(a, v)
		}
	}
	return g.replays(upstream, onto, interactive)
}

// emptyTree is git's empty tree object, a revision that lacks every file.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// rebaseInteractive reports git rebase's -i (alone or in a cluster of
// letters before one that takes a value) or --interactive.
func rebaseInteractive(args []field) bool {
	for _, a := range args {
		v := a.val
		if v == "--" {
			return false
		}
		if v == "--interactive" {
			return true
		}
		if strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") {
			for k := 1; k < len(v); k++ {
				if v[k] == 'i' {
					return true
				}
				if strings.IndexByte("sXxC", v[k]) >= 0 {
					break
				}
			}
		}
	}
	return false
}

// replays reports a rebase or merge that replays the commits from the
// merge base of upstream and HEAD onto onto (a merge: upstream and onto
// are the merged commit) removing a guard file HEAD tracks: one the merge
// base had (so no replayed commit adds it) and onto lacks; with
// interactive also one a replayed commit added (the todo list may drop
// that commit) that onto lacks. A revision known only at run time counts
// as g.lacks says; one git does not know removes nothing (the command
// fails); no merge base: every commit is replayed.
func (g govCall) replays(upstream, onto field, interactive bool) bool {
	if upstream.dynamic() || onto.dynamic() {
		// Guard files an earlier git command of the call committed go in
		// a merge or a plain rebase only if the revision's own history
		// removed them, and no revision made before the call holds that
		// history; an interactive todo list can drop their commit.
		return g.lacksFrom(lit(dyn), interactive && g.j.gitMoved)
	}
	head, broken := g.headGuards(interactive && g.j.gitMoved)
	if broken {
		return true
	}
	if len(head) == 0 {
		return false
	}
	target, r := g.j.guardFilesAt(g.dir, onto.val)
	if r.broken {
		return true
	}
	if !r.ok || !missing(head, target) {
		return false
	}
	mr := g.j.askGit(g.dir, "merge-base", upstream.val, "HEAD")
	if mr.broken {
		return true
	}
	var base map[string]bool
	if mr.ok {
		var br gitReply
		if base, br = g.j.guardFilesAt(g.dir, strings.TrimSpace(mr.out)); br.broken {
			return true
		}
	}
	for p := range head {
		if !target[p] && (base[p] || interactive) {
			return true
		}
	}
	return false
}

// pull reports git pull merging or rebasing onto a revision that removed
// a guard file HEAD tracks, judged as git merge (git rebase with --rebase)
// of it: the branches named from the repository itself (git pull .
// <branch>), a remote's branch by its remote-tracking branch when there is
// one, else the current branch's upstream. What the fetch brings from
// another repository is not known when the command is judged; a dry run
// (--dry-run) changes nothing.
func (g govCall) pull(args []field) bool {
	if optionIn(args, "--dry-run", "") {
		return false
	}
	pos, _, _ := revPositionals(args, "-s --strategy -X --strategy-option -o --server-option --depth --deepen --shallow-since --shallow-exclude --upload-pack --refmap --negotiation-tip --cleanup", "")
	interactive := false
	for _, a := range args {
		if a.val == "--rebase=i" || a.val == "--rebase=interactive" {
			interactive = true
		}
	}
	up := lit("@{upstream}")
	if len(pos) < 2 || pos[0].dynamic() {
		return g.replays(up, up, interactive)
	}
	for _, ref := range pos[1:] {
		if ref.dynamic() {
			if pos[0].val == "." && g.lacks(ref) {
				return true
			}
			continue
		}
		src, _, _ := strings.Cut(strings.TrimPrefix(ref.val, "+"), ":")
		rev := lit(src)
		if pos[0].val != "." {
			rev = lit("refs/remotes/" + pos[0].val + "/" + strings.TrimPrefix(src, "refs/heads/"))
			if _, r := g.j.guardFilesAt(g.dir, rev.val); !r.ok && !r.broken {
				continue // not fetched yet: what it holds is not known
			}
		}
		if g.replays(rev, rev, interactive) {
			return true
		}
	}
	return false
}

// worktree reports git worktree add making a work tree without
// .hookwarden.yaml: --orphan, or a commit-ish (default: the branch named
// after the path's last component when there is one, else HEAD) that
// lacks it, or one known only at run time.
func (g govCall) worktree(args []field) bool {
	if len(args) == 0 || args[0].val != "add" {
		return false
	}
	for _, a := range args[1:] {
		if a.val == "--orphan" {
			return true
		}
	}
	pos, _, _ := revPositionals(args[1:], "-b -B --reason", "")
	if len(pos) == 0 {
		return false
	}
	rev := lit("HEAD")
	if len(pos) > 1 {
		rev = pos[1]
	} else if !optionIn(args[1:], "-b", "") && !optionIn(args[1:], "-B", "") && !optionIn(args[1:], "--detach", "") && !pos[0].dynamic() {
		if _, r := g.j.guardFilesAt(g.dir, "refs/heads/"+path.Base(pos[0].val)); r.ok {
			rev = lit("refs/heads/" + path.Base(pos[0].val))
		}
	}
	if rev.dynamic() {
		return true
	}
	files, r := g.j.guardFilesAt(g.dir, rev.val)
	return r.broken || (r.ok && !files[".hookwarden.yaml"])
}

// bisect reports git bisect moving the work tree where the guard's files
// may be missing (git-bisect(1)): start with revisions, good, bad, old,
// new, skip, a term of the user's own, run and replay check out
// revisions between the good and bad ones, chosen by git at run time, so
// the command counts when any revision it names or the bisection already
// holds (refs/bisect/) lacks a guard file HEAD tracks, or is known only at
// run time. reset <commit> is judged like a checkout of it; reset alone
// (back where the bisection started), log, visualize, view, terms and
// help move nothing of the guard's.
func (g govCall) bisect(args []field) bool {
	if len(args) == 0 {
		return false
	}
	sub := args[0]
	if sub.dynamic() {
		return g.lacks(sub)
	}
	pos, _, _ := revPositionals(args[1:], "--term-old --term-new --term-good --term-bad", "")
	switch sub.val {
	case "log", "visualize", "view", "terms", "help":
		return false
	case "reset":
		return len(pos) > 0 && g.lacks(pos[0])
	case "start":
		for _, rev := range pos {
			if g.lacks(rev) {
				return true
			}
		}
		return false
	}
	for _, rev := range pos {
		if g.lacks(rev) {
			return true
		}
	}
	r := g.j.askGit(g.dir, "for-each-ref", "--format=%(objectname)", "refs/bisect/")
	if r.broken {
		return true
	}
	for _, oid := range strings.Fields(r.out) {
		if g.lacks(lit(oid)) {
			return true
		}
	}
	return false
}
