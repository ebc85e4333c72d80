package policy

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

// StorePath reports whether p (spelled as for HooksPathKind) is hookwarden's
// store directory below a git directory (`.git/hookwarden`, StoreDirName) or
// inside it; HooksPathKind's hooksDir is true for these paths too, this
// tells them apart for the refusal's wording.
func StorePath(p string) bool {
	return classifyPath(p).store
}
