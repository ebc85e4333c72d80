package policy

import (
	"strings"
)

// This file judges agent clients started from a command (issue 29 items 2
// and 6): a nested client started so that it skips the project's hook
// rows, or so that the rows it runs answer with another engine or none.
// Claude Code's own switches (--bare, --settings, --setting-sources,
// CLAUDE_CODE_SIMPLE, CLAUDE_CONFIG_DIR, HOME) are claudeHooksOff's
// (launchers.go), measured on Claude Code 2.1.328; Codex's hooks feature
// switches are codexHooksOff's.

// nestedClientNames are the command names of the agent clients adopt
// serves that run from a shell (protocol/registration's clients: Claude
// Code's claude, Codex's codex, Gemini CLI's gemini, opencode, Copilot
// CLI's copilot, Cursor's cursor-agent, Qwen Code's qwen, Factory's droid,
// Antigravity's agy, Cline's cline and Kiro's kiro-cli).
func nestedClientNames(name string) bool {
	switch name {
	case "claude", "claude-code", "codex", "gemini", "opencode", "copilot",
		"cursor-agent", "qwen", "droid", "agy", "cline", "kiro-cli":
		return true
	}
	return false
}

// nestedEnvOff reports an environment variable that, set for a nested
// client (on its command line or exported before it), changes which
// engine answers its hook rows or what the git commands it runs do (issue
// 29 item 2): HOOKWARDEN_* (the launcher's HOOKWARDEN_BIN among them),
// PATH (the launcher's search for hookwarden), LEFTHOOK*, HUSKY*,
// PRE_COMMIT*, GIT_CONFIG*, GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE.
func nestedEnvOff(name string) bool {
	for _, p := range []string{"HOOKWARDEN_", "LEFTHOOK", "HUSKY", "PRE_COMMIT", "GIT_CONFIG"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	switch name {
	case "PATH", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE":
		return true
	}
	return false
}

// clientHomeEnv reports a variable that moves a client's home or
// configuration away from the one its rows and trust records live in:
//   - codex: CODEX_HOME (Codex config docs: "$CODEX_HOME/config.toml",
//     default ~/.codex; the per-hook trust records codex-trust writes
//     live there, so another home runs without them);
//   - gemini: GEMINI_CLI_SYSTEM_SETTINGS_PATH and
//     GEMINI_CLI_SYSTEM_DEFAULTS_PATH (Gemini CLI configuration docs,
//     "Settings files": the system settings override every other file), and
//     GEMINI_CLI_HOME (the home its user settings are read under: measured
//     on Gemini CLI 0.61.0 on 2026-12-05, engine/conformance TestClientFacts
//     gemini/cli-home-hooks-off, a GEMINI_CLI_HOME whose
//     .gemini/settings.json sets hooksConfig.enabled false skipped the
//     project's hook and the tool ran);
//   - opencode: OPENCODE_CONFIG, OPENCODE_CONFIG_DIR,
//     OPENCODE_CONFIG_CONTENT (opencode docs, "Config": a custom config
//     file, a directory searched for plugins like .opencode, inline
//     overrides), OPENCODE_DISABLE_PROJECT_CONFIG, OPENCODE_PURE (what
//     --pure sets: no plugin of plugin_origins loads, the project's
//     .opencode/plugins/ among them; opencode 1.18.33 binary, measured on
//     2026-12-05 by engine/conformance perimeter-opencode-pure, where a
//     --no-verify commit ran past the adopted row), and XDG_CONFIG_HOME
//     (~/.config/opencode). Measured with `opencode debug config` on
//     1.18.33: OPENCODE_DISABLE_PROJECT_CONFIG=1 and
//     OPENCODE_CONFIG_CONTENT='{"plugin":[]}' empty the plugin list;
//     OPENCODE_CONFIG, OPENCODE_CONFIG_DIR and XDG_CONFIG_HOME leave our
//     plugin in it (still refused: they change what else the session
//     loads);
//   - copilot: COPILOT_HOME (Copilot CLI config directory reference,
//     default ~/.copilot, hooks/ and settings.json inside) and
//     XDG_CONFIG_HOME;
//   - every client: HOME (each reads its user settings below it).
func clientHomeEnv(client, name string) bool {
	if name == "HOME" {
		return true
	}
	switch client {
	case "codex":
		return name == "CODEX_HOME"
	case "gemini":
		return name == "GEMINI_CLI_SYSTEM_SETTINGS_PATH" || name == "GEMINI_CLI_SYSTEM_DEFAULTS_PATH" || name == "GEMINI_CLI_HOME"
	case "opencode":
		return strings.HasPrefix(name, "OPENCODE_CONFIG") || name == "OPENCODE_DISABLE_PROJECT_CONFIG" || name == "OPENCODE_PURE" || name == "XDG_CONFIG_HOME"
	case "copilot":
		return name == "COPILOT_HOME" || name == "XDG_CONFIG_HOME"
	}
	return false
}

// geminiUntrusted reports an assignment that makes Gemini CLI treat the
// workspace as untrusted, which drops the workspace settings file and our
// rows in it: GEMINI_CLI_TRUST_WORKSPACE set to anything but true, and
// GEMINI_RESTRICTED_MODE set to true; a value known only at run time
// counts (Gemini CLI 0.61.0 bundle, packages/core/src/utils/trust.ts
// checkPathTrust: either variable answers {isTrusted: false} before any
// trusted-folders file is read; mergeSettings then uses an empty workspace
// when not trusted). GEMINI_CLI_TRUST_WORKSPACE=true, which headless runs
// use to load a workspace's settings, stays allowed.
func geminiUntrusted(e envVar) bool {
	v := strings.TrimSpace(e.val.val)
	switch e.name {
	case "GEMINI_CLI_TRUST_WORKSPACE":
		return e.val.dynamic() || v != "true"
	case "GEMINI_RESTRICTED_MODE":
		return e.val.dynamic() || v == "true"
	}
	return false
}

// nestedClient judges a nested client started as name with args and env
// (env holds what the script exported before it too): a switch from
// nestedEnvOff or clientHomeEnv, codex exec --ignore-user-config (Codex
// CLI: "ignore $CODEX_HOME/config.toml", which holds the hooks feature and
// trust records), copilot --config-dir (Copilot CLI --help: the
// configuration directory, default ~/.copilot) and opencode --pure
// (clientHomeEnv's OPENCODE_PURE) are refused.
func (j *judge) nestedClient(name string, args []field, env []envVar) {
	client := name
	if name == "claude-code" {
		client = "claude"
	}
	for _, e := range env {
		if nestedEnvOff(e.name) || (client != "claude" && clientHomeEnv(client, e.name)) || (client == "gemini" && geminiUntrusted(e)) {
			j.hits.add(RuleNestedClientHooks)
		}
	}
	if client == "copilot" && j.copilotUntrusted(args, env) {
		j.hits.add(RuleNestedClientHooks)
	}
	for _, a := range args {
		if a.val == "--" {
			break
		}
		switch {
		case client == "codex" && a.val == "--ignore-user-config":
			j.hits.add(RuleNestedClientHooks)
		case client == "opencode" && (a.val == "--pure" || strings.HasPrefix(a.val, "--pure=")):
			j.hits.add(RuleNestedClientHooks)
		case client == "copilot" && (a.val == "--config-dir" || strings.HasPrefix(a.val, "--config-dir=")):
			j.hits.add(RuleNestedClientHooks)
		}
	}
}

// copilotUntrusted reports a Copilot CLI start that approves its tools
// without trusting the directory, so that the repository's hook rows do
// not load and its tools run unjudged. Copilot CLI 1.0.102 (`copilot help
// environment`): COPILOT_ALLOW_ALL accepts "true", "1", "yes", "on" or "y"
// to approve every tool, and only exactly "true" also trusts the working
// directory, "which loads that directory's … hooks"; --trust-folder trusts
// it for one prompt-mode session. Measured on 1.0.102 on 2026-12-05
// (engine/conformance TestCopilotNestedTrust, fresh COPILOT_HOME):
// COPILOT_ALLOW_ALL=1, --allow-all-tools and --yolo each ran a --no-verify
// commit the adopted row denies with COPILOT_ALLOW_ALL=true or
// --trust-folder. So approval (--allow-all-tools, --allow-all, --yolo, a
// truthy COPILOT_ALLOW_ALL from the command or, when the command does not
// set it, from the hook's environment) without trust (--trust-folder,
// COPILOT_ALLOW_ALL exactly "true") is refused; a value known only at run
// time counts as approval without trust. A directory trusted in the
// user's saved Copilot configuration is not read: the refusal names
// --trust-folder as the plain spelling.
func (j *judge) copilotUntrusted(args []field, env []envVar) bool {
	approve, trust := false, false
	allowAll := func(v string, dynamic bool) {
		switch t := strings.ToLower(strings.TrimSpace(v)); {
		case dynamic:
			approve = true
		case v == "true":
			approve, trust = true, true
		case t == "true" || t == "1" || t == "yes" || t == "on" || t == "y":
			approve = true
		}
	}
	set := false
	for _, e := range env {
		if e.name == "COPILOT_ALLOW_ALL" {
			set = true
			allowAll(e.val.val, e.val.dynamic())
		}
	}
	if !set && j.env != nil {
		if v, ok := j.env("COPILOT_ALLOW_ALL"); ok {
			allowAll(v, false)
		}
	}
	for _, a := range args {
		if a.val == "--" {
			break
		}
		switch a.val {
		case "--allow-all-tools", "--allow-all", "--yolo":
			approve = true
		case "--trust-folder":
			trust = true
		}
	}
	return approve && !trust
}

// clientSystemPath reports whether comps (a path's lower-cased, cleaned
// components) name a client's machine-wide settings, which override the
// project's and which an agent's command must not write:
//   - Claude Code managed settings: managed-settings.json (and the
//     managed-settings.d directory) under /etc/claude-code (Linux),
//     /Library/Application Support/ClaudeCode (macOS) or
//     C:\Program Files\ClaudeCode (Windows) (Claude Code docs, "Settings
//     files": managed settings cannot be overridden, disableAllHooks and
//     allowManagedHooksOnly among them);
//   - Gemini CLI system settings and system defaults: settings.json and
//     system-defaults.json under /etc/gemini-cli, /Library/Application
//     Support/GeminiCli or C:\ProgramData\gemini-cli (Gemini CLI
//     configuration docs);
//   - Codex's system config /etc/codex/config.toml and requirements.toml
//     (Codex config docs, "Configuration precedence");
//   - opencode's system directory /etc/opencode, /Library/Application
//     Support/opencode, %ProgramData%\opencode (opencode docs, "Config":
//     loaded like the global one, plugins/ included).
func clientSystemPath(comps []string) bool {
	n := len(comps)
	for i, c := range comps {
		if strings.HasPrefix(c, "managed-settings") && i > 0 && (comps[i-1] == "claude-code" || comps[i-1] == "claudecode") {
			return true
		}
		if (c == "gemini-cli" || c == "geminicli") && i+1 < n && (comps[i+1] == "settings.json" || comps[i+1] == "system-defaults.json") {
			return true
		}
		if c == "codex" && i > 0 && comps[i-1] == "etc" {
			return true
		}
		if c == "opencode" && i > 0 && (comps[i-1] == "etc" || comps[i-1] == "application support" || comps[i-1] == "programdata") {
			return true
		}
	}
	return false
}
