// Package jsonstr writes the inside of a JSON string the way a given JSON
// encoder does, byte for byte: the approval hash of a final argv (Python's
// json.dumps), Codex's hook trust hash (serde_json) and the redaction
// matcher's spellings of a value all need an exact encoder's output.
package jsonstr

import (
	"strings"
	"unicode/utf8"
)

// Style selects an encoder's choices beyond the escapes every JSON encoder
// makes ('"', '\', and control characters, with the short forms \b \f \n
// \r \t and \u00xx for the others):
//   - ASCII escapes DEL and every non-ASCII character as \uXXXX, beyond
//     the BMP as a UTF-16 surrogate pair, and an invalid UTF-8 byte as
//     \ufffd (Python's json.dumps default, ensure_ascii=True);
//   - Upper writes hex digits in upper case (lower case otherwise: Python,
//     serde_json, JavaScript's JSON.stringify, Go);
//   - Slash escapes '/' as \/;
//   - HTML escapes <, >, & and U+2028, U+2029 (Go's encoding/json default).
//
// Without ASCII, every other byte is written as it is (serde_json and
// JSON.stringify keep non-ASCII text).
type Style struct {
	ASCII, Upper, Slash, HTML bool
}

// Append writes s to b as the inside of a JSON string (no quotes) in style st.
func Append(b *strings.Builder, s string, st Style) {
	hex := "0123456789abcdef"
	if st.Upper {
		hex = "0123456789ABCDEF"
	}
	u := func(r rune) {
		b.WriteString(`\u`)
		for shift := 12; shift >= 0; shift -= 4 {
			b.WriteByte(hex[(r>>uint(shift))&0xf])
		}
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			u(r)
		case r == '/' && st.Slash:
			b.WriteString(`\/`)
		case (r == '<' || r == '>' || r == '&' || r == 0x2028 || r == 0x2029) && st.HTML:
			u(r)
		case r >= 0x7f && st.ASCII:
			if r > 0xffff {
				r -= 0x10000
				u(0xd800 + (r >> 10))
				u(0xdc00 + (r & 0x3ff))
			} else {
				u(r)
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
}
