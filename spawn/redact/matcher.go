// Package redact is the matcher and the run files of the spawn compiler's
// redaction entry (issue 17, ADR-0134 D7): it finds the values of a run's
// redaction table as exact byte strings, also as the engines write them
// inside JSON strings, replaces each with its token, and reads and writes
// the table under the run files' rules (mode 0600, this account's, written
// through an exclusive temporary file and a rename).
//
// Matching is one Aho-Corasick pass over the text (github.com/coregx/ahocorasick,
// FindAllOverlapping: every occurrence, linear in the text plus the
// occurrences reported); overlapping occurrences are merged so no byte of
// any value survives. The library's leftmost-longest Find was measured
// quadratic (40,000 short matches under a 100-byte pattern: 8 s) and its
// FindAll reports the first occurrence to end, which left the tail of a
// value that holds another value ("ghp_[A]12345678"), so neither is used. Every
// redaction is verified by a second pass: when replaced text still holds a
// value (a token and its neighbours spelling one), the pass repeats, at
// most maxPasses times, and then fails; a Redact that returns no error
// returns text holding no value of the table in any of its spellings.
package redact

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/coregx/ahocorasick"

	"github.com/hookwarden/hookwarden/internal/jsonstr"
)

// MinValueBytes is the shortest value a table may hold: a shorter one
// would be found inside ordinary words everywhere (ADR-0134 D7 takes
// named environment values from eight bytes; a configured value from four).
const MinValueBytes = 4

// maxPasses bounds the verify-and-repeat of Redact.
const maxPasses = 4

// ErrResidual is returned when text still holds a table value after
// maxPasses replacement passes.
var ErrResidual = errors.New("redaction left a table value in the text")

// Matcher finds a table's values in text. Build it with NewMatcher; it is
// safe for concurrent use.
type Matcher struct {
	ac       *ahocorasick.Automaton
	tokens   []string // token per pattern id
	forms    []string // the encoding per pattern id (NewWireMatcher; nil otherwise)
	patterns [][]byte
}

// validToken reports whether tok can stand in text and inside a JSON
// string unchanged: 1 to 128 printable ASCII bytes without '"' or '\'.
func validToken(tok string) bool {
	if tok == "" || len(tok) > 128 {
		return false
	}
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// NewMatcher builds a matcher over values (token -> raw value). Each raw
// value is searched for as written and in each JSON-string spelling an
// engine may write it in (Spellings). It returns an error for an invalid
// token, a value shorter than MinValueBytes or not valid UTF-8, or a token
// that contains a value (its replacement would spell the value again). An
// empty table gives a matcher that finds nothing.
func NewMatcher(values map[string]string) (*Matcher, error) {
	return buildMatcher(values, false)
}

// buildMatcher is NewMatcher; with wire set every value is also searched
// for in its WireEncodings (each pattern remembering its form), and a
// token may contain an encoded form (a wire matcher never replaces text).
func buildMatcher(values map[string]string, wire bool) (*Matcher, error) {
	toks := make([]string, 0, len(values))
	for t := range values {
		toks = append(toks, t)
	}
	slices.Sort(toks)
	m := &Matcher{}
	seen := map[string]bool{}
	for _, t := range toks {
		raw := values[t]
		if !validToken(t) {
			return nil, fmt.Errorf("token %q: want 1-128 printable ASCII bytes without '\"' or '\\'", t)
		}
		if len(raw) < MinValueBytes {
			return nil, fmt.Errorf("token %q: its value is shorter than %d bytes", t, MinValueBytes)
		}
		if !utf8.ValidString(raw) {
			return nil, fmt.Errorf("token %q: its value is not valid UTF-8", t)
		}
		add := func(s, form string) {
			if seen[s] {
				return
			}
			seen[s] = true
			m.patterns = append(m.patterns, []byte(s))
			m.tokens = append(m.tokens, t)
			if wire {
				m.forms = append(m.forms, form)
			}
		}
		for _, s := range Spellings(raw) {
			add(s, FormJSON)
		}
		if wire {
			for _, e := range WireEncodings(raw) {
				add(e.Text, e.Form)
			}
		}
	}
	for _, t := range toks {
		for i, p := range m.patterns {
			if (!wire || m.forms[i] == FormJSON) && strings.Contains(t, string(p)) {
				return nil, fmt.Errorf("token %q contains a table value", t)
			}
		}
	}
	if len(m.patterns) == 0 {
		return m, nil
	}
	ac, err := ahocorasick.NewBuilder().AddPatterns(m.patterns).Build()
	if err != nil {
		return nil, fmt.Errorf("build matcher: %w", err)
	}
	m.ac = ac
	return m, nil
}

// Spellings returns raw and the distinct ways a JSON encoder writes raw
// inside a string: with '"', '\' and control characters escaped as
// JavaScript's JSON.stringify does (Claude Code's transcript JSONL; short
// escapes \b \f \n \r \t, other controls \u00xx in lower-case hex) and as
// serde_json does (Codex's rollout JSONL; the same rules), the same with
// upper-case hex, with '/' escaped, with Go encoding/json's HTML escapes
// (<, >, & as \u003c \u003e \u0026; U+2028 and U+2029 escaped), and with
// every non-ASCII character as \uXXXX (Python's json.dumps default,
// surrogate pairs beyond the BMP), each written by internal/jsonstr. Only
// spellings that differ from raw are added.
func Spellings(raw string) []string {
	out := []string{raw}
	add := func(s string) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, st := range []jsonstr.Style{{}, {Upper: true}, {Slash: true}, {HTML: true}, {ASCII: true}, {ASCII: true, Upper: true}} {
		var b strings.Builder
		jsonstr.Append(&b, raw, st)
		add(b.String())
	}
	return out
}

// Contains reports whether text holds any table value in any spelling:
// one DFA pass that stops at the first occurrence (FindAll with n=1,
// linear in the text). Not the library's IsMatch: its prefilter looks for
// every value's first byte from the current position to the end of the
// text each time the automaton returns to its start, which is quadratic
// when one first byte is frequent and another rare (64 KiB of prose and a
// table of 1,001 values: 16 ms, 4 MB/s, against 0.9 ms for a full
// overlapping scan; measured 2026-12-01 while profiling the MCP proxy).
func (m *Matcher) Contains(text []byte) bool {
	return m.ac != nil && len(m.ac.FindAll(text, 1)) > 0
}

// regions returns the maximal byte ranges of text covered by value
// occurrences (overlapping occurrences merged), each with the tokens of a
// chain of occurrences that covers it: the leftmost-longest occurrence,
// then each next occurrence that reaches further. Every byte of every
// occurrence lies in a region, so replacing whole regions leaves no part
// of any value, even where two values overlap.
func (m *Matcher) regions(text []byte) []region {
	if m.ac == nil {
		return nil
	}
	ms := m.ac.FindAllOverlapping(text)
	if len(ms) == 0 {
		return nil
	}
	slices.SortFunc(ms, func(a, b ahocorasick.Match) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return b.End - a.End
	})
	var out []region
	for _, x := range ms {
		if n := len(out); n > 0 && x.Start < out[n-1].end {
			r := &out[n-1]
			if x.End > r.end {
				r.end = x.End
				r.tokens = append(r.tokens, m.tokens[x.PatternID])
			}
			continue
		}
		out = append(out, region{start: x.Start, end: x.End, tokens: []string{m.tokens[x.PatternID]}})
	}
	return out
}

type region struct {
	start, end int
	tokens     []string
}

// Count returns how many separate value occurrences text holds
// (overlapping occurrences count once).
func (m *Matcher) Count(text []byte) int {
	return len(m.regions(text))
}

// Redact returns text with every value occurrence replaced by its token
// (a run of overlapping occurrences by the tokens of a chain covering it)
// and how many runs it replaced. When a pass leaves a value (a token next
// to other text spelling one), it repeats; after maxPasses it returns
// ErrResidual and no text. Text without a value is returned as is.
func (m *Matcher) Redact(text []byte) ([]byte, int, error) {
	total := 0
	for pass := 0; pass < maxPasses; pass++ {
		rs := m.regions(text)
		if len(rs) == 0 {
			return text, total, nil
		}
		var b bytes.Buffer
		b.Grow(len(text))
		at := 0
		for _, r := range rs {
			b.Write(text[at:r.start])
			for _, t := range r.tokens {
				b.WriteString(t)
			}
			at = r.end
		}
		b.Write(text[at:])
		text = b.Bytes()
		total += len(rs)
	}
	if m.Contains(text) {
		return nil, total, ErrResidual
	}
	return text, total, nil
}
