package codextrust

import (
	"bytes"
	"fmt"

	"github.com/pelletier/go-toml/v2/unstable"
)

type itemKind int

const (
	itemHeader      itemKind = iota // [a.b]
	itemArrayHeader                 // [[a.b]]
	itemKV                          // key = value
)

// item is one top-level expression: a table header or a key/value (whose
// value may span lines). end is the offset just past its line ending;
// valStart..valEnd is the value's bytes for itemKV.
type item struct {
	kind             itemKind
	end              int
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

// scan lists the table headers and key/values of src in order, with their
// keys and byte ranges, from go-toml/v2's unstable parser (whose nodes carry
// the byte range of every key and string value in src). It returns the
// parser's error for a document it cannot read.
func scan(src []byte) (*document, error) {
	var p unstable.Parser
	p.Reset(src)
	d := &document{}
	for p.NextExpression() {
		n := p.Expression()
		var it item
		switch n.Kind {
		case unstable.Table:
			it.kind = itemHeader
		case unstable.ArrayTable:
			it.kind = itemArrayHeader
		case unstable.KeyValue:
			it.kind = itemKV
		default:
			continue
		}
		keys := n.Key()
		last := 0
		for keys.Next() {
			k := keys.Node()
			it.key = append(it.key, string(k.Data))
			last = int(k.Raw.Offset + k.Raw.Length)
		}
		if it.kind == itemKV {
			v := n.Value()
			it.valStart, it.valEnd = int(v.Raw.Offset), int(v.Raw.Offset+v.Raw.Length)
			last = int(n.Raw.Offset + n.Raw.Length)
		}
		it.end = lineEnd(src, last)
		d.items = append(d.items, it)
	}
	if err := p.Error(); err != nil {
		return nil, fmt.Errorf("not valid TOML: %w", err)
	}
	return d, nil
}

// lineEnd returns the offset just past the line ending at or after off (a
// TOML expression ends its line: only spaces and a comment may follow), or
// len(src) on the last line without one.
func lineEnd(src []byte, off int) int {
	if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(src)
}
