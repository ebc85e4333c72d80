package dialect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// This file reads the hook payloads as strict JSON (RFC 8259) with
// encoding/json doing the parsing: a json.Decoder token walk checks the whole
// input (one object, valid UTF-8, no duplicate member names at any depth, at
// most MaxDepth levels, no trailing data) and records where each member's
// value starts and ends, so each member is type-checked where it is read.
// (An own scanner stood here for about 0.08 ms of a cold hook process; issue
// 16 retired that target: the row the client runs costs about 3.5 ms.)

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

// walker is one token walk over data. A member's or element's raw value is
// the input between the decoder's offset before the value and after it,
// less the separators (',' ':') and whitespace in front of it.
type walker struct {
	data []byte
	dec  *json.Decoder
}

func newWalker(data []byte) *walker {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return &walker{data: data, dec: dec}
}

// syntaxErr turns a decoder error into one that never quotes the input (it
// may hold a secret): the byte offset only.
func (w *walker) syntaxErr(err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("not valid JSON at byte %d", se.Offset)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("input ends inside a JSON value")
	}
	return fmt.Errorf("not valid JSON at byte %d", w.dec.InputOffset())
}

// raw returns the value that ended at the decoder's offset and started after
// from, trimmed of separators and whitespace.
func (w *walker) raw(from int64) []byte {
	return bytes.TrimLeft(w.data[from:w.dec.InputOffset()], " \t\r\n,:")
}

// value reads one value whose first token is tok, at nesting depth (the
// value's container is at depth-1); keep asks for the members (an object)
// or elements (an array) of this value.
func (w *walker) value(tok json.Token, depth int, keep bool) (object, [][]byte, error) {
	d, ok := tok.(json.Delim)
	if !ok {
		return nil, nil, nil // a scalar: the decoder checked it
	}
	if depth > MaxDepth {
		return nil, nil, fmt.Errorf("JSON nests deeper than %d levels", MaxDepth)
	}
	switch d {
	case '{':
		o, err := w.object(depth, keep)
		return o, nil, err
	case '[':
		e, err := w.array(depth, keep)
		return nil, e, err
	}
	return nil, nil, fmt.Errorf("not valid JSON at byte %d", w.dec.InputOffset())
}

// object reads the members of an object whose '{' was read, refusing a
// duplicate name (JSON parsers disagree on which one wins, RFC 8259 section
// 4: a client and the engine must not read different commands from one
// payload).
func (w *walker) object(depth int, keep bool) (object, error) {
	var o object
	seen := map[string]struct{}{}
	for {
		tok, err := w.dec.Token()
		if err != nil {
			return nil, w.syntaxErr(err)
		}
		if d, ok := tok.(json.Delim); ok && d == '}' {
			return o, nil
		}
		name, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("not valid JSON at byte %d", w.dec.InputOffset())
		}
		if _, dup := seen[name]; dup {
			return nil, fmt.Errorf("duplicate member name in a JSON object before byte %d", w.dec.InputOffset())
		}
		seen[name] = struct{}{}
		from := w.dec.InputOffset()
		vt, err := w.dec.Token()
		if err != nil {
			return nil, w.syntaxErr(err)
		}
		if _, _, err := w.value(vt, depth+1, false); err != nil {
			return nil, err
		}
		if keep {
			o = append(o, member{name: name, raw: w.raw(from)})
		}
	}
}

// array reads the elements of an array whose '[' was read.
func (w *walker) array(depth int, keep bool) ([][]byte, error) {
	var out [][]byte
	for {
		from := w.dec.InputOffset()
		tok, err := w.dec.Token()
		if err != nil {
			return nil, w.syntaxErr(err)
		}
		if d, ok := tok.(json.Delim); ok && d == ']' {
			return out, nil
		}
		if _, _, err := w.value(tok, depth+1, false); err != nil {
			return nil, err
		}
		if keep {
			out = append(out, w.raw(from))
		}
	}
}

// parseObject checks that data is exactly one JSON object of valid UTF-8 with
// no duplicate member names at any depth, nesting at most MaxDepth levels,
// and no trailing value, then returns its top-level members. Error texts
// never quote the input (it may hold a secret); they give byte offsets
// instead. NaN and Infinity are not JSON and are refused.
func parseObject(data []byte) (object, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("input is not valid UTF-8")
	}
	if len(bytes.TrimLeft(data, " \t\r\n")) == 0 {
		return nil, errors.New("input is empty (want one JSON object)")
	}
	w := newWalker(data)
	tok, err := w.dec.Token()
	if err != nil {
		return nil, w.syntaxErr(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		// Another JSON value is "not an object"; anything else is not JSON.
		if _, _, err := w.value(tok, 1, false); err != nil {
			return nil, err
		}
		if _, err := w.dec.Token(); err != io.EOF {
			return nil, fmt.Errorf("not valid JSON at byte %d", w.dec.InputOffset())
		}
		return nil, errors.New("input is not a JSON object")
	}
	o, err := w.object(1, true)
	if err != nil {
		return nil, err
	}
	if _, err := w.dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the JSON object at byte %d", w.dec.InputOffset())
	}
	return o, nil
}

// members returns the members of raw, an object value parseObject already
// validated (nil if it is not one: a defect, and the caller reads no member).
func members(raw []byte) object {
	w := newWalker(raw)
	if tok, err := w.dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	o, err := w.object(1, true)
	if err != nil {
		return nil
	}
	return o
}

// elements returns the raw elements of raw, an array value parseObject
// already validated (nil in the defect case members describes).
func elements(raw []byte) [][]byte {
	w := newWalker(raw)
	if tok, err := w.dec.Token(); err != nil || tok != json.Delim('[') {
		return nil
	}
	e, err := w.array(1, true)
	if err != nil {
		return nil
	}
	return e
}

// unquote decodes raw, a string value parseObject validated (quotes
// included), with encoding/json: a \u escape that is a lone surrogate
// decodes to U+FFFD, as the clients' JavaScript JSON.parse-to-UTF-8 paths do.
func unquote(raw []byte) string {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return ""
	}
	return s
}
