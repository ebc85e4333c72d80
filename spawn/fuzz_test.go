package spawn

import (
	"encoding/json"
	"slices"
	"testing"
	"unicode/utf8"
)

// FuzzPyJSONArgv: for valid UTF-8, the serialisation is printable ASCII and
// decodes back to the same argv; ShellQuote never yields an unquoted shell
// metacharacter word.
func FuzzPyJSONArgv(f *testing.F) {
	for _, s := range []string{"", "a b", "é", "😀", "\x00\x1f\x7f", `"\`, "'", "$(x)"} {
		f.Add(s, "/bin/x")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			return
		}
		argv := []string{b, a}
		out := PyJSONArgv(argv)
		for i := 0; i < len(out); i++ {
			if out[i] < 0x20 || out[i] > 0x7e {
				t.Fatalf("non-printable byte %#x in %q", out[i], out)
			}
		}
		var back []string
		if err := json.Unmarshal([]byte(out), &back); err != nil || !slices.Equal(back, argv) {
			t.Fatalf("%q decodes to %q (%v)", out, back, err)
		}
		q := ShellQuote([]string{a})
		if q != a && (len(q) < 2 || q[0] != '\'' || q[len(q)-1] != '\'') {
			t.Fatalf("ShellQuote(%q) = %q", a, q)
		}
	})
}
