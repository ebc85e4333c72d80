package dialect

import (
	"errors"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// This file is the strict JSON reader of the hook payloads (RFC 8259). It
// validates the whole input in one pass and keeps every member's value as a
// slice of the input, so each member is type-checked where it is read.
//
// It replaces encoding/json on the hook path: a token walk plus reflection
// decoding cost about 0.08 ms of a cold hook process (perf, README
// "Benchmarks"). TestScanMatchesEncodingJSON and FuzzScanMatchesEncodingJSON
// hold it to encoding/json's verdict on what is valid JSON.

// object is a decoded JSON object: its members in input order, each value
// kept raw (valid JSON, no surrounding whitespace). Names are unique.
type object []member

type member struct {
	name string
	raw  []byte
}

// get returns the raw value of member key.
func (o object) get(key string) ([]byte, bool) {
	for _, m := range o {
		if m.name == key {
			return m.raw, true
		}
	}
	return nil, false
}

// smallObject is the member count up to which duplicate names are found by
// comparing with each earlier name.
const smallObject = 16

// scanner walks one input. pos is the offset of the next unread byte.
type scanner struct {
	data []byte
	pos  int
}

func (s *scanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// errEnd is the error of an input that stops inside a value.
var errEnd = errors.New("input ends inside a JSON value")

func (s *scanner) invalid() error {
	if s.pos >= len(s.data) {
		return errEnd
	}
	return fmt.Errorf("not valid JSON at byte %d", s.pos)
}

// value validates the value starting at pos (whitespace already skipped) at
// nesting depth (the enclosing containers, the top object counting 1).
func (s *scanner) value(depth int) error {
	if s.pos >= len(s.data) {
		return errEnd
	}
	switch c := s.data[s.pos]; {
	case c == '{':
		if depth+1 > MaxDepth {
			return fmt.Errorf("JSON nests deeper than %d levels", MaxDepth)
		}
		_, err := s.object(depth+1, false)
		return err
	case c == '[':
		if depth+1 > MaxDepth {
			return fmt.Errorf("JSON nests deeper than %d levels", MaxDepth)
		}
		_, err := s.array(depth+1, false)
		return err
	case c == '"':
		_, err := s.str()
		return err
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return s.invalid()
}

func (s *scanner) literal(word string) error {
	for i := 0; i < len(word); i++ {
		if s.pos >= len(s.data) {
			return errEnd
		}
		if s.data[s.pos] != word[i] {
			return s.invalid()
		}
		s.pos++
	}
	return nil
}

// number validates the RFC 8259 number grammar:
// -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
func (s *scanner) number() error {
	if s.data[s.pos] == '-' {
		s.pos++
	}
	if s.pos >= len(s.data) {
		return errEnd
	}
	switch c := s.data[s.pos]; {
	case c == '0':
		s.pos++
	case c >= '1' && c <= '9':
		s.digits()
	default:
		return s.invalid()
	}
	if s.pos < len(s.data) && s.data[s.pos] == '.' {
		s.pos++
		if err := s.needDigits(); err != nil {
			return err
		}
	}
	if s.pos < len(s.data) && (s.data[s.pos] == 'e' || s.data[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.data) && (s.data[s.pos] == '+' || s.data[s.pos] == '-') {
			s.pos++
		}
		if err := s.needDigits(); err != nil {
			return err
		}
	}
	return nil
}

func (s *scanner) digits() {
	for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
		s.pos++
	}
}

func (s *scanner) needDigits() error {
	if s.pos >= len(s.data) {
		return errEnd
	}
	if c := s.data[s.pos]; c < '0' || c > '9' {
		return s.invalid()
	}
	s.digits()
	return nil
}

// str validates the string starting at pos (the opening quote) and returns
// its raw bytes, quotes included. Control characters must be escaped; the
// escapes are those of RFC 8259 section 7. The input is valid UTF-8 (checked
// by parseObject before scanning).
func (s *scanner) str() ([]byte, error) {
	start := s.pos
	s.pos++
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			s.pos++
			return s.data[start:s.pos], nil
		case c == '\\':
			s.pos++
			if s.pos >= len(s.data) {
				return nil, errEnd
			}
			switch s.data[s.pos] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.pos++
			case 'u':
				s.pos++
				for i := 0; i < 4; i++ {
					if s.pos >= len(s.data) {
						return nil, errEnd
					}
					if !isHex(s.data[s.pos]) {
						return nil, s.invalid()
					}
					s.pos++
				}
			default:
				return nil, s.invalid()
			}
		case c < 0x20:
			return nil, s.invalid()
		default:
			s.pos++
		}
	}
	return nil, errEnd
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// object validates the object starting at pos (its '{') at depth and returns
// its members when keep is true. A member name given twice (compared after
// unescaping, as a client's parser would read it) is an error.
func (s *scanner) object(depth int, keep bool) (object, error) {
	s.pos++ // '{'
	var members object
	var names []string
	var seen map[string]struct{}
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		return members, nil
	}
	for {
		if s.pos >= len(s.data) {
			return nil, errEnd
		}
		if s.data[s.pos] != '"' {
			return nil, s.invalid()
		}
		rawName, err := s.str()
		if err != nil {
			return nil, err
		}
		name := unquote(rawName)
		// Few members (a payload object has about ten): compare in a list;
		// past smallObject, a set, so that a hostile object of 100,000
		// members within the 1 MiB bound stays linear.
		dup := false
		if seen != nil {
			_, dup = seen[name]
			seen[name] = struct{}{}
		} else {
			for _, n := range names {
				if n == name {
					dup = true
					break
				}
			}
			names = append(names, name)
			if len(names) > smallObject {
				seen = make(map[string]struct{}, 2*len(names))
				for _, n := range names {
					seen[n] = struct{}{}
				}
			}
		}
		if dup {
			return nil, fmt.Errorf("duplicate member name in a JSON object before byte %d", s.pos)
		}
		s.skipSpace()
		if s.pos >= len(s.data) {
			return nil, errEnd
		}
		if s.data[s.pos] != ':' {
			return nil, s.invalid()
		}
		s.pos++
		s.skipSpace()
		start := s.pos
		if err := s.value(depth); err != nil {
			return nil, err
		}
		if keep {
			members = append(members, member{name: name, raw: s.data[start:s.pos]})
		}
		done, err := s.afterElement('}')
		if err != nil {
			return nil, err
		}
		if done {
			return members, nil
		}
	}
}

// afterElement reads what follows a member or element: ',' and the blanks
// after it (done false: another follows), or closer (done true). Anything
// else, or the end of the data, is the error.
func (s *scanner) afterElement(closer byte) (done bool, err error) {
	s.skipSpace()
	if s.pos >= len(s.data) {
		return false, errEnd
	}
	switch s.data[s.pos] {
	case ',':
		s.pos++
		s.skipSpace()
		return false, nil
	case closer:
		s.pos++
		return true, nil
	}
	return false, s.invalid()
}

// array validates the array starting at pos (its '[') at depth and returns
// its elements, each raw, when keep is true.
func (s *scanner) array(depth int, keep bool) ([][]byte, error) {
	s.pos++ // '['
	var elems [][]byte
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		return elems, nil
	}
	for {
		start := s.pos
		if err := s.value(depth); err != nil {
			return nil, err
		}
		if keep {
			elems = append(elems, s.data[start:s.pos])
		}
		done, err := s.afterElement(']')
		if err != nil {
			return nil, err
		}
		if done {
			return elems, nil
		}
	}
}

// parseObject checks that data is exactly one JSON object of valid UTF-8 with
// no duplicate member names at any depth, nesting at most 64 levels, and no
// trailing value, then returns its top-level members. Error texts never quote
// the input (it may hold a secret); they give byte offsets instead.
//
// Duplicate names are refused because JSON parsers disagree on which one wins
// (RFC 8259 section 4): a client and the engine must not read different
// commands from one payload. NaN and Infinity are not JSON and are refused.
func parseObject(data []byte) (object, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("input is not valid UTF-8")
	}
	s := &scanner{data: data}
	s.skipSpace()
	if s.pos == len(data) {
		return nil, errors.New("input is empty (want one JSON object)")
	}
	if data[s.pos] != '{' {
		// Another JSON value is "not an object"; anything else is not JSON.
		if err := s.value(1); err != nil {
			return nil, err
		}
		return nil, errors.New("input is not a JSON object")
	}
	o, err := s.object(1, true)
	if err != nil {
		return nil, err
	}
	s.skipSpace()
	if s.pos != len(data) {
		return nil, fmt.Errorf("trailing data after the JSON object at byte %d", s.pos)
	}
	return o, nil
}

// members returns the members of raw, an object value parseObject already
// validated.
func members(raw []byte) object {
	s := &scanner{data: raw}
	o, err := s.object(1, true)
	if err != nil {
		// parseObject validated raw at a lower depth than any real bound;
		// reaching here is a defect, and the caller reads no member.
		return nil
	}
	return o
}

// elements returns the raw elements of raw, an array value parseObject
// already validated (nil in the defect case members describes).
func elements(raw []byte) [][]byte {
	s := &scanner{data: raw}
	e, err := s.array(1, true)
	if err != nil {
		return nil
	}
	return e
}

// unquote decodes raw, a string value the scanner validated (quotes
// included). A \u escape that is a lone surrogate decodes to U+FFFD, as
// encoding/json and the clients' JavaScript JSON.parse-to-UTF-8 paths do.
func unquote(raw []byte) string {
	body := raw[1 : len(raw)-1]
	i := 0
	for i < len(body) && body[i] != '\\' {
		i++
	}
	if i == len(body) {
		return string(body)
	}
	b := make([]byte, 0, len(body))
	b = append(b, body[:i]...)
	for i < len(body) {
		c := body[i]
		if c != '\\' {
			b = append(b, c)
			i++
			continue
		}
		i++
		switch body[i] {
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r := hex4(body[i+1 : i+5])
			i += 5
			if utf16.IsSurrogate(r) {
				if i+6 <= len(body) && body[i] == '\\' && body[i+1] == 'u' {
					if d := utf16.DecodeRune(r, hex4(body[i+2:i+6])); d != utf8.RuneError {
						b = utf8.AppendRune(b, d)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			b = utf8.AppendRune(b, r)
			continue
		default: // '"', '\\', '/'
			b = append(b, body[i])
		}
		i++
	}
	return string(b)
}

func hex4(h []byte) rune {
	var n rune
	for _, c := range h {
		n <<= 4
		switch {
		case c >= '0' && c <= '9':
			n |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			n |= rune(c-'a') + 10
		default:
			n |= rune(c-'A') + 10
		}
	}
	return n
}
