package templates

// CommandWindows returns the command adopt writes into the "commandWindows"
// member of the (client, event) row's handler, the form the client runs
// instead of the POSIX command on Windows, or "" when the client documents
// no such member. Only Codex has one. The POSIX command (RegistrationCommand)
// is unchanged: what Linux and macOS users run is the same with or without
// this member.
//
// Codex facts, each with its source:
//   - the member: "commandWindows" is a field of the command handler in the
//     codex-cli 0.169.0 binary (its strings: "commandWindows", "struct
//     variant HookHandlerConfig::Command with 6 elements"), read on Windows
//     instead of "command" (OpenAI's Codex hooks documentation, as quoted by
//     obra/superpowers#1833: "an optional Windows-only command override");
//   - the trust hash: Codex 0.169.0 on Linux hashes a handler with
//     "commandWindows" exactly as one without it (measured 2026-12-05:
//     `codex app-server` hooks/list currentHash of a PreToolUse handler with
//     and without the member, both equal to internal/codexhash's), so adding
//     it leaves the rows a Linux or macOS user trusted trusted;
//   - the shell: on Windows Codex runs the hook command through the
//     session's shell, PowerShell (`powershell.exe -NoProfile -Command` or
//     pwsh) where it finds one, `%COMSPEC% /C` (cmd.exe) otherwise
//     (codex-rs hooks/src/engine/command_runner.rs build_command and
//     shell-command/src/shell_detect.rs, as read by max-sixty/worktrunk#4239
//     on Codex 0.156 and eneskirca/nodeterm#690 at rust-v0.153.4; the 0.169.0
//     binary holds hooks/src/engine/command_runner.rs and "-NoProfile");
//   - the exit codes: 2 with the reason on stderr blocks; another non-zero
//     status lets the call through (../shared/e2e README section 2).
//
// So the form must mean the same to PowerShell 5.1, PowerShell 7 and
// cmd.exe and must need no POSIX shell: `cmd /d /c "hookwarden hook codex
// EVENT"`, a native command with one quoted argument to all three (a bare
// quoted path would be a string to PowerShell, `||` a parse error to
// PowerShell 5.1). cmd.exe (/d: no AutoRun commands) runs the engine
// itself, found on PATH (hookwarden.exe, or the npm package's
// hookwarden.cmd): there is no skew-guard launcher on Windows, so
// HOOKWARDEN_BIN is not consulted and no version check runs. For the events
// that guard an action (gates) the form ends `|| exit 2` inside the quotes:
// an engine that is missing (cmd's status 9009) or fails in any other way
// becomes exit 2, Codex's block, instead of a status Codex lets through.
// Not run on Windows here: unverified with a real Windows Codex.
func CommandWindows(client, event string) (string, error) {
	if _, err := RegistrationCommand(client, event); err != nil {
		return "", err
	}
	if client != "codex" {
		return "", nil
	}
	inner := "hookwarden hook " + client + " " + event
	if gates(event) {
		inner += " || exit 2"
	}
	return `cmd /d /c "` + inner + `"`, nil
}
