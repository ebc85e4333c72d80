// Package clientfiles is the one table of the files in a repository that
// the agent clients read hooks from, and of the files hookwarden renders
// whole for them. The guard (policy.GuardPaths and the shell's guard list),
// adopt (which client file takes our rows), the effective plan
// (adopt/hookplan) and the engine's cross-loading check read their paths
// from here; the files a client reads outside the repository (its home, the
// machine's system files) are the plan's alone and stay there.
//
// Each entry names its source. Adding a client that reads a repository file
// is one HookFile entry (and a Rendered one when adopt renders a file for
// it) plus its decoder and encoder.
package clientfiles

// Where a client finds a repository hook file (HookFile.Found).
const (
	// FoundRoot: at the repository root, whatever the session's start
	// directory.
	FoundRoot = "root"
	// FoundStart: in the session's start directory; the client does not
	// walk up to the root.
	FoundStart = "start"
)

// Scopes of a repository hook file (HookFile.Scope).
const (
	// ScopeProject: shared through git.
	ScopeProject = "project"
	// ScopeLocal: a per-checkout file, usually git-ignored.
	ScopeLocal = "local"
)

// The files adopt renders whole (Rendered), slash-separated and relative
// to the repository root.
const (
	// AgyPluginDir is the Antigravity plugin folder (plugin.json,
	// hooks.json, hook.sh; issue 4).
	AgyPluginDir = ".agents/plugins/hookwarden"
	// OpencodePlugin is the opencode plugin: opencode 1.18.33 loads every
	// .opencode/plugins/*.js of the project (../shared/e2e/README.md
	// section 4).
	OpencodePlugin = ".opencode/plugins/hookwarden.js"
	// CopilotHooks is our GitHub Copilot CLI hooks file: Copilot CLI
	// 1.0.102 runs every *.json of .github/hooks at the git root
	// (protocol/dialect copilot.go, measured).
	CopilotHooks = ".github/hooks/hookwarden.json"
	// KiroHooks is our Kiro CLI v3 hooks file, read for every agent of
	// the workspace (kiro.dev/docs/cli/v3/hooks; protocol/dialect
	// kiro.go); documented, not observed.
	KiroHooks = ".kiro/hooks/hookwarden.json"
	// ClineHook is the executable hook file Cline runs before every tool
	// (protocol/dialect cline.go); documented, not observed.
	ClineHook = ".clinerules/hooks/PreToolUse"
)

// The settings files adopt registers the four default and most used
// clients' rows in (HookFiles, Written), for the packages that name one
// client's file: ClaudeSettings, CodexHooks, GeminiSettings, CursorHooks.
const (
	ClaudeSettings = ".claude/settings.json"
	CodexHooks     = ".codex/hooks.json"
	GeminiSettings = ".gemini/settings.json"
	CursorHooks    = ".cursor/hooks.json"
)

// RenderedFile is a file (or, with Dir, a folder) adopt renders whole for
// Client.
type RenderedFile struct {
	Client string
	Path   string
	Dir    bool
}

// Rendered returns, as a new slice, the files adopt renders whole for the
// clients, in the order the guard lists them.
func Rendered() []RenderedFile {
	return []RenderedFile{
		{Client: "agy", Path: AgyPluginDir, Dir: true},
		{Client: "opencode", Path: OpencodePlugin},
		{Client: "copilot", Path: CopilotHooks},
		{Client: "kiro", Path: KiroHooks},
		{Client: "cline", Path: ClineHook},
	}
}

// HookFile is one file in a repository that Client reads hooks, or a
// switch of its hooks, from. Path is slash-separated and relative to the
// repository root (or the start directory, with FoundStart); Found and
// Scope are the constants above. Format is the clientjson dialect the plan
// reads it with ("codex-toml" the inline [hooks] of a Codex config.toml),
// "" for a file the plan does not read. Written means adopt registers our
// rows in it: the client's one settings file (SettingsFile). Hooks is false
// for a client file that holds no hook rows but whose settings the guard
// protects as its own files.
type HookFile struct {
	Client  string
	Path    string
	Found   string
	Scope   string
	Format  string
	Written bool
	Hooks   bool
}

// HookFiles returns, as a new slice, every repository hook file of every
// client: first the file adopt writes into for each client (in the order
// adopt's agent-hooks step lists the clients), then the others. A client's
// files are in the order the client collects hooks from them.
func HookFiles() []HookFile {
	return []HookFile{
		// Claude Code 2.1.328 (bundle): projectSettings is
		// `projectConfigDir ?? cwd` + .claude/settings.json, then
		// localSettings .claude/settings.local.json
		// (../shared/e2e/README.md section 1).
		{Client: "claude", Path: ClaudeSettings, Found: FoundStart, Scope: ScopeProject, Format: "claude", Written: true, Hooks: true},
		// Codex CLI 0.169.0: <repo>/.codex/hooks.json of a trusted project
		// (developers.openai.com/codex/hooks.md; ../shared/e2e/README.md
		// section 2).
		{Client: "codex", Path: CodexHooks, Found: FoundRoot, Scope: ScopeProject, Format: "codex", Written: true, Hooks: true},
		// Gemini CLI 0.61.0 (bundle loadSettings, workspaceDir =
		// process.cwd(), no walk up; ../shared/e2e/README.md section 3).
		{Client: "gemini", Path: GeminiSettings, Found: FoundStart, Scope: ScopeProject, Format: "gemini", Written: true, Hooks: true},
		// Cursor (opt-in): every matching hook of .cursor/hooks.json runs
		// (cursor.com/docs/reference/third-party-hooks; protocol/dialect
		// cursor.go); documented, not observed.
		{Client: "cursor", Path: CursorHooks, Found: FoundRoot, Scope: ScopeProject, Format: "cursor", Written: true, Hooks: true},
		// Windsurf (opt-in): the workspace's .windsurf/hooks.json, merged
		// with the system and user files (docs.windsurf.com/windsurf/cascade/
		// hooks; protocol/dialect windsurf.go); documented, not observed.
		{Client: "windsurf", Path: ".windsurf/hooks.json", Found: FoundRoot, Scope: ScopeProject, Format: "windsurf", Written: true, Hooks: true},
		// Qwen Code 0.24.4 (opt-in; bundle loadSettings(workspaceDir =
		// process.cwd())): the start directory's .qwen/settings.json, in
		// Claude's shape (protocol/dialect qwen.go; observed).
		{Client: "qwen", Path: ".qwen/settings.json", Found: FoundStart, Scope: ScopeProject, Format: "qwen", Written: true, Hooks: true},
		// Factory Droid (opt-in): the hooks key of .factory/settings.json
		// (docs.factory.ai/reference/hooks-reference; protocol/dialect
		// droid.go); documented, not observed.
		{Client: "droid", Path: ".factory/settings.json", Found: FoundRoot, Scope: ScopeProject, Format: "droid", Written: true, Hooks: true},
		// Devin CLI, run by Devin Desktop (opt-in): .devin/hooks.v1.json,
		// Claude's groups with the events at the top level
		// (docs.devin.ai/cli/extensibility/hooks/overview; protocol/dialect
		// devin.go); documented, not observed.
		{Client: "devin", Path: ".devin/hooks.v1.json", Found: FoundRoot, Scope: ScopeProject, Format: "devin", Written: true, Hooks: true},

		// Claude Code's per-checkout settings, which adopt never writes but
		// whose "disableAllHooks": true switches our rows off (Claude Code
		// 2.1.328 reads it as local settings; clientjson.ClaudeLocalSettings).
		{Client: "claude", Path: ".claude/settings.local.json", Found: FoundStart, Scope: ScopeLocal, Format: "claude", Hooks: true},
		// GitHub Copilot CLI's repository settings (protocol/dialect
		// copilot.go): no hook rows, protected as the guard's own files.
		{Client: "copilot", Path: ".github/copilot/settings.json", Found: FoundRoot, Scope: ScopeProject},
		{Client: "copilot", Path: ".github/copilot/settings.local.json", Found: FoundRoot, Scope: ScopeLocal},
		// Factory Droid reads hooks from .factory/settings.local.json too
		// (docs.factory.ai/reference/hooks-reference), and newer Droids read
		// .factory/hooks.json instead of the settings.json hooks key when it
		// exists (docs.factory.ai/harness/hooks; droid 0.186.0 ran only the
		// settings.json hooks, Factory-AI/factory issue 3, so the plan does
		// not read it): creating it would switch our rows off.
		{Client: "droid", Path: ".factory/settings.local.json", Found: FoundRoot, Scope: ScopeLocal, Format: "droid", Hooks: true},
		{Client: "droid", Path: ".factory/hooks.json", Found: FoundRoot, Scope: ScopeProject, Hooks: true},
		// Codex CLI 0.169.0 reads inline [hooks] and [features] hooks =
		// false from a trusted project's .codex/config.toml and from every
		// .codex/ between the repository root and the start directory
		// (codex-rs config/src/loader/README.md; measured: adopt/hookplan
		// testdata plan-codex-project-features-off,
		// plan-codex-subdir-features-off).
		{Client: "codex", Path: ".codex/config.toml", Found: FoundRoot, Scope: ScopeProject, Format: "codex-toml", Hooks: true},
	}
}

// SettingsFile returns the repository file adopt registers client's rows
// in (the Written HookFile: ".claude/settings.json" for claude,
// ".codex/hooks.json" for codex, …) and whether the client has one.
func SettingsFile(client string) (string, bool) {
	for _, f := range HookFiles() {
		if f.Written && f.Client == client {
			return f.Path, true
		}
	}
	return "", false
}

// Planned returns client's repository hook files the plan reads (those
// with a Format), in the order the client collects hooks from them.
func Planned(client string) []HookFile {
	var out []HookFile
	for _, f := range HookFiles() {
		if f.Client == client && f.Format != "" {
			out = append(out, f)
		}
	}
	return out
}
