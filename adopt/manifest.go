package adopt

import (
	"fmt"
	"strings"
)

// ManifestText returns the `.hookwarden.yaml` adopt creates once (and never
// rewrites): a commented YAML document that settings.Parse reads as a
// repository layer with version 1, the given clients, decline list and
// hooks.events, and an empty operator deny list.
func ManifestText(clients, decline, events []string) []byte {
	var b strings.Builder
	b.WriteString("# hookwarden: this file marks the repository as governed.\n")
	b.WriteString("# `hookwarden adopt` created it once and never rewrites it; edit it by hand,\n")
	b.WriteString("# then run `hookwarden conform .` to re-apply. Settings from the fleet and\n")
	b.WriteString("# workstation layers may only add restrictions to what is written here.\n")
	b.WriteString("version: 1\n\n")
	b.WriteString("# Clients whose hooks hookwarden registers and renders:\n")
	b.WriteString("# claude, codex, gemini (settings files), agy, opencode (plugin files).\n")
	fmt.Fprintf(&b, "clients: %s\n\n", flow(clients))
	b.WriteString("# Adopt steps to skip: git-ignore, launcher, interceptor, agy-plugin,\n")
	b.WriteString("# opencode-plugin, context, agent-hooks.\n")
	fmt.Fprintf(&b, "decline: %s\n\n", flow(decline))
	b.WriteString("hooks:\n")
	b.WriteString("  # Neutral events registered in each client's settings file:\n")
	b.WriteString("  # pre-tool, pre-edit, post-tool, stop, prompt (the clock line).\n")
	fmt.Fprintf(&b, "  events: %s\n\n", flow(events))
	b.WriteString("policy:\n")
	b.WriteString("  # Extra deny patterns (RE2, at most 64, each at most 512 bytes), added to\n")
	b.WriteString("  # the built-in rules; no setting can switch a built-in rule off.\n")
	b.WriteString("  deny: []\n")
	return []byte(b.String())
}

func flow(items []string) string {
	return "[" + strings.Join(items, ", ") + "]"
}

// keyLine returns the 1-based line of the first top-level key `key:` in a
// YAML manifest, or 1 when it is not found (the error still names the file).
func keyLine(data []byte, key string) int {
	for i, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, key+":") {
			return i + 1
		}
	}
	return 1
}
