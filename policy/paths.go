package policy

import "strings"

// HooksPathKind reports how the hooks-dir rule (RuleHooksDirTamper,
// RuleGitConfigFileWrite) reads one path: p is a path as a tool or command
// names it, absolute or relative, with either separator. hooksDir is true
// when p is a git hooks directory or inside one (`.git/hooks`, a `$GIT_DIR`
// spelling followed by `hooks`, and the directories hook managers keep hooks
// in and core.hooksPath setups use: `.husky`, `.lefthook`, `.lefthook-local`,
// `.githooks`, and hookwarden's store directory `.git/hookwarden`,
// StoreDirName); gitConfig is true when p is a git config file (`.git/config`,
// `config.worktree`, `~/.gitconfig`, `~/.config/git/config`,
// `/etc/gitconfig`). Components compare case-insensitively and `..` is
// folded lexically. The edit guard (engine/editguard) uses it for the paths
// an edit tool names, so a file edit and a shell command meet one rule.
func HooksPathKind(p string) (hooksDir, gitConfig bool) {
	k := classifyPath(p)
	return k.hooks, k.gitConf
}

// StartupOrManagerPath reports whether p (spelled as for HooksPathKind)
// names a file that runs or steers hooks outside any judged command, which
// the command policy refuses to write: a hook manager's configuration or
// start-up file (hookManager: .pre-commit-config.yaml, husky's init.sh,
// .huskyrc, simple-git-hooks and overcommit configs; rule
// hook-manager-config) or a shell start-up file (startup: ~/.bashrc,
// ~/.profile, /etc/profile.d/…; rule shell-startup-write). The pre-edit
// judge refuses an edit of a start-up file, and of a hook manager's file
// outside the repository (inside it, what the edit does to the hooks
// decides).
func StartupOrManagerPath(p string) (hookManager, startup bool) {
	k := classifyPath(p)
	return k.mgr, k.startup
}

// StorePath reports whether p (spelled as for HooksPathKind) is hookwarden's
// store directory below a git directory (`.git/hookwarden`, StoreDirName) or
// inside it; HooksPathKind's hooksDir is true for these paths too, this
// tells them apart for the refusal's wording.
func StorePath(p string) bool {
	return classifyPath(p).store
}

// GuardedEnvName reports whether an environment variable named name
// changes what the guard sees or which hooks run, so that setting it
// through a file an agent can write (a client settings `env` block, a
// `.env` file a client loads) is refused (issue 29 item 2): hookwarden's own
// (`HOOKWARDEN_*`: the launcher's engine, settings files, record mode),
// `PATH` (which `hookwarden`, `git` and hook managers run), the hook
// managers' switches (`LEFTHOOK*`: lefthook 2.x `LEFTHOOK=0`,
// `LEFTHOOK_BIN`, `LEFTHOOK_EXCLUDE`; `HUSKY*`: husky 9 `HUSKY=0`;
// `PRE_COMMIT*`: pre-commit's `PRE_COMMIT_ALLOW_NO_CONFIG`, `PRE_COMMIT_HOME`)
// and git's (`GIT_CONFIG*`: `GIT_CONFIG_GLOBAL`, `GIT_CONFIG_SYSTEM`,
// `GIT_CONFIG_COUNT`/`_KEY_n`/`_VALUE_n`, `GIT_CONFIG_PARAMETERS`;
// `GIT_DIR`, `GIT_WORK_TREE`, `GIT_INDEX_FILE`, `GIT_COMMON_DIR`). Names
// compare case-sensitively on the POSIX spelling and, since Windows folds
// environment names, also upper-cased.
func GuardedEnvName(name string) bool {
	n := strings.ToUpper(strings.TrimSpace(name))
	for _, p := range guardedEnvPrefixes {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	switch n {
	case "PATH", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR":
		return true
	}
	return false
}

// guardedEnvPrefixes are the name prefixes GuardedEnvName refuses.
var guardedEnvPrefixes = [...]string{"HOOKWARDEN_", "LEFTHOOK", "HUSKY", "PRE_COMMIT", "GIT_CONFIG"}

// Win32Name returns a path component as Win32 opens it: a "::$DATA" suffix
// (any case) names the file's main stream, that is the file itself (NTFS
// "File Streams"), and a name's trailing dots and spaces are dropped
// ("Naming Files, Paths, and Namespaces": ".hookwarden.yaml." and
// ".hookwarden.yaml " open .hookwarden.yaml), except in a name made only of
// dots. The command policy reads every component this way on every system
// (classifyPathGlob); the edit guard on Windows (editguard).
func Win32Name(c string) string {
	if n := len(c) - len("::$DATA"); n >= 0 && strings.EqualFold(c[n:], "::$DATA") {
		c = c[:n]
	}
	return trimWin32Trailing(c)
}

// trimWin32Trailing returns c without its trailing dots and spaces, or c
// itself when nothing else is left (".", "..").
func trimWin32Trailing(c string) string {
	if t := strings.TrimRight(c, ". "); t != "" {
		return t
	}
	return c
}
