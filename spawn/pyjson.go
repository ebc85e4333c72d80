package spawn

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/hookwarden/hookwarden/internal/jsonstr"
)

// PyJSONArgv serialises argv exactly as Python 3's json.dumps(argv) does with
// its defaults (ensure_ascii=True, separators ", " and ": "): a JSON array of
// strings, `"` and `\` escaped, \n \r \t \b \f by name, other control bytes,
// DEL (0x7f) and every non-ASCII rune as lowercase \uXXXX (astral runes as a UTF-16
// surrogate pair). Invalid UTF-8 bytes become U+FFFD, as a Python str cannot
// hold them. Source of the format: the issue-8 approval record, which must
// interoperate with the framework that defined it; checked against python3
// in TestPyJSONMatchesPython.
func PyJSONArgv(argv []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range argv {
		if i > 0 {
			b.WriteString(", ")
		}
		writePyString(&b, s)
	}
	b.WriteByte(']')
	return b.String()
}

func writePyString(b *strings.Builder, s string) {
	b.WriteByte('"')
	jsonstr.Append(b, s, jsonstr.Style{ASCII: true})
	b.WriteByte('"')
}

// ArgvHash returns the approval key of a final argv: the lowercase hex
// SHA-256 (64 characters) of PyJSONArgv(argv) encoded as UTF-8 (all ASCII).
func ArgvHash(argv []string) string {
	sum := sha256.Sum256([]byte(PyJSONArgv(argv)))
	return hex.EncodeToString(sum[:])
}
