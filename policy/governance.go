package policy

import (
	"maps"
	"path"
	"path/filepath"
	"strings"
)

// This file judges git commands that take a governed repository's own
// files (the guard's: .hookwarden.yaml, .hookwarden/, the client hook
// files) out of its work tree without naming them (adversarial pass,
// 2026-12-06; RuleGovernanceRollback). adopt leaves them uncommitted until
// a person commits them, and a branch made before adoption lacks them:
//   - git clean removes them while untracked: judged by git clean -n with
//     the command's own options (its -e exclusions, -x, -X, -d and
//     pathspecs honoured), so git clean -fdx -e .hookwarden.yaml ... that
//     leaves every guard file alone stays allowed, and so does git clean -n.
//   - git stash -u/-a (push or save) takes them away while untracked
//     (ignored too for -a); any git stash push takes away uncommitted
//     changes of tracked ones (adopt's rows merged into a tracked
//     .claude/settings.json); a pathspec that leaves them out is honoured.
//   - git checkout <rev>, git switch <branch> (and their start points of
//     -b/-c), git reset --hard|--keep|--merge <rev>, git merge and git
//     rebase onto a revision that lacks a guard file the current commit
//     tracks remove it; for merge and rebase only when their merge base
//     still had it (so replaying the commit that adopted hookwarden onto an
//     older base keeps it). git reset --hard also drops uncommitted changes
//     of tracked guard files. git revert of a commit (or a range) that
//     added a guard file removes it, and so does git cherry-pick of one
//     that removed it.
//   - git checkout . and git restore . (any pathspec covering a guard
//     file, git checkout -f, git switch -f) drop uncommitted changes of
//     tracked ones (governance_discard.go); git pull merges or rebases
//     like git merge and rebase; git rebase -i may drop the commit that
//     added one (its todo list is not known).
//   - git worktree add of a revision without .hookwarden.yaml (and
//     --orphan) makes a work tree no hook governs.
//   - git bisect checks out revisions between the good and bad ones it
//     holds, chosen at run time (bisect in governance_revs.go).
//
// A revision known only at run time is refused where the current commit
// tracks a guard file. Git is asked (gitask.go) only for these commands,
// only in a governed repository whose directory the judge knows.

// governance judges sub with args at sc (gitSub calls it first).
func (j *judge) governance(sub string, args []field, sc *scope) {
	switch sub {
	case "clean", "stash", "checkout", "switch", "restore", "reset", "revert", "cherry-pick", "rebase", "merge", "pull", "worktree", "bisect":
	default:
		return
	}
	dir, top, ok := j.governedDir(sc)
	if !ok {
		return
	}
	g := govCall{j: j, dir: dir, top: top}
	var removes bool
	switch sub {
	case "clean":
		removes = g.clean(args)
	case "stash":
		removes = g.stash(args)
	case "checkout", "switch":
		removes = g.checkout(sub, args) || g.discards(sub, args)
	case "restore":
		removes = g.discards(sub, args)
	case "pull":
		removes = g.pull(args)
	case "reset":
		removes = g.reset(args)
	case "revert":
		removes = g.revert(args)
	case "cherry-pick":
		removes = g.cherryPick(args)
	case "rebase", "merge":
		removes = g.rebase(sub, args)
	case "worktree":
		removes = g.worktree(args)
	case "bisect":
		removes = g.bisect(args)
	}
	if removes {
		j.hits.add(RuleGovernanceRollback)
	}
}

// gitLeavesIndex reports whether git subcommand sub leaves HEAD, the
// index and the branches as they are: the commands that read, and those
// that write only elsewhere (fetch: remote-tracking refs; clean: untracked
// files). Any other (add, commit, rm, stash, reset, checkout, merge,
// apply, update-index, an alias, a name known only at run time, …) may
// change what the current commit tracks, so a later governance question of
// the same call cannot trust git's answer about the state before the call
// (judge.gitMoved): git add -A && git commit -m x && git checkout old
// removes the guard's files the commit had just recorded, while git,
// asked before the call, says HEAD tracks none of them.
func gitLeavesIndex(sub string, args []field) bool {
	switch sub {
	case "tag", "branch":
		// Listing leaves the refs; making or moving one (git branch tmp
		// nogov, then git checkout tmp) names a revision git did not know
		// when asked.
		if len(args) == 0 {
			return true
		}
		for _, a := range args {
			switch a.val {
			case "-l", "--list", "-v", "-vv", "--verify", "-a", "--all", "-r", "--remotes", "--show-current", "--contains", "--merged", "--no-merged", "--points-at":
				return true
			}
		}
		return false
	case "clone", "init":
		return true // another repository, or this one's git directory set up again
	}
	switch sub {
	case "status", "log", "diff", "show", "ls-files", "ls-tree", "ls-remote", "rev-parse", "rev-list",
		"describe", "blame", "annotate", "grep", "shortlog", "cat-file", "for-each-ref", "merge-base",
		"show-ref", "show-branch", "name-rev", "check-ignore", "check-attr", "check-ref-format",
		"count-objects", "fsck", "reflog", "whatchanged", "format-patch", "archive", "var", "help",
		"version", "fetch", "remote", "clean", "difftool", "range-diff", "cherry", "verify-commit",
		"verify-tag", "diff-tree", "diff-index", "diff-files", "ls", "config":
		return true
	}
	return false
}

// noteRefMove records in judge.gitRefs the branch or tag git branch or
// git tag (sub, with args) makes or moves and the revision it then names:
// git branch [-f] NAME [START], git branch -m|-M|-c|-C [OLD] NEW, git tag
// [-f] NAME [COMMIT] (HEAD when no start is given). Listing and deleting
// forms record nothing.
func (j *judge) noteRefMove(sub string, args []field) {
	switch sub {
	case "fetch":
		j.noteFetchRefs(args)
		return
	case "reset":
		j.noteReset(args)
		return
	}
	if sub != "branch" && sub != "tag" || gitLeavesIndex(sub, args) {
		return
	}
	var pos []field
	rename := false
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "-d" || v == "-D" || v == "--delete":
			return
		case sub == "branch" && (v == "-m" || v == "-M" || v == "-c" || v == "-C" || v == "--move" || v == "--copy"):
			rename = true
		case sub == "tag" && (v == "-m" || v == "-F" || v == "-u" || v == "--message" || v == "--file" || v == "--local-user"):
			i++ // takes a value
		case strings.HasPrefix(v, "-"):
		default:
			pos = append(pos, args[i])
		}
	}
	if len(pos) == 0 {
		return
	}
	name, start := pos[0], lit("HEAD")
	switch {
	case rename && len(pos) >= 2:
		name, start = pos[1], pos[0]
	case rename:
		// renames the current branch: NEW is HEAD
	case len(pos) >= 2:
		start = pos[1]
	}
	if name.dynamic() {
		return
	}
	j.setGitRef(name.val, start)
}

// gitScriptEntry starts a script's passes (the walk, then each symbolic
// run) from the git state where the script runs (judge.gitEntry,
// gitEntryRefs) and returns the function that restores the enclosing
// script's.
func (j *judge) gitScriptEntry() (restore func()) {
	outerEntry, outerRefs := j.gitEntry, j.gitEntryRefs
	j.gitEntry, j.gitEntryRefs = j.gitMoved, maps.Clone(j.gitRefs)
	return func() { j.gitEntry, j.gitEntryRefs = outerEntry, outerRefs }
}

// gitAfterRuns leaves, after a script's passes, the git state any of them
// reached: moved when the walk (walked) or the runs saw a writer, and the
// refs the walk recorded (walkedRefs) beside those of the last run.
func (j *judge) gitAfterRuns(walked bool, walkedRefs map[string]field) {
	j.gitMoved = j.gitMoved || walked
	for name, to := range walkedRefs {
		if _, ok := j.gitRefs[name]; !ok {
			j.setGitRef(name, to)
		}
	}
}

// noteReset records, as judge.gitRefs["HEAD"], the revision a git reset
// that keeps the work tree (--soft, --mixed or no mode) moves HEAD to: the
// guard's files then differ from the new HEAD as changes of the index or
// the work tree that a later git stash, git reset --hard or git checkout .
// of the call takes away (movedHead). A word git does not know as a
// revision (a path: git reset src/a.go) moves nothing there.
func (j *judge) noteReset(args []field) {
	for _, a := range args {
		if a.val == "--hard" || a.val == "--keep" || a.val == "--merge" {
			return
		}
	}
	pos, _, _ := revPositionals(args, "--pathspec-from-file", "")
	if len(pos) == 0 {
		return
	}
	j.setGitRef("HEAD", pos[0])
}

// movedHead reports an earlier git reset of the call (noteReset) having
// moved HEAD to a revision that lacks a guard file the current commit
// tracks: git reset --soft nogov && git stash takes the manifest away.
func (g govCall) movedHead() bool {
	to, ok := g.j.gitRefs["HEAD"]
	return ok && g.lacks(to)
}

// noteFetchRefs records the local refs git fetch's refspecs write
// (REMOTE SRC:DST, + allowed): from "." DST names SRC, from another
// repository a revision not known here (dynamic), so git fetch . nogov:tmp
// && git checkout tmp is judged as a checkout of nogov.
func (j *judge) noteFetchRefs(args []field) {
	var pos []field
	for _, a := range args {
		if !strings.HasPrefix(a.val, "-") {
			pos = append(pos, a)
		}
	}
	if len(pos) < 2 {
		return
	}
	local := pos[0].val == "."
	for _, spec := range pos[1:] {
		src, dst, ok := strings.Cut(strings.TrimPrefix(spec.val, "+"), ":")
		if !ok || dst == "" || strings.Contains(dst, dyn) {
			continue
		}
		to := field{val: dyn, raw: spec.raw}
		if local && src != "" {
			to = lit(src)
		}
		j.setGitRef(strings.TrimPrefix(strings.TrimPrefix(dst, "refs/heads/"), "refs/tags/"), to)
	}
}

// setGitRef records in judge.gitRefs that name now means the revision to.
func (j *judge) setGitRef(name string, to field) {
	if j.gitRefs == nil {
		j.gitRefs = map[string]field{}
	}
	j.gitRefs[name] = to
}

// refAsMoved returns rev, or the revision an earlier git branch, git tag
// or git fetch of the call made it name (judge.gitRefs).
func (j *judge) refAsMoved(rev field) field {
	if rev.dynamic() {
		return rev
	}
	if to, ok := j.gitRefs[rev.val]; ok {
		return to
	}
	return rev
}

// govCall is one governance question: the judge, the directory the git
// command runs in and its work tree's root.
type govCall struct {
	j        *judge
	dir, top string
}

// clean reports git clean removing a guard file: git clean -n with the
// same options says what it would remove (an option known only at run time
// counts as -d -x: everything untracked).
func (g govCall) clean(args []field) bool {
	dry := []string{"clean", "-n"}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.dynamic() {
			dry = []string{"clean", "-n", "-d", "-x"}
			break
		}
		keep, dryRun, takesNext := cleanOption(a.val)
		if dryRun {
			return false
		}
		if keep != "" {
			dry = append(dry, keep)
		}
		if takesNext && i+1 < len(args) {
			i++
			dry = append(dry, args[i].val)
		}
	}
	r := g.j.askGit(g.dir, dry...)
	if r.broken {
		return true
	}
	prefix := g.prefix()
	for _, l := range strings.Split(r.out, "\n") {
		if p, ok := strings.CutPrefix(l, "Would remove "); ok && guardRemoved(g.top, path.Join(prefix, p)) {
			return true
		}
	}
	return false
}

// cleanOption reads one word of git clean's arguments: what the dry run
// keeps of it ("" for nothing: -f, -i, -q and their long forms), whether
// it is already a dry run (-n, --dry-run) and whether -e takes the next
// word as its value.
func cleanOption(v string) (keep string, dryRun, takesNext bool) {
	switch {
	case v == "-n" || v == "--dry-run":
		return "", true, false
	case v == "--force" || v == "--interactive" || v == "--quiet":
		return "", false, false
	case v == "-e" || v == "--exclude":
		return v, false, true
	case strings.HasPrefix(v, "--") || !strings.HasPrefix(v, "-") || v == "-":
		return v, false, false
	}
	var b strings.Builder
	b.WriteByte('-')
	for k := 1; k < len(v); k++ {
		switch c := v[k]; c {
		case 'n':
			return "", true, false
		case 'f', 'i', 'q':
		case 'e':
			b.WriteString(v[k:])
			return b.String(), false, k == len(v)-1
		default:
			b.WriteByte(c)
		}
	}
	if b.Len() == 1 {
		return "", false, false
	}
	return b.String(), false, false
}

// prefix is the command's directory relative to the work tree's root
// ("" at the root), as git clean -n's paths are relative to it.
func (g govCall) prefix() string {
	top, dir := g.top, g.dir
	if t, err := filepath.EvalSymlinks(top); err == nil {
		top = t
	}
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	rel, err := filepath.Rel(top, dir)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return ""
	}
	return filepath.ToSlash(rel)
}

// stash reports git stash push (or save, or the bare git stash) taking a
// guard file away: untracked ones with -u/--include-untracked, ignored
// ones too with -a/--all, and uncommitted changes of tracked ones always.
func (g govCall) stash(args []field) bool {
	sub, rest := "push", args
	if len(args) > 0 && !strings.HasPrefix(args[0].val, "-") {
		sub, rest = args[0].val, args[1:]
	}
	if sub != "push" && sub != "save" {
		return false
	}
	if g.movedHead() {
		return true
	}
	untracked, ignored, specs := stashOptions(sub, rest)
	entries, r := g.j.guardStatus(g.dir, specs, ignored)
	if r.broken {
		return true
	}
	for _, e := range entries {
		switch e[0] {
		case "??":
			if untracked {
				return true
			}
		case "!!":
			if ignored {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// stashOptions reads git stash push's (or save's) words: -u, -a and the
// pathspecs (push only; save's words are its message). A word known only
// at run time may be -a, and a --pathspec-from-file names any path: both
// count as every path, ignored ones too.
func stashOptions(sub string, args []field) (untracked, ignored bool, specs []string) {
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case args[i].dynamic() || strings.HasPrefix(v, "--pathspec-from-file"):
			return true, true, nil
		case v == "--":
			if sub == "push" {
				specs = append(specs, fieldVals(args[i+1:])...)
			}
			return untracked, ignored, specs
		case v == "-u" || v == "--include-untracked":
			untracked = true
		case v == "-a" || v == "--all":
			untracked, ignored = true, true
		case v == "--no-include-untracked":
			untracked = false
		case v == "-m" || v == "--message":
			i++
		case strings.HasPrefix(v, "--"):
		case strings.HasPrefix(v, "-") && len(v) > 1:
			m := strings.IndexByte(v, 'm')
			flags := v
			if m >= 0 {
				flags = v[:m] // -um msg: the rest is the message
			}
			untracked = untracked || strings.ContainsAny(flags, "ua")
			ignored = ignored || strings.Contains(flags, "a")
			if m == len(v)-1 {
				i++
			}
		default:
			if sub == "push" {
				specs = append(specs, v)
			}
		}
	}
	return untracked, ignored, specs
}

// fieldVals returns the fields' values.
func fieldVals(fs []field) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, f.val)
	}
	return out
}
