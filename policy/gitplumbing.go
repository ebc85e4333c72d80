package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file judges git's plumbing and work-tree operations that go past the
// hooks (issue 29 item 5): commands that write a commit or move a branch
// without running pre-commit or commit-msg, push without pre-push, or
// remove or replace the guard's files in the work tree. The facts are from
// git 2.39.5's manual pages (git-<sub>(1)) and were checked by running each
// in a scratch repository.

// gitPlumbing judges sub with args before gitSub's own cases; it returns
// true when sub is fully judged here.
//   - commit-tree writes a commit object with no hook (git-commit-tree(1):
//     "This is usually not what an end user wants to run directly"); its
//     output is what update-ref, reset, branch -f or checkout then move a
//     branch to, so the plumbing itself is refused wherever it stands.
//     hash-object -t commit|tag -w and --literally, fast-import (which
//     writes commits and moves refs from a stream), filter-branch (rewrites
//     every commit) and git-filter-repo (newren/git-filter-repo, its README:
//     rewrites history through fast-export and fast-import, removing
//     paths with --path … --invert-paths), replace (other than listing or deleting; --edit and
//     --graft write replacement commits) likewise.
//   - send-pack and http-push push without the pre-push hook (githooks(5)
//     names only git push as its caller).
//   - update-ref moving HEAD or a branch (refs/heads/), or reading its
//     updates from --stdin: any value may be a commit written past the hooks.
//     Deleting (-d) and other namespaces (refs/remotes/, refs/tags/) stay
//     allowed.
//   - symbolic-ref pointing HEAD (or any ref) at another moves what the
//     next git reset --hard empties the work tree to: an unborn branch
//     holds no file, the guard's included (adversarial pass, 2026-12-06:
//     git symbolic-ref HEAD refs/heads/nope && git reset --hard was
//     allowed). Reading it and -d stay allowed.
//   - a stash entry (stash, stash@{n}, refs/stash, their ^ and ~ forms) is
//     a commit git stash wrote without hooks; cherry-pick, merge, rebase,
//     reset, branch, checkout and switch of one land it on a branch.
//     git stash pop/apply (which write the work tree only) stay allowed.
//   - switch --orphan empties the index and the work tree (git-switch(1):
//     "All tracked files are removed"), the guard's files with them.
//   - checkout-index -f overwrites work-tree files from the index; with -a
//     or a guard file named, the guard's files (update-index --cacheinfo
//     staged them, gitSub); --index-info reads paths and blobs from stdin.
//   - sparse-checkout set and init narrow the work tree (git-sparse-checkout(1):
//     cone mode keeps top-level files only), removing .claude/, .codex/,
//     .hookwarden/ and the other guard directories; add, list, disable and
//     reapply stay allowed.
//   - apply (and am's patches are git's own commits, judged by hooks): the
//     paths of the patch are judged as writes (patchTargets).
func (j *judge) gitPlumbing(sub string, args []field, st *syntax.Stmt, sc *scope) bool {
	switch sub {
	case "commit-tree", "fast-import", "send-pack", "http-push", "filter-branch", "filter-repo":
		j.hits.add(RuleGitPlumbing)
		return true
	case "hash-object":
		if hashObjectCommit(args) {
			j.hits.add(RuleGitPlumbing)
		}
		return true
	case "replace":
		if !replaceReadOnly(args) {
			j.hits.add(RuleGitPlumbing)
		}
		return true
	case "update-ref":
		if updateRefMoves(args) {
			j.hits.add(RuleGitPlumbing)
		}
		return true
	case "symbolic-ref":
		if symbolicRefWrites(args) {
			j.hits.add(RuleGitPlumbing)
		}
		return true
	case "checkout-index":
		j.checkoutIndex(args, sc)
		return true
	case "sparse-checkout":
		if rest := skipOpts(args, "", nil); len(rest) > 0 && (rest[0].val == "set" || rest[0].val == "init" || rest[0].dynamic()) {
			j.hits.add(RuleSelfProtect)
			j.hits.add(RuleSelfProtectClientHooks)
		}
		return true
	case "apply":
		j.gitApply(args, st, sc)
		return true
	case "update-index":
		for _, a := range args {
			if a.val == "--index-info" || a.dynamic() {
				j.hits.add(RuleGitPlumbing)
			}
		}
	case "switch":
		for _, a := range args {
			if a.val == "--orphan" || strings.HasPrefix(a.val, "--orphan=") {
				j.hits.add(RuleSelfProtect)
				j.hits.add(RuleSelfProtectClientHooks)
			}
		}
	}
	switch sub {
	case "cherry-pick", "merge", "rebase", "reset", "branch", "checkout", "switch":
		for _, a := range args {
			if stashRev(a.val) {
				j.hits.add(RuleGitPlumbing)
			}
		}
	}
	return false
}

// stashRev reports a revision naming a stash entry: stash, refs/stash,
// stash@{n}, and any of them followed by ^, ~ or @{...} (gitrevisions(7)).
func stashRev(v string) bool {
	v, _, _ = strings.Cut(v, ":")
	v = strings.TrimPrefix(v, "refs/")
	if !strings.HasPrefix(v, "stash") {
		return false
	}
	rest := v[len("stash"):]
	return rest == "" || rest[0] == '@' || rest[0] == '^' || rest[0] == '~'
}

// hashObjectCommit reports git hash-object writing (-w) an object of type
// commit or tag (-t, --type; git hash-object also takes --literally, which
// writes any type unchecked), or a type known only at run time.
func hashObjectCommit(args []field) bool {
	write, typ := false, ""
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "-w":
			write = true
		case v == "--literally":
			return true
		case v == "-t" && i+1 < len(args):
			i++
			typ = args[i].val
		case strings.HasPrefix(v, "-t") && len(v) > 2:
			typ = v[2:]
		case strings.HasPrefix(v, "--type="):
			typ = v[len("--type="):]
		}
	}
	return write && (typ == "commit" || typ == "tag" || strings.Contains(typ, dyn))
}

// replaceReadOnly reports git replace listing (no argument, -l, --list,
// --format) or deleting (-d, --delete) replacement refs; anything else
// writes one.
func replaceReadOnly(args []field) bool {
	if len(args) == 0 {
		return true
	}
	for _, a := range args {
		switch {
		case a.val == "-l" || a.val == "--list" || a.val == "-d" || a.val == "--delete" || strings.HasPrefix(a.val, "--format"):
			return true
		}
	}
	return false
}

// symbolicRefWrites reports git symbolic-ref pointing a ref at another
// (two operands: git symbolic-ref HEAD refs/heads/unborn, after which
// git reset --hard empties the work tree of every tracked file, the
// guard's included), or operands known only at run time; reading (one
// operand, --short, -q) and -d/--delete are left alone.
func symbolicRefWrites(args []field) bool {
	n := 0
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case args[i].dynamic():
			return true
		case v == "-d" || v == "--delete":
			return false
		case v == "-m":
			i++
		case strings.HasPrefix(v, "-"):
		default:
			n++
		}
	}
	return n >= 2
}

// updateRefMoves reports git update-ref setting HEAD or a branch
// (refs/heads/...), a ref known only at run time, or reading updates from
// --stdin; -d/--delete and other ref namespaces are left alone.
func updateRefMoves(args []field) bool {
	var pos []field
	for _, a := range args {
		switch {
		case a.val == "--stdin":
			return true
		case a.val == "-d" || a.val == "--delete":
			return false
		case a.val == "-m" || strings.HasPrefix(a.val, "-"):
		default:
			pos = append(pos, a)
		}
	}
	// -m <reason> takes a value: drop it from the operands.
	for i := 0; i+1 < len(args); i++ {
		if args[i].val == "-m" {
			pos = removeField(pos, args[i+1])
		}
	}
	if len(pos) < 2 {
		return false
	}
	ref := pos[0].val
	return pos[0].dynamic() || ref == "HEAD" || strings.HasPrefix(ref, "refs/heads/") || !strings.HasPrefix(ref, "refs/")
}

// removeField drops the first field equal to f (same value) from fs.
func removeField(fs []field, f field) []field {
	for i, x := range fs {
		if x.val == f.val {
			return append(fs[:i:i], fs[i+1:]...)
		}
	}
	return fs
}

// checkoutIndex judges git checkout-index: with -f/--force it overwrites
// what it names (git-checkout-index(1)); -a/--all names every file, the
// guard's among them, and --stdin names files known only at run time.
func (j *judge) checkoutIndex(args []field, sc *scope) {
	force, all := false, false
	var paths []field
	for _, a := range args {
		v := a.val
		switch {
		case v == "-f" || v == "--force":
			force = true
		case v == "-a" || v == "--all" || v == "--stdin":
			all = true
		case strings.HasPrefix(v, "--prefix="):
		case strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && v != "-":
			force = force || strings.Contains(v, "f")
			all = all || strings.Contains(v, "a")
		case v == "--":
		default:
			paths = append(paths, a)
		}
	}
	if !force {
		return
	}
	if all {
		j.hits.add(RuleSelfProtect)
		j.hits.add(RuleSelfProtectClientHooks)
	}
	for _, p := range paths {
		j.guardHit(sc.classify(p), false)
		if wholeTreeSpec(p.val) {
			j.hits.add(RuleSelfProtect)
			j.hits.add(RuleSelfProtectClientHooks)
		}
	}
}
