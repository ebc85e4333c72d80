package settings

// This file turns settings bytes into a small tree of nodes through the
// goccy/go-yaml parser (its AST only: no decoder, no reflection) and gives
// every scalar the tag go.yaml.in/yaml/v3 gave it, so that Parse accepts and
// refuses what it accepted and refused under yaml/v3 (testdata/parse.json pins
// that). Where goccy reads a file differently and the difference cannot be
// matched, the file is refused: a settings file we cannot read exactly is an
// error, never a silent default.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// nodeKind is the shape of a node.
type nodeKind uint8

const (
	scalarNode nodeKind = iota + 1
	mappingNode
	sequenceNode
	aliasKeyNode // an alias used as a mapping key (never a plain name)
)

// node is one YAML node after aliases are resolved (an alias is the very node
// its anchor names, so nothing is expanded or copied). tag is set for scalars
// only, in yaml/v3's short form ("!!str", "!!int", "!!null", "!!merge", a
// custom "!x"). line is 1-based: the line of the node's first token,
// properties (anchor, tag) included.
type node struct {
	kind  nodeKind
	tag   string
	value string
	line  int
	keys  []*node // mapping keys, in file order
	vals  []*node // mapping values, same index as keys
	items []*node // sequence entries
}

// yamlError is a "not valid YAML" error: one line, with the line number when
// known and never any excerpt of the file.
func yamlError(line int, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if line > 0 {
		return fmt.Errorf("not valid YAML: line %d: %s", line, msg)
	}
	return fmt.Errorf("not valid YAML: %s", msg)
}

// maxYAMLMessage bounds the library message kept in a "not valid YAML" error.
const maxYAMLMessage = 120

// parseDocument parses data as one YAML document and returns its root node,
// or nil when the file holds no document at all (empty, blanks, comments).
// Errors start with "not valid YAML: " or "line N: " and are one line.
func parseDocument(data []byte) (root *node, err error) {
	src, err := decodeText(data)
	if err != nil {
		return nil, err
	}
	if i := strings.LastIndexAny(src, " \t\r\n"); i < len(src)-1 && (src[i+1] == '!' || src[i+1] == '&') {
		// goccy drops an anchor or tag that ends the file without a line
		// break (yaml/v3 read it as the property of an empty value).
		return nil, yamlError(1+lineBreaks(src), "the file ends with an anchor or tag")
	}
	if line := gluedMarker(src); line > 0 {
		// yaml/v3 read `...x` or `---x` at a line start as text, goccy as
		// a document marker followed by something it may drop.
		return nil, yamlError(line, "text right after a --- or ... at the start of a line")
	}
	f, props, err := parseAST(src)
	if err != nil {
		return nil, err
	}
	if src != "" && !strings.HasSuffix(src, "\n") && !strings.HasSuffix(src, "\r") {
		// goccy's lexer drops some text that ends the file without a line
		// break (`[a]!`); with the break added it reports it. The value is
		// still read from the file as written (a final break would change
		// a `|+` block scalar).
		if _, _, err := parseAST(src + "\n"); err != nil {
			return nil, err
		}
	}
	var doc *ast.DocumentNode
	for _, d := range f.Docs {
		if dir, ok := d.Body.(*ast.DirectiveNode); ok {
			if err := checkDirective(dir); err != nil {
				return nil, err
			}
			continue
		}
		if d.Body == nil && d.Start == nil {
			continue // nothing but blanks, comments or a `...` marker
		}
		if doc != nil {
			line := 0
			if d.Start != nil {
				line = d.Start.Position.Line
			} else {
				line = tokenLine(d.Body.GetToken())
			}
			return nil, fmt.Errorf("line %d: a second YAML document; a settings file holds exactly one", line)
		}
		if d.Body == nil {
			// `---` and nothing else: yaml/v3 read a null document here.
			return nil, fmt.Errorf("line %d: the document must be a mapping", d.Start.Position.Line+1)
		}
		doc = d
	}
	if doc == nil {
		// goccy drops some content it cannot place (a lone "!"): a file
		// without a document must hold nothing but blank lines and comments.
		if line := contentLine(src); line > 0 {
			return nil, yamlError(line, "content outside a document")
		}
		return nil, nil
	}
	c := converter{anchors: map[string]*node{}, endLine: 1 + lineBreaks(src), src: src,
		endsWithBreak: strings.HasSuffix(src, "\n") || strings.HasSuffix(src, "\r")}
	root, err = c.convert(doc.Body)
	if err != nil {
		return nil, err
	}
	if line := c.tabIndentedLine(); line > 0 {
		// goccy reads a tab in the indentation as a blank; yaml/v3 refused it.
		return nil, yamlError(line, "a tab in the indentation (indent with spaces)")
	}
	if c.props != props {
		// goccy drops a tag right after a quoted scalar (`"1"!`).
		return nil, yamlError(0, "%d anchors, aliases and tags written, %d read", props, c.props)
	}
	return root, nil
}

// parseAST runs the goccy lexer and parser. Duplicate keys are let through so
// that Parse reports them in its own words; a panic inside the library is an
// error.
// props is the number of anchor, alias and tag tokens the lexer found.
func parseAST(src string) (f *ast.File, props int, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, props, err = nil, 0, yamlError(0, "the YAML parser failed on this file")
		}
	}()
	tokens := lexer.Tokenize(src)
	for _, tk := range tokens {
		switch tk.Type {
		case token.AnchorType, token.AliasType, token.TagType:
			props++
		}
	}
	f, err = parser.Parse(tokens, 0, parser.AllowDuplicateMapKey())
	if err != nil {
		return nil, 0, libraryError(err)
	}
	return f, props, nil
}

// libraryError shortens a goccy error (a message, a position and a source
// excerpt over several lines) to the message's first line and the line number.
func libraryError(err error) error {
	type located interface {
		GetMessage() string
		GetToken() *token.Token
	}
	var le located
	msg, line := err.Error(), 0
	if errors.As(err, &le) {
		msg = le.GetMessage()
		if tk := le.GetToken(); tk != nil && tk.Position != nil {
			line = tk.Position.Line
		}
	}
	msg, _, _ = strings.Cut(msg, "\n")
	msg = strings.TrimSpace(msg)
	if len(msg) > maxYAMLMessage {
		msg = strings.ToValidUTF8(msg[:maxYAMLMessage], "") + "..."
	}
	if msg == "" {
		msg = "syntax error"
	}
	return yamlError(line, "%s", msg)
}

// checkDirective accepts `%YAML 1.1`, the only directive yaml/v3 read without
// changing what follows. %YAML 1.2 and other versions were refused by yaml/v3;
// %TAG (which redefines what a tag such as !!str means) and unknown
// directives are refused here.
func checkDirective(d *ast.DirectiveNode) error {
	line := tokenLine(d.Start)
	name := ""
	if d.Name != nil {
		name = d.Name.String()
	}
	if name == "YAML" && len(d.Values) == 1 && d.Values[0].String() == "1.1" {
		return nil
	}
	if name == "YAML" {
		return yamlError(line, "found incompatible YAML document (only %%YAML 1.1 is read)")
	}
	return yamlError(line, "directives other than %%YAML 1.1 are not supported")
}

// decodeText checks data the way yaml/v3's reader did and returns it as UTF-8
// without a byte order mark: UTF-16 with a byte order mark is converted;
// invalid UTF-8 and characters YAML does not allow (controls other than tab,
// LF, CR; U+FFFE, U+FFFF) are errors. NEL, LS and PS are refused too: yaml/v3
// counted them as line breaks and goccy does not, so neither the lines nor the
// values would be read the same.
func decodeText(data []byte) (string, error) {
	var s string
	switch {
	case len(data) >= 2 && data[0] == 0xFF && data[1] == 0xFE:
		u, err := decodeUTF16(data[2:], false)
		if err != nil {
			return "", err
		}
		s = u
	case len(data) >= 2 && data[0] == 0xFE && data[1] == 0xFF:
		u, err := decodeUTF16(data[2:], true)
		if err != nil {
			return "", err
		}
		s = u
	default:
		s = string(data)
		s = strings.TrimPrefix(s, "\uFEFF")
	}
	// yaml/v3's scanner also skipped a byte order mark at the start of the
	// first line.
	s = strings.TrimPrefix(s, "\uFEFF")
	line := 1
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return "", yamlError(line, "invalid UTF-8")
		case r == '\n':
			line++
		case r == '\r':
			if i+1 >= len(s) || s[i+1] != '\n' {
				line++
			}
		case r == 0x85 || r == 0x2028 || r == 0x2029:
			return "", yamlError(line, "NEL, LS and PS line breaks are not supported (use LF or CRLF)")
		case !yamlChar(r):
			return "", yamlError(line, "control characters are not allowed")
		}
		i += size
	}
	return s, nil
}

// yamlChar reports whether r may appear in a YAML stream (YAML 1.1 c-printable
// plus the line breaks tab, LF and CR).
func yamlChar(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return true
	case r >= 0x20 && r <= 0x7E:
		return true
	case r >= 0xA0 && r <= 0xD7FF:
		return true
	case r >= 0xE000 && r <= 0xFFFD:
		return true
	case r >= 0x10000 && r <= 0x10FFFF:
		return true
	}
	return false
}

// decodeUTF16 converts UTF-16 (after its byte order mark) to UTF-8. An odd
// length or an unpaired surrogate is an error.
func decodeUTF16(b []byte, bigEndian bool) (string, error) {
	if len(b)%2 != 0 {
		return "", yamlError(0, "incomplete UTF-16 character")
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		if bigEndian {
			u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
		} else {
			u[i] = uint16(b[2*i+1])<<8 | uint16(b[2*i])
		}
	}
	for i := 0; i < len(u); i++ {
		switch {
		case u[i] >= 0xD800 && u[i] < 0xDC00:
			if i+1 >= len(u) || u[i+1] < 0xDC00 || u[i+1] > 0xDFFF {
				return "", yamlError(0, "unpaired UTF-16 surrogate")
			}
			i++
		case u[i] >= 0xDC00 && u[i] <= 0xDFFF:
			return "", yamlError(0, "unpaired UTF-16 surrogate")
		}
	}
	return string(utf16.Decode(u)), nil
}

// converter builds nodes from the goccy AST in file order, so that an alias
// sees the anchors defined before it, as in yaml/v3.
type converter struct {
	anchors map[string]*node
	endLine int    // the line of the end of the file
	src     string // the text parsed
	// lineStarts holds the offset of each line of src, built on first use.
	lineStarts []int
	flow       int // depth of flow collections ([...], {...}) being converted
	indent     int // column of the enclosing block key or `-` (0 at the top)
	props      int // anchors, aliases and tags converted
	// blocks holds the first and last line of each block scalar's content.
	blocks [][2]int
	// endsWithBreak reports that src ends with a line break.
	endsWithBreak bool
}

// convert returns the node for n. Aliases resolve to the anchored node; an
// anchor is known from its own start, so `&a [*a]` is a list holding itself
// (yaml/v3 did the same; Parse never walks deeper than the schema).
func (c *converter) convert(n ast.Node) (*node, error) {
	switch x := n.(type) {
	case nil:
		return nil, yamlError(0, "missing node")
	case *ast.AnchorNode:
		c.props++
		return c.anchor(x)
	case *ast.AliasNode:
		c.props++
		name := nodeText(x.Value)
		if !anchorName(name) {
			return nil, yamlError(tokenLine(x.Start), "an alias name must be letters, digits, '_' or '-'")
		}
		target, ok := c.anchors[name]
		if !ok {
			return nil, yamlError(tokenLine(x.Start), "unknown anchor %q referenced", name)
		}
		return target, nil
	case *ast.TagNode:
		c.props++
		return c.tagged(x)
	case *ast.MappingKeyNode:
		// `? key` in value position cannot occur; a key is converted by key.
		return nil, yamlError(tokenLine(x.Start), "unexpected explicit key")
	case *ast.MappingNode:
		return c.mapping(x.Values, x.IsFlowStyle, x.Start)
	case *ast.MappingValueNode:
		// A single `key: value` pair standing alone is a one-entry mapping.
		return c.mapping([]*ast.MappingValueNode{x}, x.IsFlowStyle, x.Start)
	case *ast.SequenceNode:
		s := &node{kind: sequenceNode, line: tokenLine(x.Start)}
		if x.IsFlowStyle {
			c.flow++
			defer func() { c.flow-- }()
		} else {
			outer := c.indent
			c.indent = tokenColumn(x.Start)
			defer func() { c.indent = outer }()
		}
		for i, e := range x.Values {
			if !x.IsFlowStyle && i < len(x.Entries) && x.Entries[i] != nil {
				if err := c.checkIndent(tokenLine(x.Entries[i].Start), e, false); err != nil {
					return nil, err
				}
				if c.tabAfterDash(x.Entries[i].Start) {
					return nil, yamlError(tokenLine(x.Entries[i].Start), "a tab after '-' (indentation must be spaces)")
				}
			}
			v, err := c.convert(e)
			if err != nil {
				return nil, err
			}
			s.items = append(s.items, v)
		}
		return s, nil
	case *ast.LiteralNode:
		if !blockHeader(x.Start.Origin) {
			return nil, yamlError(tokenLine(x.Start), "bad block scalar header (want | or > with at most one of + and - and one digit 1-9)")
		}
		if x.Value.Token != nil {
			first := tokenLine(x.Start) + 1
			c.blocks = append(c.blocks, [2]int{first, first + lineBreaks(strings.TrimRight(x.Value.Token.Origin, "\r\n"))})
		}
		if x.Value.Token != nil && trailingBlanks(x.Value.Token.Origin) {
			// goccy drops blanks ending a line of a folded or stripped (|-)
			// block scalar; yaml/v3 kept them.
			return nil, yamlError(tokenLine(x.Start), "blanks at the end of a line of a block scalar (| or >)")
		}
		if x.Value.Token != nil && tabIndent(x.Value.Token.Origin, c.indent) {
			return nil, yamlError(tokenLine(x.Start), "a tab in the indentation of a block scalar (| or >)")
		}
		if !c.endsWithBreak && lastToken(x.Value.GetToken()) {
			// There goccy keeps a line break yaml/v3 did not read (|+) and
			// drops trailing blanks yaml/v3 kept.
			return nil, yamlError(tokenLine(x.Start), "a block scalar (| or >) ending the file needs a final line break")
		}
		return &node{kind: scalarNode, tag: "!!str", value: x.Value.Value, line: tokenLine(x.Start)}, nil
	case *ast.StringNode:
		if x.Token != nil && x.Token.Type == token.DoubleQuoteType {
			if err := c.checkDoubleQuoted(x.Token, x.Value); err != nil {
				return nil, err
			}
		}
		if x.Token != nil && x.Token.Type == token.SingleQuoteType {
			if err := c.checkSingleQuoted(x.Token, x.Value); err != nil {
				return nil, err
			}
		}
		if x.Token != nil && (x.Token.Type == token.SingleQuoteType || x.Token.Type == token.DoubleQuoteType) {
			return &node{kind: scalarNode, tag: "!!str", value: x.Value, line: tokenLine(x.Token)}, nil
		}
		return c.plainNode(x.Value, x.Token)
	case *ast.NullNode:
		if x.Token != nil && x.Token.Type == token.ImplicitNullType {
			return &node{kind: scalarNode, tag: "!!null", line: tokenLine(x.Token)}, nil
		}
		return c.plainNode(x.Token.Value, x.Token)
	case *ast.MergeKeyNode:
		return c.plainNode(x.Token.Value, x.Token)
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		tk := n.GetToken()
		return c.plainNode(tk.Value, tk)
	}
	return nil, yamlError(tokenLine(n.GetToken()), "unsupported YAML construct")
}

// mapping converts the pairs of a mapping. Its line is the first key's line
// (yaml/v3's), or the line of `{` for a flow mapping.
func (c *converter) mapping(pairs []*ast.MappingValueNode, flow bool, start *token.Token) (*node, error) {
	m := &node{kind: mappingNode, line: tokenLine(start)}
	if flow {
		c.flow++
		defer func() { c.flow-- }()
	}
	outer := c.indent
	defer func() { c.indent = outer }()
	for i, mv := range pairs {
		k, err := c.key(mv.Key)
		if err != nil {
			return nil, err
		}
		if !flow {
			c.indent = tokenColumn(mv.Key.GetToken())
			if err := c.checkIndent(tokenLine(mv.Start), mv.Value, true); err != nil {
				return nil, err
			}
		}
		v, err := c.convert(mv.Value)
		if err != nil {
			return nil, err
		}
		_, explicit := mv.Key.(*ast.MappingKeyNode)
		if !explicit && mv.Start != nil && mv.Start.Type == token.MappingValueType {
			// An implicit key and its ':' share one line (yaml/v3; goccy
			// lets a lone CR between them).
			if kl := innerLine(mv.Key); kl != tokenLine(mv.Start) {
				return nil, yamlError(tokenLine(mv.Start), "a key and its ':' must be on one line")
			}
		}
		if flow && !explicit && mv.Start != nil && mv.Start.Type == token.MappingValueType && !quotedKey(mv.Key) {
			// In {...}, `a:b` is one plain scalar for yaml/v3; goccy reads
			// a key and a value.
			if b, ok := c.afterColon(mv.Start); ok && strings.IndexByte(" \t\r\n,}]", b) < 0 {
				return nil, yamlError(tokenLine(mv.Start), "in {...} a ':' after a plain key must be followed by a blank")
			}
		}
		if mk, ok := mv.Key.(*ast.MappingKeyNode); ok && !flow && mv.Start != nil && mv.Start.Type == token.MappingValueType && tokenLine(mv.Start) == tokenLine(mk.Start) {
			// `? a: 1` is a key that is a mapping for yaml/v3; goccy reads a: 1.
			return nil, yamlError(tokenLine(mk.Start), "keys must be plain names (an explicit key `?` holds a mapping here)")
		}
		if explicit && (mv.Start == nil || mv.Start.Type != token.MappingValueType) {
			// `? key` without `: value`: yaml/v3 placed the null value at
			// the next token.
			v.line = c.nextLine(mv.Key)
		}
		if i == 0 && !flow {
			m.line = k.line
		}
		m.keys, m.vals = append(m.keys, k), append(m.vals, v)
	}
	return m, nil
}

// tokenColumn returns the column of tk, 0 when unknown.
func tokenColumn(tk *token.Token) int {
	if tk == nil || tk.Position == nil {
		return 0
	}
	return tk.Position.Column
}

// innerLine returns the line of the scalar inside a key's anchor and tag, or
// of the key itself when it is not a scalar.
func innerLine(n ast.Node) int {
	for {
		switch x := n.(type) {
		case *ast.AnchorNode:
			n = x.Value
			continue
		case *ast.TagNode:
			n = x.Value
			continue
		case *ast.StringNode:
			if x.Token != nil && x.Token.Type == token.StringType {
				return plainLine(x.Token)
			}
		}
		if n == nil {
			return 0
		}
		return tokenLine(n.GetToken())
	}
}

// nextLine returns the line of the first token after n's last token, or the
// end of the file.
func (c *converter) nextLine(n ast.Node) int {
	tk := n.GetToken()
	if mk, ok := n.(*ast.MappingKeyNode); ok && mk.Value != nil {
		tk = mk.Value.GetToken()
	}
	for tk != nil {
		tk = tk.Next
		if tk != nil && tk.Type != token.CommentType && tk.Type != token.ImplicitNullType {
			return tokenLine(tk)
		}
	}
	return c.endLine
}

// anchor registers the anchor before converting its value (see convert).
func (c *converter) anchor(x *ast.AnchorNode) (*node, error) {
	name := nodeText(x.Name)
	if !anchorName(name) {
		return nil, yamlError(tokenLine(x.Start), "an anchor name must be letters, digits, '_' or '-'")
	}
	if _, isAlias := x.Value.(*ast.AliasNode); isAlias {
		return nil, yamlError(tokenLine(x.Start), "an alias cannot have an anchor")
	}
	if twoProperties(x.Value, false) {
		return nil, yamlError(tokenLine(x.Start), "a node cannot have two anchors")
	}
	a := &node{}
	c.anchors[name] = a
	if err := c.checkIndent(tokenLine(x.Start), x.Value, false); err != nil {
		return nil, err
	}
	v, err := c.convert(x.Value)
	if err != nil {
		return nil, err
	}
	*a = *v
	a.line = tokenLine(x.Start)
	return a, nil
}

// tagged applies an explicit tag. yaml/v3 kept the tag of a scalar and
// ignored it on a mapping or a list; `!` is the non-specific tag (the scalar
// is resolved as if untagged).
func (c *converter) tagged(x *ast.TagNode) (*node, error) {
	line := tokenLine(x.Start)
	tag, err := shortTag(x.Start.Value, line)
	if err != nil {
		return nil, err
	}
	if _, isAlias := x.Value.(*ast.AliasNode); isAlias {
		return nil, yamlError(line, "an alias cannot have a tag")
	}
	if twoProperties(x.Value, true) {
		return nil, yamlError(line, "a node cannot have two tags")
	}
	if err := c.checkIndent(tokenLine(x.Start), x.Value, false); err != nil {
		return nil, err
	}
	v, err := c.convert(x.Value)
	if err != nil {
		return nil, err
	}
	// v is a node made for this TagNode (or its anchor), never shared yet
	// except through that anchor, which yaml/v3 also tagged.
	if v.kind == scalarNode && tag != "" {
		v.tag = tag
	}
	v.line = line
	return v, nil
}

// key converts a mapping key. Only a scalar that is not a merge key `<<` is a
// plain name (eachKey checks); an alias key is never one.
func (c *converter) key(k ast.MapKeyNode) (*node, error) {
	var n ast.Node = k
	if mk, ok := k.(*ast.MappingKeyNode); ok {
		if mk.Value == nil {
			return &node{kind: scalarNode, tag: "!!null", line: tokenLine(mk.Start)}, nil
		}
		n = mk.Value
	}
	if al, ok := n.(*ast.AliasNode); ok {
		if _, err := c.convert(al); err != nil {
			return nil, err
		}
		return &node{kind: aliasKeyNode, line: tokenLine(al.Start)}, nil
	}
	return c.convert(n)
}

// shortTag maps a tag as written to yaml/v3's form: "!!x" and
// "!<tag:yaml.org,2002:x>" become "!!x", "!x" and other verbatim tags stay,
// "!" (non-specific) becomes "". A named handle ("!e!x") needs a %TAG
// directive and is refused, as is a tag with %-escapes (yaml/v3 decoded them,
// goccy does not).
func shortTag(t string, line int) (string, error) {
	if strings.ContainsRune(t, '%') {
		return "", yamlError(line, "%%-escapes in tags are not supported")
	}
	for i := 0; i < len(t); i++ {
		if c := t[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || strings.IndexByte("-_.~/:!<>,", c) >= 0) {
			// yaml/v3 took a narrower or different set than goccy.
			return "", yamlError(line, "a tag may hold only letters, digits and - _ . ~ / : , < > !")
		}
	}
	if strings.HasPrefix(t, "!<") && strings.HasSuffix(t, ">") && len(t) > 3 {
		long := t[2 : len(t)-1]
		if rest, ok := strings.CutPrefix(long, "tag:yaml.org,2002:"); ok {
			return "!!" + rest, nil
		}
		return long, nil
	}
	if t == "!" {
		return "", nil
	}
	if t == "!!" {
		return "", yamlError(line, "did not find expected tag URI")
	}
	if strings.HasPrefix(t, "!!") && !strings.ContainsRune(t[2:], '!') {
		return t, nil
	}
	if strings.HasPrefix(t, "!") && !strings.ContainsRune(t[1:], '!') && !strings.ContainsAny(t, "<>") {
		return t, nil
	}
	return "", yamlError(line, "undefined tag handle")
}

// nodeText returns the text of an anchor or alias name node.
func nodeText(n ast.Node) string {
	if n == nil {
		return ""
	}
	if tk := n.GetToken(); tk != nil {
		return tk.Value
	}
	return n.String()
}

// plainNode is an untagged plain scalar: its tag is resolved from its text.
// A plain scalar cannot start with an indicator such as `%` or `,` (yaml/v3
// refused it; goccy reads some as text),
// nor, inside [...] or {...}, start with `:` or hold any of `?[]{},` (yaml/v3
// read those as indicators; goccy reads some as text).
func (c *converter) plainNode(value string, tk *token.Token) (*node, error) {
	line := plainLine(tk)
	if tk != nil && foldPlain(tk.Origin) != value {
		// goccy drops tabs inside a plain scalar ("rm\t-rf" reads "rm-rf").
		return nil, yamlError(line, "plain scalar not read exactly (quote it)")
	}
	if value != "" && strings.IndexByte(",[]{}#&*!|>'\"%@`", value[0]) >= 0 {
		return nil, yamlError(line, "found character that cannot start any token")
	}
	if value == "?" || strings.HasPrefix(value, "? ") || strings.HasPrefix(value, "?\t") {
		return nil, yamlError(line, "a plain scalar cannot start with \"? \" (the explicit key indicator)")
	}
	if c.flow > 0 && strings.HasPrefix(value, ":") {
		return nil, yamlError(line, "a plain scalar inside [...] or {...} cannot start with %q", value[:1])
	}
	if c.flow > 0 && strings.ContainsAny(value, "?[]{},") {
		// yaml/v3 ended a plain scalar at these inside [...] or {...}.
		return nil, yamlError(line, "a plain scalar inside [...] or {...} cannot hold any of ?[]{}, (quote it)")
	}
	return &node{kind: scalarNode, tag: plainTag(value), value: value, line: line}, nil
}

// tokenLine returns the line of tk, 0 when unknown.
func tokenLine(tk *token.Token) int {
	if tk == nil || tk.Position == nil {
		return 0
	}
	return tk.Position.Line
}

// plainLine returns the first line of a plain scalar. goccy positions a plain
// scalar folded over several lines sometimes at its first line and sometimes
// at its last, so for those the line is counted from the nearest earlier
// token that sits on one line: its line, plus the line breaks in the raw text
// (Origin) after it.
func plainLine(tk *token.Token) int {
	if tk == nil || lineBreaks(strings.Trim(tk.Origin, blanks)) == 0 {
		return tokenLine(tk)
	}
	breaks := lineBreaks(tk.Origin[:len(tk.Origin)-len(strings.TrimLeft(tk.Origin, blanks))])
	for p := tk.Prev; p != nil; p = p.Prev {
		body := strings.TrimLeft(p.Origin, blanks)
		if lineBreaks(strings.TrimRight(body, blanks)) == 0 && p.Position != nil {
			return p.Position.Line + lineBreaks(body) + breaks
		}
		breaks += lineBreaks(p.Origin)
	}
	return 1 + breaks
}

// blanks are the characters trimmed around a token's raw text.
const blanks = " \t\r\n"

// lineBreaks counts line breaks (LF, CRLF, lone CR) in s.
func lineBreaks(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n':
			n++
		case '\r':
			if i+1 >= len(s) || s[i+1] != '\n' {
				n++
			}
		}
	}
	return n
}

// plainTag returns the tag yaml/v3 resolved for an untagged plain scalar.
func plainTag(s string) string {
	switch s {
	case "", "~", "null", "Null", "NULL":
		return "!!null"
	case "true", "True", "TRUE", "false", "False", "FALSE":
		return "!!bool"
	case ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF":
		return "!!float"
	case "<<":
		return "!!merge"
	}
	switch c := s[0]; {
	case c == '.':
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return "!!float"
		}
	case c == '+' || c == '-' || (c >= '0' && c <= '9'):
		if isTimestamp(s) {
			return "!!timestamp"
		}
		if _, isInt, _ := yamlInt(s); isInt {
			return "!!int"
		}
		if isYAMLFloat(s) {
			return "!!float"
		}
	}
	return "!!str"
}

// yamlInt reads s the way yaml/v3 read an integer: underscores are dropped,
// then Go integer syntax (0x, 0o, 0b, a leading 0 for octal, a sign), then
// yaml/v3's own 0b/0o fallbacks. isInt reports that s is an integer at all;
// fits that it fits in an int64.
func yamlInt(s string) (n int64, isInt, fits bool) {
	if s == "" || !(s[0] == '+' || s[0] == '-' || (s[0] >= '0' && s[0] <= '9')) {
		return 0, false, false
	}
	plain := strings.ReplaceAll(s, "_", "")
	if v, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return v, true, true
	}
	if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
		return 0, true, false
	}
	if isYAMLFloat(s) {
		return 0, false, false
	}
	for _, p := range []struct {
		prefix string
		base   int
	}{{"0b", 2}, {"0o", 8}} {
		if digits, ok := strings.CutPrefix(plain, p.prefix); ok {
			if v, err := strconv.ParseInt(digits, p.base, 64); err == nil {
				return v, true, true
			}
			if _, err := strconv.ParseUint(digits, p.base, 64); err == nil {
				return 0, true, false
			}
		} else if digits, ok := strings.CutPrefix(plain, "-"+p.prefix); ok {
			if v, err := strconv.ParseInt("-"+digits, p.base, 64); err == nil {
				return v, true, true
			}
		}
	}
	return 0, false, false
}

// isYAMLFloat reports whether s (underscores dropped) matches yaml/v3's float
// syntax ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ and parses as a
// float64.
func isYAMLFloat(s string) bool {
	plain := strings.ReplaceAll(s, "_", "")
	i := 0
	if i < len(plain) && (plain[i] == '+' || plain[i] == '-') {
		i++
	}
	digits := func() int {
		j := i
		for i < len(plain) && plain[i] >= '0' && plain[i] <= '9' {
			i++
		}
		return i - j
	}
	if i < len(plain) && plain[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	} else {
		if digits() == 0 {
			return false
		}
		if i < len(plain) && plain[i] == '.' {
			i++
			digits()
		}
	}
	if i < len(plain) && (plain[i] == 'e' || plain[i] == 'E') {
		i++
		if i < len(plain) && (plain[i] == '+' || plain[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	if i != len(plain) {
		return false
	}
	_, err := strconv.ParseFloat(plain, 64)
	return err == nil
}

// timestampFormats are the layouts yaml/v3 tried for a plain scalar that
// starts with four digits and a dash.
var timestampFormats = []string{
	"2006-1-2T15:4:5.999999999Z07:00",
	"2006-1-2t15:4:5.999999999Z07:00",
	"2006-1-2 15:4:5.999999999",
	"2006-1-2",
}

// isTimestamp reports whether yaml/v3 resolved s as a !!timestamp.
func isTimestamp(s string) bool {
	i := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, f := range timestampFormats {
		if _, err := time.Parse(f, s); err == nil {
			return true
		}
	}
	return false
}

// intOf decodes an !!int scalar as yaml/v3 decoded it into a Go int: ok is
// false when the text is not an integer or does not fit.
func intOf(v *node) (int, bool) {
	n, isInt, fits := yamlInt(v.value)
	if !isInt || !fits || int64(int(n)) != n {
		return 0, false
	}
	return int(n), true
}

// boolOf decodes a !!bool scalar as yaml/v3 did: only true/True/TRUE and
// false/False/FALSE are booleans.
func boolOf(v *node) (b, ok bool) {
	switch v.value {
	case "true", "True", "TRUE":
		return true, true
	case "false", "False", "FALSE":
		return false, true
	}
	return false, false
}
