package settings

// Guards for the places where goccy/go-yaml reads a file differently from
// go.yaml.in/yaml/v3 (found by differential fuzzing against the yaml/v3 port):
// each either checks goccy's reading against the source text or refuses the
// construct, so that a settings file is read exactly as yaml/v3 read it or not
// at all.

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// gluedMarker returns the first line that starts with --- or ... followed by
// something other than a blank, 0 if none.
func gluedMarker(src string) int {
	line := 1
	for i := 0; i < len(src); line++ {
		l := src[i:]
		if (strings.HasPrefix(l, "---") || strings.HasPrefix(l, "...")) && len(l) > 3 && strings.IndexByte(" \t\r\n", l[3]) < 0 {
			return line
		}
		j := strings.IndexAny(l, "\r\n")
		if j < 0 {
			break
		}
		i += j + 1
		if l[j] == '\r' && j+1 < len(l) && l[j+1] == '\n' {
			i++
		}
	}
	return 0
}

// contentLine returns the first line of src that is not blank or a comment,
// 0 if none.
func contentLine(src string) int {
	line := 1
	for i := 0; i < len(src); line++ {
		j := i
		for j < len(src) && src[j] != '\n' && src[j] != '\r' {
			j++
		}
		if !emptyLine(src[i:j]) {
			return line
		}
		if j+1 < len(src) && src[j] == '\r' && src[j+1] == '\n' {
			j++
		}
		i = j + 1
	}
	return 0
}

// emptyLine reports whether l (one line, without its break) holds nothing:
// spaces and perhaps a comment. yaml/v3 read only such files as empty.
func emptyLine(l string) bool {
	l = strings.TrimLeft(l, " ")
	return l == "" || l[0] == '#' // a tab here was an error in yaml/v3
}

// checkIndent refuses a block value that starts on a line after its key, `-`
// or property (ownerLine) without being indented past the enclosing key or
// `-`: yaml/v3 refused it, goccy takes it as the value. A list under a key may
// sit at the key's column (seqAtIndent).
func (c *converter) checkIndent(ownerLine int, v ast.Node, seqAtIndent bool) error {
	if c.flow > 0 || v == nil {
		return nil
	}
	tk := v.GetToken()
	switch x := v.(type) {
	case *ast.MappingNode:
		if !x.IsFlowStyle && len(x.Values) > 0 {
			tk = x.Values[0].Key.GetToken()
		}
	case *ast.SequenceNode:
		if !x.IsFlowStyle && seqAtIndent && tokenColumn(x.Start) == c.indent {
			return nil
		}
	case *ast.MappingValueNode:
		tk = x.Key.GetToken()
	}
	if tk == nil || tk.Type == token.ImplicitNullType {
		return nil
	}
	line := tokenLine(tk)
	if tk.Type != token.SingleQuoteType && tk.Type != token.DoubleQuoteType {
		line = plainLine(tk)
	}
	if line > ownerLine && c.lineIndent(line)+1 <= c.indent {
		return yamlError(line, "a value on a line of its own must be indented past its key or '-'")
	}
	return nil
}

// lineIndent returns the number of spaces that start line (1-based) of src.
// The first token of a line starts after them; goccy's own column for such a
// token can be off.
func (c *converter) lineIndent(line int) int {
	off, ok := c.offset(line, 1)
	if !ok {
		return 0
	}
	n := 0
	for off+n < len(c.src) && c.src[off+n] == ' ' {
		n++
	}
	return n
}

// checkDoubleQuoted reads the escapes of a double-quoted scalar as yaml/v3
// did and refuses the scalar when one is invalid (goccy accepts some, such as
// a short \x) or, for a scalar on one line, when goccy's value differs from
// the one yaml/v3 read.
func (c *converter) checkDoubleQuoted(tk *token.Token, value string) error {
	if !strings.ContainsRune(tk.Origin, '\\') && !strings.ContainsRune(tk.Origin, '\t') {
		return nil // no escape, no tab: goccy reads it as yaml/v3 did
	}
	raw, ok := c.quotedAt(tokenLine(tk), tokenColumn(tk), '"')
	if !ok {
		return yamlError(tokenLine(tk), "double-quoted scalar not read exactly")
	}
	if strings.ContainsAny(raw, "\r\n") && strings.ContainsRune(raw, '\t') {
		return yamlError(tokenLine(tk), "a quoted scalar over several lines with tabs is not supported")
	}
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			b.WriteByte(raw[i])
			continue
		}
		i++
		if i >= len(raw) {
			return yamlError(tokenLine(tk), "found unknown escape character")
		}
		width := 0
		switch raw[i] {
		case '0':
			b.WriteByte(0)
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 't', '\t':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'v':
			b.WriteByte('\v')
		case 'f':
			b.WriteByte('\f')
		case 'r':
			b.WriteByte('\r')
		case 'e':
			b.WriteByte(0x1b)
		case ' ', '"', '\'', '\\': // not '/': yaml/v3 refused \/
			b.WriteByte(raw[i])
		case 'N':
			b.WriteString("\u0085")
		case '_':
			b.WriteString("\u00a0")
		case 'L':
			b.WriteString("\u2028")
		case 'P':
			b.WriteString("\u2029")
		case 'x':
			width = 2
		case 'u':
			width = 4
		case 'U':
			width = 8
		case '\n', '\r':
			// an escaped line break: the scalar spans lines, checked below
			b.WriteString("\\\n")
		default:
			return yamlError(tokenLine(tk), "found unknown escape character")
		}
		if width == 0 {
			continue
		}
		if i+1+width > len(raw) {
			return yamlError(tokenLine(tk), "did not find expected hexdecimal number")
		}
		hex := raw[i+1 : i+1+width]
		v, err := strconv.ParseUint(hex, 16, 32)
		if err != nil || strings.ContainsAny(hex, "+-_xX") {
			return yamlError(tokenLine(tk), "did not find expected hexdecimal number")
		}
		if (v >= 0xD800 && v <= 0xDFFF) || v > 0x10FFFF {
			return yamlError(tokenLine(tk), "found invalid Unicode character escape code")
		}
		b.WriteRune(rune(v))
		i += width
	}
	if !strings.ContainsAny(raw, "\r\n") && b.String() != value {
		return yamlError(tokenLine(tk), "double-quoted scalar not read exactly")
	}
	return nil
}

// quotedKey reports whether a mapping key is a quoted scalar (after its
// anchor and tag).
func quotedKey(k ast.Node) bool {
	for {
		switch x := k.(type) {
		case *ast.AnchorNode:
			k = x.Value
		case *ast.TagNode:
			k = x.Value
		case *ast.StringNode:
			return x.Token != nil && (x.Token.Type == token.SingleQuoteType || x.Token.Type == token.DoubleQuoteType)
		default:
			return false
		}
	}
}

// afterColon returns the byte after the ':' token colon in src; ok is false
// when the colon is not found there or ends the file. (After a tag on the same
// line goccy's columns are one short, so the next byte is tried too.)
func (c *converter) afterColon(colon *token.Token) (byte, bool) {
	off, ok := c.offset(tokenLine(colon), tokenColumn(colon))
	if !ok {
		return 0, false
	}
	if off < len(c.src) && c.src[off] != ':' {
		off++
	}
	if off+1 >= len(c.src) || c.src[off] != ':' {
		return 0, false
	}
	return c.src[off+1], true
}

// offset returns the byte offset of line and column (1-based, column in
// characters) in src.
func (c *converter) offset(line, column int) (int, bool) {
	if c.lineStarts == nil {
		c.lineStarts = []int{0}
		for i := 0; i < len(c.src); i++ {
			switch c.src[i] {
			case '\n':
				c.lineStarts = append(c.lineStarts, i+1)
			case '\r':
				if i+1 >= len(c.src) || c.src[i+1] != '\n' {
					c.lineStarts = append(c.lineStarts, i+1)
				}
			}
		}
	}
	if line < 1 || line > len(c.lineStarts) {
		return 0, false
	}
	off := c.lineStarts[line-1]
	for col := 1; col < column && off < len(c.src); col++ {
		_, size := utf8.DecodeRuneInString(c.src[off:])
		off += size
	}
	return off, true
}

// quotedAt returns the text between the quotes (q: ' or ") of the quoted
// scalar whose opening quote is at line and column (1-based, column in
// characters), read from the source: goccy's Origin of a scalar with escapes
// is not the source text.
func (c *converter) quotedAt(line, column int, q byte) (string, bool) {
	off, ok := c.offset(line, column)
	if !ok {
		return "", false
	}
	for off < len(c.src) && (c.src[off] == ' ' || c.src[off] == '\t') {
		off++ // after a tag goccy's column is that of the blank before
	}
	if off >= len(c.src) || c.src[off] != q {
		return "", false
	}
	for i := off + 1; i < len(c.src); i++ {
		switch {
		case q == '"' && c.src[i] == '\\':
			i++
		case q == '\'' && c.src[i] == '\'' && i+1 < len(c.src) && c.src[i+1] == '\'':
			i++
		case c.src[i] == q:
			return c.src[off+1 : i], true
		}
	}
	return "", false
}

// checkSingleQuoted refuses a single-quoted scalar whose value goccy read
// differently from yaml/v3: it folds lines with tabs differently.
func (c *converter) checkSingleQuoted(tk *token.Token, value string) error {
	raw, ok := c.quotedAt(tokenLine(tk), tokenColumn(tk), '\'')
	if !ok {
		return yamlError(tokenLine(tk), "single-quoted scalar not read exactly")
	}
	raw = strings.ReplaceAll(raw, "''", "'")
	if !strings.ContainsAny(raw, "\r\n") {
		if raw != value {
			return yamlError(tokenLine(tk), "single-quoted scalar not read exactly")
		}
		return nil
	}
	if strings.ContainsRune(raw, '\t') || foldQuoted(raw) != value {
		return yamlError(tokenLine(tk), "a quoted scalar over several lines with tabs is not supported")
	}
	return nil
}

// foldQuoted folds the lines of a quoted scalar as YAML does: blanks around
// line breaks dropped, one line break read as a space, n+1 as n newlines.
func foldQuoted(raw string) string {
	lines := strings.Split(strings.ReplaceAll(strings.ReplaceAll(raw, "\r\n", "\n"), "\r", "\n"), "\n")
	var b strings.Builder
	empty := 0
	for i, l := range lines {
		if i > 0 {
			l = strings.TrimLeft(l, " \t")
		}
		if i < len(lines)-1 {
			l = strings.TrimRight(l, " \t")
		}
		if i > 0 && i < len(lines)-1 && l == "" {
			empty++
			continue
		}
		if i > 0 {
			if empty > 0 {
				b.WriteString(strings.Repeat("\n", empty))
			} else {
				b.WriteByte(' ')
			}
		}
		empty = 0
		b.WriteString(l)
	}
	return b.String()
}

// blockHeader reports whether the raw text of a block scalar's header token
// (goccy's Value drops a bad indicator such as 0) is a header yaml/v3 read: | or >,
// then at most one chomping indicator (+, -) and at most one indentation
// indicator (1-9), in either order.
func blockHeader(origin string) bool {
	h := strings.TrimLeft(origin, blanks)
	if i := strings.IndexAny(h, blanks); i >= 0 {
		h = h[:i]
	}
	if h == "" || (h[0] != '|' && h[0] != '>') {
		return false
	}
	chomp, indent := false, false
	for i := 1; i < len(h); i++ {
		switch c := h[i]; {
		case (c == '+' || c == '-') && !chomp:
			chomp = true
		case c >= '1' && c <= '9' && !indent:
			indent = true
		default:
			return false
		}
	}
	return true
}

// tabIndent reports whether a tab appears in the indentation of a block
// scalar's raw lines (before the column of its first line with text, and
// before parent spaces, the column of the enclosing key or `-`): yaml/v3
// refused it, goccy reads it as text.
func tabIndent(raw string, parent int) bool {
	lines := strings.Split(strings.ReplaceAll(strings.ReplaceAll(raw, "\r\n", "\n"), "\r", "\n"), "\n")
	indent := -1
	for _, l := range lines {
		if t := strings.TrimLeft(l, " \t"); t != "" {
			indent = len(l) - len(strings.TrimLeft(l, " "))
			break
		}
	}
	for _, l := range lines {
		ws := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if i := strings.IndexByte(ws, '\t'); i >= 0 && (indent < 0 || i < max(indent, parent)) {
			return true
		}
	}
	return false
}

// tabIndentedLine returns the first line outside block scalars whose
// indentation holds a tab before text that is not a comment, 0 if none.
func (c *converter) tabIndentedLine() int {
	if !strings.ContainsRune(c.src, '\t') {
		return 0
	}
	line := 1
	for i := 0; i < len(c.src); line++ {
		j := i
		for j < len(c.src) && c.src[j] != '\n' && c.src[j] != '\r' {
			j++
		}
		l := c.src[i:j]
		rest := strings.TrimLeft(l, " \t")
		if ws := l[:len(l)-len(rest)]; strings.ContainsRune(ws, '\t') && rest != "" && rest[0] != '#' && !c.inBlock(line) {
			return line
		}
		if j+1 < len(c.src) && c.src[j] == '\r' && c.src[j+1] == '\n' {
			j++
		}
		i = j + 1
	}
	return 0
}

// inBlock reports whether line is inside a block scalar's content.
func (c *converter) inBlock(line int) bool {
	for _, b := range c.blocks {
		if line >= b[0] && line <= b[1] {
			return true
		}
	}
	return false
}

// trailingBlanks reports whether a line of raw text with text on it ends
// with a space or a tab.
func trailingBlanks(raw string) bool {
	for _, l := range strings.Split(strings.ReplaceAll(strings.ReplaceAll(raw, "\r\n", "\n"), "\r", "\n"), "\n") {
		if strings.TrimSpace(l) != "" && (strings.HasSuffix(l, " ") || strings.HasSuffix(l, "\t")) {
			return true
		}
	}
	return false
}

// tabAfterDash reports whether a tab follows the `-` of a block sequence
// entry before its value on the same line: yaml/v3 refused it as indentation.
func (c *converter) tabAfterDash(dash *token.Token) bool {
	off, ok := c.offset(tokenLine(dash), tokenColumn(dash))
	if !ok || off >= len(c.src) || c.src[off] != '-' {
		return false
	}
	for i := off + 1; i < len(c.src); i++ {
		switch c.src[i] {
		case ' ':
		case '\t':
			return true
		default:
			return false
		}
	}
	return false
}

// lastToken reports whether no token but comments follows tk.
func lastToken(tk *token.Token) bool {
	for tk != nil {
		tk = tk.Next
		if tk != nil && tk.Type != token.CommentType {
			return false
		}
	}
	return true
}

// anchorName reports whether s is an anchor name yaml/v3 read: one or more
// ASCII letters, digits, '_' or '-'.
func anchorName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// twoProperties reports whether n, looking through anchors and tags, holds
// another tag (tag true) or anchor (tag false).
func twoProperties(n ast.Node, tag bool) bool {
	for {
		switch x := n.(type) {
		case *ast.TagNode:
			if tag {
				return true
			}
			n = x.Value
		case *ast.AnchorNode:
			if !tag {
				return true
			}
			n = x.Value
		default:
			return false
		}
	}
}

// foldPlain returns the value of a plain scalar from its raw text, as YAML
// folds it: blanks around each line dropped, a single line break read as a
// space, n+1 line breaks as n newlines.
func foldPlain(raw string) string {
	raw = strings.Trim(raw, blanks)
	if !strings.ContainsAny(raw, "\r\n") {
		return raw
	}
	var b strings.Builder
	empty := 0
	for i, l := range strings.Split(strings.ReplaceAll(strings.ReplaceAll(raw, "\r\n", "\n"), "\r", "\n"), "\n") {
		l = strings.Trim(l, " \t")
		if l == "" {
			empty++
			continue
		}
		if i > 0 {
			if empty > 0 {
				b.WriteString(strings.Repeat("\n", empty))
			} else {
				b.WriteByte(' ')
			}
		}
		empty = 0
		b.WriteString(l)
	}
	return b.String()
}
