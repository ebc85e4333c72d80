package hookplan

import (
	"path/filepath"
	"slices"
	"sync"

	"github.com/hookwarden/hookwarden/internal/clientfiles"
	"github.com/hookwarden/hookwarden/templates"
)

// Scopes of a hook file: where the client finds it.
const (
	// ScopeProject: a file in the repository, shared through git.
	ScopeProject = clientfiles.ScopeProject
	// ScopeLocal: a per-checkout file in the repository, usually
	// git-ignored.
	ScopeLocal = clientfiles.ScopeLocal
	// ScopeUser: the user's own file outside the repository (read only
	// with Options.Workstation).
	ScopeUser = "user"
	// ScopePlugin: a plugin file hookwarden renders into the repository.
	ScopePlugin = "plugin"
	// ScopeSystem: a machine-wide file of the client (read only with
	// Options.Workstation).
	ScopeSystem = "system"
)

// fileSpec is one file a client reads hooks from: rel its path below base
// ("root" the repository root, "start" the session's start directory,
// "home" the client's home from homeDir, "gemini-system" and
// "gemini-system-defaults" Gemini CLI's system files from
// geminiSystemPaths, "windsurf-system" Windsurf's system file from
// windsurfSystem, "claude-managed" Claude Code's managed settings files
// from claudeManagedFiles, rel then unused; "codex-system" Codex's
// machine-wide directory codexSystemDir; "codex-tree" the .codex folders
// below the root down to the start directory, codexTreeFiles, format
// "codex-auto": each file by its name), scope one of the Scope
// constants, format the clientjson dialect that reads it ("claude",
// "codex", "gemini"; agy's plugin hooks.json has Claude's shape;
// "codex-toml" the inline [hooks] of a Codex config.toml, codexHooksView).
// The files of the "claude-managed" and "codex-system" bases are managed
// (File.Managed).
type fileSpec struct {
	rel    string
	base   string
	scope  string
	format string
}

// clientSpec is one client's entry in the table: its files in the order the
// client collects hooks from them, the executable and npm package its
// installed version is read from, how it runs several matching hooks, and
// how a session started below the repository root finds the project file
// (the handler fields that need a version are templates' gate table's).
type clientSpec struct {
	files []fileSpec
	// homeEnv names the variable that moves the client's home, homeRel
	// the home below $HOME otherwise.
	homeEnv, homeRel string
	bin, npm         string
	runs             string
	// startBelow says what a session started below the root reads: ""
	// the root's files (the client walks up), else why it does not.
	startBelow string
	// plugin is a rendered plugin file (below the root) that runs our rows
	// itself, for a client with no hook file: each of the client's
	// registration rows fires while it exists.
	plugin string
	// limits are the client's hook sources the plan cannot see
	// (Client.Limits), each with its source.
	limits []string
}

// clients is the per-client table audit --plan and doctor read. A client
// added to the registration table gets its entry here, each fact with its
// source; a client without an entry is planned from its registration rows
// alone and says so. It is built on first use (sync.OnceValue), so the
// hook process, which links this package but never plans, does not
// initialise it.
var clients = sync.OnceValue(func() map[string]clientSpec {
	return map[string]clientSpec{
		// Claude Code 2.1.328 (bundle): settings sources are collected in the
		// order userSettings, projectSettings, localSettings, flagSettings,
		// policySettings (the array `Gs`); projectSettings resolves to
		// `projectConfigDir ?? cwd` + .claude/settings.json, so a session
		// started in a subdirectory reads that directory's file, not the
		// root's; the user file is $CLAUDE_CONFIG_DIR/settings.json, default
		// ~/.claude/settings.json. Matching hooks run in parallel (Claude Code
		// hooks docs, "All matching hooks run in parallel"). With --workstation
		// the managed settings files (claudeManagedFiles) follow, their
		// switches in claudeSwitches, and the enabled plugins' hooks
		// (claudePlugins).
		"claude": {
			files: slices.Concat(
				[]fileSpec{{"settings.json", "home", ScopeUser, "claude"}},
				repoFiles("claude"),
				[]fileSpec{{"", "claude-managed", ScopeSystem, "claude"}}),
			limits: []string{
				"hooks of a --settings file or JSON string (flagSettings: merged after the local settings and before the managed ones, bundle settings sources userSettings, projectSettings, localSettings, flagSettings, policySettings), and --setting-sources, which can leave the user, project or local files out",
				"server-managed settings and the OS policy sources (macOS managed preferences, the Windows HKLM/HKCU policy keys): with managedSourcesBehavior \"first-wins\" (the default) the highest managed source present (server-managed > MDM > managed-settings.json) is the managed tier alone, so one of them can replace the managed files listed here (bundle, managedSourcesBehavior description)",
				"plugins loaded with --plugin-dir, extra hooks files a plugin.json names (only an installed plugin's hooks/hooks.json is read), and hooks registered by the SDK or a skill",
				"the workspace trust dialog: a session in a folder neither it nor a folder above it has trusted (projects[…].hasTrustDialogAccepted in the global config) skips hook execution (bundle: \"Skipping … hook execution - workspace trust not accepted\"); the trust record is not read",
			},
			homeEnv: "CLAUDE_CONFIG_DIR", homeRel: ".claude",
			bin: "claude", npm: "@anthropic-ai/claude-code",
			runs:       "Claude Code runs every matching hook in parallel; any deny blocks the call",
			startBelow: "Claude Code 2.1.328 reads project settings from the start directory's .claude/settings.json (bundle: projectSettings is `projectConfigDir ?? cwd`), not the repository root's",
		},
		// Codex CLI 0.169.0: hooks.json next to each active config layer,
		// ~/.codex/hooks.json ($CODEX_HOME) and <repo>/.codex/hooks.json; all
		// matching hooks from every file run, launched concurrently; the project
		// layer loads only in a trusted project and a non-managed hook runs only
		// with its trusted_hash (developers.openai.com/codex/hooks.md; measured,
		// ../shared/e2e/README.md section 2). A session started in a
		// subdirectory runs the root's rows (measured: templates.launcherPrefix).
		//
		// Each config layer brings its hooks.json and the inline [hooks] of its
		// config.toml, both run (codexHooksView), layers lowest precedence
		// first: the system layer /etc/codex (managed: no trust needed; read
		// with --workstation), the user's $CODEX_HOME, the project's .codex/
		// folders, then the legacy /etc/codex/managed_config.toml, a managed
		// layer above all others (codex-rs hooks/src/engine/discovery.rs
		// discover_handlers, hook_metadata_for_config_layer_source;
		// config/src/loader/mod.rs; binary string
		// "/etc/codex/managed_config.toml"). The
		// project's config.toml is a layer only in a trusted project, and its
		// inline hooks need the user's trusted_hash like the hooks.json ones
		// (codexTrust).
		"codex": {
			files: slices.Concat([]fileSpec{
				{"hooks.json", "codex-system", ScopeSystem, "codex"},
				{"config.toml", "codex-system", ScopeSystem, "codex-toml"},
				{"hooks.json", "home", ScopeUser, "codex"},
				{"config.toml", "home", ScopeUser, "codex-toml"}},
				repoFiles("codex"),
				[]fileSpec{
					{"", "codex-tree", ScopeProject, "codex-auto"},
					{"managed_config.toml", "codex-system", ScopeSystem, "codex-toml"}}),
			limits: []string{
				"-c/--config overrides (the session-flags layer, which can carry [hooks] and [hooks.state]) and --dangerously-bypass-hook-trust, which runs hooks without their trusted_hash (codex-rs config/src/loader/README.md; hooks/src/engine/discovery.rs)",
				"cloud-managed and MDM config and requirements, the managed hooks of a requirements.toml [hooks] table, and on Windows the machine-wide files (%ProgramData%\\OpenAI\\Codex in codex-rs config/src/loader/mod.rs; not in the 0.169.0 Linux binary, so not read)",
				"a project trusted through the main repository of a linked worktree, project_root_markers other than .git, and plugin hooks",
			},
			homeEnv: "CODEX_HOME", homeRel: ".codex",
			bin: "codex", npm: "@openai/codex",
			runs: "Codex launches every matching hook concurrently; one cannot stop another from starting",
		},
		// Gemini CLI 0.61.0 (bundle loadSettings): the user file
		// ~/.gemini/settings.json, then the workspace file <cwd>/.gemini/
		// settings.json (workspaceDir = process.cwd(), no walk up); project
		// hooks run only in a trusted folder (../shared/e2e/README.md section 3).
		// Matching hooks are deduplicated and run in parallel unless one of them
		// sets sequential: true (bundle createExecutionPlan).
		//
		// The system files (Gemini CLI 0.61.0 bundle chunk-2YTYPKEZ.js,
		// getSystemSettingsPath: $GEMINI_CLI_SYSTEM_SETTINGS_PATH, else
		// "/Library/Application Support/GeminiCli/settings.json" on darwin,
		// "C:\\ProgramData\\gemini-cli\\settings.json" on win32,
		// "/etc/gemini-cli/settings.json" elsewhere; getSystemDefaultsPath:
		// $GEMINI_CLI_SYSTEM_DEFAULTS_PATH, else system-defaults.json beside the
		// system file) are read with the user's (Options.Workstation). The list
		// is in the bundle's merge order, mergeSettings: customDeepMerge(
		// schemaDefaults, systemDefaults, user, safeWorkspace, system): the
		// system file is applied last and overrides the workspace's switches.
		"gemini": {
			files: slices.Concat([]fileSpec{
				{"system-defaults", "gemini-system-defaults", ScopeSystem, "gemini"},
				{"settings.json", "home", ScopeUser, "gemini"}},
				repoFiles("gemini"),
				[]fileSpec{{"system", "gemini-system", ScopeSystem, "gemini"}}),
			homeRel: ".gemini",
			bin:     "gemini", npm: "@google/gemini-cli",
			runs:       "Gemini CLI deduplicates matching hooks and runs them in parallel unless one sets sequential: true",
			startBelow: "Gemini CLI 0.61.0 reads the workspace settings from <start directory>/.gemini/settings.json (bundle loadSettings(workspaceDir = process.cwd())), not the repository root's",
		},
		// agy: the rendered plugin's hooks.json (Claude's shape) in
		// .agents/plugins/hookwarden/ (issue 4; unverified on a real agy).
		"agy": {
			files: []fileSpec{{templates.AgyHooksJSONPath, "root", ScopePlugin, "claude"}},
			bin:   "agy",
			runs:  "agy: not recorded",
		},
		// Cursor (documented, not observed): the project's .cursor/hooks.json
		// and the user's ~/.cursor/hooks.json (and an enterprise file), every
		// matching hook of every source runs, then the Claude settings files
		// when third-party configs are on (cursor.com/docs/reference/
		// third-party-hooks, "Priority Order"; protocol/dialect cursor.go). The
		// Claude files are Claude's entry here, so a Claude row Cursor also runs
		// is listed under claude.
		"cursor": {
			files:   slices.Concat([]fileSpec{{"hooks.json", "home", ScopeUser, "cursor"}}, repoFiles("cursor")),
			homeRel: ".cursor",
			runs:    "Cursor runs every matching hook of every hooks.json (project, user, enterprise) and, with third-party configs on, the Claude settings files' hooks; not observed",
			limits:  []string{"Cursor's enterprise (MDM) and team (cloud) hooks, whose files no source read here places (cursor.com/docs/reference/third-party-hooks, \"Priority Order\")"},
		},
		// Qwen Code 0.24.4 (bundle loadSettings(workspaceDir = process.cwd())):
		// the user file ~/.qwen/settings.json, then the start directory's
		// .qwen/settings.json, no walk up (protocol/dialect qwen.go).
		"qwen": {
			files:   slices.Concat([]fileSpec{{"settings.json", "home", ScopeUser, "qwen"}}, repoFiles("qwen")),
			homeRel: ".qwen",
			bin:     "qwen", npm: "@qwen-code/qwen-code",
			runs:       "Qwen Code runs every matching hook of the user and workspace settings",
			startBelow: "Qwen Code 0.24.4 reads the workspace settings from <start directory>/.qwen/settings.json (bundle loadSettings(workspaceDir = process.cwd())), not the repository root's",
		},
		// Factory Droid (documented, not observed): ~/.factory/settings.json,
		// .factory/settings.json and .factory/settings.local.json
		// (docs.factory.ai/reference/hooks-reference). Newer docs put hooks in
		// .factory/hooks.json and read a settings.json's hooks key only when
		// that file is absent (docs.factory.ai/harness/hooks), while droid
		// 0.186.0 ran only the settings.json hooks (Factory-AI/factory issue 3).
		"droid": {
			files:   slices.Concat([]fileSpec{{"settings.json", "home", ScopeUser, "droid"}}, repoFiles("droid")),
			homeRel: ".factory",
			bin:     "droid", npm: "@factory/cli",
			runs: "Factory Droid runs every matching hook of its settings files (documented; not observed)",
		},
		// Windsurf (documented, not observed): the system file (windsurfSystem:
		// "/Library/Application Support/Windsurf/hooks.json" on macOS,
		// "/etc/windsurf/hooks.json" on Linux and WSL, "C:\ProgramData\
		// Windsurf\hooks.json" on Windows), the user's
		// ~/.codeium/windsurf/hooks.json and the workspace's .windsurf/hooks.json;
		// all are merged and every hook of an event runs, system, user, then
		// workspace (docs.windsurf.com/windsurf/cascade/hooks, "System-Level",
		// read 2026-12-01).
		"windsurf": {
			files: slices.Concat([]fileSpec{
				{"", "windsurf-system", ScopeSystem, "windsurf"},
				{"hooks.json", "home", ScopeUser, "windsurf"}},
				repoFiles("windsurf")),
			homeRel: ".codeium/windsurf",
			runs:    "Windsurf merges the system, user and workspace hooks.json and runs every hook of the event in that order; not observed",
			limits:  []string{"hooks an Enterprise team configures in Windsurf's cloud dashboard (docs.windsurf.com/windsurf/cascade/hooks, \"System-Level\")"},
		},
		// Devin CLI, which Devin Desktop runs (documented, not observed): the
		// project's .devin/hooks.v1.json, Claude's groups with the events at
		// the top level, and Claude Code's own hooks, which "will work with
		// Devin CLI automatically" (docs.devin.ai/cli/extensibility/hooks/
		// overview, read 2026-12-05); the Claude files are Claude's entry
		// here. Devin installs from a shell script, not npm
		// (cli.devin.ai/install.sh), so its version is read from the devin
		// executable only.
		"devin": {
			files: repoFiles("devin"),
			bin:   "devin",
			runs:  "Devin CLI runs the matching hooks of .devin/hooks.v1.json and of the Claude Code settings files (listed under claude); exit 2 blocks; not observed",
			limits: []string{
				"a user-level Devin hooks file, which no source read here places (docs.devin.ai/cli/extensibility/hooks/overview documents the project file only)",
				"which Claude Code settings files Devin CLI reads, and in what order (documented only as compatible)",
			},
		},
		// Kiro CLI (documented, not observed): v3 hooks files .kiro/hooks/*.json
		// of the workspace apply to every agent (kiro.dev/docs/cli/v3/hooks),
		// and ~/.kiro/hooks/*.json to every workspace (Kiro CLI 2.13.0
		// changelog, kiro.dev/changelog/cli/2-13, as tried in
		// dev.classmethod.jp/articles/kiro-cli-213-v3-introspect-global-hooks);
		// our file is rendered whole, so its row fires while it exists. An
		// "enabled": false in it is caught as an edited render (audit
		// rendered-edited), not here.
		"kiro": {plugin: templates.KiroHooksPath,
			runs: "Kiro CLI runs the hooks of every .kiro/hooks/*.json of the workspace and of ~/.kiro/hooks for every agent, beside the hooks embedded in the agent's configuration; not observed"},
		// Cline (documented and read from source, not observed): the project's
		// executable .clinerules/hooks/PreToolUse runs before every tool, beside
		// the global ~/Documents/Cline/Hooks/PreToolUse; hooks run only while
		// "Enable Hooks" is checked in Cline's VS Code settings, which no file
		// of the repository records (protocol/dialect cline.go).
		"cline": {plugin: templates.ClineHookPath,
			runs:   "Cline runs the project's executable .clinerules/hooks/PreToolUse and the global ~/Documents/Cline/Hooks/PreToolUse before every tool, only while \"Enable Hooks\" is checked in Cline's VS Code settings (outside the repository: not readable, so whether the file runs at all is not known); a cancel ends the whole task; not observed",
			limits: []string{"Cline's \"Enable Hooks\" switch (a VS Code setting, not read)", "the global ~/Documents/Cline/Hooks/ directory (not read)"}},
		// opencode 1.18.33 loads .opencode/plugins/*.js of the project
		// automatically (../shared/e2e/README.md section 4); the rendered plugin
		// runs the launcher itself, so it has no hook file to read.
		"opencode": {bin: "opencode", npm: "opencode-ai", plugin: templates.OpencodePluginPath,
			runs: "opencode loads every .opencode/plugins/*.js; the plugin's tool.execute.before runs in process and spawns the launcher"},
		// GitHub Copilot CLI 1.0.102 runs every *.json in .github/hooks of the
		// git root, in a trusted folder only, then the hooks of
		// .claude/settings.json and settings.local.json (protocol/dialect
		// copilot.go, measured). Our rows live in the rendered
		// .github/hooks/hookwarden.json, planned like a plugin file from the
		// registration rows (its handlers carry no matcher: the engine applies
		// the row's); the other files of .github/hooks follow (copilotOthers);
		// the Claude-format files are Claude's entry.
		"copilot": {bin: "copilot", npm: "@github/copilot", plugin: templates.CopilotHooksPath,
			runs:   "Copilot CLI runs every .github/hooks/*.json handler of the event (trusted folder only), then the .claude/settings*.json ones (listed under claude)",
			limits: []string{"Copilot CLI's folder trust (repository hooks load only in a trusted folder or with COPILOT_ALLOW_ALL=true; its trust record is not read: protocol/dialect copilot.go)"}},
	}
})

// repoFiles returns client's repository hook files the plan reads, from
// the one table of them (internal/clientfiles.Planned), as fileSpecs based
// at the root or the start directory as the client finds them.
func repoFiles(client string) []fileSpec {
	var out []fileSpec
	for _, f := range clientfiles.Planned(client) {
		out = append(out, fileSpec{rel: f.Path, base: f.Found, scope: f.Scope, format: f.Format})
	}
	return out
}

// homeDir returns the client's home directory ("" when neither its
// variable nor HOME is set).
func (s clientSpec) homeDir(getenv func(string) string) string {
	if s.homeEnv != "" {
		if v := getenv(s.homeEnv); v != "" {
			return v
		}
	}
	if h := getenv("HOME"); h != "" && s.homeRel != "" {
		return filepath.Join(h, s.homeRel)
	}
	return ""
}

// windsurfSystem returns Windsurf's system-level hooks.json for the
// platform goos (docs.windsurf.com/windsurf/cascade/hooks, "System-Level",
// read 2026-12-01: macOS "/Library/Application Support/Windsurf/hooks.json",
// Linux/WSL "/etc/windsurf/hooks.json", Windows
// "C:\ProgramData\Windsurf\hooks.json").
func windsurfSystem(goos string) string {
	switch goos {
	case "darwin":
		return "/Library/Application Support/Windsurf/hooks.json"
	case "windows":
		return `C:\ProgramData\Windsurf\hooks.json`
	}
	return "/etc/windsurf/hooks.json"
}

// geminiSystemPaths returns Gemini CLI's system settings file and system
// defaults file for the platform goos, as Gemini CLI 0.61.0 resolves them
// (bundle chunk-2YTYPKEZ.js getSystemSettingsPath, getSystemDefaultsPath):
// $GEMINI_CLI_SYSTEM_SETTINGS_PATH, else "/Library/Application
// Support/GeminiCli/settings.json" (darwin), "C:\\ProgramData\\gemini-cli\\
// settings.json" (windows), "/etc/gemini-cli/settings.json" (others); the
// defaults $GEMINI_CLI_SYSTEM_DEFAULTS_PATH, else system-defaults.json in
// the system file's directory.
func geminiSystemPaths(getenv func(string) string, goos string) (system, defaults string) {
	system = getenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH")
	if system == "" {
		switch goos {
		case "darwin":
			system = "/Library/Application Support/GeminiCli/settings.json"
		case "windows":
			system = `C:\ProgramData\gemini-cli\settings.json`
		default:
			system = "/etc/gemini-cli/settings.json"
		}
	}
	defaults = getenv("GEMINI_CLI_SYSTEM_DEFAULTS_PATH")
	if defaults == "" {
		// filepath is the running platform's, which is goos in use.
		defaults = filepath.Join(filepath.Dir(system), "system-defaults.json")
	}
	return system, defaults
}
