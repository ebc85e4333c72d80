package templates

import "fmt"

// EngineCommand returns the bare engine call a handler may register
// instead of the launcher, `hookwarden hook <client> <event>` (the hook verb
// of an installed engine on PATH). Adopt never writes it, but a handler
// running exactly it is ours and serves the (client, event) row. Errors as
// RegistrationCommand.
func EngineCommand(client, event string) (string, error) {
	if _, err := RegistrationCommand(client, event); err != nil {
		return "", err
	}
	return "hookwarden hook " + client + " " + event, nil
}

// legacyLauncherPrefixes lists, per client, how earlier hookwarden
// versions reached the launcher, newest first (git history of
// templates/registration.go): 5b5a4c2 (2026-11-29) wrote `python3 -I -S …`,
// 0f4dbc6 (2026-11-29) `python3 …` without -I -S; the POSIX sh launcher
// (`sh … .hookwarden/hook.sh`, issue 16) replaced both, and the sourced
// forms (sourcedForm, 2026-12-01) replaced `sh …` for claude, codex, gemini
// and agy. While a prefix is still
// launcherPrefix's, the current form wins (adopt asks for the current form
// first), so listing it here early is harmless.
//
// Whoever changes launcherPrefix or RegistrationCommand must add the form
// being replaced here, so conform migrates the rows earlier versions wrote and audit
// reports them as stale instead of leaving them as foreign rows that run a
// launcher which is no longer rendered.
func legacyLauncherPrefixes(client string) []string {
	switch client {
	case "claude":
		return []string{`sh "${CLAUDE_PROJECT_DIR}/.hookwarden/hook.sh"`, `python3 -I -S "${CLAUDE_PROJECT_DIR}/.hookwarden/hook.py"`, `python3 "${CLAUDE_PROJECT_DIR}/.hookwarden/hook.py"`}
	case "codex":
		return []string{`sh -c 'd=$PWD; while [ -n "$d" ] && [ ! -f "$d/.hookwarden/hook.sh" ]; do d=${d%/*}; done; hw_self=$d/.hookwarden/hook.sh; . "$hw_self"' hookwarden`, `python3 -I -S "$(git rev-parse --show-toplevel)/.hookwarden/hook.py"`, `python3 "$(git rev-parse --show-toplevel)/.hookwarden/hook.py"`}
	case "gemini":
		return []string{`sh .hookwarden/hook.sh`, `python3 -I -S .hookwarden/hook.py`, `python3 .hookwarden/hook.py`}
	case "opencode", "lefthook":
		return []string{`python3 -I -S .hookwarden/hook.py`, `python3 .hookwarden/hook.py`}
	case "copilot", "cline":
		return nil // first rendered with the sh launcher
	case "cursor", "windsurf", "qwen", "droid", "kiro", "devin":
		return nil // first rendered with the sourced form
	case "agy":
		return []string{`sh hook.sh`, `python3 -I -S hook.py`, `python3 hook.py`}
	}
	return nil
}

// LegacyRegistrationCommands returns the hook command strings earlier
// hookwarden versions wrote for the (client, event) row, newest first,
// leaving out the one RegistrationCommand returns today. A handler running
// one of them is ours but stale: conform rewrites it to the current form,
// audit reports it. Errors as RegistrationCommand.
func LegacyRegistrationCommands(client, event string) ([]string, error) {
	cur, err := RegistrationCommand(client, event)
	if err != nil {
		return nil, fmt.Errorf("hookwarden: legacy registration commands: %w", err)
	}
	var out []string
	for _, p := range legacyLauncherPrefixes(client) {
		if c := p + " " + client + " " + event; c != cur {
			out = append(out, c)
		}
	}
	return out, nil
}
