package settings

import (
	"go.yaml.in/yaml/v3"
)

// This file is the hook path's front end for the settings files people
// actually write: `.hookwarden.yaml` as adopt writes it and the small,
// hand-edited files like it. It reads a narrow, line-based subset of YAML
// into the same yaml.Node tree go.yaml.in/yaml/v3 builds (kinds, tags,
// values, lines and columns), so Parse validates both alike and reports the
// same errors. Anything outside the subset is declined and parsed by
// yaml/v3, which stays the authority: FuzzPlainMatchesYAML holds every tree
// this front end builds equal to yaml/v3's for the same bytes.
//
// Why: yaml/v3 spent 0.10-0.15 ms of a cold hook process on the 895-byte
// commented manifest adopt writes (its comment scanning alone was a quarter
// of a warm parse), the largest single piece of the hook path's own work
// (README "Benchmarks").
//
// The subset, per line (LF line breaks; printable ASCII only; no tabs):
//   - blank, or a comment: spaces then `#` and anything;
//   - `key:` then nothing (or ` #comment`): a mapping or a block sequence
//     follows, indented deeper;
//   - `key: value`, value being a plain scalar, a single-quoted scalar on
//     one line, or a flow sequence `[a, 'b c']` on one line of those, then
//     optionally ` #comment`;
//   - `- value` in a block sequence, indented deeper than its key.
// Keys are the settings schema's names. A plain scalar starts with a letter
// and holds letters, digits and `_.-/` (a string; `true`/`false` a bool;
// `null` and its spellings are declined), or is a decimal integer without
// sign or leading zero of at most 9 digits. No anchors, aliases, tags,
// directives, document markers, double quotes, block scalars or flow
// mappings: any of those declines the whole file.

// plainKeys are the keys the subset reads (every key of the settings
// schema); any other key declines the file, so yaml/v3 reads it and Parse
// names the unknown key.
var plainKeys = map[string]bool{
	"version": true, "clients": true, "decline": true, "hooks": true, "scope": true,
	"events": true, "policy": true, "deny": true, "checkpoint": true,
	"commit_after_minutes": true, "commit_after_files": true, "on_stop": true,
}

// plainMaxDepth bounds nesting (the schema is two mappings deep, plus a
// block sequence).
const plainMaxDepth = 4

// plainLine is one content line: its 1-based number, its indentation in
// spaces and the text after it (a trailing comment included: afterIndicator
// drops it).
type plainLine struct {
	no     int
	indent int
	text   string
}

// parsePlain returns the document's top mapping node as yaml/v3 would build
// it, or ok false when data is outside the subset (or holds no key).
func parsePlain(data []byte) (top *yaml.Node, ok bool) {
	lines, ok := plainLines(data)
	if !ok || len(lines) == 0 || lines[0].indent != 0 {
		return nil, false
	}
	p := plainParser{lines: lines}
	top, ok = p.mapping(0, 0)
	if !ok || p.i != len(p.lines) {
		return nil, false
	}
	return top, true
}

// plainLines splits data into content lines, dropping blank and comment
// lines; ok is false for any byte outside printable ASCII and LF.
func plainLines(data []byte) ([]plainLine, bool) {
	var out []plainLine
	text := string(data) // one copy; lines are substrings of it
	no := 0
	for start := 0; start < len(text); {
		end := start
		for end < len(text) && text[end] != '\n' {
			c := text[end]
			if c < 0x20 || c > 0x7e {
				return nil, false
			}
			end++
		}
		no++
		s := text[start:end]
		start = end + 1
		indent := 0
		for indent < len(s) && s[indent] == ' ' {
			indent++
		}
		if indent == len(s) || s[indent] == '#' {
			continue
		}
		out = append(out, plainLine{no: no, indent: indent, text: s[indent:]})
	}
	return out, true
}

type plainParser struct {
	lines []plainLine
	i     int
}

// mapping reads the block mapping whose keys sit at indent, starting at the
// current line.
func (p *plainParser) mapping(indent, depth int) (*yaml.Node, bool) {
	if depth > plainMaxDepth {
		return nil, false
	}
	first := p.lines[p.i]
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: first.no, Column: indent + 1}
	for p.i < len(p.lines) && p.lines[p.i].indent == indent {
		l := p.lines[p.i]
		colon := 0
		for colon < len(l.text) && (l.text[colon] >= 'a' && l.text[colon] <= 'z' || l.text[colon] == '_') {
			colon++
		}
		if colon == 0 || colon == len(l.text) || l.text[colon] != ':' || !plainKeys[l.text[:colon]] {
			return nil, false
		}
		key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: l.text[:colon], Line: l.no, Column: indent + 1}
		rest := l.text[colon+1:]
		p.i++
		var val *yaml.Node
		if v, col, empty, ok := afterIndicator(rest, indent+colon+2); !ok {
			return nil, false
		} else if empty {
			if p.i == len(p.lines) || p.lines[p.i].indent <= indent {
				return nil, false // a null value: yaml/v3's position rules for it are not worth copying
			}
			child := p.lines[p.i].indent
			if len(p.lines[p.i].text) > 0 && p.lines[p.i].text[0] == '-' {
				val, ok = p.sequence(child)
			} else {
				val, ok = p.mapping(child, depth+1)
			}
			if !ok {
				return nil, false
			}
		} else if val, ok = plainValue(v, l.no, col); !ok {
			return nil, false
		}
		m.Content = append(m.Content, key, val)
	}
	if p.i < len(p.lines) && p.lines[p.i].indent > indent {
		return nil, false
	}
	return m, true
}

// sequence reads the block sequence whose `- ` items sit at indent.
func (p *plainParser) sequence(indent int) (*yaml.Node, bool) {
	first := p.lines[p.i]
	s := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: first.no, Column: indent + 1}
	for p.i < len(p.lines) && p.lines[p.i].indent == indent {
		l := p.lines[p.i]
		if l.text[0] != '-' {
			return nil, false
		}
		v, col, empty, ok := afterIndicator(l.text[1:], indent+2)
		if !ok || empty {
			return nil, false
		}
		item, ok := plainScalar(v, l.no, col)
		if !ok {
			return nil, false
		}
		s.Content = append(s.Content, item)
		p.i++
	}
	if p.i < len(p.lines) && p.lines[p.i].indent > indent {
		return nil, false
	}
	return s, true
}

// afterIndicator reads what follows a `:` or `-` indicator: nothing (empty,
// also with a ` #comment`), or one space, more spaces, and a value without
// its trailing blanks and comment. col is the 1-based column of the text
// after the indicator; the value's column is returned. ok is false when the
// indicator is not followed by a space or the end.
func afterIndicator(rest string, col int) (value string, valueCol int, empty, ok bool) {
	if rest == "" {
		return "", 0, true, true
	}
	if rest[0] != ' ' {
		return "", 0, false, false
	}
	i := 0
	for i < len(rest) && rest[i] == ' ' {
		i++
	}
	if i == len(rest) || rest[i] == '#' {
		return "", 0, true, true
	}
	v := rest[i:]
	// A comment starts at the first " #" outside single quotes.
	quoted := false
	for j := 0; j < len(v); j++ {
		switch {
		case v[j] == '\'':
			quoted = !quoted
		case !quoted && v[j] == '#' && v[j-1] == ' ':
			v = v[:j]
		}
	}
	for len(v) > 0 && v[len(v)-1] == ' ' {
		v = v[:len(v)-1]
	}
	return v, col + i, false, true
}

// plainValue reads a mapping value: a flow sequence or a scalar.
func plainValue(v string, line, col int) (*yaml.Node, bool) {
	if v[0] != '[' {
		return plainScalar(v, line, col)
	}
	if v[len(v)-1] != ']' {
		return nil, false
	}
	s := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle, Line: line, Column: col}
	body := v[1 : len(v)-1]
	i := 0
	skip := func() {
		for i < len(body) && body[i] == ' ' {
			i++
		}
	}
	skip()
	for i < len(body) {
		start := i
		if body[i] == '\'' {
			i++
			for i < len(body) && (body[i] != '\'' || i+1 < len(body) && body[i+1] == '\'') {
				if body[i] == '\'' {
					i++
				}
				i++
			}
			if i == len(body) {
				return nil, false
			}
			i++
		} else {
			for i < len(body) && body[i] != ',' && body[i] != ' ' {
				i++
			}
		}
		item, ok := plainScalar(body[start:i], line, col+1+start)
		if !ok {
			return nil, false
		}
		s.Content = append(s.Content, item)
		skip()
		if i == len(body) {
			break
		}
		if body[i] != ',' {
			return nil, false
		}
		i++
		skip()
		if i == len(body) {
			return nil, false // a trailing comma
		}
	}
	return s, true
}

// plainScalar reads one scalar: single-quoted on one line, or plain as the
// subset allows.
func plainScalar(v string, line, col int) (*yaml.Node, bool) {
	if v == "" {
		return nil, false
	}
	n := &yaml.Node{Kind: yaml.ScalarNode, Line: line, Column: col}
	if v[0] == '\'' {
		if len(v) < 2 || v[len(v)-1] != '\'' {
			return nil, false
		}
		body := v[1 : len(v)-1]
		var b []byte
		for i := 0; i < len(body); i++ {
			if body[i] == '\'' {
				if i+1 == len(body) || body[i+1] != '\'' {
					return nil, false
				}
				i++
			}
			b = append(b, body[i])
		}
		n.Tag, n.Value, n.Style = "!!str", string(b), yaml.SingleQuotedStyle
		return n, true
	}
	n.Value = v
	switch {
	case v == "true" || v == "false":
		n.Tag = "!!bool"
	case v[0] >= '0' && v[0] <= '9':
		if _, ok := smallDecimal(v); !ok {
			return nil, false
		}
		n.Tag = "!!int"
	default:
		if !(v[0] >= 'a' && v[0] <= 'z' || v[0] >= 'A' && v[0] <= 'Z') {
			return nil, false
		}
		for i := 1; i < len(v); i++ {
			c := v[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-' || c == '/') {
				return nil, false
			}
		}
		switch v {
		case "True", "TRUE", "False", "FALSE", "null", "Null", "NULL":
			return nil, false
		}
		n.Tag = "!!str"
	}
	return n, true
}

// PlainSubset reports whether Parse reads data with its own front end (the
// plain subset above) instead of go.yaml.in/yaml/v3. It decides nothing
// about validity: adopt's tests use it to keep the manifest adopt writes on
// the hook's fast path.
func PlainSubset(data []byte) bool {
	_, ok := parsePlain(data)
	return ok
}
