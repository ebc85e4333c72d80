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
