package templates

import (
	"fmt"

	"github.com/hookwarden/hookwarden/engine/registration"
)

// RegistrationCommand returns the hook command string adopt writes into the
// client's settings (or plugin hooks file) for the (client, event) row, e.g.
// `python3 "${CLAUDE_PROJECT_DIR}/.hookwarden/hook.py" claude pre-tool`.
// It returns an error when the pair is not a row of the registration table
// (engine/registration.Default) or the client has no settings-file
// registration form.
func RegistrationCommand(client, event string) (string, error) {
	t, err := registration.Default()
	if err != nil {
		return "", fmt.Errorf("hookwarden: registration command: %w", err)
	}
	if _, ok := t.Lookup(client, event); !ok {
		return "", fmt.Errorf("hookwarden: registration command: %s %s is not a served pair", client, event)
	}
	var prefix string
	switch client {
	case "claude":
		prefix = `python3 "${CLAUDE_PROJECT_DIR}/.hookwarden/hook.py"`
	case "codex":
		prefix = `python3 "$(git rev-parse --show-toplevel)/.hookwarden/hook.py"`
	case "gemini":
		prefix = `python3 .hookwarden/hook.py`
	case "agy":
		prefix = `python3 hook.py`
	case "opencode", "lefthook":
		prefix = `python3 .hookwarden/hook.py`
	default:
		return "", fmt.Errorf("hookwarden: registration command: client %q has no registration form", client)
	}
	return prefix + " " + client + " " + event, nil
}
