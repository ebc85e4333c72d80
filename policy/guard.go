package policy

import (
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/hookwarden/hookwarden/internal/clientfiles"
	"github.com/hookwarden/hookwarden/lefthookcfg"
)

// GuardPath is one entry of the guard's own files in a governed repository
// (DESIGN.md, "Files in a governed repository", "Self-protected files";
// issue 14 item 2): what adopt and conform write and the engine needs to stay
// in force. Path is slash-separated and relative to the repository root. Dir
// is true when the entry covers the directory Path and everything under it.
// ClientHooks is true for a client's hook settings file, into which adopt
// merges its rows beside the operator's own bytes (the one kind of guard file
// an agent may still edit, as long as our rows stay; issue 14 item 3);
// Client names that client ("claude", "codex", "gemini", "cursor",
// "windsurf", "qwen", "droid", "devin"), ""
// otherwise.
type GuardPath struct {
	Path        string
	Dir         bool
	ClientHooks bool
	Client      string
}

// buildGuardPaths returns guardPaths, the one list of the guard's own files: the manifest, the
// .hookwarden folder, the files adopt renders whole for the clients and
// each client's settings file adopt merges its rows into, both from
// internal/clientfiles (the client facts and their sources are there).
// adopt's TestAdoptWritesOnlyGuardPaths fails when adopt writes a file
// outside it (other than the .gitignore block and the context files, which
// are not the guard's).
func buildGuardPaths() []GuardPath {
	out := []GuardPath{{Path: ".hookwarden.yaml"}, {Path: ".hookwarden", Dir: true}}
	for _, r := range clientfiles.Rendered() {
		out = append(out, GuardPath{Path: r.Path, Dir: r.Dir})
	}
	for _, f := range clientfiles.HookFiles() {
		if f.Written {
			out = append(out, GuardPath{Path: f.Path, ClientHooks: true, Client: f.Client})
		}
	}
	return out
}

// GuardPaths returns the guard's own files of a governed repository, in a
// fixed order (a new slice each call; callers may keep or change it).
func GuardPaths() []GuardPath {
	return append([]GuardPath(nil), guardTables().paths...)
}

// foldGuardPaths returns foldedGuardPaths: guardPaths' paths in ASCII lower
// case, by index, for LookupGuardPath's fold (Cline's PreToolUse is the one
// guard path with capitals); computed once rather than on every lookup.
func foldGuardPaths(guardPaths []GuardPath) []string {
	out := make([]string, len(guardPaths))
	for i, g := range guardPaths {
		out[i] = asciiLower(g.Path)
	}
	return out
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
	t := guardTables()
	for i, g := range t.paths {
		p := g.Path
		if fold {
			p = t.folded[i]
		}
		if rel == p || (g.Dir && strings.HasPrefix(rel, p+"/")) {
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

// guardKind is what a path argument of a shell command is to the guard's own
// files: one of them (own for the guard's files, client for a client hook
// file), or a directory holding one (ownParent, clientParent: removing or
// moving it removes the guard file).
type guardKind struct {
	own, client             bool
	ownParent, clientParent bool
}

// buildShellGuardPaths returns shellGuardPaths, the guard paths the command
// rules protect: GuardPaths
// plus the other repository files a client reads hooks or a switch of its
// hooks from (internal/clientfiles: Claude Code's per-checkout
// .claude/settings.local.json, whose "disableAllHooks": true switches our
// rows off; Copilot CLI's settings; Droid's settings.local.json and
// hooks.json; Codex's .codex/config.toml), which adopt never writes. A
// command cannot show that what it writes keeps hooks on, so writing one
// from the shell is refused like the client hook files; the pre-edit judge
// lets the client's edit tools change Claude's local settings when the
// result keeps hooks on.
func buildShellGuardPaths(guardPaths []GuardPath) []GuardPath {
	out := slices.Clip(guardPaths)
	for _, f := range clientfiles.HookFiles() {
		if f.Written {
			continue
		}
		g := GuardPath{Path: f.Path}
		if f.Hooks {
			g.ClientHooks, g.Client = true, f.Client
		}
		out = append(out, g)
	}
	return out
}

// buildShellGuardList returns shellGuardList: shellGuardPaths plus the lefthook configs lefthook
// 2.x reads (lefthookcfg.BaseNames: lefthook.yml, .lefthook-local.toml,
// ...; a bare name matches at any depth, .config/ included; the .config/
// spellings are listed too, so that removing .config counts). adopt writes
// its extends: block into the main one; in either, a job named like ours
// or a hook-level skip/only/exclude_tags switches our jobs off
// (lefthookcfg.Overrides, observed on lefthook 2.2.1).
func buildShellGuardList(shellGuardPaths []GuardPath) []GuardPath {
	out := append([]GuardPath(nil), shellGuardPaths...)
	for _, n := range lefthookcfg.BaseNames() {
		out = append(out, GuardPath{Path: n, ClientHooks: true, Client: "lefthook"})
	}
	// The .config/ spellings again, so that removing or moving .config
	// (a directory holding one) counts.
	for _, n := range append(lefthookcfg.Candidates(false), lefthookcfg.Candidates(true)...) {
		if strings.HasPrefix(n, ".config/") {
			out = append(out, GuardPath{Path: n, ClientHooks: true, Client: "lefthook"})
		}
	}
	return out
}

// splitGuardComps returns guardComps: shellGuardList split into lower-case
// components.
func splitGuardComps(shellGuardList []GuardPath) [][]string {
	out := make([][]string, len(shellGuardList))
	for i, g := range shellGuardList {
		out[i] = strings.Split(asciiLower(g.Path), "/")
	}
	return out
}

// guardTable holds the guard's path tables, each as its doc above says:
// paths (guardPaths), folded (foldedGuardPaths), shellList (shellGuardList)
// and comps (guardComps, by index of shellList). Never changed once built.
type guardTable struct {
	paths     []GuardPath
	folded    []string
	shellList []GuardPath
	comps     [][]string
}

// guardTables builds the guard's path tables once, on first use rather than
// at start-up: a hook call whose command names no path never needs them.
var guardTables = sync.OnceValue(func() *guardTable {
	t := &guardTable{paths: buildGuardPaths()}
	t.folded = foldGuardPaths(t.paths)
	t.shellList = buildShellGuardList(buildShellGuardPaths(t.paths))
	t.comps = splitGuardComps(t.shellList)
	return t
})

// classifyGuard classifies lower-case, cleaned path components (classifyPath's
// comps) against the guard paths. The repository root is not known to the
// policy, so a guard path counts wherever its components appear in the path
// (an absolute /work/repo/.hookwarden.yaml as much as a relative one; a
// user-level ~/.claude/settings.json too, which holds hook settings as
// well). A glob component matches as the shell would expand it.
//
// With noBareGlob (the directory a glob names was read, and what it matched
// classified apart) a glob component below another directory (build/*.json)
// does not count as a lefthook config's name.
func classifyGuard(comps []string, noBareGlob bool) guardKind {
	var k guardKind
	t := guardTables()
	for gi, gc := range t.comps {
		client := t.shellList[gi].ClientHooks
		bare := len(gc) == 1 && t.shellList[gi].Client == "lefthook"
		for i := range comps {
			if bare && (bareGlob(comps[i]) || noBareGlob && i > 0 && strings.ContainsAny(comps[i], "*?[")) {
				// A lefthook config is named by one component at any
				// depth; a glob of wildcards only (rm -rf build/*) is not
				// taken to name it, or every such removal would be refused.
				continue
			}
			n := 0
			for n < len(gc) && i+n < len(comps) && compMatch(comps[i+n], gc[n]) {
				n++
			}
			switch {
			case n == len(gc):
				if client {
					k.client = true
				} else {
					k.own = true
				}
			case n > 0 && i+n == len(comps):
				// The path ends inside the guard path: a directory holding it.
				if client {
					k.clientParent = true
				} else {
					k.ownParent = true
				}
			}
		}
	}
	if engineBinary(comps) {
		k.own = true
	}
	return k
}

// engineBinary reports whether comps (classifyPath's) name an executable
// called hookwarden in a directory named bin: where an operator installs
// the engine (`~/.local/bin`, `/usr/local/bin`, `~/go/bin`, `/opt/homebrew/bin`)
// and where the launcher finds it on PATH. Writing, replacing, removing,
// re-permissioning or linking over one is refused like the guard's own
// files (issue 29 item 3): a `hookwarden` earlier on PATH, or a replaced one,
// would answer every hook call instead of the engine. The policy does not
// know the hook's PATH, so every such directory counts; the pre-edit judge
// (engine/editguard) checks the PATH directories themselves.
func engineBinary(comps []string) bool {
	n := len(comps)
	if n < 2 || comps[n-2] != "bin" {
		return false
	}
	last := comps[n-1]
	// A glob is not taken to name it (rm -rf bin/* is ordinary cleaning).
	return last == "hookwarden" || last == "hookwarden.exe"
}

// guardKeys are lower-case words at least one of which every guard path
// holds; a path holding none (and no glob) names no guard file or directory.
var guardKeys = [...]string{"hookwarden", ".agents", ".opencode", ".claude", ".codex", ".gemini", ".github", ".cursor", ".windsurf", ".qwen", ".factory", ".devin", ".kiro", ".clinerules", "lefthook", ".config"}

func containsGuardKey(lower string) bool {
	for _, k := range guardKeys {
		if strings.Contains(lower, k) {
			return true
		}
	}
	return false
}

// bareGlob reports a path component made of glob wildcards only ("*",
// "?*", "**").
func bareGlob(c string) bool {
	return c != "" && strings.Trim(c, "*?") == ""
}

func compMatch(c, name string) bool {
	if c == name {
		return true
	}
	return strings.ContainsAny(c, "*?[") && matchGlob(c, name)
}

// guardFileName classifies a relative path whose first component is the base
// name of a guard file or directory: after a cd to a directory known only at
// run time, such a name may be the guard's.
//
// A relative path of two or more components that is the whole tail of a
// guard path (hooks/PreToolUse after a cd into .clinerules, hooks/
// hookwarden.json into .kiro or .github) counts as that guard file too.
func guardFileName(s string) guardKind {
	first := firstComponent(s)
	switch first {
	case "settings.json", "hooks.json", "config.toml":
		return guardKind{client: true}
	case "hookwarden.js", "hookwarden", "hook.py", "hook.sh", "interceptor.py", "plugin.json", "pretooluse":
		return guardKind{own: true}
	}
	if comps := strings.Split(strings.TrimPrefix(asciiLower(strings.ReplaceAll(s, `\`, "/")), "./"), "/"); len(comps) >= 2 {
		t := guardTables()
		for gi, gc := range t.comps {
			if len(gc) > len(comps) && slices.Equal(gc[len(gc)-len(comps):], comps) {
				if t.shellList[gi].ClientHooks {
					return guardKind{client: true}
				}
				return guardKind{own: true}
			}
		}
	}
	if slices.Contains(lefthookcfg.BaseNames(), first) {
		return guardKind{client: true}
	}
	return guardKind{}
}

// GuardFileWords returns the words that every path naming one of the
// guard's files (shellGuardList: GuardPaths, the other client settings files
// the command rules protect, and the lefthook configs) contains, in ASCII
// lower case, sorted: the last component of each guard path (with its parent
// folder, "hooks/pretooluse", when it holds no "."), less any that contains
// another. Words are slash-separated. A payload in which none of them appears (compared ASCII
// case-insensitively) names no guard file; one in which one appears may. The
// rendered launcher uses them to refuse an edit that may touch a guard file
// while no engine is installed to judge it (skewguard hook.sh, hook.py).
func GuardFileWords() []string {
	var names []string
	for _, g := range guardTables().shellList {
		n := asciiLower(path.Base(g.Path))
		if !strings.Contains(n, ".") {
			// A bare name (Cline's PreToolUse, the plugin folder hookwarden)
			// is also a word of ordinary payloads (Claude's hook_event_name
			// "PreToolUse"): its parent folder is kept with it.
			n = asciiLower(path.Join(path.Base(path.Dir(g.Path)), path.Base(g.Path)))
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	var out []string
	for _, n := range names {
		covered := false
		for _, m := range names {
			if m != n && strings.Contains(n, m) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}
