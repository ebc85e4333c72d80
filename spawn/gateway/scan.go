package gateway

import (
	"bytes"
	"encoding/json"

	"github.com/hookwarden/hookwarden/spawn/redact"
)

// maxDecodeDepth bounds how many times a JSON string inside a decoded JSON
// string is decoded again (a tool input's JSON carried as a string, and
// one more level).
const maxDecodeDepth = 3

// Scan returns the first value occurrence m finds in body and where: in
// its bytes ("body"); in any JSON string of it holding an escape, decoded
// (and any JSON string inside that, decoded again, maxDecodeDepth levels),
// so a value spelled with escapes no encoder writes (\u0067hp_…) is found
// ("decoded JSON string"); and in the body with every line break and
// \n, \r escape removed, so base64 wrapped over lines is found ("body
// without line breaks"). The cost is three linear passes of the matcher
// (the second over the escaped strings only) plus one copy of the body.
func Scan(m *redact.Matcher, body []byte) (redact.WireMatch, string, bool) {
	if hit, ok := m.First(body); ok {
		return hit, "body", true
	}
	if hit, ok := scanStrings(m, body, 1); ok {
		return hit, "decoded JSON string", true
	}
	if j, changed := joined(body); changed {
		if hit, ok := m.First(j); ok {
			return hit, "body without line breaks", true
		}
	}
	return redact.WireMatch{}, "", false
}

// scanStrings decodes each JSON string of text that holds an escape and
// scans it, and the strings inside it up to maxDecodeDepth.
func scanStrings(m *redact.Matcher, text []byte, depth int) (redact.WireMatch, bool) {
	var hit redact.WireMatch
	found := false
	eachEscapedString(text, func(q []byte) bool {
		var s string
		if json.Unmarshal(q, &s) != nil {
			return false // not a JSON string (text that only looks like one)
		}
		if h, ok := m.First([]byte(s)); ok {
			hit, found = h, true
			return true
		}
		if depth < maxDecodeDepth && bytes.IndexByte([]byte(s), '\\') >= 0 {
			hit, found = scanStrings(m, []byte(s), depth+1)
		}
		return found
	})
	return hit, found
}

// eachEscapedString calls f with each double-quoted string of text
// (quotes included) that holds a backslash, until f returns true.
func eachEscapedString(text []byte, f func([]byte) bool) {
	for i := 0; i < len(text); i++ {
		if text[i] != '"' {
			continue
		}
		start, esc := i, false
		for i++; i < len(text) && text[i] != '"'; i++ {
			if text[i] == '\\' {
				esc = true
				i++
			}
		}
		if i >= len(text) {
			return
		}
		if esc && f(text[start:i+1]) {
			return
		}
	}
}

// joined returns body without '\n', '\r' and the two-byte escapes \n and
// \r (an escaped backslash before an n stays), and whether anything was
// removed.
func joined(body []byte) ([]byte, bool) {
	if bytes.IndexAny(body, "\n\r") < 0 && !bytes.Contains(body, []byte(`\n`)) && !bytes.Contains(body, []byte(`\r`)) {
		return body, false
	}
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '\n' || c == '\r':
			continue
		case c == '\\' && i+1 < len(body) && (body[i+1] == 'n' || body[i+1] == 'r'):
			i++
			continue
		case c == '\\' && i+1 < len(body):
			out = append(out, c, body[i+1])
			i++
			continue
		}
		out = append(out, c)
	}
	return out, true
}
