package codextrust

import (
	"strings"
	"testing"
)

// FuzzSetString: for any document, SetString either refuses it or returns a
// document that parses, holds the value, keeps the input as its prefix when
// it appended a new table, and is unchanged by a second application.
func FuzzSetString(f *testing.F) {
	for _, s := range []string{"", "a = 1\n", "[projects.\"/r\"]\ntrust_level = \"x\"\n", "s = \"\"\"\n[x]\n\"\"\"\n", "a = [\n[1],\n]\n", "[hooks]\nstate.\"k\".trusted_hash = \"o\"\n", "x = 1 # c", "a = { b = 1 }\r\n"} {
		f.Add(s, "k:pre_tool_use:0:0", "sha256:00")
	}
	f.Fuzz(func(t *testing.T, doc, key, value string) {
		table := []string{"hooks", "state", key}
		out, changed, err := setString([]byte(doc), table, "trusted_hash", value)
		if err != nil {
			return
		}
		got, ok, err := getString(out, table, "trusted_hash")
		if err != nil || !ok || got != value {
			t.Fatalf("value not set: %v %v %q", err, ok, got)
		}
		if changed && strings.Count(string(out), "[hooks.state.") > strings.Count(doc, "[hooks.state.") && !strings.HasPrefix(string(out), doc) {
			t.Fatalf("appending changed the operator's bytes: %q -> %q", doc, out)
		}
		again, changed2, err := setString(out, table, "trusted_hash", value)
		if err != nil || changed2 || string(again) != string(out) {
			t.Fatalf("not idempotent: %v", err)
		}
	})
}
