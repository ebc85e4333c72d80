package clientjson

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"
)

// style is the formatting Merge copies from a file into the text it inserts.
type style struct {
	nl     string // "\n" or "\r\n": the file's majority line ending
	unit   string // one indent level: "\t" or n spaces (smallest indent in the file)
	colon  string // ":" or ": " between key and value (majority over the file)
	comma  string // "," or ", " between elements on one line (majority)
	padded bool   // one-line non-empty containers are written "{ … }"
}

// inferStyle reads the formatting conventions of src (a parsed doc).
func inferStyle(src []byte, root *hujson.Value) style {
	st := style{nl: "\n", unit: "  ", colon: ": "}
	crlf := bytes.Count(src, []byte("\r\n"))
	if lf := bytes.Count(src, []byte("\n")); crlf > 0 && crlf*2 >= lf {
		st.nl = "\r\n"
	}
	// Indent unit: the most common step between a multi-line container's
	// line and the lines of its items (ties: the shorter step). Lines inside
	// comments are never looked at, so " * " block-comment bodies do not
	// count.
	steps := map[string]int{}
	var indents func(v *hujson.Value)
	indents = func(v *hujson.Value) {
		if v.Value.Kind() != '{' && v.Value.Kind() != '[' {
			return
		}
		b := boxOf(v)
		parent := lineIndent(src, b.open)
		for _, it := range b.items {
			if bytes.ContainsAny(it.before, "\n") {
				if c := lineIndent(src, it.start); len(c) > len(parent) && strings.HasPrefix(c, parent) {
					steps[c[len(parent):]]++
				}
			}
		}
		switch t := v.Value.(type) {
		case *hujson.Object:
			for i := range t.Members {
				indents(&t.Members[i].Value)
			}
		case *hujson.Array:
			for i := range t.Elements {
				indents(&t.Elements[i])
			}
		}
	}
	indents(root)
	best := 0
	for step, n := range steps {
		if n > best || n == best && (len(step) < len(st.unit) || len(step) == len(st.unit) && step < st.unit) {
			st.unit, best = step, n
		}
	}
	// Separators.
	var colonTight, colonSpaced, commaTight, commaSpaced, pad, nopad int
	var walk func(v *hujson.Value)
	walk = func(v *hujson.Value) {
		switch t := v.Value.(type) {
		case *hujson.Object:
			oneLine := !bytes.ContainsAny(src[v.StartOffset:v.EndOffset], "\n")
			for i := range t.Members {
				m := &t.Members[i]
				if len(m.Value.BeforeExtra) == 0 {
					colonTight++
				} else if m.Value.BeforeExtra[0] == ' ' {
					colonSpaced++
				}
				if oneLine && i > 0 {
					countSep(m.Name.BeforeExtra, &commaTight, &commaSpaced)
				}
				walk(&m.Value)
			}
			if oneLine && len(t.Members) > 0 {
				countSep(t.Members[0].Name.BeforeExtra, &nopad, &pad)
			}
		case *hujson.Array:
			oneLine := !bytes.ContainsAny(src[v.StartOffset:v.EndOffset], "\n")
			for i := range t.Elements {
				if oneLine && i > 0 {
					countSep(t.Elements[i].BeforeExtra, &commaTight, &commaSpaced)
				}
				walk(&t.Elements[i])
			}
			if oneLine && len(t.Elements) > 0 && t.Elements[0].Value.Kind() == '{' {
				countSep(t.Elements[0].BeforeExtra, &nopad, &pad)
			}
		}
	}
	walk(root)
	if colonTight > colonSpaced {
		st.colon = ":"
	}
	switch {
	case commaTight > commaSpaced:
		st.comma = ","
	case commaSpaced > commaTight:
		st.comma = ", "
	case st.colon == ":":
		st.comma = ","
	default:
		st.comma = ", "
	}
	st.padded = pad > nopad
	return st
}

func countSep(extra []byte, tight, spaced *int) {
	switch {
	case len(extra) == 0:
		*tight++
	case extra[0] == ' ':
		*spaced++
	}
}

// node is a JSON value Merge writes: an object (keys in order), an array, or a
// raw literal.
type node struct {
	keys  []string
	vals  []*node
	arr   []*node
	isArr bool
	lit   string
}

func objNode(kv ...any) *node {
	n := &node{}
	for i := 0; i < len(kv); i += 2 {
		n.keys = append(n.keys, kv[i].(string))
		n.vals = append(n.vals, kv[i+1].(*node))
	}
	return n
}

func litNode(s string) *node { return &node{lit: s} }

// quote writes s as a JSON string without HTML escaping (so "<", ">" and "&"
// in a command stay readable).
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// formatNumber writes a timeout the way people write them: integers without a
// fraction or exponent (15, not 15.0 or 1.5e1), other values in the shortest
// decimal form.
func formatNumber(f float64) string {
	if f == float64(int64(f)) && f < 1e15 && f > -1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// handlerNode is {"type":"command","command":C,"timeout":T}; the timeout key
// is left out when T <= 0 (the client's default applies). "onFailure" and
// "commandWindows" follow when set, last, where conform inserts them into a
// handler that lacks them, so adopt and conform write the same bytes.
func handlerNode(h Handler) *node {
	n := objNode("type", litNode(`"command"`), "command", litNode(quote(h.Command)))
	if h.Timeout > 0 {
		n.keys = append(n.keys, "timeout")
		n.vals = append(n.vals, litNode(formatNumber(h.Timeout)))
	}
	if h.OnFailure != "" {
		n.keys = append(n.keys, "onFailure")
		n.vals = append(n.vals, litNode(quote(h.OnFailure)))
	}
	if h.CommandWindows != "" {
		n.keys = append(n.keys, "commandWindows")
		n.vals = append(n.vals, litNode(quote(h.CommandWindows)))
	}
	return n
}

// flatHandlerNode is a handler of a flat list (Cursor's hooks.json):
// {"command":C,"timeout":T}, plus "matcher":M when M is not "" (no "type":
// a handler is a command by default there).
func flatHandlerNode(h Handler) *node {
	n := objNode("command", litNode(quote(h.Command)))
	if h.Timeout > 0 {
		n.keys = append(n.keys, "timeout")
		n.vals = append(n.vals, litNode(formatNumber(h.Timeout)))
	}
	if h.Matcher != "" {
		n.keys = append(n.keys, "matcher")
		n.vals = append(n.vals, litNode(quote(h.Matcher)))
	}
	return n
}

// groupNode is {"matcher":M,"hooks":[handler]}, without the matcher key when
// M is "".
func groupNode(h Handler) *node {
	hooks := &node{isArr: true, arr: []*node{handlerNode(h)}}
	if h.Matcher == "" {
		return objNode("hooks", hooks)
	}
	return objNode("matcher", litNode(quote(h.Matcher)), "hooks", hooks)
}

func (st style) render(n *node, expanded bool, base string) string {
	var b strings.Builder
	st.write(&b, n, expanded, base)
	return b.String()
}

func (st style) write(b *strings.Builder, n *node, expanded bool, base string) {
	if n.lit != "" {
		b.WriteString(n.lit)
		return
	}
	open, close, count := "{", "}", len(n.keys)
	if n.isArr {
		open, close, count = "[", "]", len(n.arr)
	}
	b.WriteString(open)
	if count == 0 {
		b.WriteString(close)
		return
	}
	child := base + st.unit
	if !expanded && st.padded {
		b.WriteString(" ")
	}
	for i := 0; i < count; i++ {
		if i > 0 {
			if expanded {
				b.WriteString(",")
			} else {
				b.WriteString(st.comma)
			}
		}
		if expanded {
			b.WriteString(st.nl)
			b.WriteString(child)
		}
		if n.isArr {
			st.write(b, n.arr[i], expanded, child)
		} else {
			b.WriteString(quote(n.keys[i]))
			b.WriteString(st.colon)
			st.write(b, n.vals[i], expanded, child)
		}
	}
	if expanded {
		b.WriteString(st.nl)
		b.WriteString(base)
	} else if st.padded {
		b.WriteString(" ")
	}
	b.WriteString(close)
}

// splice replaces src[pos:pos+del] with ins.
type splice struct {
	pos, del int
	ins      string
}

// apply returns src with every splice applied; splices must not overlap.
func apply(src []byte, sp []splice) []byte {
	sort.Slice(sp, func(i, j int) bool { return sp[i].pos > sp[j].pos })
	out := append([]byte(nil), src...)
	for _, s := range sp {
		tail := append([]byte(s.ins), out[s.pos+s.del:]...)
		out = append(out[:s.pos], tail...)
	}
	return out
}

// item is one element of an array or one member of an object, with the
// whitespace and comments around it.
type item struct {
	start, end int // the element, or the member from its key to its value's end
	before     []byte
	after      []byte // before the following comma, or before the closing bracket
	valStart   int
	container  bool
}

// box is an object or array value with its items.
type box struct {
	open, close int // offsets of the brackets
	inner       []byte
	items       []item
}

func boxOf(v *hujson.Value) box {
	b := box{open: v.StartOffset, close: v.EndOffset - 1}
	switch t := v.Value.(type) {
	case *hujson.Object:
		b.inner = t.AfterExtra
		for i := range t.Members {
			m := &t.Members[i]
			after := m.Value.AfterExtra
			if i == len(t.Members)-1 {
				after = t.AfterExtra
			}
			k := m.Value.Value.Kind()
			b.items = append(b.items, item{start: m.Name.StartOffset, end: m.Value.EndOffset, before: m.Name.BeforeExtra,
				after: after, valStart: m.Value.StartOffset, container: k == '{' || k == '['})
		}
	case *hujson.Array:
		b.inner = t.AfterExtra
		for i := range t.Elements {
			e := &t.Elements[i]
			after := e.AfterExtra
			if i == len(t.Elements)-1 {
				after = t.AfterExtra
			}
			k := e.Value.Kind()
			b.items = append(b.items, item{start: e.StartOffset, end: e.EndOffset, before: e.BeforeExtra,
				after: after, valStart: e.StartOffset, container: k == '{' || k == '['})
		}
	}
	return b
}

func (b box) multiLine() bool {
	if len(b.items) == 0 {
		return bytes.ContainsAny(b.inner, "\n")
	}
	return bytes.ContainsAny(b.items[0].before, "\n")
}

func hasComment(extra []byte) bool { return consumeWS(extra) < len(extra) }

// lineIndent returns the leading blanks of the line holding off.
func lineIndent(src []byte, off int) string {
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	i := start
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return string(src[start:i])
}

// insertText returns the splices that add one new item to b. text renders the
// item (for an object: `"key": value`) given whether to expand it and the
// indentation of its first line. parentMulti says whether b sits in a
// multi-line container (or is the top-level value), which decides how an
// empty b is opened up.
//
// Placement: after the last item (a comma, then either the file's line ending
// and the last item's indentation, or the one-line separator); into an empty
// container after its opening bracket. When a comment follows the last item
// on its line, the comma goes right after the item and the new item after the
// comment, so the comment stays with the item it describes.
func (st style) insertText(src []byte, b box, parentMulti bool, text func(expanded bool, base string) string) []splice {
	n := len(b.items)
	if n == 0 {
		base := lineIndent(src, b.open)
		child := base + st.unit
		switch {
		case bytes.ContainsAny(b.inner, "\n"):
			return []splice{{pos: b.open + 1, ins: st.nl + child + text(true, child)}}
		case parentMulti:
			return []splice{{pos: b.open + 1, ins: st.nl + child + text(true, child) + st.nl + base}}
		default:
			pad := ""
			if st.padded {
				pad = " "
			}
			return []splice{{pos: b.open + 1, ins: pad + text(false, "") + pad}}
		}
	}
	last := b.items[n-1]
	if !b.multiLine() {
		return []splice{{pos: last.end, ins: st.comma + text(false, "")}}
	}
	// Copy the shape of the sibling containers: expanded if any of them is
	// written over several lines, one-line if they all are one-line, and
	// expanded when there are only scalars around.
	anyMulti, anyOneLine := false, false
	for _, it := range b.items {
		if !it.container || len(bytes.TrimSpace(src[it.valStart+1:it.end-1])) == 0 {
			continue // scalars and empty containers say nothing about layout
		}
		if bytes.ContainsAny(src[it.valStart:it.end], "\n") {
			anyMulti = true
		} else {
			anyOneLine = true
		}
	}
	expanded := anyMulti || !anyOneLine
	indent := lineIndent(src, last.start)
	body := text(expanded, indent)
	if nl := bytes.IndexByte(last.after, '\n'); hasComment(last.after[:max(nl, 0)]) || (nl < 0 && hasComment(last.after)) {
		pos := len(last.after)
		if nl >= 0 {
			pos = nl
			if pos > 0 && last.after[pos-1] == '\r' {
				pos--
			}
		}
		return []splice{{pos: last.end, ins: ","}, {pos: last.end + pos, ins: st.nl + indent + body}}
	}
	return []splice{{pos: last.end, ins: "," + st.nl + indent + body}}
}

// removeItem returns the splices that delete item i of b, written as the
// inverse of insertText so that inserting and then removing an item gives
// back the original bytes.
func removeItem(b box, i int) []splice {
	n := len(b.items)
	it := b.items[i]
	if n == 1 {
		if !hasComment(it.before) && !hasComment(it.after) {
			return []splice{{pos: b.open + 1, del: b.close - b.open - 1}}
		}
		from := it.start - len(it.before) + consumeWSBack(it.before)
		return []splice{{pos: from, del: it.end - from}}
	}
	if i == n-1 {
		prev := b.items[i-1]
		comma := prev.end + len(prev.after)
		if hasComment(it.before) {
			cut := bytes.LastIndexByte(it.before, '\n')
			if cut > 0 && it.before[cut-1] == '\r' {
				cut--
			}
			from := it.start - len(it.before) + max(cut, 0)
			if cut < 0 {
				from = it.start
			}
			return []splice{{pos: comma, del: 1}, {pos: from, del: it.end - from}}
		}
		if hasComment(prev.after) {
			return []splice{{pos: comma, del: it.end - comma}}
		}
		return []splice{{pos: prev.end, del: it.end - prev.end}}
	}
	next := b.items[i+1]
	if !hasComment(it.after) && !hasComment(next.before) {
		return []splice{{pos: it.start, del: next.start - it.start}}
	}
	comma := it.end + len(it.after)
	return []splice{{pos: it.start, del: comma + 1 - it.start}}
}

// consumeWSBack returns the offset in extra after its last non-blank byte.
func consumeWSBack(extra []byte) int {
	i := len(extra)
	for i > 0 && (extra[i-1] == ' ' || extra[i-1] == '\t' || extra[i-1] == '\r' || extra[i-1] == '\n') {
		i--
	}
	return i
}
