package tomledit

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

type itemKind int

const (
	itemOther       itemKind = iota // blank or comment line
	itemHeader                      // [a.b]
	itemArrayHeader                 // [[a.b]]
	itemKV                          // key = value
)

// item is one top-level line (or, for a key/value whose value spans lines,
// several lines). start..end covers the item including its line ending;
// valStart..valEnd is the value's bytes for itemKV.
type item struct {
	kind             itemKind
	start, end       int
	key              []string
	valStart, valEnd int
}

type document struct {
	items []item
}

func (d *document) findHeader(table []string) int {
	for i, it := range d.items {
		if it.kind == itemHeader && eqPath(it.key, table) {
			return i
		}
	}
	return -1
}

// section returns the items after header h up to the next header.
func (d *document) section(h int) []int {
	var out []int
	for i := h + 1; i < len(d.items); i++ {
		if k := d.items[i].kind; k == itemHeader || k == itemArrayHeader {
			break
		}
		out = append(out, i)
	}
	return out
}

// findDotted finds a key/value whose full path (its table's path plus its
// dotted key) is table+key.
func (d *document) findDotted(table []string, key string) int {
	want := append(append([]string{}, table...), key)
	var cur []string
	inArray := false
	for i, it := range d.items {
		switch it.kind {
		case itemHeader:
			cur, inArray = it.key, false
		case itemArrayHeader:
			cur, inArray = it.key, true
		case itemKV:
			if !inArray && eqPath(append(append([]string{}, cur...), it.key...), want) {
				return i
			}
		}
	}
	return -1
}

func eqPath(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

type scanner struct {
	src  []byte
	pos  int
	line int
}

func (s *scanner) errorf(format string, a ...any) error {
	return fmt.Errorf("toml scan: line %d: %s", s.line, fmt.Sprintf(format, a...))
}

func (s *scanner) peek(off int) byte {
	if s.pos+off < len(s.src) {
		return s.src[s.pos+off]
	}
	return 0
}

func (s *scanner) skipSpace() {
	for s.pos < len(s.src) && (s.src[s.pos] == ' ' || s.src[s.pos] == '\t') {
		s.pos++
	}
}

// skipToLineEnd skips spaces and an optional comment, then the line ending.
func (s *scanner) skipToLineEnd() error {
	s.skipSpace()
	if s.peek(0) == '#' {
		for s.pos < len(s.src) && s.src[s.pos] != '\n' {
			s.pos++
		}
	}
	if s.peek(0) == '\r' && s.peek(1) == '\n' {
		s.pos++
	}
	switch s.peek(0) {
	case '\n':
		s.pos++
		s.line++
	case 0:
		if s.pos < len(s.src) {
			return s.errorf("unexpected NUL")
		}
	default:
		return s.errorf("unexpected %q after a value", s.src[s.pos])
	}
	return nil
}

func scan(src []byte) (*document, error) {
	s := &scanner{src: src, line: 1}
	// A UTF-8 BOM is not part of the first line's content.
	if strings.HasPrefix(string(src), "\xef\xbb\xbf") {
		s.pos = 3
	}
	d := &document{}
	for s.pos < len(src) {
		it := item{start: s.pos}
		s.skipSpace()
		switch c := s.peek(0); {
		case c == '#' || c == '\n' || c == '\r' || c == 0:
			if err := s.skipToLineEnd(); err != nil {
				return nil, err
			}
		case c == '[':
			it.kind = itemHeader
			s.pos++
			if s.peek(0) == '[' {
				it.kind = itemArrayHeader
				s.pos++
			}
			k, err := s.key()
			if err != nil {
				return nil, err
			}
			it.key = k
			s.skipSpace()
			if s.peek(0) != ']' {
				return nil, s.errorf("header not closed")
			}
			s.pos++
			if it.kind == itemArrayHeader {
				if s.peek(0) != ']' {
					return nil, s.errorf("array header not closed")
				}
				s.pos++
			}
			if err := s.skipToLineEnd(); err != nil {
				return nil, err
			}
		default:
			it.kind = itemKV
			k, err := s.key()
			if err != nil {
				return nil, err
			}
			it.key = k
			s.skipSpace()
			if s.peek(0) != '=' {
				return nil, s.errorf("expected = after a key")
			}
			s.pos++
			s.skipSpace()
			it.valStart = s.pos
			if err := s.value(); err != nil {
				return nil, err
			}
			it.valEnd = s.pos
			if err := s.skipToLineEnd(); err != nil {
				return nil, err
			}
		}
		it.end = s.pos
		d.items = append(d.items, it)
	}
	return d, nil
}

// key reads a dotted key: bare, "basic" or 'literal' parts joined by dots.
func (s *scanner) key() ([]string, error) {
	var parts []string
	for {
		s.skipSpace()
		var part string
		switch c := s.peek(0); {
		case c == '"':
			start := s.pos
			if err := s.basicString(); err != nil {
				return nil, err
			}
			v, err := unquoteBasic(string(s.src[start:s.pos]))
			if err != nil {
				return nil, s.errorf("key: %v", err)
			}
			part = v
		case c == '\'':
			start := s.pos + 1
			if err := s.literalString(); err != nil {
				return nil, err
			}
			part = string(s.src[start : s.pos-1])
		default:
			start := s.pos
			for s.pos < len(s.src) && isBare(s.src[s.pos]) {
				s.pos++
			}
			if s.pos == start {
				return nil, s.errorf("expected a key")
			}
			part = string(s.src[start:s.pos])
		}
		parts = append(parts, part)
		s.skipSpace()
		if s.peek(0) != '.' {
			return parts, nil
		}
		s.pos++
	}
}

func isBare(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

func (s *scanner) basicString() error {
	s.pos++ // opening quote
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case '\\':
			s.pos += 2
		case '"':
			s.pos++
			return nil
		case '\n':
			return s.errorf("newline in a basic string")
		default:
			s.pos++
		}
	}
	return s.errorf("unterminated string")
}

func (s *scanner) literalString() error {
	s.pos++
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case '\'':
			s.pos++
			return nil
		case '\n':
			return s.errorf("newline in a literal string")
		}
		s.pos++
	}
	return s.errorf("unterminated literal string")
}

// multiline skips a triple-quoted (basic or literal) string; q is the quote byte.
func (s *scanner) multiline(q byte) error {
	s.pos += 3
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		switch {
		case c == '\\' && q == '"':
			if s.peek(1) == '\n' {
				s.line++
			}
			s.pos += 2
		case c == '\n':
			s.line++
			s.pos++
		case c == q && s.peek(1) == q && s.peek(2) == q:
			s.pos += 3
			// Up to two more quotes belong to the content before the closing three.
			for i := 0; i < 2 && s.peek(0) == q; i++ {
				s.pos++
			}
			return nil
		default:
			s.pos++
		}
	}
	return s.errorf("unterminated multi-line string")
}

// value skips one value (string, array, inline table or scalar).
func (s *scanner) value() error {
	switch c := s.peek(0); {
	case c == '"' && s.peek(1) == '"' && s.peek(2) == '"':
		return s.multiline('"')
	case c == '\'' && s.peek(1) == '\'' && s.peek(2) == '\'':
		return s.multiline('\'')
	case c == '"':
		return s.basicString()
	case c == '\'':
		return s.literalString()
	case c == '[' || c == '{':
		return s.nested()
	default:
		start := s.pos
		for s.pos < len(s.src) {
			c := s.src[s.pos]
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '#' || c == ',' || c == ']' || c == '}' {
				break
			}
			s.pos++
		}
		// Date-times may hold one space between date and time.
		if s.pos < len(s.src) && s.src[s.pos] == ' ' && s.pos+1 < len(s.src) && s.src[s.pos+1] >= '0' && s.src[s.pos+1] <= '9' && strings.Count(string(s.src[start:s.pos]), "-") == 2 {
			s.pos++
			for s.pos < len(s.src) && !strings.ContainsRune(" \t\r\n#,]}", rune(s.src[s.pos])) {
				s.pos++
			}
		}
		if s.pos == start {
			return s.errorf("expected a value")
		}
		return nil
	}
}

// nested skips an array or inline table, which may span lines and hold
// comments, strings and further nesting.
func (s *scanner) nested() error {
	depth := 0
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		switch {
		case c == '[' || c == '{':
			depth++
			s.pos++
		case c == ']' || c == '}':
			depth--
			s.pos++
			if depth == 0 {
				return nil
			}
		case c == '#':
			for s.pos < len(s.src) && s.src[s.pos] != '\n' {
				s.pos++
			}
		case c == '\n':
			s.line++
			s.pos++
		case c == '"' || c == '\'':
			if err := s.value(); err != nil {
				return err
			}
		default:
			s.pos++
		}
	}
	return s.errorf("unterminated array or inline table")
}

func unquoteBasic(q string) (string, error) {
	// TOML basic strings share JSON/Go escapes except \U (8 hex digits) and
	// \e; strconv.Unquote covers \uXXXX and \UXXXXXXXX.
	body := q[1 : len(q)-1]
	if !strings.Contains(body, `\`) {
		if !utf8.ValidString(body) {
			return "", fmt.Errorf("invalid UTF-8")
		}
		return body, nil
	}
	body = strings.ReplaceAll(body, `\e`, `\x1b`)
	return strconv.Unquote(`"` + body + `"`)
}
