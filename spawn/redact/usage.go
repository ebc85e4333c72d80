package redact

import "bytes"

// The messages `hookwarden redact` prints on stderr, alone, when it exits
// 2 for a usage error (cmd/hookwarden redact.go). Each is a constant that
// holds nothing from the hook's input, argv or files, so a spawner may
// show it in a refusal although it shows no other stderr of the hook.
const (
	UsageEngine       = "hookwarden redact: --engine must be claude or codex"
	UsagePromptValues = "hookwarden redact: --hook prompt needs --values with an absolute path"
	UsageHook         = "hookwarden redact: --hook must be prompt, pre-tool, permission, post-tool, stop, exit or run"
)

// UsageMessage takes a hook's stderr and returns the usage message it
// holds and true when, without surrounding whitespace, it is exactly one
// of UsageEngine, UsagePromptValues or UsageHook; otherwise "" and false
// (anything else a hook prints may hold a raw value).
func UsageMessage(stderr []byte) (string, bool) {
	s := string(bytes.TrimSpace(stderr))
	switch s {
	case UsageEngine, UsagePromptValues, UsageHook:
		return s, true
	}
	return "", false
}
