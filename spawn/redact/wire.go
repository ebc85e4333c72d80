package redact

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strings"
)

// The forms a wire matcher reports a value in (WireMatch.Form).
const (
	// FormJSON is a value as written or in one of Spellings' JSON-string
	// spellings (the forms Redact replaces).
	FormJSON = "as written or JSON-escaped"
	// FormBase64 is a run of base64 characters (standard or URL alphabet,
	// with or without padding) that only the value determines, at each of
	// the three byte alignments the value can start at inside a longer
	// encoded input.
	FormBase64 = "base64"
	// FormHex is the value's bytes in lower- or upper-case hexadecimal.
	FormHex = "hex"
	// FormPercent is the value percent-encoded as a URL query or path
	// component (net/url QueryEscape, PathEscape).
	FormPercent = "percent-encoded"
)

// MinEncodedRun is the shortest base64 run a wire matcher searches for: 8
// characters (48 bits) keep a chance hit inside an unrelated megabyte of
// base64 (an image in a request) near 1 in 300 million; a value too short
// to determine 8 characters at an alignment is not searched for at that
// alignment (a value of 4 or 5 bytes at some alignments).
const MinEncodedRun = 8

// Encoding is one encoded form of a value (WireEncodings).
type Encoding struct {
	Text string // the characters searched for
	Form string // FormBase64, FormHex or FormPercent
}

// WireEncodings returns the encoded forms of raw a wire matcher searches
// for besides Spellings: hex (lower and upper case), percent-encoding
// (query and path escapes, when they differ from raw), and for each byte
// alignment a in 0..2 the base64 characters fully determined by raw when
// it follows a bytes of other input: characters ceil(8a/6) up to
// floor((8a+8·len)/6) of the encoding, in the standard and the URL
// alphabet (MinEncodedRun characters at least). Padding never lies inside
// such a run, so padded and unpadded encodings are both covered.
func WireEncodings(raw string) []Encoding {
	var out []Encoding
	add := func(text, form string) {
		for _, e := range out {
			if e.Text == text {
				return
			}
		}
		if text != raw {
			out = append(out, Encoding{text, form})
		}
	}
	h := hex.EncodeToString([]byte(raw))
	add(h, FormHex)
	add(strings.ToUpper(h), FormHex)
	add(url.QueryEscape(raw), FormPercent)
	add(url.PathEscape(raw), FormPercent)
	for a := 0; a < 3; a++ {
		in := make([]byte, a, a+len(raw))
		in = append(in, raw...)
		enc := base64.RawStdEncoding.EncodeToString(in)
		lo, hi := (8*a+5)/6, (8*a+8*len(raw))/6
		if hi-lo < MinEncodedRun {
			continue
		}
		run := enc[lo:hi]
		add(run, FormBase64)
		add(strings.NewReplacer("+", "-", "/", "_").Replace(run), FormBase64)
	}
	return out
}

// NewWireMatcher builds a matcher for traffic that must not carry a value
// at all (the spawn gateway): NewMatcher's spellings plus WireEncodings
// for each value. Use it with First; it is not meant for Redact (a token
// may spell an encoded form). Errors are NewMatcher's.
func NewWireMatcher(values map[string]string) (*Matcher, error) {
	return buildMatcher(values, true)
}

// WireMatch is the first value occurrence First found.
type WireMatch struct {
	Token string // the value's token (its name in the table)
	Form  string // FormJSON, FormBase64, FormHex or FormPercent
	Start int    // byte offset of the occurrence in the text searched
}

// First returns the first occurrence (by end) of any pattern in text, and
// whether there was one: one DFA pass that stops there (as Contains).
func (m *Matcher) First(text []byte) (WireMatch, bool) {
	if m.ac == nil {
		return WireMatch{}, false
	}
	ms := m.ac.FindAll(text, 1)
	if len(ms) == 0 {
		return WireMatch{}, false
	}
	form := FormJSON
	if m.forms != nil {
		form = m.forms[ms[0].PatternID]
	}
	return WireMatch{Token: m.tokens[ms[0].PatternID], Form: form, Start: ms[0].Start}, true
}

// Patterns returns how many byte strings the matcher searches for (the
// spellings and encodings of every value).
func (m *Matcher) Patterns() int { return len(m.patterns) }
