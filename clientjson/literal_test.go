package clientjson

import (
	"testing"

	"github.com/tailscale/hujson"
)

// TestLiteralTextIsString: literalText gives what hujson's Literal.String
// gives for every kind of literal a client file holds, including the ones it
// hands back to the library (escapes, invalid UTF-8).
func TestLiteralTextIsString(t *testing.T) {
	for _, raw := range []string{
		`""`, `"PreToolUse"`, `"^(Bash|PowerShell)$"`, `"héllo ✓"`, `"a\"b"`, `"a\\b"`, `"\u0041\n"`,
		`"\/"`, "\"\xff\xfe\"", "\"ok\xc3\"", `"tab	in"`, `0`, `-1.5e3`, `true`, `false`, `null`, `"`, `x`,
	} {
		lit := hujson.Literal(raw)
		if got, want := literalText(lit), lit.String(); got != want {
			t.Errorf("literalText(%q) = %q, Literal.String() = %q", raw, got, want)
		}
	}
}
