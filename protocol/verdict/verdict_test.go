package verdict

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCap checks that reasons are cut to MaxReasonBytes without splitting a
// UTF-8 sequence, and that short reasons pass unchanged.
func TestCap(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want int // length of the result in bytes
	}{
		{"short", "denied", 6},
		{"exact", strings.Repeat("a", MaxReasonBytes), MaxReasonBytes},
		{"ascii over", strings.Repeat("a", MaxReasonBytes+10), MaxReasonBytes},
		// 4095 ASCII bytes then a 3-byte rune: the rune would straddle the cap.
		{"rune at the cap", strings.Repeat("a", MaxReasonBytes-1) + "€€", MaxReasonBytes - 1},
		{"runes only", strings.Repeat("é", MaxReasonBytes), MaxReasonBytes},
	}
	for _, c := range cases {
		got := Cap(c.in)
		if len(got) != c.want || !utf8.ValidString(got) || !strings.HasPrefix(c.in, got) {
			t.Errorf("%s: Cap gave %d bytes (valid UTF-8 %v), want %d bytes, a prefix of the input", c.name, len(got), utf8.ValidString(got), c.want)
		}
	}
}

// TestKindString checks the names the dialects and --json output use.
func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Allow: "allow", Skip: "skip", Deny: "deny", Halt: "halt", Context: "context", Kind(99): "unknown"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}

// TestEscapeControls: control characters a reason may quote from a payload
// or a path are written as escapes; printable text, U+FFFD and (with
// keepLines) line breaks and tabs are kept byte for byte.
func TestEscapeControls(t *testing.T) {
	cases := []struct {
		in, lines, oneLine string
	}{
		{"plain text, ünïcode", "plain text, ünïcode", "plain text, ünïcode"},
		{"a\x00b", `a\x00b`, `a\x00b`},
		{"\x1b[31mRED\x1b[0m", `\x1b[31mRED\x1b[0m`, `\x1b[31mRED\x1b[0m`},
		{"p1\n\np2\tx", "p1\n\np2\tx", `p1\x0a\x0ap2\x09x`},
		{"cr\roverwrite", `cr\x0doverwrite`, `cr\x0doverwrite`},
		{"del\x7f c1\u0085 ls\u2028", `del\x7f c1\u0085 ls\u2028`, `del\x7f c1\u0085 ls\u2028`},
		{"bad \xff byte, kept \ufffd", `bad \xff byte, kept ` + "\ufffd", `bad \xff byte, kept ` + "\ufffd"},
	}
	for _, c := range cases {
		if got := EscapeControls(c.in, true); got != c.lines {
			t.Errorf("EscapeControls(%q, true) = %q, want %q", c.in, got, c.lines)
		}
		if got := EscapeControls(c.in, false); got != c.oneLine {
			t.Errorf("EscapeControls(%q, false) = %q, want %q", c.in, got, c.oneLine)
		}
	}
}
