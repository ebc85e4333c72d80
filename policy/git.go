package policy

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/hookwarden/hookwarden/internal/gitdisc"
)

// gitSpec is what the policy knows of one git subcommand's options, from
// `git <sub> --git-completion-helper` and `git <sub> -h` of git 2.39.5 (the
// installed git, checked by running it in a scratch repository):
//   - commit: --no-verify and its unique prefixes --no-veri, --no-verif
//     (--no-v..--no-ver are ambiguous with --no-verbose); -n in a cluster of
//     boolean letters; -m -F -c -C -t take values, -u and -S optional stuck ones.
//   - merge, pull: only the full --no-verify (shorter prefixes are ambiguous with
//     --no-verify-signatures); their -n is "no diffstat".
//   - push, rebase: --no-veri and longer; push -n is --dry-run, rebase -n --no-stat.
//   - am: git 2.39 has no --no-verify; later git's builtin/am.c option table
//     adds "-n, --no-verify  bypass pre-applypatch and applypatch-msg hooks"
//     and "--verify" (the `git am -h` of git 2.51 shows both). They are
//     listed so newer git is covered; with them --no-v is already unique.
type gitSpec struct {
	longs    string // space-separated long option names without "--"; a trailing "=" takes a value
	shortVal string // short options taking a value (stuck or next argument)
	shortOpt string // short options taking an optional stuck value
	shortN   bool   // -n means --no-verify
}

const (
	gitCommitLongs = "quiet verbose file= author= date= message= reedit-message= reuse-message= fixup= squash= reset-author trailer= signoff template= edit cleanup= status gpg-sign all include interactive patch only no-verify dry-run short branch ahead-behind porcelain long null amend no-post-rewrite untracked-files pathspec-from-file= pathspec-file-nul verify post-rewrite no-quiet no-verbose no-file no-author no-date no-message no-reedit-message no-reuse-message no-fixup no-squash no-reset-author no-signoff no-template no-edit no-cleanup no-status no-gpg-sign no-all no-include no-interactive no-patch no-only no-dry-run no-short no-branch no-ahead-behind no-porcelain no-long no-null no-amend no-untracked-files no-pathspec-from-file no-pathspec-file-nul"
	gitMergeLongs  = "stat summary log squash commit edit cleanup= ff ff-only rerere-autoupdate verify-signatures strategy= strategy-option= message= file= into-name= verbose quiet abort quit continue allow-unrelated-histories progress gpg-sign autostash overwrite-ignore signoff no-verify verify no-stat no-summary no-log no-squash no-commit no-edit no-cleanup no-ff no-rerere-autoupdate no-verify-signatures no-strategy no-strategy-option no-message no-into-name no-verbose no-quiet no-abort no-quit no-continue no-allow-unrelated-histories no-progress no-gpg-sign no-autostash no-overwrite-ignore no-signoff"
	gitPushLongs   = "verbose quiet repo= all mirror delete tags dry-run porcelain force force-with-lease force-if-includes recurse-submodules= receive-pack= exec= set-upstream progress prune no-verify follow-tags signed atomic push-option= ipv4 ipv6 verify no-verbose no-quiet no-repo no-all no-mirror no-delete no-tags no-dry-run no-porcelain no-force no-force-with-lease no-force-if-includes no-recurse-submodules no-receive-pack no-exec no-set-upstream no-progress no-prune no-follow-tags no-signed no-atomic no-push-option no-ipv4 no-ipv6"
	gitRebaseLongs = "onto= keep-base no-verify quiet verbose no-stat signoff committer-date-is-author-date reset-author-date ignore-whitespace whitespace= force-rebase no-ff continue skip abort quit edit-todo show-current-patch apply merge interactive rerere-autoupdate empty= autosquash update-refs gpg-sign autostash exec= rebase-merges fork-point strategy= strategy-option= root reschedule-failed-exec reapply-cherry-picks verify stat ff no-onto no-keep-base no-quiet no-verbose no-signoff no-committer-date-is-author-date no-reset-author-date no-ignore-whitespace no-whitespace no-force-rebase no-rerere-autoupdate no-autosquash no-update-refs no-gpg-sign no-autostash no-exec no-rebase-merges no-fork-point no-strategy no-strategy-option no-root no-reschedule-failed-exec no-reapply-cherry-picks"
	gitPullLongs   = "verbose quiet progress recurse-submodules rebase stat log signoff squash commit edit cleanup= ff ff-only verify verify-signatures autostash strategy= strategy-option= gpg-sign allow-unrelated-histories all append upload-pack= force tags prune jobs dry-run keep depth= shallow-since= shallow-exclude= deepen= unshallow update-shallow refmap= server-option= ipv4 ipv6 negotiation-tip= show-forced-updates set-upstream no-verbose no-quiet no-progress no-recurse-submodules no-rebase no-stat no-log no-signoff no-squash no-commit no-edit no-cleanup no-ff no-verify no-verify-signatures no-autostash no-strategy no-strategy-option no-gpg-sign no-allow-unrelated-histories no-all no-append no-upload-pack no-force no-tags no-prune no-jobs no-dry-run no-keep no-depth no-shallow-since no-shallow-exclude no-deepen no-update-shallow no-server-option no-ipv4 no-ipv6 no-negotiation-tip no-show-forced-updates no-set-upstream"
	gitAmLongs     = "interactive 3way quiet signoff utf8 keep keep-non-patch message-id keep-cr no-keep-cr scissors quoted-cr= whitespace= ignore-space-change ignore-whitespace directory= exclude= include= patch-format= reject resolvemsg= continue resolved skip abort quit show-current-patch allow-empty committer-date-is-author-date ignore-date rerere-autoupdate gpg-sign empty= no-verify verify no-interactive no-3way no-quiet no-signoff no-utf8 no-keep no-keep-non-patch no-message-id no-scissors no-whitespace no-ignore-space-change no-ignore-whitespace no-directory no-exclude no-include no-patch-format no-reject no-resolvemsg no-committer-date-is-author-date no-ignore-date no-rerere-autoupdate no-gpg-sign"
	// gitPickLongs: git cherry-pick and git revert (git 2.39.5 -h; the
	// union of both, neither has --no-verify).
	gitPickLongs   = "quit continue abort skip cleanup= no-commit edit signoff mainline= rerere-autoupdate strategy= strategy-option= gpg-sign ff allow-empty allow-empty-message keep-redundant-commits reference no-cleanup no-edit no-signoff no-mainline no-rerere-autoupdate no-strategy no-strategy-option no-gpg-sign no-ff no-allow-empty no-allow-empty-message no-keep-redundant-commits no-reference"
	gitConfigLongs = "global system local worktree file= blob= get get-all get-regexp get-urlmatch replace-all add unset unset-all rename-section remove-section list fixed-value edit get-color get-colorbool type= bool int bool-or-int bool-or-str path expiry-date null name-only includes show-origin show-scope default= no-global no-system no-local no-worktree no-file no-blob no-get no-get-all no-get-regexp no-get-urlmatch no-replace-all no-add no-unset no-unset-all no-rename-section no-remove-section no-list no-fixed-value no-edit no-get-color no-get-colorbool no-type no-null no-name-only no-includes no-show-origin no-show-scope no-default"
)

func gitSpecFor(sub string) (gitSpec, bool) {
	switch sub {
	case "commit":
		return gitSpec{longs: gitCommitLongs, shortVal: "mFcCt", shortOpt: "uS", shortN: true}, true
	case "merge":
		return gitSpec{longs: gitMergeLongs, shortVal: "mFsX", shortOpt: "S"}, true
	case "push":
		return gitSpec{longs: gitPushLongs, shortVal: "o"}, true
	case "rebase":
		return gitSpec{longs: gitRebaseLongs, shortVal: "sXxC", shortOpt: "S"}, true
	case "pull":
		return gitSpec{longs: gitPullLongs, shortVal: "sXo", shortOpt: "Sj"}, true
	case "am":
		return gitSpec{longs: gitAmLongs, shortVal: "Cp", shortOpt: "S", shortN: true}, true
	case "cherry-pick", "revert":
		return gitSpec{longs: gitPickLongs, shortVal: "mX", shortOpt: "S"}, true
	}
	return gitSpec{}, false
}

// resolveLong applies git's parse-options rule: an exact long name, else the
// one long name the argument is a prefix of; ambiguous or unknown is ok=false
// (git refuses such a command). takesValue reports a trailing "=" in the spec.
func resolveLong(longs string, arg string) (name string, takesValue bool, ok bool) {
	match := ""
	n := 0
	for rest := longs; rest != ""; {
		l := rest
		if i := strings.IndexByte(rest, ' '); i >= 0 {
			l, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		if l == "" {
			continue
		}
		base := strings.TrimSuffix(l, "=")
		if base == arg {
			return base, base != l, true
		}
		if strings.HasPrefix(base, arg) {
			match = l
			n++
		}
	}
	if n != 1 {
		return "", false, false
	}
	base := strings.TrimSuffix(match, "=")
	return base, base != match, true
}

// gitBuiltins are git 2.39.5's commands (git --list-cmds=main,others); any
// other word in subcommand position may be a user alias.
const gitBuiltins = "add am annotate apply archive bisect blame branch bugreport bundle cat-file check-attr check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick clean clone column commit commit-graph commit-tree config count-objects credential describe diagnose diff diff-files diff-index diff-tree difftool fast-export fast-import fetch fetch-pack fmt-merge-msg for-each-ref for-each-repo format-patch fsck gc get-tar-commit-id grep hash-object help hook index-pack init init-db interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge merge-base merge-file merge-index merge-tree mktag mktree multi-pack-index mv name-rev notes pack-objects pack-refs patch-id prune pull push range-diff read-tree rebase receive-pack reflog remote repack replace rerere reset restore rev-list rev-parse revert rm send-pack shortlog show show-branch show-ref sparse-checkout stage stash status stripspace submodule switch symbolic-ref tag update-index update-ref upload-pack var verify-commit verify-pack verify-tag version whatchanged worktree write-tree gui gitk citool instaweb filter-branch request-pull send-email svn p4 lfs bisect--helper subtree"

func isGitBuiltin(sub string) bool {
	return sub != "" && !strings.Contains(sub, " ") && strings.Contains(" "+gitBuiltins+" ", " "+sub+" ")
}

// git judges `git <global options> <subcommand> <args>`. aliases carries
// inline aliases from an enclosing git's -c alias.<name>=<value> (name
// lower-cased); it is copied once here, with the aliases the script set
// with git config (scope.gitAliases) under it, and this call's -c options,
// --config-env and environment configuration added in place, so the work
// is linear in the number of options (issue 28 item 7).
func (j *judge) git(args []field, env []envVar, depth int, st *syntax.Stmt, sc *scope, aliases map[string]string) {
	if depth > maxDepth {
		j.hits.add(RuleScanBoundNesting)
		return
	}
	own := make(map[string]string, len(sc.gitAliases)+len(aliases))
	for k, v := range sc.gitAliases {
		own[k] = v
	}
	for k, v := range aliases {
		own[k] = v
	}
	aliases = own
	j.gitEnvConfig(env, depth, aliases)
	i, sc, workTree := j.gitGlobalOptions(args, env, depth, sc, aliases)
	if i >= len(args) {
		return
	}
	sub := args[i]
	rest := args[i+1:]
	j.foreignGitDir(args[:i], env, sc, workTree, sub, rest) // GIT_DIR or --git-dir elsewhere over a governed work tree
	// otherTree: the command runs on a work tree other than the one it
	// starts in
	otherTree := workTree != nil && (workTree.dynamic() || !dotsOnly(strings.TrimRight(workTree.val, "/")))
	if sub.dynamic() || sub.val == "commit" {
		j.otherIndex(env)
	}
	if sub.dynamic() || !isGitBuiltin(sub.val) || hookRunningGitSub(sub.val) {
		j.hookEnv(env, sc)
		if otherTree {
			// git --work-tree=/tmp/empty commit: hooks run in that work
			// tree, where a relative core.hooksPath (husky's .husky/_)
			// names no directory, so none runs (verified on git 2.39.5),
			// and the hook managers find no configuration.
			j.hits.add(RuleHooksPathConfig)
		}
	}
	if sub.dynamic() {
		j.dynamicGitSub(sub, rest)
		return
	}
	if !isGitBuiltin(sub.val) && j.gitAlias(sub, rest, env, depth, st, sc, aliases) {
		return
	}
	j.gitSub(sub.val, rest, env, depth, st, sc)
	if otherTree && (sub.val == "add" || sub.val == "stage" || sub.val == "rm") {
		// git --work-tree=/tmp/empty add -A stages the removal of every
		// file the other tree lacks (indexDrop)
		sc.indexDropped = true
	}
}

// gitGlobalOptions reads git's options before the subcommand (git(1)): it
// judges -c and --config-env settings (adding aliases to aliases), and
// returns the index of the subcommand in args, the scope the command runs
// in (a copy moved by each -C <dir>: the paths after it are judged from
// there, while the commands after git keep theirs) and the work tree
// --work-tree or GIT_WORK_TREE names (nil for none).
func (j *judge) gitGlobalOptions(args []field, env []envVar, depth int, sc *scope, aliases map[string]string) (int, *scope, *field) {
	var workTree *field
	for _, e := range env {
		if e.name == "GIT_WORK_TREE" {
			w := e.val
			workTree = &w
		}
	}
	i := 0
	for i < len(args) {
		v := args[i].val
		if !strings.HasPrefix(v, "-") {
			break
		}
		next := i+1 < len(args)
		switch {
		case v == "--":
			i++ // git refuses "--" here (2.39.5: "unknown option: --"); it and the word after it are skipped
		case v == "-C":
			if next {
				moved := *sc
				j.chdirPhysical(&moved, args[i+1])
				sc = &moved
			}
			i++
		case v == "--git-dir" || v == "--work-tree" || v == "--namespace" || v == "--super-prefix":
			if v == "--work-tree" && next {
				w := args[i+1]
				workTree = &w
			}
			i++
		case strings.HasPrefix(v, "--work-tree="):
			w := withVal(args[i], strings.TrimPrefix(v, "--work-tree="))
			workTree = &w
		case v == "-c":
			if next {
				j.gitConfigParam(args[i+1], aliases, depth, env)
			}
			i++
		case v == "--config-env":
			if next {
				j.gitConfigEnv(args[i+1].val, aliases)
			}
			i++
		case strings.HasPrefix(v, "--config-env="):
			j.gitConfigEnv(strings.TrimPrefix(v, "--config-env="), aliases)
		}
		i++
	}
	return i, sc, workTree
}

// dynamicGitSub judges a git subcommand known only at run time (git
// $(echo commit --no-verify), git $cmd): an unquoted expansion or a
// substitution there may be a hook-running subcommand and its skip flag; a
// quoted expansion is one word, so a flag can only come from the words
// after it.
func (j *judge) dynamicGitSub(sub field, rest []field) {
	j.unknownGitSub(rest)
	if sub.unquoted || sub.subst {
		j.hits.add(RuleGitDynamicOption)
	}
	for _, a := range rest {
		if a.val == "--" {
			break
		}
		if (a.unquoted && mayBeOption(a)) || (a.subst && (a.val[0] == dyn[0] || a.val[0] == '-')) {
			j.hits.add(RuleGitDynamicOption)
		}
	}
}

// gitAlias judges git SUB when SUB is an alias (from this command's -c and
// environment settings in aliases, else from the config files, fileAlias):
// a "!" alias as shell code with the arguments appended, any other as git
// arguments, nested one level deeper; an alias whose value is unknown is
// RuleIndirectionUnjudgeable. It reports whether SUB was an alias.
func (j *judge) gitAlias(sub field, rest []field, env []envVar, depth int, st *syntax.Stmt, sc *scope, aliases map[string]string) bool {
	a, ok := aliases[strings.ToLower(sub.val)]
	if !ok {
		a, ok = j.fileAlias(sub.val, rest)
	}
	if !ok {
		return false
	}
	switch {
	case a == dyn:
		j.hits.add(RuleIndirectionUnjudgeable)
	case strings.HasPrefix(a, "!"):
		j.scriptField(joinFields(append([]field{lit(a[1:])}, rest...)), depth+1, append(env[:len(env):len(env)], aliasParameters(aliases)))
	default:
		var words []field
		for _, w := range splitAlias(a) {
			words = append(words, lit(w))
		}
		j.git(append(words, rest...), env, depth+1, st, sc, aliases)
	}
	return true
}

// indexDrop follows, through one command, an index emptied of every path
// (git rm -r --cached . and the like, git read-tree --empty) until a git
// add of the whole tree stages the files again: a git commit in between
// records the removal of every file, the guard's and the client hook
// files among them, in the branch other clones pull (issue 29). git rm -r
// --cached . followed by git add . is the ordinary way to re-apply a
// .gitignore and stays allowed; a later call's commit is not seen here
// (audit reports the missing files in CI).
func (j *judge) indexDrop(sub string, args []field, sc *scope) {
	whole, cached := false, false
	for _, a := range args {
		whole = whole || (!strings.HasPrefix(a.val, "-") && wholeTreeSpec(a.val)) || a.val == "-A" || a.val == "--all"
		cached = cached || a.val == "--cached"
	}
	switch {
	case sub == "rm" && cached && whole, sub == "read-tree" && len(args) > 0 && args[0].val == "--empty":
		sc.indexDropped = true
	case sub == "add" && whole, sub == "stage" && whole, sub == "reset" && len(args) == 0:
		sc.indexDropped = false
	case sub == "commit" && sc.indexDropped:
		j.hits.add(RuleSelfProtect)
		j.hits.add(RuleSelfProtectClientHooks)
	}
}

// gitSub judges one git subcommand's arguments (also the dashed git-<sub>).
func (j *judge) gitSub(sub string, args []field, env []envVar, depth int, st *syntax.Stmt, sc *scope) {
	defer func() {
		j.gitMoved = j.gitMoved || !gitLeavesIndex(sub, args)
		j.noteRefMove(sub, args)
	}()
	j.optionCode("git-"+sub, args, nil, depth) // difftool -x, grep -O (optcode.go)
	j.governance(sub, args, sc)                // clean, stash, checkout … in a governed repository (governance.go)
	if j.gitPlumbing(sub, args, st, sc) {
		return
	}
	j.indexDrop(sub, args, sc)
	if spec, ok := gitSpecFor(sub); ok {
		j.gitHookOpts(sub, spec, args, env, depth)
		return
	}
	switch sub {
	case "cz":
		j.commitizen(args) // git cz: commitizen's git-cz on PATH
	case "config":
		j.gitConfig(args, env, depth, sc)
	case "submodule", "bisect":
		j.gitRunsCommand(sub, args, env, depth, sc)
	case "clone", "worktree", "init", "archive", "bundle", "format-patch":
		j.gitPathWriter(sub, args, sc)
	case "rm", "mv", "clean":
		j.gitRemoval(sub, args, sc)
	case "update-index", "read-tree":
		j.gitIndexWrite(sub, args, sc)
	case "checkout", "restore", "stash":
		j.gitCheckout(sub, args, sc)
	default:
		if !isGitBuiltin(sub) {
			j.unknownGitSub(args)
		}
	}
}

// gitRunsCommand judges the command git submodule [--quiet] foreach
// [--recursive] <command> runs in a shell in each submodule
// (git-submodule(1), foreach) and the one git bisect run <cmd> [<args>...]
// runs directly.
func (j *judge) gitRunsCommand(sub string, args []field, env []envVar, depth int, sc *scope) {
	if sub == "bisect" {
		if len(args) > 1 && args[0].val == "run" {
			j.command(args[1:], env, depth+1, nil, sc)
		}
		return
	}
	rest := skipOpts(args, "", nil)
	if len(rest) > 0 && rest[0].val == "foreach" {
		if cmd := skipOpts(rest[1:], "", nil); len(cmd) > 0 {
			j.scriptField(joinFields(cmd), depth+1, env)
		}
	}
}

// gitPathWriter judges the subcommands that write a directory or file at a
// path they are given: git clone <repo> [<dir>] (and --separate-git-dir),
// git worktree add <path> / move <wt> <path>, git init [<dir>], git archive
// -o, git bundle create <file>, git format-patch -o <dir>. One inside a
// hooks directory or hookwarden's store plants there what the store or git
// would read (a .lock, a directory the size bound counts); one inside a
// guard directory writes the guard's files. Every operand and option value
// is judged (the repository git clone reads is rarely in either place), and
// for init and clone the working directory too (their default target is in
// it: git -C .git/hooks init).
func (j *judge) gitPathWriter(sub string, args []field, sc *scope) {
	words := args
	if sub == "init" || sub == "clone" {
		words = append([]field{lit(".")}, args...)
	}
	for _, a := range words {
		v := a.val
		if strings.HasPrefix(v, "-") {
			_, after, ok := strings.Cut(v, "=")
			if !ok {
				continue
			}
			a = lit(after)
		}
		k := sc.classify(a)
		if k.hooks || k.store {
			j.hits.add(RuleHooksDirTamper)
		}
		j.guardHit(k, false)
	}
}

// gitRemoval judges git rm, mv and clean by the paths they name; git rm -r
// . removes every tracked file, the guard's among them (--cached leaves the
// working tree alone). git clean's -e/--exclude values are patterns it
// keeps, not paths it removes.
func (j *judge) gitRemoval(sub string, args []field, sc *scope) {
	cached := false
	for _, a := range args {
		cached = cached || a.val == "--cached"
	}
	if sub == "clean" {
		j.cleanNestedRepos(args, sc)
	}
	for i, a := range args {
		if strings.HasPrefix(a.val, "-") {
			continue
		}
		if sub == "clean" && i > 0 && (args[i-1].val == "-e" || args[i-1].val == "--exclude") {
			continue // git clean -e PATTERN keeps what it names (governance.go judges the rest)
		}
		k := sc.classify(a)
		if k.hooks {
			j.hits.add(RuleHooksDirTamper)
		}
		j.guardHit(k, true)
		if sub == "rm" && !cached && wholeTreeSpec(a.val) {
			j.hits.add(RuleSelfProtect)
			j.hits.add(RuleSelfProtectClientHooks)
		}
	}
}

// cleanNestedRepos judges git clean -ff (force given twice, not a dry
// run), which removes untracked nested repositories whole (git-clean(1)),
// governed ones with their guard files: from a repository holding an
// untracked governed one (a checkout of ws/team/proj inside a repository of
// the user's home, or a governed repository nested in another), `git clean
// -ffdx` was allowed. A governed repository up to maxHolderDepth levels
// below the directory it cleans, or below a pathspec it is given, is
// self-protect (governedEntries; past its budget, scan-bound-steps).
func (j *judge) cleanNestedRepos(args []field, sc *scope) {
	force := 0
	var specs []field
	for i, a := range args {
		v := a.val
		switch {
		case v == "--force":
			force++
		case v == "-n" || v == "--dry-run":
			return
		case v == "-e" || v == "--exclude":
		case strings.HasPrefix(v, "--"):
		case strings.HasPrefix(v, "-"):
			if strings.Contains(v, "n") {
				return
			}
			force += strings.Count(v, "f")
		case i > 0 && (args[i-1].val == "-e" || args[i-1].val == "--exclude"):
		default:
			specs = append(specs, a)
		}
	}
	if force < 2 {
		return
	}
	if len(specs) == 0 {
		specs = []field{lit(".")}
	}
	for _, f := range specs {
		w := f.val
		if f.dynamic() || strings.ContainsAny(w, "*?[") || w == ":/" || strings.HasPrefix(w, ":") {
			w = "." // a pattern or a magic pathspec: the whole directory
			if here, ok := j.diskPath(sc, "."); ok && strings.HasPrefix(f.val, ":/") {
				if phys, err := filepath.EvalSymlinks(here); err == nil {
					here = phys
				}
				if repo, found, err := gitdisc.Find(here); err == nil && found {
					w = repo.WorkTree // :/ is the work tree's top
				}
			}
		}
		full, ok := j.diskPath(sc, w)
		if !ok {
			continue
		}
		if phys, err := filepath.EvalSymlinks(full); err == nil {
			full = phys
		}
		if fi, err := os.Stat(full); err != nil || !fi.IsDir() {
			continue
		}
		switch roots, h := j.governedEntries(filepath.Clean(full)); {
		case len(roots) > 0:
			j.hits.add(RuleSelfProtect)
		case h == holdsUnknown:
			j.hits.add(RuleScanBoundSteps)
		}
	}
}

// gitIndexWrite judges git update-index --cacheinfo <mode>,<object>,<path>
// (or the three words), which stages any blob as a guard file without
// touching it (a later git checkout -- . writes it out), and git read-tree
// -u, which writes another tree into the working tree, removing the guard's
// files where that tree lacks them.
func (j *judge) gitIndexWrite(sub string, args []field, sc *scope) {
	if sub == "read-tree" {
		if optionIn(args, "-u", "u") {
			j.hits.add(RuleSelfProtect)
			j.hits.add(RuleSelfProtectClientHooks)
		}
		return
	}
	for _, a := range args {
		v := a.val
		if strings.HasPrefix(v, "-") {
			continue
		}
		if i := strings.LastIndexByte(v, ','); i >= 0 {
			v = v[i+1:]
		}
		j.guardHit(sc.classify(lit(v)), true)
	}
}

// gitCheckout judges git checkout [<tree-ish>] -- <paths>, git restore
// <paths> and git stash push -- <paths>, which overwrite the working-tree
// copies of the paths they name; git restore --staged alone touches the
// index only (git-restore(1)). A source other than the index (git checkout
// <tree-ish> -- ., git restore --source=<tree-ish> .) over the whole tree
// writes that revision's copies of the guard's files (restore also removes
// those it lacks); from the index (git checkout -- ., git restore .) the
// committed copies come back, which stays allowed here (governance.go
// refuses it while a guard file has uncommitted changes the paths cover).
func (j *judge) gitCheckout(sub string, args []field, sc *scope) {
	if sub == "restore" && restoreStagedOnly(args) {
		return
	}
	fromRev := false
	var pos []field
	dashdash := -1
	for i, a := range args {
		switch {
		case a.val == "--":
			if dashdash < 0 {
				dashdash = len(pos)
			}
			continue
		case sub == "restore" && (a.val == "--source" || a.val == "-s") && i+1 < len(args):
			fromRev = true
		case sub == "restore" && (strings.HasPrefix(a.val, "--source=") || (strings.HasPrefix(a.val, "-s") && len(a.val) > 2)):
			fromRev = true
		}
		if !strings.HasPrefix(a.val, "-") || dashdash >= 0 {
			pos = append(pos, a)
		}
	}
	if sub == "checkout" && len(pos) >= 2 && (dashdash < 0 || dashdash >= 1) {
		fromRev = true // git checkout <tree-ish> [--] <pathspec>...
	}
	for _, a := range pos {
		j.guardHit(sc.classify(a), true)
		if fromRev && wholeTreeSpec(a.val) {
			j.hits.add(RuleSelfProtect)
			j.hits.add(RuleSelfProtectClientHooks)
		}
	}
}

// restoreStagedOnly reports whether git restore's options name the index
// (--staged, -S) and not the working tree (--worktree, -W).
func restoreStagedOnly(args []field) bool {
	staged, worktree := false, false
	for _, a := range args {
		switch a.val {
		case "--staged", "-S":
			staged = true
		case "--worktree", "-W":
			worktree = true
		}
		if strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "--") {
			staged = staged || strings.Contains(a.val, "S")
			worktree = worktree || strings.Contains(a.val, "W")
		}
	}
	return staged && !worktree
}

func (j *judge) gitHookOpts(sub string, spec gitSpec, args []field, env []envVar, depth int) {
	if hookRunningGitSub(sub) {
		j.gitDynamicOptions(spec, args)
	}
	for k := 0; k < len(args); k++ {
		v := args[k].val
		if v == "--" {
			return
		}
		switch {
		case strings.HasPrefix(v, "--"):
			name, val, hasEq := strings.Cut(v[2:], "=")
			opt, takes, ok := resolveLong(spec.longs, name)
			if !ok {
				continue
			}
			if opt == "no-verify" {
				j.hits.add(RuleGitNoVerify)
			}
			if takes && !hasEq {
				k++
				if k < len(args) {
					val = args[k].val
				}
			}
			if sub == "rebase" && opt == "exec" {
				j.script(val, depth+1, env)
			}
		case strings.HasPrefix(v, "-") && len(v) > 1:
			for c := 1; c < len(v); c++ {
				ch := v[c]
				if ch == dyn[0] {
					break // the rest of the cluster is known only at run time
				}
				if ch == 'n' && spec.shortN {
					j.hits.add(RuleGitNoVerifyShort)
					break
				}
				if strings.IndexByte(spec.shortVal, ch) >= 0 {
					val := v[c+1:]
					if val == "" && k+1 < len(args) {
						k++
						val = args[k].val
					}
					if sub == "rebase" && ch == 'x' {
						j.script(val, depth+1, env)
					}
					break
				}
				if strings.IndexByte(spec.shortOpt, ch) >= 0 {
					break
				}
			}
		}
	}
}

// unknownGitSub judges the arguments of a git alias or an unknown or run-time
// subcommand: any unambiguous spelling of --no-verify (--no-veri and longer)
// denies, since the alias may well be commit.
func (j *judge) unknownGitSub(args []field) {
	for _, a := range args {
		v := a.val
		if v == "--" {
			return
		}
		name, _, _ := strings.Cut(v, "=")
		if strings.HasPrefix(name, "--no-veri") && strings.HasPrefix("--no-verify", name) {
			j.hits.add(RuleGitNoVerify)
		}
	}
}

// gitConfigParam judges one -c <name>[=<value>]: a hooks key denies, a key
// git runs as a command is judged as that command (configCommand), and an
// alias is added to aliases (owned by the caller, changed in place).
func (j *judge) gitConfigParam(f field, aliases map[string]string, depth int, env []envVar) {
	key, val, _ := strings.Cut(f.val, "=")
	lk := strings.ToLower(key)
	if hooksKey(lk) {
		j.hits.add(RuleHooksPathConfig)
	}
	if strings.Contains(lk, dyn) {
		j.hits.add(RuleGitConfigRedirect)
	}
	j.configCommand(lk, lit(val), depth, env)
	if name, ok := strings.CutPrefix(lk, "alias."); ok {
		if strings.Contains(val, dyn) {
			val = dyn
		}
		aliases[name] = val
	}
}

// gitConfigEnv judges --config-env=<name>=<envvar>: the value comes from the
// environment, so a hooks key denies, a key git runs as a command is
// refused (its command is unknown), and an alias is unjudgeable when used.
func (j *judge) gitConfigEnv(spec string, aliases map[string]string) {
	key, _, _ := strings.Cut(spec, "=")
	lk := strings.ToLower(key)
	if hooksKey(lk) {
		j.hits.add(RuleHooksPathConfig)
	}
	if cmd, _ := configCommandKey(lk); cmd || strings.Contains(lk, dyn) {
		j.hits.add(RuleGitConfigRedirect)
	}
	if name, ok := strings.CutPrefix(lk, "alias."); ok {
		aliases[name] = dyn
	}
}

// gitConfig judges `git config`: setting, unsetting or renaming away
// core.hooksPath or includes denies, so does --edit; reading is allowed.
// Both the git 2.39 syntax and the git 2.46+ subcommands (set, unset, get,
// list, edit, rename-section, remove-section) are understood.
func (j *judge) gitConfig(args []field, env []envVar, depth int, sc *scope) {
	action, pos := gitConfigAction(args)
	switch action {
	case "edit":
		j.hits.add(RuleGitConfigFileWrite)
	case "unset":
		if len(pos) > 0 && hooksKey(strings.ToLower(pos[0].val)) {
			j.hits.add(RuleHooksPathConfig)
		}
	case "section":
		if len(pos) > 0 {
			s := strings.ToLower(pos[0].val)
			if s == "core" || s == "include" || strings.HasPrefix(s, "includeif") {
				j.hits.add(RuleHooksPathConfig)
			}
		}
	case "set":
		if len(pos) == 0 {
			return
		}
		lk := strings.ToLower(pos[0].val)
		if hooksKey(lk) {
			j.hits.add(RuleHooksPathConfig)
		}
		if len(pos) > 1 {
			j.configCommand(lk, pos[1], depth, env)
		}
		if strings.HasPrefix(lk, "alias.") && len(pos) > 1 {
			j.aliasSet(strings.TrimPrefix(lk, "alias."), pos[1], env, depth, sc)
		}
	}
}

// gitConfigAction reads git config's arguments: what it does (get, set,
// unset, edit or section, from its options or its git 2.46+ subcommand;
// with neither, set for a key and a value, else get) and its operands after
// the subcommand.
func gitConfigAction(args []field) (action string, pos []field) {
	for k := 0; k < len(args); k++ {
		v := args[k].val
		if v == "--" {
			pos = append(pos, args[k+1:]...)
			break
		}
		switch {
		case strings.HasPrefix(v, "--"):
			name, _, hasEq := strings.Cut(v[2:], "=")
			opt, takes, ok := resolveLong(gitConfigLongs, name)
			if !ok {
				continue
			}
			if a := gitConfigLongActions(opt); a != "" {
				action = a
			}
			if takes && !hasEq {
				k++
			}
		case v == "-f":
			k++
		case v == "-e":
			action = "edit"
		case v == "-l":
			action = "get"
		case strings.HasPrefix(v, "-") && len(v) > 1:
		default:
			pos = append(pos, args[k])
		}
	}
	if action == "" && len(pos) > 0 {
		if a := gitConfigSubcommands(pos[0].val); a != "" {
			action, pos = a, pos[1:]
		}
	}
	if action == "" {
		action = "get"
		if len(pos) >= 2 {
			action = "set"
		}
	}
	return action, pos
}

// gitConfigLongActions maps git config's long options to what they do.
func gitConfigLongActions(opt string) string {
	switch opt {
	case "get", "get-all", "get-regexp", "get-urlmatch", "get-color", "get-colorbool", "list":
		return "get"
	case "edit":
		return "edit"
	case "add", "replace-all":
		return "set"
	case "unset", "unset-all":
		return "unset"
	case "rename-section", "remove-section":
		return "section"
	}
	return ""
}

// gitConfigSubcommands maps git 2.46+'s config subcommands to what they do.
func gitConfigSubcommands(sub string) string {
	switch sub {
	case "set":
		return "set"
	case "unset":
		return "unset"
	case "get", "list":
		return "get"
	case "edit":
		return "edit"
	case "rename-section", "remove-section":
		return "section"
	}
	return ""
}

// aliasSet judges git config alias.NAME VALUE as the command the alias
// would run (a "!" alias as shell code, any other as git arguments) and
// records it in sc for the git commands after it.
func (j *judge) aliasSet(name string, v field, env []envVar, depth int, sc *scope) {
	sc.setAlias(name, v)
	if v.dynamic() {
		return
	}
	if strings.HasPrefix(v.val, "!") {
		j.script(v.val[1:], depth+1, env)
		return
	}
	var words []field
	for _, w := range splitAlias(v.val) {
		words = append(words, lit(w))
	}
	j.git(words, env, depth+1, nil, &scope{vars: map[string]string{}}, nil)
}

// splitAlias splits an alias value as git's split_cmdline does: blanks
// separate words, single and double quotes group, backslash escapes.
func splitAlias(s string) []string {
	var out []string
	var cur strings.Builder
	have := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && quote != '\'':
			i++
			cur.WriteByte(s[i])
			have = true
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '"' || c == '\'':
			quote = c
			have = true
		case c == ' ' || c == '\t' || c == '\n':
			if have {
				out = append(out, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteByte(c)
			have = true
		}
	}
	if have {
		out = append(out, cur.String())
	}
	return out
}

// forgeMergeArg reports an argument naming the pull-request merge REST
// endpoint (GitHub REST "Merge a pull request": PUT
// /repos/{owner}/{repo}/pulls/{pull_number}/merge) or the GraphQL
// mergePullRequest mutation.
func forgeMergeArg(v string) bool {
	l := strings.ToLower(v)
	if strings.Contains(l, "mergepullrequest") {
		return true
	}
	// .../pulls/<segment>/merge, the segment non-empty and "merge" not
	// continued by a name character.
	for rest := l; ; {
		i := strings.Index(rest, "pulls/")
		if i < 0 {
			return false
		}
		rest = rest[i+len("pulls/"):]
		seg := strings.IndexAny(rest, "/ \t\n")
		if seg > 0 && rest[seg] == '/' && strings.HasPrefix(rest[seg+1:], "merge") {
			after := rest[seg+1+len("merge"):]
			if after == "" || !isNameByte(after[0]) {
				return true
			}
		}
	}
}

func isNameByte(c byte) bool {
	return c == '_' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// gh judges the GitHub CLI: `gh pr merge --admin` (gh manual, gh pr merge:
// "--admin: Use administrator privileges to merge a pull request that does
// not meet requirements") and `gh api` calls to the merge endpoints.
//
// Options that take a separate value (gh's -R/--repo, inherited by every
// repository command and accepted before the subcommand, and gh pr merge's
// own valued flags) have their value skipped, so `gh --repo o/r pr merge 1
// --admin` is judged as the merge it is. Any positional "merge" after "pr"
// counts, so an unknown valued flag cannot hide the subcommand (fail closed).
func (j *judge) gh(args []field) {
	var pos []string
	admin := false
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if v == "--admin" || (strings.HasPrefix(v, "--admin=") && !strings.EqualFold(strings.TrimPrefix(v, "--admin="), "false")) {
			admin = true
		}
		if ghValued(v) {
			i++ // the option's value is not a positional word
			continue
		}
		if !strings.HasPrefix(v, "-") {
			pos = append(pos, v)
		}
	}
	if admin && len(pos) >= 2 && pos[0] == "pr" && slices.Contains(pos[1:], "merge") {
		j.hits.add(RuleForgeAdminMerge)
	}
	if len(pos) >= 1 && pos[0] == "api" {
		for _, a := range args {
			if forgeMergeArg(a.val) {
				j.hits.add(RuleForgeAdminMerge)
			}
		}
	}
}

// ghValued lists gh options that take their value as the next word (gh
// manual: -R/--repo on repository commands; gh pr merge's -b/--body,
// -F/--body-file, -t/--subject, -A/--author-email, --match-head-commit;
// --hostname on gh api and auth).
func ghValued(opt string) bool {
	switch opt {
	case "-R", "--repo", "-b", "--body", "-F", "--body-file",
		"-t", "--subject", "-A", "--author-email", "--match-head-commit",
		"--hostname":
		return true
	}
	return false
}

// wholeTreeSpec reports a git pathspec that covers the whole working tree
// from the repository root or the current directory: dots only (".",
// "./", ".."), ":/" and ":(top)" (gitglossary(7), "pathspec"), or "*".
func wholeTreeSpec(v string) bool {
	switch v {
	case ":/", ":(top)", ":/*", "*", ":(top)*":
		return true
	}
	return dotsOnly(v)
}

// otherIndex judges a commit made from an index other than the
// repository's (GIT_INDEX_FILE, git(1)): a file that is missing or empty
// is an empty index, so `GIT_INDEX_FILE=/tmp/x git commit` records the
// removal of every file, the guard's and the client hook files among them,
// as git rm -r --cached . && git commit does (indexDrop); the hooks run,
// but on an empty change set. A value naming the repository's own index
// (.git/index) is allowed.
func (j *judge) otherIndex(env []envVar) {
	for _, e := range env {
		if e.name != "GIT_INDEX_FILE" {
			continue
		}
		if !e.val.dynamic() && strings.HasSuffix(path.Clean(strings.ReplaceAll(e.val.val, `\`, "/")), ".git/index") {
			continue
		}
		j.hits.add(RuleSelfProtect)
		j.hits.add(RuleSelfProtectClientHooks)
	}
}
