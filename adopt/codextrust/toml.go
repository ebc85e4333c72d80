// Byte-preserving edits of Codex's config.toml: setString sets one string
// value in one table, keeping every other byte (comments, order, spacing,
// quoting) as it was. The document's structure (table headers, key/values
// and the byte range of each key and string value) comes from go-toml/v2's
// unstable parser (tomlscan.go); the edit is a splice at those ranges, and
// the result is always re-parsed with go-toml/v2 and checked to carry
// exactly the value set, so an edit that went wrong yields an error, never
// a wrong file.

package codextrust

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
)

// ErrInline is wrapped when the target table is defined in a form this
// package does not edit in place (an inline table or dotted keys under a
// parent table): the caller should tell the operator to add the entry by hand.
var ErrInline = errors.New("table is defined inline or through dotted keys")

// setString sets key = "value" (value written as a TOML basic string) inside
// the table whose key path is table (e.g. ["hooks","state","/abs/.codex/hooks.json:stop:0:0"]).
//
//   - If a [table] header exists and holds key, only the value's bytes are
//     replaced (the key, spacing and any trailing comment stay).
//   - If the header exists without key, a line `key = "value"` is inserted
//     after the table's last key/value line.
//   - If the table is absent, "\n[table]\nkey = \"value\"\n" is appended at
//     the end (a missing final newline is added first).
//
// Line endings follow the document (CRLF when its first line ends in CRLF).
// It returns the new document and whether it differs from src. Errors: src is
// not valid TOML (wrapped go-toml error naming line and column); the table is
// defined inline or by dotted keys (ErrInline); the key holds a non-string;
// the edited document does not re-parse to the requested value.
func setString(src []byte, table []string, key, value string) ([]byte, bool, error) {
	var before map[string]any
	if err := toml.Unmarshal(src, &before); err != nil {
		return nil, false, fmt.Errorf("not valid TOML: %w", err)
	}
	if cur, ok := lookup(before, append(append([]string{}, table...), key)); ok {
		if s, isStr := cur.(string); isStr && s == value {
			return src, false, nil
		} else if !isStr {
			return nil, false, fmt.Errorf("%s.%s holds a %T, not a string", keyPath(table), quoteKey(key), cur)
		}
	}
	doc, err := scan(src)
	if err != nil {
		return nil, false, err
	}
	nl := "\n"
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		nl = "\r\n"
	}
	quoted := quoteString(value)
	var out []byte
	hdr := doc.findHeader(table)
	switch {
	case hdr >= 0:
		sec := doc.section(hdr)
		kv := -1
		for _, i := range sec {
			if eqPath(doc.items[i].key, []string{key}) {
				kv = i
			}
		}
		if kv >= 0 {
			it := doc.items[kv]
			out = splice(src, it.valStart, it.valEnd, []byte(quoted))
		} else {
			at := doc.items[hdr].end
			for _, i := range sec {
				if doc.items[i].kind == itemKV {
					at = doc.items[i].end
				}
			}
			line := quoteKey(key) + " = " + quoted + nl
			prefix := ""
			if at > 0 && src[at-1] != '\n' {
				prefix = nl
			}
			out = splice(src, at, at, []byte(prefix+line))
		}
	default:
		if _, exists := lookup(before, table); exists {
			// Defined, but not by a header: an inline table or dotted keys.
			if kv := doc.findDotted(table, key); kv >= 0 {
				it := doc.items[kv]
				out = splice(src, it.valStart, it.valEnd, []byte(quoted))
				break
			}
			return nil, false, fmt.Errorf("[%s]: %w; add `%s = %s` to it by hand", keyPath(table), ErrInline, quoteKey(key), quoted)
		}
		var b bytes.Buffer
		b.Write(src)
		if len(src) > 0 && src[len(src)-1] != '\n' {
			b.WriteString(nl)
		}
		if len(src) > 0 {
			b.WriteString(nl)
		}
		b.WriteString("[" + keyPath(table) + "]" + nl)
		b.WriteString(quoteKey(key) + " = " + quoted + nl)
		out = b.Bytes()
	}
	var after map[string]any
	if err := toml.Unmarshal(out, &after); err != nil {
		return nil, false, fmt.Errorf("edit of [%s] would not parse (%v); add `%s = %s` by hand", keyPath(table), err, quoteKey(key), quoted)
	}
	if got, ok := lookup(after, append(append([]string{}, table...), key)); !ok || got != value {
		return nil, false, fmt.Errorf("edit of [%s] did not take effect; add `%s = %s` by hand", keyPath(table), quoteKey(key), quoted)
	}
	return out, !bytes.Equal(out, src), nil
}

// getString returns the string at table path + key in src and whether it
// exists as a string. It returns an error when src is not valid TOML.
func getString(src []byte, table []string, key string) (string, bool, error) {
	var m map[string]any
	if err := toml.Unmarshal(src, &m); err != nil {
		return "", false, fmt.Errorf("not valid TOML: %w", err)
	}
	v, ok := lookup(m, append(append([]string{}, table...), key))
	if !ok {
		return "", false, nil
	}
	s, ok := v.(string)
	return s, ok, nil
}

func lookup(m map[string]any, path []string) (any, bool) {
	var cur any = m
	for _, p := range path {
		t, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = t[p]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}

func splice(src []byte, start, end int, repl []byte) []byte {
	out := make([]byte, 0, len(src)-(end-start)+len(repl))
	out = append(out, src[:start]...)
	out = append(out, repl...)
	return append(out, src[end:]...)
}

func keyPath(path []string) string {
	parts := make([]string, len(path))
	for i, p := range path {
		parts[i] = quoteKey(p)
	}
	return strings.Join(parts, ".")
}

// quoteKey returns k as a TOML key: bare when it is non-empty and only
// A-Za-z0-9_-, else a basic string.
func quoteKey(k string) string {
	if k == "" {
		return `""`
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return quoteString(k)
		}
	}
	return k
}

// quoteString returns s as a TOML basic string, escaping `"`, `\` and
// control characters.
func quoteString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
