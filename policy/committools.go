package policy

import (
	"strings"
)

// This file judges tools that run git commit or git push for you and take
// an option that makes them skip git's hooks (issue 28 item 6). Each tool's
// skip options were read in its published package (npm pack, 2026-12-04)
// or documentation, named per tool below.

// commitTool judges the command name with args and the environment env.
// It returns true when the command is fully judged here (the caller then
// stops), false when the launcher's own handling should go on (npm, yarn
// and pnpm, which also run scripts).
func (j *judge) commitTool(name string, args []field, env []envVar) bool {
	switch name {
	case "standard-version", "commit-and-tag-version":
		// standard-version 9.5.0 and commit-and-tag-version 12.7.3,
		// command.js: .option('no-verify', {alias: 'n', describe:
		// 'Bypass pre-commit or commit-msg git hooks during the commit
		// phase'}); lib/lifecycles/commit.js passes --no-verify to git
		// commit when args.verify === false or args.n (yargs also reads
		// --noVerify, --verify=false and --verify false).
		if yargsFalse(args, "verify") || yargsTrue(args, "no-verify", "noVerify") || shortFlag(args, 'n') {
			j.hits.add(RuleCommitToolSkip)
		}
		return true
	case "release-it":
		// release-it 20.2.1, lib/plugin/git/Git.js: commit() runs git
		// commit with options.commitArgs and push() git push with
		// options.pushArgs (schema/git.json), set on the command line as
		// --git.commitArgs and --git.pushArgs: their values are judged as
		// git commit's and git push's options.
		for i := range args {
			for _, opt := range []struct{ name, sub string }{{"--git.commitArgs", "commit"}, {"--git.pushArgs", "push"}} {
				val, ok := optValue(args, i, opt.name)
				if !ok {
					continue
				}
				if val.dynamic() {
					j.hits.add(RuleCommitToolSkip)
				}
				if j.toolGitSkips(opt.sub, j.splitString(val)) {
					j.hits.add(RuleCommitToolSkip)
				}
			}
		}
		return true
	case "lerna":
		j.lerna(args)
		return true
	case "cz", "git-cz":
		j.commitizen(args)
		return true
	case "npm", "yarn", "pnpm":
		j.npmCommitHooks(args, env)
	}
	return false
}

// lerna judges lerna 9.0.7 version and publish (dist/index.js): gitCommit
// adds --no-verify when commitHooks is false (--no-commit-hooks,
// --commit-hooks=false), and gitPush always runs git push --no-verify
// (libs/commands/version/src/lib/git-push.ts), so version or publish that
// pushes (no --no-push, no --no-git-tag-version; publish from-git and
// from-package publish existing tags and push nothing) skips pre-push.
func (j *judge) lerna(args []field) {
	rest := skipOpts(args, "", nil)
	if len(rest) == 0 {
		return
	}
	cmd := rest[0].val
	if cmd != "version" && cmd != "publish" {
		return
	}
	if yargsFalse(args, "commit-hooks") || yargsTrue(args, "no-commit-hooks") {
		j.hits.add(RuleCommitToolSkip)
	}
	if cmd == "publish" && len(rest) > 1 && (rest[1].val == "from-git" || rest[1].val == "from-package") {
		return
	}
	if !yargsFalse(args, "push") && !yargsTrue(args, "no-push") && !yargsFalse(args, "git-tag-version") && !yargsTrue(args, "no-git-tag-version") {
		j.hits.add(RuleCommitToolSkip)
	}
}

// commitizen judges both tools called cz: the npm commitizen 4.3.2
// (bin cz and git-cz; dist/cli/strategies/git-cz.js hands its arguments to
// git commit) and Python's commitizen (docs, "commit": "cz commit
// <commitizen-args> -- <git-cli-args>", e.g. "cz c -a -- -n"; cz bump
// --no-verify, commitizen commit cd5a926). Every word is judged as git
// commit's options, and so are the words after "--"; bump's --no-verify
// counts.
func (j *judge) commitizen(args []field) {
	skip := j.toolGitSkips("commit", args)
	for i, a := range args {
		if a.val == "--" {
			skip = j.toolGitSkips("commit", args[i+1:]) || skip
			break
		}
	}
	if skip || yargsTrue(args, "no-verify") {
		j.hits.add(RuleCommitToolSkip)
	}
}

// toolGitSkips judges words as the options of the git subcommand sub
// (commit or push) a tool runs for the agent: the git command is recorded
// in judge.lines as one that runs, so an operator pattern sees it
// (release-it --git.pushArgs=--force runs git push --force), and the
// words are judged in a judge of their own, which shares those lines (a
// rebase --exec script's commands reach the patterns too); it reports
// whether the words skip a hook.
func (j *judge) toolGitSkips(sub string, words []field) bool {
	j.ran(append([]field{lit("git"), lit(sub)}, words...))
	spec, _ := gitSpecFor(sub)
	s := &judge{p: j.p, hits: &hitSet{}, cmd: j.cmd, lines: j.lines}
	s.gitHookOpts(sub, spec, words, nil, maxDepth)
	j.lines = s.lines
	return s.hits.first() != ""
}

// npmCommitHooks judges npm's commit-hooks setting (npm 11.19.1, npm
// config ls -l: "commit-hooks = true"; npm docs, config "commit-hooks":
// "Run git commit hooks when using the npm version command"), which npm
// version, lerna and yarn 1 read: --no-commit-hooks, --commit-hooks=false,
// the npm_config_commit_hooks environment variable (npm reads npm_config_*
// case-insensitively), and npm config set / npm set commit-hooks false,
// which persists it for every later npm version (yarn's
// version-commit-hooks likewise).
func (j *judge) npmCommitHooks(args []field, env []envVar) {
	if yargsFalse(args, "commit-hooks") || yargsTrue(args, "no-commit-hooks") {
		j.hits.add(RuleCommitToolSkip)
	}
	for _, e := range env {
		if n := strings.ToLower(e.name); n == "npm_config_commit_hooks" || n == "yarn_version_commit_hooks" {
			if e.val.dynamic() || !truthy(e.val.val) {
				j.hits.add(RuleCommitToolSkip)
			}
		}
	}
	rest := skipOpts(args, "", nil)
	if len(rest) > 0 && rest[0].val == "config" {
		rest = rest[1:]
	}
	if len(rest) >= 2 && rest[0].val == "set" {
		key, val, hasEq := strings.Cut(rest[1].val, "=")
		if !hasEq && len(rest) > 2 {
			val = rest[2].val
		}
		if (key == "commit-hooks" || key == "version-commit-hooks") && (strings.Contains(val, dyn) || !truthy(val)) {
			j.hits.add(RuleCommitToolSkip)
		}
	}
}

// truthy reports a value npm and yargs read as true.
func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "1", "yes":
		return true
	}
	return false
}

// yargsTrue reports a boolean flag set on: --name, --name=true (any of
// names).
func yargsTrue(args []field, names ...string) bool {
	for _, a := range args {
		for _, n := range names {
			if a.val == "--"+n || (strings.HasPrefix(a.val, "--"+n+"=") && (truthy(a.val[len(n)+3:]) || strings.Contains(a.val, dyn))) {
				return true
			}
		}
	}
	return false
}

// yargsFalse reports a boolean option set off: --no-name, --name=false,
// --name false (yargs' boolean negation and value forms).
func yargsFalse(args []field, name string) bool {
	for i, a := range args {
		switch {
		case a.val == "--no-"+name:
			return true
		case strings.HasPrefix(a.val, "--"+name+"="):
			v := a.val[len(name)+3:]
			if strings.Contains(v, dyn) || !truthy(v) {
				return true
			}
		case a.val == "--"+name && i+1 < len(args) && (args[i+1].val == "false" || args[i+1].val == "0"):
			return true
		}
	}
	return false
}

// shortFlag reports a short option cluster holding c (-n, -sn).
func shortFlag(args []field, c byte) bool {
	for _, a := range args {
		if a.val == "--" {
			return false
		}
		if strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "--") && strings.IndexByte(a.val[1:], c) >= 0 {
			return true
		}
	}
	return false
}

// optValue returns the value of option name at args[i]: --name=V or
// --name V for a long option, -nV or -n V for a short one (a name with one
// dash).
func optValue(args []field, i int, name string) (field, bool) {
	v := args[i].val
	if v == name && i+1 < len(args) {
		return args[i+1], true
	}
	if !strings.HasPrefix(name, "--") {
		if after, ok := strings.CutPrefix(v, name); ok && after != "" && !strings.HasPrefix(v, "--") {
			return lit(after), true
		}
		return field{}, false
	}
	if after, ok := strings.CutPrefix(v, name+"="); ok {
		return lit(after), true
	}
	return field{}, false
}
