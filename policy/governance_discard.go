package policy

import "strings"

// The uncommitted-changes half of governance.go: git commands that write
// over the work tree's copies of tracked files from the index or a
// revision, throwing away what the files hold that is not committed
// (adversarial pass, stop 45: git checkout . and git restore . were
// allowed while adopt's rows, merged into a tracked .claude/settings.json,
// were not committed yet).

// discards reports git checkout [<tree-ish>] [--] <pathspec>..., git
// restore <pathspec>... and git checkout/switch -f (--force,
// --discard-changes) throwing away uncommitted changes of a tracked guard
// file: from the index (git checkout -- ., git restore .) the changes in
// the work tree; from a revision (git checkout HEAD -- ., git restore
// --staged --worktree ., --source, checkout -f) the staged ones too. git
// status with the command's pathspecs says which guard files they cover
// (a pathspec known only at run time covers every one); an interactive
// -p/--patch counts not (a person picks the hunks).
func (g govCall) discards(sub string, args []field) bool {
	var specs []string
	var fromRev, ok bool
	switch sub {
	case "checkout":
		specs, fromRev, ok = g.checkoutSpecs(args)
	case "switch":
		ok, fromRev = optionIn(args, "--force", "") || optionIn(args, "-f", "") || optionIn(args, "--discard-changes", ""), true
	case "restore":
		specs, fromRev, ok = restoreSpecs(args)
	}
	if !ok {
		return false
	}
	if g.movedHead() {
		return true // git reset nogov && git checkout -- .
	}
	entries, r := g.j.guardStatus(g.dir, specs, false)
	if r.broken {
		return true
	}
	for _, e := range entries {
		x, y := e[0][0], e[0][1]
		if y == 'M' || y == 'T' {
			return true
		}
		if fromRev && strings.IndexByte("MATRC", x) >= 0 {
			return true
		}
	}
	return false
}

// checkoutSpecs reads git checkout's words for discards: the pathspecs
// (nil for every guard file), whether the copies come from a revision,
// and ok when the command writes over work-tree files at all (paths, or
// -f with or without a branch).
func (g govCall) checkoutSpecs(args []field) (specs []string, fromRev, ok bool) {
	if optionIn(args, "-p", "p") || optionIn(args, "--patch", "") {
		return nil, false, false
	}
	force := optionIn(args, "-f", "f") || optionIn(args, "--force", "")
	for _, a := range args {
		if a.val == "--" {
			break
		}
		if strings.HasPrefix(a.val, "--pathspec-from-file") {
			return nil, true, true
		}
	}
	pos, dashdash, _ := revPositionals(args, "-b -B --orphan --conflict", "")
	if dashdash {
		after := wordsAfterDashes(args)
		if len(after) == 0 {
			return nil, true, force
		}
		return specWords(after), len(pos) > 0, true
	}
	switch {
	case len(pos) == 0:
		return nil, true, force // git checkout -f: back to HEAD
	case pos[0].dynamic():
		return nil, true, true // a revision or a path, known only at run time
	}
	if _, r := g.j.guardFilesAt(g.dir, pos[0].val); r.ok || r.broken {
		if len(pos) == 1 {
			return nil, true, force // a branch switch; -f throws changes away
		}
		return specWords(pos[1:]), true, true
	}
	return specWords(pos), false, true
}

// restoreSpecs reads git restore's words for discards: the pathspecs,
// whether the copies come from a revision (--source, or --staged with
// --worktree: HEAD), and ok when the work tree is written (not --staged
// alone, not -p).
func restoreSpecs(args []field) (specs []string, fromRev, ok bool) {
	if restoreStagedOnly(args) || optionIn(args, "-p", "p") || optionIn(args, "--patch", "") {
		return nil, false, false
	}
	var words []field
	all := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.val
		switch {
		case v == "--":
			words = append(words, args[i+1:]...)
			i = len(args)
		case v == "-s" || v == "--source":
			fromRev = true
			i++
		case strings.HasPrefix(v, "--source=") || (strings.HasPrefix(v, "-s") && !strings.HasPrefix(v, "--")):
			fromRev = true
		case strings.HasPrefix(v, "--pathspec-from-file"):
			all = true
		case v == "--staged" || (strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "S")):
			fromRev = true
		case strings.HasPrefix(v, "-") && len(v) > 1 && !a.dynamic():
		default:
			words = append(words, a)
		}
	}
	if all {
		return nil, fromRev, true
	}
	if len(words) == 0 {
		return nil, false, false // git restore without paths fails
	}
	return specWords(words), fromRev, true
}

// wordsAfterDashes returns the words after the first "--".
func wordsAfterDashes(args []field) []field {
	for i, a := range args {
		if a.val == "--" {
			return args[i+1:]
		}
	}
	return nil
}

// specWords returns the words as pathspecs for git status, or nil (every
// guard file) when one is known only at run time.
func specWords(ws []field) []string {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		if w.dynamic() {
			return nil
		}
		out = append(out, w.val)
	}
	return out
}
