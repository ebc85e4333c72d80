package audit

import (
	"slices"

	"github.com/hookwarden/hookwarden/adopt/hookplan"
)

// Severity of a finding. An error means a governed client is not guarded as
// the manifest says (exit 1); a warning means it is guarded but something
// will bite later (exit 1 only with --strict); a note is information that
// never changes the exit code.
type Severity string

// The three severities, spelled as SARIF 2.1.0 result levels.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Note    Severity = "note"
)

// Rule is one finding kind: ID is the stable identifier a finding carries
// (also the SARIF ruleId), Severity its level, Summary one line for SARIF's
// shortDescription and Help what it means and how to repair it.
type Rule struct {
	ID       string
	Severity Severity
	Summary  string
	Help     string
}

// Finding IDs. They are stable: a new kind gets a new ID, an ID is never
// reused for another meaning.
const (
	// IDNotGoverned: the repository is not governed (no .hookwarden.yaml).
	IDNotGoverned = "not-governed"
	// IDManifestInvalid: the repository's .hookwarden.yaml is invalid.
	IDManifestInvalid = "manifest-invalid"
	// IDSettingsLayer: an operator settings layer (fleet or workstation file) is invalid.
	IDSettingsLayer = "settings-layer-invalid"
	// IDRowMissing: a selected client's hook row is missing.
	IDRowMissing = "row-missing"
	// IDMatcherMismatch: our hook row is registered under a matcher that does not select the row's tools.
	IDMatcherMismatch = "matcher-mismatch"
	// IDTimeoutBudget: our hook row's timeout is at or below the engine's budget.
	IDTimeoutBudget = "timeout-at-or-below-budget"
	// IDTimeoutUnit: our hook row's timeout is written in the wrong unit.
	IDTimeoutUnit = "timeout-wrong-unit"
	// IDRowStale: our hook row runs the form an earlier hookwarden version wrote.
	IDRowStale = "row-stale"
	// IDNearMiss: a handler starts like our row but is not one of our forms.
	IDNearMiss = "row-near-miss"
	// IDRowUnwanted: a handler of ours serves no row the manifest selects.
	IDRowUnwanted = "row-unwanted"
	// IDRowNewerThanClient: a handler of ours serves a row whose form the
	// client version the repository declares (or, undeclared, the installed
	// one) predates (templates/gates.json).
	IDRowNewerThanClient = "row-newer-than-client"
	// IDTimeoutDrift: our hook row's timeout differs from the registration table's.
	IDTimeoutDrift = "timeout-drift"
	// IDOnFailure: our Claude row that guards an action lacks "onFailure": "block".
	IDOnFailure = "on-failure-not-block"
	// IDCommandWindows: our Codex row lacks its "commandWindows" form or
	// holds another one.
	IDCommandWindows = "command-windows-missing"
	// IDNotServed: a hookwarden row is present but not served by the launcher or the engine.
	IDNotServed = "row-not-served"
	// IDDuplicateHandler: several handlers serve the same hook row.
	IDDuplicateHandler = "duplicate-handler"
	// IDHooksDisabled: hooks are switched off in the client's settings file.
	IDHooksDisabled = "hooks-disabled"
	// IDClientFileInvalid: a client settings file cannot be parsed by the client.
	IDClientFileInvalid = "client-file-unparseable"
	// IDDroidHooksFile: .factory/hooks.json exists beside .factory/settings.json.
	IDDroidHooksFile = "droid-hooks-json"
	// IDCursorVersion: .cursor/hooks.json does not declare "version": 1.
	IDCursorVersion = "cursor-hooks-version"
	// IDCommandPath: a hook command uses backslash paths or unquoted paths that can split on spaces.
	IDCommandPath = "command-path-breaks-git-bash"
	// IDRenderedMissing: a rendered hookwarden file is missing.
	IDRenderedMissing = "rendered-missing"
	// IDRenderedStale: a rendered hookwarden file is an older render.
	IDRenderedStale = "rendered-stale"
	// IDRenderedVersion: a rendered hookwarden file differs from this
	// build's render only in the version stamped into it.
	IDRenderedVersion = "rendered-version"
	// IDRenderedEdited: a rendered hookwarden file was edited by hand (or carries no render header).
	IDRenderedEdited = "rendered-edited"
	// IDRenderUnavailable: this build cannot render the repository's files, so they were not checked.
	IDRenderUnavailable = "render-unavailable"
	// IDGitIgnoreMissing: the managed .gitignore block is missing.
	IDGitIgnoreMissing = "gitignore-block-missing"
	// IDGitIgnoreMalformed: the managed .gitignore block is malformed.
	IDGitIgnoreMalformed = "gitignore-block-malformed"
	// IDGitIgnoreStale: the managed .gitignore block differs from the current one.
	IDGitIgnoreStale = "gitignore-block-stale"
	// IDBackupsNotIgnored: backups are not ignored by git.
	IDBackupsNotIgnored = "backups-not-ignored"
	// IDHooksPath: core.hooksPath points away from the hook runner the repository declares.
	IDHooksPath = "core-hookspath"
	// IDCodexTrust: codex skips project hooks until each user trusts them.
	IDCodexTrust = "codex-trust-required"
	// IDCodexHooksUnloaded: codex loads no hook from .codex/hooks.json.
	IDCodexHooksUnloaded = "codex-hooks-unloadable"
	// IDLefthookNotExtended: the repository's lefthook config does not (and adopt cannot make it) extend hookwarden's jobs file.
	IDLefthookNotExtended = "lefthook-jobs-not-extended"
	// IDLefthookForeignJob: a lefthook job not ours carries the name of one of ours, or a hook-level skip, only or exclude_tags skips ours.
	IDLefthookForeignJob = "lefthook-job-foreign"
	// IDConformDrift: conform would change a file no other finding explains.
	IDConformDrift = "conform-drift"
	// IDLeftoverTemporary: a temporary file of an interrupted hookwarden run is left in the repository.
	IDLeftoverTemporary = "leftover-temporary"
	// IDStepDeclined: an adopt step is declined, so audit does not check it.
	IDStepDeclined = "step-declined"
	// IDRepositoryUnreadable: a repository file could not be read safely.
	IDRepositoryUnreadable = "repository-unreadable"
	// IDClientFileRejected: the client parses a settings file but rejects it as a whole (audit --plan).
	IDClientFileRejected = hookplan.ReasonRejected
	// IDStartBelowRoot: a session started in the planned directory does not read our rows (audit --plan).
	IDStartBelowRoot = hookplan.ReasonStartBelowRoot
	// IDClientVersion: the installed client is older than a field our row relies on (audit --plan).
	IDClientVersion = hookplan.ReasonVersion
	// IDForeignNotAllowed: a handler not ours runs a command outside audit.allowed_commands (audit --plan).
	IDForeignNotAllowed = hookplan.ReasonNotAllowed
	// IDGeminiUntrusted: Gemini CLI's folder trust skips the workspace settings holding our rows (audit --plan --workstation).
	IDGeminiUntrusted = hookplan.ReasonGeminiUntrusted
	// IDManagedHooksOnly: the managed settings admit only managed hooks, so our rows do not run (audit --plan --workstation).
	IDManagedHooksOnly = hookplan.ReasonManagedOnly
)

// Rules returns, as a new slice, every finding kind in a stable order (the
// order of the SARIF rules array).
func Rules() []Rule { return slices.Clone(rules) }

// rules is the table Rules and RuleByID read.
var rules = []Rule{
	{IDNotGoverned, Error, "The repository is not governed (no .hookwarden.yaml).",
		"No .hookwarden.yaml at the repository root, so no agent client is guarded here. Run `hookwarden adopt <path>`."},
	{IDManifestInvalid, Error, "The repository's .hookwarden.yaml is invalid.",
		"hookwarden refuses a .hookwarden.yaml with unknown keys, wrong types or bad deny patterns, so the engine cannot read the repository's settings. The message names the key and line; edit the file, then run `hookwarden conform <path>`."},
	{IDSettingsLayer, Error, "An operator settings layer (fleet or workstation file) is invalid.",
		"A fleet (HOOKWARDEN_FLEET_CONFIG) or workstation (HOOKWARDEN_CONFIG or $XDG_CONFIG_HOME/hookwarden/config.yaml) settings file fails to parse; the message names the layer, the file, the key or pattern and the line. Fix that file."},
	{IDRowMissing, Error, "A selected client's hook row is missing.",
		"The manifest selects the client and event, but the client's settings file has no handler that runs the hookwarden launcher or engine for that event. Run `hookwarden conform <path>`."},
	{IDMatcherMismatch, Error, "Our hook row is registered under a matcher that does not select the row's tools.",
		"The handler runs hookwarden for the event, but its group's matcher, read the way that client reads matchers, does not select every tool the row guards (e.g. Gemini reads every matcher as an unanchored regex). Run `hookwarden conform <path>`."},
	{IDTimeoutBudget, Error, "Our hook row's timeout is at or below the engine's budget.",
		"The client kills the hook before the engine's budget for the event has run out, so a slow verdict becomes the client's timeout behaviour instead of a deny. Run `hookwarden conform <path>` to write the timeout from the registration table."},
	{IDTimeoutUnit, Error, "Our hook row's timeout is written in the wrong unit.",
		"Claude Code and Codex read hook timeouts in seconds, Gemini CLI in milliseconds (protocol/registration table). A Gemini value that reads as seconds gives the hook milliseconds; a Claude or Codex value that reads as milliseconds lets a hung hook block the agent for hours. Run `hookwarden conform <path>`."},
	{IDRowStale, Error, "Our hook row runs the form an earlier hookwarden version wrote.",
		"The handler runs exactly a registration command an earlier version wrote (templates.LegacyRegistrationCommands), which may call a launcher this version no longer renders. Run `hookwarden conform <path>` to rewrite it in place."},
	{IDNearMiss, Error, "A handler starts like our row but is not one of our forms.",
		"The handler runs our launcher (as we invoke it) or `hookwarden hook`, but with another client or event or an extra or missing argument (e.g. `… codex pre-tool --lax`, which makes the launcher exit 2 on every call). It serves no row. Run `hookwarden conform <path>`: it rewrites a near miss of a selected row in place and removes any other."},
	{IDRowUnwanted, Error, "A handler of ours serves no row the manifest selects.",
		"A handler running one of our forms (or a near miss) sits under an event, matcher or client the manifest does not select, so conform removes it. Run `hookwarden conform <path>`."},
	{IDRowNewerThanClient, Error, "A hook row of ours needs a newer client than the repository's.",
		"The row's event or form first exists in a later client version (templates/gates.json) than the one client_versions in .hookwarden.yaml declares (or, undeclared, the installed client), so that client ignores it and conform removes it. Upgrade the client and declare its version, or run `hookwarden conform <path>`."},
	{IDTimeoutDrift, Error, "Our hook row's timeout differs from the registration table's.",
		"The handler's timeout (or its absence) is not the row's client timeout from the registration table; conform writes the table's value. Run `hookwarden conform <path>`."},
	{IDCommandWindows, Error, "Our Codex hook row has no Windows form.",
		"Codex on Windows runs a handler's \"commandWindows\" instead of its \"command\", through PowerShell or cmd.exe, which cannot read the POSIX command; our rows carry a form that runs the engine through cmd.exe (templates.CommandWindows). Run `hookwarden conform <path>` to write it; Linux and macOS runs and Codex's trust of the row are unchanged."},
	{IDOnFailure, Error, "Our Claude hook row that guards an action does not fail closed.",
		"Claude Code lets a tool call through when its PreToolUse hook cannot start, crashes, times out or exits with another code than 0 or 2, unless the handler says \"onFailure\": \"block\" (Claude Code 2.1.295 and later). Our pre-tool and pre-edit handlers carry it (templates.OnFailure). Run `hookwarden conform <path>` to write it."},
	{IDNotServed, Error, "A hookwarden row is present but not served by the launcher or the engine.",
		"A handler refers to hookwarden but runs neither the launcher (.hookwarden/hook.sh) nor `hookwarden hook`, so the event is not judged by the engine. Run `hookwarden conform <path>`; remove the stray handler by hand."},
	{IDDuplicateHandler, Warning, "Several handlers serve the same hook row.",
		"More than one handler runs hookwarden for the same client event and tools; the client may run each, so one tool call is judged twice. Keep one (hookwarden never removes a row it did not write)."},
	{IDHooksDisabled, Error, "Hooks are switched off in the client's settings file.",
		"Claude Code `disableAllHooks: true` (in .claude/settings.json or .claude/settings.local.json), Gemini CLI `hooksConfig.enabled: false`, or Gemini `hooksConfig.disabled` naming our hook command: the client runs none of these hooks, ours included. Remove the switch (adopt and conform keep an operator's explicit off)."},
	{IDDroidHooksFile, Error, "Factory Droid's .factory/hooks.json exists beside our rows in .factory/settings.json.",
		"Newer Droids read hooks from .factory/hooks.json and fall back to the hooks key of .factory/settings.json only when that file is absent (docs.factory.ai/harness/hooks), while droid 0.186.0 read only settings.json (Factory-AI/factory issue 3); hookwarden writes its rows into settings.json, so a hooks.json beside it can switch them off. Move its hooks into .factory/settings.json and delete it (not verified on a real Droid)."},
	{IDCursorVersion, Warning, "Cursor's hook file does not declare \"version\": 1.",
		"Every documented .cursor/hooks.json declares the schema version at the top, {\"version\": 1, \"hooks\": {...}} (cursor.com/docs/agent/hooks; the cursor-hooks package's schema), and linters of Cursor files require it; a file without it may not be read as hooks (not verified on a real Cursor). Add \"version\": 1 at the top level; adopt writes it into a file it creates."},
	{IDClientFileInvalid, Error, "A client settings file cannot be parsed by the client.",
		"A comment or trailing comma in .claude/settings.json makes Claude Code ignore the whole file; a trailing comma or BOM in .codex/hooks.json makes Codex run no hook; Gemini CLI 0.61 exits 52 on a trailing comma or BOM. The message names the line and the fix."},
	{IDCommandPath, Error, "A hook command uses backslash paths or unquoted paths that can split on spaces.",
		"Hook commands are shell text; on Windows, Claude Code 2.1.328 runs its shell commands through Git Bash when it is installed (its bundle names CLAUDE_CODE_GIT_BASH_PATH). In bash a backslash is an escape character and an unquoted path with a space splits into two words, so the hook never runs. Run `hookwarden conform <path>` to rewrite our rows in the quoted, forward-slash form."},
	{IDRenderedMissing, Error, "A rendered hookwarden file is missing.",
		"The launcher, the standalone interceptor or a plugin file the manifest's clients need is absent, so the registered hooks have nothing to run. Run `hookwarden conform <path>`."},
	{IDRenderedStale, Error, "A rendered hookwarden file is an older render.",
		"The file carries an intact render header from another hookwarden version or render. Run `hookwarden conform <path>` to refresh it."},
	{IDRenderedVersion, Note, "A rendered hookwarden file differs from this build's render only in its version stamp.",
		"Another hookwarden version rendered the file, and this build renders the same body: nothing to fix, and conform leaves it (so a team with mixed installs does not rewrite the file back and forth). The note says which versions are in use."},
	{IDRenderedEdited, Error, "A rendered hookwarden file was edited by hand (or carries no render header).",
		"The SHA-256 of the body differs from the digest in its render header, or it has no header: conform keeps it. Review the edit, then run `hookwarden conform --force <path>` to restore the rendered file."},
	{IDRenderUnavailable, Error, "This build cannot render the repository's files, so they were not checked.",
		"templates.Render failed in this hookwarden build; rendered files could not be compared. Use a build whose templates render."},
	{IDGitIgnoreMissing, Error, "The managed .gitignore block is missing.",
		"Without the `# BEGIN hookwarden` … `# END hookwarden` block, .hookwarden/backups/ (copies of settings files) can be committed. Run `hookwarden conform <path>`."},
	{IDGitIgnoreMalformed, Error, "The managed .gitignore block is malformed.",
		"A BEGIN without END, an END without BEGIN, or two blocks: adopt and conform refuse to edit the file. Repair the markers by hand, then run `hookwarden conform <path>`."},
	{IDGitIgnoreStale, Error, "The managed .gitignore block differs from the current one.",
		"The lines between the markers are not the block this version writes. Run `hookwarden conform <path>`."},
	{IDBackupsNotIgnored, Error, "Backups are not ignored by git.",
		"A rule in the repository's ignore files re-includes .hookwarden/backups/, so a backup of a settings file could be committed. Remove that rule."},
	{IDHooksPath, Error, "core.hooksPath points away from the hook runner the repository declares.",
		"The repository's git config sets core.hooksPath to a directory that is not the declared runner's (e.g. /dev/null), so git hooks, hookwarden's lefthook and pre-commit jobs included, do not run. Run `git config --unset core.hooksPath` or point it at the runner's directory."},
	{IDCodexTrust, Note, "Codex skips project hooks until each user trusts them.",
		"Codex CLI 0.169.0 reads .codex/ only in a trusted project and runs a hook only when the user's config.toml holds its trusted_hash (observed on the real client, engine/conformance); that lives outside the repository. Each developer runs `hookwarden codex-trust <path>` once."},
	{IDCodexHooksUnloaded, Error, "Codex loads no hook from .codex/hooks.json.",
		"The file has a shape Codex CLI 0.169.0 refuses as a whole (e.g. a non-integer timeout or a handler without a command), so none of its hooks run. Run `hookwarden conform <path>` or repair the named handler."},
	{IDLefthookNotExtended, Error, "The repository's lefthook config does not extend hookwarden's lefthook jobs file, and adopt cannot make it.",
		"lefthook 2.x reads one main config (lefthook.yml, .lefthook.yml, .config/lefthook.yml, then the .yaml, .json, .jsonc and .toml forms) and merges the files its extends: list names; hookwarden's jobs live in .hookwarden/lefthook.yml. adopt appends a managed extends: block to a YAML config without an extends: key of its own; a config with its own extends: list, a JSON or TOML config, or one that does not parse is left to you: add .hookwarden/lefthook.yml to its extends: list. Until then `lefthook run pre-tool` runs none of hookwarden's jobs."},
	{IDLefthookForeignJob, Error, "A setting in the repository's lefthook config changes one of hookwarden's jobs.",
		"lefthook 2.x merges jobs of one name across its config files field by field (observed on 2.2.1: a `hookwarden pre-tool` job with `skip: true` in lefthook.yml skipped ours; one in lefthook-local.yml replaced our command), and a hook-level `skip:`, `only:` or `exclude_tags:` naming our job skips it (observed on 2.2.1; lefthook then exits 0, so the agent's call goes through). Rename or remove the job, or remove the setting from the hook; hookwarden never edits it."},
	{IDConformDrift, Error, "conform would change a file that no other finding explains.",
		"audit is the dry run of conform: it plans conform on the repository and reports every file conform would write. This finding names a change the other rules do not describe (for instance a compiled context file gone stale after an AGENTS.md edit). Run `hookwarden conform <path>`."},
	{IDLeftoverTemporary, Error, "A temporary file of an interrupted hookwarden run is left in the repository.",
		"A run killed between creating a write's temporary file (\".\" + the file's name + digits, beside it) and renaming it leaves the temporary; the file itself holds its old or its new bytes. The next adopt or conform removes it. Run `hookwarden conform <path>`."},
	{IDStepDeclined, Note, "An adopt step is declined, so audit does not check it.",
		"The manifest's `decline:` lists the step; the files it writes are neither written by adopt nor checked by audit."},
	{IDClientFileRejected, Error, "The client parses a settings file but rejects it as a whole.",
		"Claude Code 2.1.328 skips a whole settings file when a setting fails its schema (measured: \"permissions\": 5, \"model\": 5, \"cleanupPeriodDays\": -1, \"statusLine\": 5), so no hook in it runs, ours included. The message names the setting and line; repair it. Reported by `hookwarden audit --plan`."},
	{IDStartBelowRoot, Warning, "A session started in the planned directory does not read our rows.",
		"Claude Code 2.1.328 and Gemini CLI 0.61.0 read project settings from the directory the session starts in, not the repository root, so a session started below the root runs none of the root's hooks. Start the client at the repository root. Reported by `hookwarden audit --plan <subdirectory>`."},
	{IDClientVersion, Warning, "The installed client is older than a field our row relies on.",
		"The client found on PATH is older than the release that introduced a field our row carries (Claude Code's \"onFailure\": \"block\" needs 2.1.295), so the row fires but a hook that cannot start, crashes or times out lets the call through. Upgrade the client. Reported by `hookwarden audit --plan`."},
	{IDForeignNotAllowed, Error, "A hook handler that is not ours runs a command outside the operator's allow-list.",
		"The fleet or workstation settings set audit.allowed_commands (RE2, each matched against the whole command), and this handler's command matches no pattern of a layer that sets it. The client runs it unjudged: a package that writes a SessionStart hook into a user's settings is the supply-chain case. With --workstation the clients' user-level files are checked too. Remove the handler, or allow it. Reported by `hookwarden audit --plan`."},
	{IDGeminiUntrusted, Error, "Gemini CLI does not trust the folder, so it skips the workspace settings holding our rows.",
		"Gemini CLI 0.61.0 turns folder trust on by default (security.folderTrust.enabled, read from the system defaults, user and system settings) and loads <start>/.gemini/settings.json only when ~/.gemini/trustedFolders.json ($GEMINI_CLI_TRUSTED_FOLDERS_PATH) trusts the folder: the longest rule path covering it wins, TRUST_FOLDER covers the folder and everything below it, TRUST_PARENT its parent, DO_NOT_TRUST untrusts. An untrusted workspace runs none of its hooks, ours included. Trust the repository (Gemini's trust dialog, or \"<repository>\": \"TRUST_FOLDER\" in trustedFolders.json). Reported by `hookwarden audit --plan --workstation`."},
	{IDManagedHooksOnly, Error, "The managed settings admit only managed hooks, so our rows do not run.",
		"Claude Code 2.1.328 runs only the hooks of its managed settings (managed-settings.json and managed-settings.d/*.json in /etc/claude-code, /Library/Application Support/ClaudeCode or C:\\Program Files\\ClaudeCode) and of plugins they enable when those set allowManagedHooksOnly: true; Codex CLI 0.169.0 runs only managed hooks when /etc/codex/requirements.toml sets allow_managed_hooks_only = true. Every user, project and local hook is skipped, ours included. Have the administrator register hookwarden's rows in the managed settings, or lift the switch. Reported by `hookwarden audit --plan --workstation`."},
	{IDRepositoryUnreadable, Error, "A repository file could not be read safely.",
		"A file audit must read is a symlink, FIFO, device or unreadable; audit reads nothing through a symlink and reports what it could not check."},
}

// RuleByID returns the rule with id and whether it exists.
func RuleByID(id string) (Rule, bool) {
	for _, r := range rules {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}
