package policy

import (
	"path"
	"strings"
)

// GuardPath is one entry of the guard's own files in a governed repository
// (DESIGN.md, "Files in a governed repository", "Self-protected files";
// issue 14 item 2): what adopt and conform write and the engine needs to stay
// in force. Path is slash-separated and relative to the repository root. Dir
// is true when the entry covers the directory Path and everything under it.
// ClientHooks is true for a client's hook settings file, into which adopt
// merges its rows beside the operator's own bytes (the one kind of guard file
// an agent may still edit, as long as our rows stay; issue 14 item 3);
// Client names that client ("claude", "codex", "gemini"), "" otherwise.
type GuardPath struct {
	Path        string
	Dir         bool
	ClientHooks bool
	Client      string
}

// guardPaths is the one list of the guard's own files. adopt's
// TestAdoptWritesOnlyGuardPaths fails when adopt writes a file outside it
// (other than the .gitignore block and the context files, which are not the
// guard's). The client settings files are those of adopt.SettingsFile
// (Claude Code reads .claude/settings.json, Codex 0.169.0 .codex/hooks.json,
// Gemini CLI 0.61.0 .gemini/settings.json; ../shared/e2e/README.md sections
// 1-3).
var guardPaths = [...]GuardPath{
	{Path: ".hookwarden.yaml"},
	{Path: ".hookwarden", Dir: true},
	{Path: ".agents/plugins/hookwarden", Dir: true},
	{Path: ".opencode/plugins/hookwarden.js"},
	{Path: ".claude/settings.json", ClientHooks: true, Client: "claude"},
	{Path: ".codex/hooks.json", ClientHooks: true, Client: "codex"},
	{Path: ".gemini/settings.json", ClientHooks: true, Client: "gemini"},
}

// GuardPaths returns the guard's own files of a governed repository, in a
// fixed order (a new slice each call; callers may keep or change it).
func GuardPaths() []GuardPath {
	return append([]GuardPath(nil), guardPaths[:]...)
}

// LookupGuardPath reports whether rel, a path relative to the repository
// root, is one of the guard's own files or lies inside a guard directory, and
// returns the entry that covers it. rel may use "/" or "\" separators and
// "." or ".." components (it is cleaned first); an absolute path, a path that
// leaves the root, and the root itself are never guard paths. fold compares
// ASCII case-insensitively, for a case-insensitive file system (macOS and
// Windows defaults), where .HookWarden.yaml is the same file. The caller
// resolves symlinks before asking.
func LookupGuardPath(rel string, fold bool) (GuardPath, bool) {
	rel = strings.ReplaceAll(rel, `\`, "/")
	if strings.HasPrefix(rel, "/") || (len(rel) > 1 && rel[1] == ':') {
		return GuardPath{}, false
	}
	rel = path.Clean(rel)
	if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return GuardPath{}, false
	}
	if fold {
		rel = asciiLower(rel)
	}
	for _, g := range guardPaths {
		if rel == g.Path || (g.Dir && strings.HasPrefix(rel, g.Path+"/")) {
			return g, true
		}
	}
	return GuardPath{}, false
}

// IsGuardPath reports whether rel (as for LookupGuardPath) is one of the
// guard's own files, and whether it is a client hook settings file.
func IsGuardPath(rel string, fold bool) (guard, clientHooks bool) {
	g, ok := LookupGuardPath(rel, fold)
	return ok, ok && g.ClientHooks
}
