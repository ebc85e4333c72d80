package adopt

import (
	"fmt"
	"strings"

	"github.com/hookwarden/hookwarden/internal/clientname"
	"github.com/hookwarden/hookwarden/settings"
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
	comment(&b, "", "Clients whose hooks hookwarden registers and renders, of:", clientname.All())
	fmt.Fprintf(&b, "clients: %s\n\n", flow(clients))
	comment(&b, "", "Adopt steps to skip, of:", Steps()[1:])
	fmt.Fprintf(&b, "decline: %s\n\n", flow(decline))
	b.WriteString("hooks:\n")
	comment(&b, "  ", "Neutral events to register (prompt: the clock line), of:", settings.Events())
	fmt.Fprintf(&b, "  events: %s\n\n", flow(events))
	b.WriteString("policy:\n")
	b.WriteString("  # Extra deny patterns (RE2, at most 64, each at most 512 bytes), added to\n")
	b.WriteString("  # the built-in rules; no setting can switch a built-in rule off.\n")
	b.WriteString("  deny: []\n")
	return []byte(b.String())
}

// comment writes "# " lines indented by indent: lead, then names joined by
// ", " and ended by ".", wrapped before 78 columns. The lists come from the
// tables that define them (clientname.All, Steps, settings.Events), so the
// comment names every value the key accepts.
func comment(b *strings.Builder, indent, lead string, names []string) {
	line := indent + "# " + lead
	for i, n := range names {
		w := n
		if i < len(names)-1 {
			w += ","
		} else {
			w += "."
		}
		if len(line)+1+len(w) > 78 {
			b.WriteString(line + "\n")
			line = indent + "#"
		}
		line += " " + w
	}
	b.WriteString(line + "\n")
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
