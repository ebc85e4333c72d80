package templates

import (
	"fmt"
	"strings"

	"github.com/hookwarden/hookwarden/protocol/registration"
)

// launcherPath returns how client's hook runner names the launcher
// (.hookwarden/hook.sh, read by the client's own shell, so neither the file's
// mode nor a noexec mount matters), as a shell word, and whether the client
// has a sourced form (lefthook and opencode do not: see launcherPrefix). Each
// fact was checked against the client's bundle and the real client on this
// machine (2026-11-29 and 2026-12-01, a probe hook recording argv, cwd and the
// parent shell, run through ../shared/e2e's mock):
//
//   - claude (Claude Code 2.1.328): a command without `args` runs through
//     `/bin/sh -c <command>` on Linux and macOS whatever $SHELL is (bundle,
//     the command hook runner: on a non-Windows host it spawns the command
//     with `{shell: true}` and no `shell` override; the `shell` setting only
//     selects PowerShell; measured `/bin/sh -c`), cwd the project and
//     CLAUDE_PROJECT_DIR set. The bundle also substitutes
//     ${CLAUDE_PROJECT_DIR} textually in exec-form commands/args and rewrites
//     it to ${env:CLAUDE_PROJECT_DIR} for PowerShell hooks, while a bare
//     $CLAUDE_PROJECT_DIR draws a PowerShell warning — so the braced,
//     double-quoted form is the portable one.
//   - codex (Codex CLI 0.169.0): hooks run as `/bin/bash -c <command>` with
//     cwd the session's directory, which may be a subdirectory of the
//     repository (measured: session in repo/sub, hook cwd repo/sub), and
//     Codex exports no project variable (e2e README section 2: CODEX_HOME,
//     CODEX_MANAGED_BY_NPM, CODEX_MANAGED_PACKAGE_ROOT only), so the command
//     walks up from $PWD with shell builtins to the nearest directory
//     holding .hookwarden/hook.sh (the governed root: adopt renders the
//     launcher there). Codex's trust hash covers the command string (e2e
//     README section 2), so changing this string needs re-trust (`hookwarden
//     codex-trust`).
//   - gemini (Gemini CLI 0.61.0): hooks run as `bash -c <command>` (Windows:
//     PowerShell -Command) with cwd the project directory (bundle
//     executeCommandHook: spawn(shell, [...argsPrefix, command], {cwd:
//     input.cwd}); measured cwd = project), so a relative path works;
//     Gemini's own $GEMINI_PROJECT_DIR substitution is not needed.
//   - cursor (Cursor; documented, not observed): hooks.json commands run
//     with CURSOR_PROJECT_DIR set to the project root and CLAUDE_PROJECT_DIR
//     as its alias (radiusmethod/crow issue 417 quoting the Cursor hooks
//     docs); their working directory is not stated alike by the sources
//     (the cursor-hooks package README: "Hook command paths are relative to
//     the .cursor/hooks.json file location"), so the path comes from the
//     variable. Unset, the path is /.hookwarden/hook.sh, which is not read,
//     and the row's last statements deny.
//   - windsurf (Windsurf Cascade hooks; documented, not observed): the
//     sources found name no project variable and do not state the default
//     working directory (a handler may set "working_directory";
//     docs.windsurf.com/windsurf/cascade/hooks), so the command walks up
//     from $PWD to the nearest .hookwarden/hook.sh like Codex's; from a
//     directory outside the repository it finds none and the row's last
//     statements deny.
//   - droid (Factory Droid; documented, not observed): hooks run from
//     Droid's current working directory, "which may change during
//     execution", with FACTORY_PROJECT_DIR set to the project root
//     (docs.factory.ai/reference/hooks-reference), so the path comes from
//     the variable; unset, the launcher is not read and the row denies.
//   - devin (Devin CLI, run by Devin Desktop; documented, not observed):
//     DEVIN_PROJECT_DIR is set to the project root
//     (docs.devin.ai/cli/extensibility/hooks/overview), so the path comes
//     from the variable; unset, the launcher is not read and the row denies
//     (exit 2, the one exit Devin reads as a block).
//   - qwen (Qwen Code 0.24.4): `bash -c COMMAND` with cwd the session's
//     directory and CLAUDE_PROJECT_DIR, GEMINI_PROJECT_DIR and
//     QWEN_PROJECT_DIR all set to that directory, not the repository root
//     (bundle executeCommandHook; observed), so the command walks up from
//     $PWD like Codex's.
//   - kiro (Kiro CLI): the working directory and shell of a hook command
//     are not documented (kiro.dev/docs/cli/hooks, /docs/cli/v3/hooks: the
//     payload carries cwd), so the command walks up from $PWD too; started
//     outside the repository it finds no launcher and denies (exit 2, the
//     one exit Kiro reads as a block).
//   - agy (Antigravity): runs plugin hook commands from the directory holding
//     hooks.json (issue 4), where a byte-identical launcher copy lives; its
//     shell is not recorded (/bin/sh -c assumed; the form is POSIX).
func launcherPath(client string) (pre, path string, ok bool) {
	switch client {
	case "claude":
		return "", `"${CLAUDE_PROJECT_DIR}/.hookwarden/hook.sh"`, true
	case "codex":
		return `hw_d=$PWD; while [ -n "$hw_d" ] && [ ! -f "$hw_d/.hookwarden/hook.sh" ]; do hw_d=${hw_d%/*}; done; `, `"$hw_d/.hookwarden/hook.sh"`, true
	case "cursor":
		return "", `"${CURSOR_PROJECT_DIR}/.hookwarden/hook.sh"`, true
	case "droid":
		return "", `"${FACTORY_PROJECT_DIR}/.hookwarden/hook.sh"`, true
	case "devin":
		// Devin CLI sets DEVIN_PROJECT_DIR to the project root
		// (docs.devin.ai/cli/extensibility/hooks/overview, read 2026-12-05;
		// not observed).
		return "", `"${DEVIN_PROJECT_DIR}/.hookwarden/hook.sh"`, true
	case "windsurf", "qwen", "kiro":
		return `hw_d=$PWD; while [ -n "$hw_d" ] && [ ! -f "$hw_d/.hookwarden/hook.sh" ]; do hw_d=${hw_d%/*}; done; `, `"$hw_d/.hookwarden/hook.sh"`, true
	case "gemini":
		return "", `.hookwarden/hook.sh`, true
	case "agy":
		// "./": `.` looks a name without a slash up on PATH, not in the
		// current directory (POSIX; dash does only that).
		return "", `./hook.sh`, true
	}
	return "", "", false
}

// launcherPrefix returns the words before "CLIENT EVENT" for the clients
// that run the launcher as a program of its own: opencode's rendered plugin
// runs it itself (node child_process.spawn of /bin/sh, no shell, no PATH
// lookup, cwd the project: ctx.worktree or ctx.directory), and lefthook jobs
// run from the repository root (lefthook's default root). copilot (GitHub
// Copilot CLI 1.0.102): a .github/hooks command runs through bash with cwd
// the git root, also when the session starts in a subdirectory (measured
// with a probe hook through the loopback model; changelog.json of the
// package: "Hook commands without an explicit `cwd` again run in the project
// root"), so the path is relative; the engine's cross-load check
// (engine/hook crossLoaded) looks for the `.hookwarden/hook.sh copilot
// EVENT` end of this form, so it keeps it (not measured for issue 16).
//
// cline (Cline; documented and read from source, not observed): Cline runs
// the executable file .clinerules/hooks/PreToolUse itself, one file for
// every tool (protocol/dialect cline.go), so its rows are two commands inside
// that file, which sets hw_root to the repository root from its own path
// (the file's directory, two levels up) before running them; the working
// directory Cline gives the file is not relied on.
func launcherPrefix(client string) (string, bool) {
	switch client {
	case "opencode", "lefthook", "copilot":
		return `sh .hookwarden/hook.sh`, true
	case "cline":
		return `sh "$hw_root/.hookwarden/hook.sh"`, true
	}
	return "", false
}

// sourcedForm returns the sourced registration command of (client, event):
// the client's own shell sets hw_self to the launcher's path and the
// positional parameters to the pair, then reads the launcher with `command .`
// (POSIX `.` takes no arguments in dash, which ignores them, hence `set --`;
// `command` keeps a file that cannot be read from ending the shell, so the
// line after it runs). The launcher always exits, so that line runs only
// when it could not be read, is empty or does not parse: the events that
// guard an action (gates) then deny (exit 2 with the reason on stderr: a block for Claude
// Code, Codex and Gemini CLI; agy's deny is its JSON decision), other events
// end with exit 1 (a non-blocking error: Claude's Stop must not be held by
// a missing file). One shell start less than running `sh hook.sh`: measured
// in skewguard's BenchmarkRegisteredRow.
func sourcedForm(client, event string) (string, bool) {
	pre, path, ok := launcherPath(client)
	if !ok {
		return "", false
	}
	why := `hookwarden: the launcher $hw_self could not be read; run hookwarden conform`
	var fail string
	switch {
	case !gates(event):
		fail = `echo "` + why + `" >&2; exit 1`
	case client == "agy":
		fail = `echo '{"decision":"deny","reason":"[BLOCKED BY hookwarden:launcher] the launcher could not be read; run hookwarden conform"}'; exit 0`
	default:
		fail = `echo "[BLOCKED BY hookwarden:launcher] ` + strings.TrimPrefix(why, "hookwarden: ") + `" >&2; exit 2`
	}
	return pre + `hw_self=` + path + `; set -- ` + client + ` ` + event + `; command . "$hw_self"; ` + fail, true
}

// gates reports whether event guards an action, so a failure to judge it
// must refuse the action: pre-tool, pre-skill-shell (a skill's inline shell
// command), pre-edit, pre-dispatch (the agent tool) and pre-handback (a
// subagent's report).
func gates(event string) bool {
	switch event {
	case "pre-tool", "pre-skill-shell", "pre-edit", "pre-dispatch", "pre-handback":
		return true
	}
	return false
}

// RegistrationCommand returns the hook command string adopt writes into the
// client's settings file (or, for agy, the plugin's hooks.json) for the
// (client, event) row: for claude, codex, gemini and agy the sourced form
// (sourcedForm), e.g. `hw_self="${CLAUDE_PROJECT_DIR}/.hookwarden/hook.sh";
// set -- claude pre-tool; command . "$hw_self"; …`; for opencode and
// lefthook `sh .hookwarden/hook.sh CLIENT EVENT`. It is the one source of
// these strings; see launcherPath for the client facts behind each form. It
// returns an error when (client, event) is not a row of
// protocol/registration.Default or the client has no registration form.
func RegistrationCommand(client, event string) (string, error) {
	if !registration.Served(client, event) {
		return "", fmt.Errorf("hookwarden: registration command: %s %s is not a served pair", client, event)
	}
	if cmd, ok := sourcedForm(client, event); ok {
		return cmd, nil
	}
	prefix, ok := launcherPrefix(client)
	if !ok {
		return "", fmt.Errorf("hookwarden: registration command: client %q has no registration form", client)
	}
	return prefix + " " + client + " " + event, nil
}

// OnFailure returns the "onFailure" value adopt writes on the (client, event)
// row's handler, or "" when the row gets none. Claude Code reads it from
// 2.1.295 (release notes of v2.1.295: "Added onFailure: "block" for command
// and HTTP hooks: a hook that can't start, times out, or exits with an
// unexpected code blocks the action instead of letting it through"); the
// pinned 2.1.328's settings schema takes "continue" (the default: the failure
// is reported and the action goes ahead) or "block" ("the failure counts as
// exit code 2, so the action the event guards … is blocked. Ignored for async
// hooks and on Stop, SubagentStop, TaskCompleted and TeammateIdle"). So it is
// "block" on Claude's rows that guard an action (gates: pre-tool, pre-edit,
// pre-dispatch, pre-handback, all PreToolUse; and pre-skill-shell,
// PreSkillShellCommand, which Claude Code 2.1.332's failure set FV names
// beside PreToolUse and PermissionRequest: bundle, the hook runner's
// onFailure branch), and "" elsewhere: Stop ignores it, post-tool guards nothing
// (skewguard's TestRealClaudeOnFailure observes the blocks on 2.1.328).
// Claude Code before 2.1.295 does not know the key; its settings schema
// strips keys it does not know rather than rejecting the handler (zod's
// default for objects, as 2.1.328 still does for this object) — not verified
// on an older release here. Errors as RegistrationCommand.
func OnFailure(client, event string) (string, error) {
	if _, err := RegistrationCommand(client, event); err != nil {
		return "", err
	}
	if client == "claude" && gates(event) {
		return "block", nil
	}
	return "", nil
}
