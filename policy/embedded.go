package policy

import "strings"

// Commands held in the arguments of a program no judge of this package
// reads.
//
// The launchers this package knows (sudo, env, nohup, timeout, xargs, the
// package and task runners, docker run, ssh, …) are followed by their own
// tables. Programs that run a command are many more: gosu USER CMD,
// chroot DIR CMD, strace -f CMD, nix-shell --run 'CMD', nodemon --exec
// 'CMD', aws-vault exec PROFILE -- CMD, and each new tool adds its own
// options. A program judged by no other rule is therefore read for a
// command it may run: from a word that names git (the words after it are
// judged as that git call), and from one word that holds a shell command
// line naming git (it is judged as a script; in it, a program's words are
// read for git once more: sqlite3 DB '.shell git commit -n'). Only what
// would make that
// call skip or switch off the hooks counts (embeddedRule): the program
// may run the words or only print them, and a hook-skipping git call has
// no other use in a program's arguments. Programs that only print, search
// or store their arguments (echo, grep, man, jq, …) are left out
// (argsAreData), so that searching for a skip flag stays allowed.

// hookRules are the rules about the hooks themselves: the skips (a commit
// tool's too), hook, git config and shell start-up tampering, a hook
// manager switched off or uninstalled, self-protection and git plumbing.
// Only these count for a command found in another program's words (with
// the scan bounds: a call the judge could not finish is refused) and for
// code written to a file (writtencode.go). An option known only at run
// time (git-dynamic-option) is not one: that the program runs the words at
// all is already a guess (maybe_run git push "${tags[@]}" in etcd's
// scripts/release_mod.sh).
func hookRules(id string) bool {
	switch id {
	case RuleGitNoVerify, RuleGitNoVerifyShort, RuleCommitToolSkip, RuleHookManagerEnv,
		RuleHookManagerConfig, RuleHooksPathConfig, RuleGitConfigFileWrite, RuleGitConfigRedirect,
		RuleHooksDirTamper, RuleSelfProtect, RuleSelfProtectClientHooks, RuleUnknownContentsOverGuard, RuleUnknownOperands, RuleNestedClientHooks,
		RuleShellStartupWrite, RuleGitPlumbing, RulePatchUnreadable, RuleHookManagerUninstall:
		return true
	}
	return false
}

// embeddedRule reports the rules a command found in another program's
// words can add: hookRules and the scan bounds.
func embeddedRule(id string) bool {
	return hookRules(id) || strings.HasPrefix(id, "scan-bound-")
}

// argsAreData lists programs whose arguments are text they print, search
// for, compare or store, or the names of packages they install, never a
// command they run.
func argsAreData(name string) bool {
	switch name {
	case "echo", "printf", "print", "grep", "egrep", "fgrep", "zgrep",
		"rg", "ag", "ack", "ugrep", "man", "info", "tldr", "help",
		"which", "whereis", "type", "whatis", "apropos", "logger",
		"cowsay", "figlet", "banner", "notify-send", "wall", "test", "[",
		"expr", "yes", "true", "false", ":", "jq", "yq", "gojq",
		"sed", "tr", "column", "cat", "head", "tail", "wc", "sort",
		"uniq", "cut", "diff", "cmp", "read", "local", "declare",
		"typeset", "readonly", "export", "set", "unset", "gettext",
		"hookwarden", // hookwarden check 'CMD' judges CMD; admit's command is judged by the launcher
		// text written to a file (its path is judged by the write rules)
		"tee", "add-content", "set-content", "out-file", "write-output",
		"write-host", "select-string", "ac", "sc",
		// package managers: their words are package names (dnf -y install curl git iptables)
		"apt", "apt-get", "aptitude", "dnf", "yum", "microdnf", "zypper",
		"apk", "pacman", "yay", "brew", "port", "snap", "flatpak",
		"choco", "scoop", "winget", "pip", "pip3", "gem", "nix-env",
		"pkg", "emerge", "xbps-install", "opkg":
		return true
	}
	return false
}

// embeddedCommand judges the git call a program's arguments may hold (see
// above): name is the program's base name, args its arguments; its
// embeddedRule hits are added to j's.
func (j *judge) embeddedCommand(name string, args []field, env []envVar, depth int, sc *scope) {
	if argsAreData(name) || depth >= maxDepth || j.guesses >= 2 {
		return
	}
	for i, a := range args {
		if n, ok := cmdName(a); ok && embeddedStart(n) {
			words := args[i:]
			j.embeddedHits(2, func() { j.command(words, env, depth+1, nil, sc) })
			break
		}
	}
	if j.guesses > 0 {
		return // one command line in a word, not a line in a line's word
	}
	for _, a := range args {
		if strings.ContainsAny(a.val, " \t\n") && mentionsHooks(a.val) {
			a := a
			j.embeddedHits(1, func() { j.scriptField(a, depth+1, env) })
		}
	}
}

// embeddedStart reports the program names a command found in another
// program's words is judged from: git and git-*, env and the shells (gosu
// U env LEFTHOOK=0 git commit, chroot / sh -c '…'), the hook managers and
// clients whose switches are rules of their own, and the file writers the
// guard's paths are judged for (gosu U rm .hookwarden.yaml).
func embeddedStart(name string) bool {
	switch name {
	case "env", "claude", "codex",
		"rm", "rmdir", "unlink", "shred", "truncate", "chmod", "chown", "chgrp", "chattr", "setfacl",
		"mv", "cp", "ln", "install", "rsync", "tee", "sed", "dd", "sponge", "patch", "touch":
		return true
	}
	return hookProgram(name) || shellNames(name)
}

// mentionsHooks reports whether a word holding a command line names
// something hookRules guard: git, hooks or a hook manager (LEFTHOOK,
// husky, pre-commit, hookwarden), or a client's settings folder.
func mentionsHooks(s string) bool {
	s = strings.ToLower(s)
	for _, w := range []string{"git", "hook", "husky", "pre-commit", ".claude", ".codex", ".gemini", ".cursor"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// embeddedHits runs judge with j.guesses at guesses (2 after a word
// naming git: no further search; 1 in a command line found in a word),
// keeping of its hits only the embeddedRule ones.
func (j *judge) embeddedHits(guesses int, judge func()) {
	prev := j.guesses
	j.guesses = guesses
	defer func() { j.guesses = prev }()
	j.keepHits(embeddedRule, judge)
}

// keepHits runs judge, which adds its hits to j.hits, collecting every
// rule id it adds, and adds to j's hits only those keep accepts.
func (j *judge) keepHits(keep func(string) bool, judge func()) {
	outer := j.hits
	sub := &hitSet{record: true}
	j.hits = sub
	defer func() { j.hits = outer }()
	judge()
	for _, id := range sub.seen {
		if keep(id) {
			outer.add(id)
		}
	}
}
