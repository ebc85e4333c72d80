// Package parsebound checks, in one linear pass, that a configuration file
// is small enough in shape for the parsers hookwarden judges it with before
// they run: JSON and JSONC (tailscale/hujson, encoding/json), TOML
// (pelletier/go-toml/v2) and YAML (go.yaml.in/yaml/v3). Those parsers are
// not linear in every shape (measured 2026-12-04, go test
// ./internal/parsebound -bench .): go-toml/v2 2.4.3 decodes 40,000 keys of
// one table in 4.8 s (its duplicate-key tracker compares each key with the
// table's others), yaml.v3 3.0.6 decodes a mapping of 60,000 keys in 30 s
// (the same pairwise check), hujson parses 50,000 nested objects in 1 s.
// The checks here stop at the first bound passed and return an *Error, so
// the caller refuses the file instead of outlasting its budget.
//
// The JSON check also refuses a member name that occurs twice in one
// object (DuplicateError): the clients that read JSON settings keep the
// last one (Node's JSON.parse: ECMA-262 JSON.parse, InternalizeJSONProperty
// over an object built by CreateDataProperty, so a later member overwrites
// an earlier one; Claude Code and Gemini CLI read settings with it), while
// a judge reading the first one would see another file.
package parsebound

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/pelletier/go-toml/v2/unstable"
	"go.yaml.in/yaml/v3"
)

// Bounds. A real client settings or hook-manager config is a few KiB, a
// dozen levels deep, with at most a few hundred keys.
const (
	// MaxDepth is the deepest nesting of arrays and objects (tables,
	// mappings, sequences) accepted, counting the top level as 1.
	MaxDepth = 64
	// MaxJSONValues bounds the values (members, elements, containers) of
	// one JSON or JSONC document.
	MaxJSONValues = 1 << 14
	// MaxTOMLKeys bounds the keys of one TOML document: key/value lines,
	// table headers, inline-table members and array elements together.
	MaxTOMLKeys = 4096
	// MaxYAMLNodes bounds the nodes of one YAML document.
	MaxYAMLNodes = 1 << 16
	// MaxYAMLMappingKeys bounds the keys of one YAML mapping.
	MaxYAMLMappingKeys = 1024
)

// Error is a bound passed: Format is "JSON", "TOML" or "YAML", What names
// the quantity ("nesting depth", "values", ...) and Limit its bound.
type Error struct {
	Format string
	What   string
	Limit  int
}

func (e *Error) Error() string {
	return fmt.Sprintf("the %s document's %s passes hookwarden's bound of %d", e.Format, e.What, e.Limit)
}

// DuplicateError is a member name that occurs twice in one JSON object.
// Key is the name (decoded, at most 64 bytes shown).
type DuplicateError struct {
	Key string
}

func (e *DuplicateError) Error() string {
	k := e.Key
	if len(k) > 64 {
		k = k[:64] + "…"
	}
	return fmt.Sprintf("the member name %q occurs twice in one object (Node's JSON.parse, which Claude Code and Gemini CLI read settings with, keeps the last one)", k)
}

// IsBound reports whether err is (or wraps) an *Error or a *DuplicateError.
func IsBound(err error) bool {
	var be *Error
	var de *DuplicateError
	return errors.As(err, &be) || errors.As(err, &de)
}

// frame is one open JSON container: its member names when it is an object
// (nil for an array) and whether the next string is a member name.
type frame struct {
	names   map[string]bool
	wantKey bool
}

// JSON checks src as JSON or JSONC (// and /* */ comments, trailing
// commas) in one pass: at most MaxDepth levels, MaxJSONValues values and no
// member name twice in one object. It does not validate the syntax (the
// parser that follows does); a string or comment left open ends the scan.
// Errors: *Error, *DuplicateError.
func JSON(src []byte) error {
	var stack []frame
	values := 0
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '"':
			j := stringEnd(src, i)
			if n := len(stack); n > 0 && stack[n-1].names != nil && stack[n-1].wantKey {
				if err := stack[n-1].member(src[i:j]); err != nil {
					return err
				}
			}
			i = j - 1
		case '/':
			i = commentEnd(src, i) - 1
		case '{', '[':
			values++
			if len(stack)+1 > MaxDepth {
				return &Error{Format: "JSON", What: "nesting depth", Limit: MaxDepth}
			}
			f := frame{}
			if c == '{' {
				f = frame{names: map[string]bool{}, wantKey: true}
			}
			stack = append(stack, f)
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ',':
			values++
			if n := len(stack); n > 0 && stack[n-1].names != nil {
				stack[n-1].wantKey = true
			}
		}
		if values > MaxJSONValues {
			return &Error{Format: "JSON", What: "number of values", Limit: MaxJSONValues}
		}
	}
	return nil
}

// member records one member name token (quotes included) of an object.
func (f *frame) member(tok []byte) error {
	f.wantKey = false
	name := string(tok[1:])
	if len(tok) >= 2 && tok[len(tok)-1] == '"' {
		name = string(tok[1 : len(tok)-1])
	}
	if bytes.IndexByte(tok, '\\') >= 0 {
		var s string
		if json.Unmarshal(tok, &s) == nil {
			name = s
		}
	}
	if f.names[name] {
		return &DuplicateError{Key: name}
	}
	f.names[name] = true
	return nil
}

// stringEnd returns the index after the string starting at src[i] ('"'),
// or len(src) when it is not closed.
func stringEnd(src []byte, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(src)
}

// commentEnd returns the index after the comment starting at src[i] ('/'),
// or i+1 when none starts there.
func commentEnd(src []byte, i int) int {
	if i+1 >= len(src) {
		return i + 1
	}
	switch src[i+1] {
	case '/':
		for j := i + 2; j < len(src); j++ {
			if src[j] == '\n' {
				return j + 1
			}
		}
		return len(src)
	case '*':
		for j := i + 2; j+1 < len(src); j++ {
			if src[j] == '*' && src[j+1] == '/' {
				return j + 2
			}
		}
		return len(src)
	}
	return i + 1
}

// TOML checks src as TOML with go-toml/v2's own (linear) parser: at most
// MaxTOMLKeys keys and MaxDepth levels of arrays and inline tables. A
// syntax error is left to the decoder that follows (nil here). Errors:
// *Error.
func TOML(src []byte) error {
	p := unstable.Parser{}
	p.Reset(src)
	keys := 0
	for p.NextExpression() {
		if err := tomlNode(p.Expression(), 1, &keys); err != nil {
			return err
		}
	}
	return nil
}

func tomlNode(n *unstable.Node, depth int, keys *int) error {
	switch n.Kind {
	case unstable.KeyValue, unstable.Table, unstable.ArrayTable:
		*keys++
	case unstable.Array, unstable.InlineTable:
		depth++
		if depth > MaxDepth {
			return &Error{Format: "TOML", What: "nesting depth", Limit: MaxDepth}
		}
	default:
		return nil
	}
	if *keys > MaxTOMLKeys {
		return &Error{Format: "TOML", What: "number of keys", Limit: MaxTOMLKeys}
	}
	it := n.Children()
	for it.Next() {
		c := it.Node()
		if n.Kind == unstable.Array {
			if *keys++; *keys > MaxTOMLKeys {
				return &Error{Format: "TOML", What: "number of keys", Limit: MaxTOMLKeys}
			}
		}
		if err := tomlNode(c, depth, keys); err != nil {
			return err
		}
	}
	return nil
}

// YAML checks src as YAML (its first document, read into a yaml.Node,
// which runs no pairwise key check): at most MaxYAMLNodes nodes, MaxDepth
// levels and MaxYAMLMappingKeys keys in one mapping. A syntax error is left
// to the decoder that follows (nil here). Errors: *Error.
func YAML(src []byte) error {
	var root yaml.Node
	if yaml.Unmarshal(src, &root) != nil {
		return nil
	}
	nodes := 0
	return yamlNode(&root, 0, &nodes)
}

func yamlNode(n *yaml.Node, depth int, nodes *int) error {
	*nodes++
	if *nodes > MaxYAMLNodes {
		return &Error{Format: "YAML", What: "number of nodes", Limit: MaxYAMLNodes}
	}
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		depth++
		if depth > MaxDepth {
			return &Error{Format: "YAML", What: "nesting depth", Limit: MaxDepth}
		}
	}
	if n.Kind == yaml.MappingNode && len(n.Content)/2 > MaxYAMLMappingKeys {
		return &Error{Format: "YAML", What: "keys in one mapping", Limit: MaxYAMLMappingKeys}
	}
	for _, c := range n.Content {
		if err := yamlNode(c, depth, nodes); err != nil {
			return err
		}
	}
	return nil
}
