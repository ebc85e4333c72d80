package templates

import (
	"fmt"

	"github.com/hookwarden/hookwarden/engine/registration"
)

// launcherPrefix returns how client's hook runner reaches the launcher
// (.hookwarden/hook.sh, run by sh so neither the file's mode nor a
// noexec mount matters). Each form was checked against the client's bundle
// and the real client on this machine (2026-11-29, a probe hook recording
// argv, cwd and the parent shell, run through ../shared/e2e's mock):
//
//   - claude (Claude Code 2.1.328): a command without `args` runs through a
//     shell (bundle, the command hook schema's `args` description: "When
//     absent, `command` runs through a shell (bash on POSIX, PowerShell on
//     Windows without Git Bash)"; its `shell` description: "'bash' uses your
//     $SHELL (bash/zsh/sh)"); measured here as `/bin/sh -c <command>` with
//     cwd the project and CLAUDE_PROJECT_DIR set. The bundle also
//     substitutes ${CLAUDE_PROJECT_DIR} textually in exec-form
//     commands/args and rewrites it to ${env:CLAUDE_PROJECT_DIR} for
//     PowerShell hooks, while a bare $CLAUDE_PROJECT_DIR draws a PowerShell
//     warning — so the braced, double-quoted form is the portable one. The
//     form is one simple command, which sh, bash and zsh all exec in place.
//   - codex (Codex CLI 0.169.0): hooks run as `/bin/bash -c <command>` with
//     cwd the session's directory, which may be a subdirectory of the
//     repository (measured: session in repo/sub, hook cwd repo/sub), and
//     Codex exports no project variable (e2e README section 2: CODEX_HOME,
//     CODEX_MANAGED_BY_NPM, CODEX_MANAGED_PACKAGE_ROOT only), so the command
//     must find the repository itself. Earlier forms asked
//     `git rev-parse --show-toplevel` (one more process, about 1.5 ms here);
//     this one is `sh -c '<walk>' hookwarden codex EVENT`, whose script walks
//     up from $PWD with shell builtins to the nearest directory holding
//     .hookwarden/hook.sh (the governed root: adopt renders the launcher
//     there) and sources the launcher into that same sh (hw_self names it,
//     since $0 is then "hookwarden"): no process but one sh. It is one simple
//     command, as clientjson.Owner requires of our forms. Codex's trust hash
//     covers the command string (e2e README section 2), so changing this
//     string needs re-trust (`hookwarden codex-trust`).
//   - gemini (Gemini CLI 0.61.0): hooks run as `bash -c <command>` (Windows:
//     PowerShell -Command) with cwd the project directory (bundle
//     executeCommandHook: spawn(shell, [...argsPrefix, command], {cwd:
//     input.cwd}); measured cwd = project), so a relative path works;
//     Gemini's own $GEMINI_PROJECT_DIR substitution is not needed.
//   - agy (Antigravity): runs plugin hook commands from the directory holding
//     hooks.json (issue 4), where a byte-identical launcher copy lives.
//   - opencode: the rendered plugin runs the launcher itself (node
//     child_process.spawn of /bin/sh, no shell, no PATH lookup) with cwd the project
//     (ctx.worktree or ctx.directory), so the path is relative.
//   - lefthook: jobs run from the repository root (lefthook's default root).
//   - copilot (GitHub Copilot CLI 1.0.102): a .github/hooks command runs
//     through bash with cwd the git root, also when the session starts in a
//     subdirectory (measured with a probe hook through the loopback model;
//     changelog.json of the package: "Hook commands without an explicit
//     `cwd` again run in the project root"), so the path is relative. The
//     engine's cross-load check (engine/hook crossLoaded) looks for the
//     `.hookwarden/hook.sh copilot EVENT` end of this form.
func launcherPrefix(client string) (string, bool) {
	switch client {
	case "claude":
		return `sh "${CLAUDE_PROJECT_DIR}/.hookwarden/hook.sh"`, true
	case "codex":
		return `sh -c 'd=$PWD; while [ -n "$d" ] && [ ! -f "$d/.hookwarden/hook.sh" ]; do d=${d%/*}; done; hw_self=$d/.hookwarden/hook.sh; . "$hw_self"' hookwarden`, true
	case "gemini", "opencode", "lefthook", "copilot":
		return `sh .hookwarden/hook.sh`, true
	case "agy":
		return `sh hook.sh`, true
	}
	return "", false
}

// RegistrationCommand returns the hook command string adopt writes into the
// client's settings file (or, for agy, the plugin's hooks.json) for the
// (client, event) row, e.g.
// `python3 -I -S "${CLAUDE_PROJECT_DIR}/.hookwarden/hook.py" claude pre-tool`. It is
// the one source of these strings; see launcherPrefix for the client facts
// behind each form. It returns an error when (client, event) is not a row of
// engine/registration.Default or the client has no registration form.
func RegistrationCommand(client, event string) (string, error) {
	t, err := registration.Default()
	if err != nil {
		return "", fmt.Errorf("hookwarden: registration command: %w", err)
	}
	if _, ok := t.Lookup(client, event); !ok {
		return "", fmt.Errorf("hookwarden: registration command: %s %s is not a served pair", client, event)
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
// "block" on Claude's rows that guard an action, pre-tool and pre-edit
// (PreToolUse), and "" elsewhere: Stop ignores it, post-tool guards nothing
// (skewguard's TestRealClaudeOnFailure observes the blocks on 2.1.328).
// Claude Code before 2.1.295 does not know the key; its settings schema
// strips keys it does not know rather than rejecting the handler (zod's
// default for objects, as 2.1.328 still does for this object) — not verified
// on an older release here. Errors as RegistrationCommand.
func OnFailure(client, event string) (string, error) {
	if _, err := RegistrationCommand(client, event); err != nil {
		return "", err
	}
	if client == "claude" && (event == "pre-tool" || event == "pre-edit") {
		return "block", nil
	}
	return "", nil
}
