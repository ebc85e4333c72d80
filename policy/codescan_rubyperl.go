package policy

import (
	"strconv"
	"strings"
)

// Ruby and Perl have no tokenizer in Go that is kept up to date without
// cgo (tree-sitter's grammars need cgo), so these are ours. Both follow
// their language's string syntax: Ruby 3.3 ("Literals" in the Ruby
// reference: '...', "..." with #{} interpolation, backquotes, %q %Q %w %W
// %i %I %x %r %s with any delimiter, here-documents <<ID <<-ID <<~ID with
// quoted terminators, symbols, regular expressions, =begin/=end); Perl 5
// (perlop "Quote and Quote-like Operators": '...', "..." interpolating
// $name, ${...}, @name and @{[ ... ]}, backquotes, q qq qw qx m qr s tr y
// with any delimiter and paired brackets, here-documents, POD, __END__).
// A regular expression is read where an operand is expected.

var rubyLang = &codeLang{name: "ruby", concat: "+", parenless: true, tokenize: tokenizeRuby}
var perlLang = &codeLang{name: "perl", concat: ".", parenless: true, tokenize: tokenizePerl}

// rpOps are the multi-byte operators of Ruby and Perl, longest first.
var rpOps = []string{"<=>", "**=", "||=", "&&=", "...", "<<=", ">>=", "===", "=>", "==", "!=", "=~", "!~", "<=", ">=", "&&", "||",
	"::", "->", "+=", "-=", "*=", "/=", ".=", "%=", "|=", "&=", "**", "..", "&.", "++", "--", "<<", ">>"}

// closer returns the closing delimiter of a quote-like literal opened with
// c (paired brackets nest).
func closer(c byte) byte {
	switch c {
	case '(':
		return ')'
	case '[':
		return ']'
	case '{':
		return '}'
	case '<':
		return '>'
	}
	return c
}

// delimited reads a quote-like body opened at src[i] (the delimiter) and
// returns it raw and the index after the closing delimiter.
func delimited(src string, i int) (string, int, bool) {
	if i >= len(src) {
		return "", 0, false
	}
	open := src[i]
	cl := closer(open)
	d := 0
	for k := i + 1; k < len(src); k++ {
		c := src[k]
		switch {
		case c == '\\':
			k++
		case c == cl && d == 0:
			return src[i+1 : k], k + 1, true
		case c == cl:
			d--
		case c == open && open != cl:
			d++
		}
	}
	return "", 0, false
}

// rpLexer is the shared state of the Ruby and Perl tokenizers.
type rpLexer struct {
	src     string
	out     []ctok
	depth   int
	operand bool
	// heredocs pending at the end of the current line: the token to fill
	// and its terminator.
	pending []heredoc
	perl    bool
}

type heredoc struct {
	tok    int
	term   string
	indent bool // <<~ / <<- (the terminator may be indented)
	interp bool
	cmd    bool
}

func (l *rpLexer) emit(t ctok) {
	l.out = append(l.out, t)
	switch t.kind {
	case tkIdent:
		l.operand = rpOperandAfterWord(t.val)
	case tkPunct:
		l.operand = !(t.val == ")" || t.val == "]" || t.val == "}")
	case tkEnd:
		l.operand = true
	default:
		l.operand = false
	}
}

// rpOperandAfterWord: after a keyword or a method name written without
// parentheses (puts /x/, split /,/), an operand may follow.
func rpOperandAfterWord(w string) bool {
	switch w {
	case "if", "unless", "and", "or", "not", "while", "until", "when", "return", "split", "grep", "map", "join", "push", "unshift", "puts", "print", "say", "x", "lt", "gt", "le", "ge", "eq", "ne", "cmp":
		return true
	}
	return false
}

// readHeredocs reads the bodies of the pending here-documents starting at
// i (the start of the line after their introducer) and returns where the
// code continues.
func (l *rpLexer) readHeredocs(i int) (int, bool) {
	for _, h := range l.pending {
		var body strings.Builder
		found := false
		for i < len(l.src) {
			end := strings.IndexByte(l.src[i:], '\n')
			line := l.src[i:]
			next := len(l.src)
			if end >= 0 {
				line, next = l.src[i:i+end], i+end+1
			}
			i = next
			cmp := strings.TrimSuffix(line, "\r")
			if h.indent {
				cmp = strings.TrimLeft(cmp, " \t")
			}
			if cmp == h.term {
				found = true
				break
			}
			body.WriteString(line)
			body.WriteByte('\n')
		}
		if !found {
			return 0, false
		}
		text := body.String()
		if h.indent {
			text = dedent(text)
		}
		var parts []spart
		if h.interp {
			parts = l.interp(text)
		} else {
			parts = []spart{{lit: text}}
		}
		l.out[h.tok].parts = parts
	}
	l.pending = nil
	return i, true
}

// dedent removes the common leading blanks of text's lines (Ruby's <<~,
// Perl's <<~).
func dedent(text string) string {
	lines := strings.Split(text, "\n")
	common := -1
	for _, ln := range lines {
		if strings.TrimSpace(ln) == "" {
			continue
		}
		n := len(ln) - len(strings.TrimLeft(ln, " \t"))
		if common < 0 || n < common {
			common = n
		}
	}
	if common <= 0 {
		return text
	}
	for k, ln := range lines {
		if len(ln) >= common {
			lines[k] = ln[common:]
		} else {
			lines[k] = strings.TrimLeft(ln, " \t")
		}
	}
	return strings.Join(lines, "\n")
}

// interp splits a double-quoted body into literal text and interpolated
// expressions, with the escapes decoded.
func (l *rpLexer) interp(body string) []spart {
	var parts []spart
	var lit strings.Builder
	flush := func() {
		parts = append(parts, spart{lit: rpUnescape(lit.String())})
		lit.Reset()
	}
	for k := 0; k < len(body); k++ {
		c := body[k]
		if c == '\\' && k+1 < len(body) {
			lit.WriteByte(c)
			lit.WriteByte(body[k+1])
			k++
			continue
		}
		interpolation := perlInterpolation
		if !l.perl {
			interpolation = rubyInterpolation
		}
		if part, next, ok := interpolation(body, k); ok {
			flush()
			parts = append(parts, part)
			if next < 0 {
				return parts // an interpolation that is not closed ends the string
			}
			k = next - 1
			continue
		}
		lit.WriteByte(c)
	}
	flush()
	return parts
}

// rubyInterpolation reads a Ruby interpolation at body[k] (#{EXPR}, #@var,
// #$var): the expression part, the index after it (-1 for a #{ that is not
// closed, whose expression is unknown), and whether there is one.
func rubyInterpolation(body string, k int) (spart, int, bool) {
	if body[k] != '#' || k+1 >= len(body) || (body[k+1] != '{' && body[k+1] != '@' && body[k+1] != '$') {
		return spart{}, 0, false
	}
	if body[k+1] == '{' {
		inner, next, ok := delimited(body, k+1)
		if !ok {
			return spart{isExpr: true}, -1, true
		}
		expr, ok := tokenizeRuby(inner)
		if !ok {
			expr = []ctok{{kind: tkUnknown}}
		}
		return spart{isExpr: true, expr: expr}, next, true
	}
	e := k + 2
	for e < len(body) && (isAlnum(body[e]) || body[e] == '@') {
		e++
	}
	return spart{isExpr: true, expr: []ctok{{kind: tkIdent, val: body[k+1 : e]}}}, e, true
}

// perlInterpolation reads a Perl interpolation at body[k]: ${NAME},
// @{[EXPR]}, and $name, @name, $1, with :: read as "."; an element
// ($x[0], $x{k}, $x->…) is unknown. It returns the expression part, the
// index after it, and whether there is one.
func perlInterpolation(body string, k int) (spart, int, bool) {
	c := body[k]
	if (c != '$' && c != '@') || k+1 >= len(body) {
		return spart{}, 0, false
	}
	n := body[k+1]
	switch {
	case n == '{' && c == '$':
		if inner, next, ok := delimited(body, k+1); ok {
			return spart{isExpr: true, expr: []ctok{{kind: tkIdent, val: "$" + strings.TrimSpace(inner)}}}, next, true
		}
	case n == '{' && c == '@':
		inner, next, ok := delimited(body, k+1)
		if !ok {
			break
		}
		inner = strings.TrimSpace(inner)
		var expr []ctok
		if strings.HasPrefix(inner, "[") && strings.HasSuffix(inner, "]") {
			expr, ok = tokenizePerl(inner[1 : len(inner)-1])
		}
		if !ok || expr == nil {
			expr = []ctok{{kind: tkUnknown}}
		}
		return spart{isExpr: true, expr: expr}, next, true
	case n == '_' || (n|0x20 >= 'a' && n|0x20 <= 'z') || (c == '$' && n >= '0' && n <= '9'):
		e := k + 1
		for e < len(body) && (isAlnum(body[e]) || (body[e] == ':' && e+1 < len(body) && body[e+1] == ':')) {
			if body[e] == ':' {
				e++
			}
			e++
		}
		name := string(c) + strings.ReplaceAll(body[k+1:e], "::", ".")
		expr := []ctok{{kind: tkIdent, val: name}}
		if e < len(body) && (body[e] == '[' || body[e] == '{' || strings.HasPrefix(body[e:], "->")) {
			expr = []ctok{{kind: tkUnknown}} // an element: not followed
		}
		return spart{isExpr: true, expr: expr}, e, true
	}
	return spart{}, 0, false
}

// rpUnescape decodes the backslash escapes of a Ruby or Perl
// double-quoted string: \n \t \r \e \a \0, \xHH, \x{H...}, \u{H...},
// \uHHHH, octal \NNN; any other escaped byte stands for itself.
func rpUnescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'e':
			b.WriteByte(0x1b)
		case 'a':
			b.WriteByte(7)
		case 'x', 'u':
			var hex string
			if i+1 < len(s) && s[i+1] == '{' {
				end := strings.IndexByte(s[i:], '}')
				if end < 0 {
					b.WriteString(dyn)
					continue
				}
				hex, i = s[i+2:i+end], i+end
			} else {
				n := 2
				if e == 'u' {
					n = 4
				}
				k := i + 1
				for k < len(s) && k < i+1+n && hexVal(s[k]) >= 0 {
					k++
				}
				hex, i = s[i+1:k], k-1
			}
			v, err := strconv.ParseUint(hex, 16, 32)
			if err != nil {
				b.WriteString(dyn)
				continue
			}
			if e == 'x' && v < 0x100 {
				b.WriteByte(byte(v))
			} else {
				b.WriteRune(rune(v))
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v, n := 0, 0
			for n < 3 && i+n < len(s) && s[i+n] >= '0' && s[i+n] <= '7' {
				v = v*8 + int(s[i+n]-'0')
				n++
			}
			i += n - 1
			b.WriteByte(byte(v))
		default:
			b.WriteByte(e)
		}
	}
	return b.String()
}

// singleQuoted decodes a single-quoted body: only \\ and \<delimiter>.
func singleQuoted(s string, delim byte) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '\\' || s[i+1] == delim || s[i+1] == closer(delim)) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// words splits a %w / qw body into string tokens of a list literal.
func wordsList(body string) []ctok {
	out := []ctok{{kind: tkPunct, val: "["}}
	for k, w := range strings.Fields(body) {
		if k > 0 {
			out = append(out, ctok{kind: tkPunct, val: ","})
		}
		out = append(out, strTok(w))
	}
	return append(out, ctok{kind: tkPunct, val: "]"})
}

// lexCommon reads what Ruby and Perl share at src[i]: blanks, newlines
// (with pending here-documents), dyn, numbers and operators. It returns
// the next index and true when it consumed something.
func (l *rpLexer) lexCommon(i int) (int, bool, bool) {
	src := l.src
	c := src[i]
	switch {
	case c == ' ' || c == '\t' || c == '\r' || c == '\f':
		return i + 1, true, true
	case c == '\\' && i+1 < len(src) && src[i+1] == '\n':
		return i + 2, true, true
	case c == '\n':
		if !l.perl && l.depth == 0 && !l.continues() {
			l.emit(ctok{kind: tkEnd})
		}
		i++
		if len(l.pending) > 0 {
			n, ok := l.readHeredocs(i)
			return n, true, ok
		}
		return i, true, true
	case c == ';':
		l.emit(ctok{kind: tkEnd})
		return i + 1, true, true
	case c == dyn[0]:
		l.emit(ctok{kind: tkUnknown})
		return i + 1, true, true
	case c >= '0' && c <= '9':
		k := i
		for k < len(src) && (isAlnum(src[k]) || (src[k] == '.' && k+1 < len(src) && src[k+1] >= '0' && src[k+1] <= '9')) {
			k++
		}
		l.emit(ctok{kind: tkNum, val: src[i:k]})
		return k, true, true
	}
	return i, false, true
}

// continues reports a line that ends in an operator or comma (Ruby goes
// on reading the expression on the next line).
func (l *rpLexer) continues() bool {
	if len(l.out) == 0 {
		return true
	}
	t := l.out[len(l.out)-1]
	if t.kind != tkPunct {
		return t.kind == tkEnd
	}
	switch t.val {
	case ")", "]", "}":
		return false
	}
	return true
}

// op reads an operator at i.
func (l *rpLexer) op(i int) int {
	o := string(l.src[i])
	for _, x := range rpOps {
		if strings.HasPrefix(l.src[i:], x) {
			o = x
			break
		}
	}
	switch o {
	case "(", "[", "{":
		l.depth++
	case ")", "]", "}":
		l.depth = max(l.depth-1, 0)
	}
	l.emit(ctok{kind: tkPunct, val: o})
	return i + len(o)
}

// heredocAt reads a here-document introducer <<ID, <<~ID, <<-ID (Ruby),
// <<"ID", <<'ID', <<`ID`, and registers it; it returns false when src[i:]
// is not one.
func (l *rpLexer) heredocAt(i int) (int, bool) {
	src := l.src
	k := i + 2
	indent := false
	if k < len(src) && (src[k] == '~' || (src[k] == '-' && !l.perl)) {
		indent = true
		k++
	}
	if k >= len(src) {
		return i, false
	}
	h := heredoc{indent: indent, interp: true}
	switch q := src[k]; {
	case q == '"' || q == '\'' || q == '`':
		e := strings.IndexByte(src[k+1:], q)
		if e < 0 {
			return i, false
		}
		h.term = src[k+1 : k+1+e]
		h.interp = q != '\''
		h.cmd = q == '`'
		k += e + 2
	case q == '_' || (q >= 'A' && q <= 'Z') || (l.perl && q|0x20 >= 'a' && q|0x20 <= 'z'):
		e := k
		for e < len(src) && isAlnum(src[e]) {
			e++
		}
		h.term = src[k:e]
		k = e
	default:
		return i, false
	}
	kind := tkStr
	if h.cmd {
		kind = tkCmd
	}
	h.tok = len(l.out)
	l.emit(ctok{kind: kind})
	l.pending = append(l.pending, h)
	return k, true
}

func tokenizeRuby(src string) ([]ctok, bool) {
	l := &rpLexer{src: src, operand: true}
	return l.run(l.rubyStep)
}

// rubyStep lexes the Ruby token at src[i] that lexCommon and sharedStep do
// not: =begin/=end comments, __END__ (end: the rest is data), :"sym" and
// :sym symbols, %-literals, here-documents, identifiers and variables, and
// operators.
func (l *rpLexer) rubyStep(i int) (next int, end, ok bool) {
	src := l.src
	c := src[i]
	atLineStart := i == 0 || src[i-1] == '\n'
	switch {
	case atLineStart && strings.HasPrefix(src[i:], "=begin"):
		e := strings.Index(src[i:], "\n=end")
		if e < 0 {
			return 0, false, false
		}
		return i + e + 5, false, true
	case atLineStart && strings.HasPrefix(src[i:], "__END__"):
		return i, true, true
	case c == ':' && i+1 < len(src):
		if n, matched, ok := l.rubySymbol(i); matched {
			return n, false, ok
		}
	case c == '%' && l.operand && i+1 < len(src):
		n, ok := l.rubyPercent(i)
		return n, false, ok
	case c == '<' && strings.HasPrefix(src[i:], "<<") && (l.operand || (i > 0 && src[i-1] == ' ' && len(l.out) > 0 && l.out[len(l.out)-1].kind == tkIdent)):
		if n, ok := l.heredocAt(i); ok {
			return n, false, true
		}
		return l.op(i), false, true
	case c == '@' || c == '$' || c == '_' || c >= 0x80 || (c|0x20 >= 'a' && c|0x20 <= 'z'):
		return l.rubyIdent(i), false, true
	}
	return l.op(i), false, true
}

// rubySymbol lexes a symbol at src[i] (":"): :"sym" (interpolated) or
// :name, not the second colon of "::"; matched is false for any other
// colon.
func (l *rpLexer) rubySymbol(i int) (next int, matched, ok bool) {
	src := l.src
	n := src[i+1]
	switch {
	case n == '"':
		body, next, ok := delimited(src, i+1)
		if ok {
			l.emit(ctok{kind: tkStr, parts: l.interp(body)})
		}
		return next, true, ok
	case (n == '_' || (n|0x20 >= 'a' && n|0x20 <= 'z')) && (i == 0 || src[i-1] != ':'):
		e := i + 1
		for e < len(src) && (isAlnum(src[e]) || src[e] == '?' || src[e] == '!' || src[e] == '=') {
			e++
		}
		l.emit(strTok(src[i+1 : e]))
		return e, true, true
	}
	return i, false, true
}

// rubyIdent lexes an identifier or variable at src[i] (@x, @@x, $x, $!,
// name, name?, name!) and returns the index after it.
func (l *rpLexer) rubyIdent(i int) int {
	src := l.src
	e := i + 1
	if src[i] == '$' && e < len(src) && !isAlnum(src[e]) {
		e++ // $! $0 ...
	}
	for e < len(src) && (isAlnum(src[e]) || src[e] == '@' || src[e] >= 0x80) {
		e++
	}
	if e < len(src) && (src[e] == '?' || src[e] == '!') && !(e+1 < len(src) && src[e+1] == '=') {
		e++
	}
	l.emit(ctok{kind: tkIdent, val: src[i:e]})
	return e
}

// run drives the lexing loop Ruby and Perl share: lexCommon first, then
// sharedStep, then step for the language's own tokens (end: the rest of the source is
// data); false when a token does not lex, the source holds more than
// maxCodeTokens tokens, or a here-document is never closed.
func (l *rpLexer) run(step func(i int) (next int, end, ok bool)) ([]ctok, bool) {
	for i := 0; i < len(l.src); {
		if len(l.out) > maxCodeTokens {
			return nil, false
		}
		n, done, ok := l.lexCommon(i)
		if !ok {
			return nil, false
		}
		if done {
			i = n
			continue
		}
		if n, matched, ok := l.sharedStep(i); matched {
			if !ok {
				return nil, false
			}
			i = n
			continue
		}
		n, end, ok := step(i)
		if !ok {
			return nil, false
		}
		if end {
			return l.out, true
		}
		i = n
	}
	if len(l.pending) > 0 {
		return nil, false
	}
	return l.out, true
}

// sharedStep lexes what Ruby and Perl read alike at src[i]: a # comment, a
// single-quoted string, a double-quoted or backquoted one (interpolated;
// backquotes run a command), and a regular expression where an operand is
// expected. matched is false when src[i] starts none of them.
func (l *rpLexer) sharedStep(i int) (next int, matched, ok bool) {
	src := l.src
	switch c := src[i]; {
	case c == '#':
		for i < len(src) && src[i] != '\n' {
			i++
		}
		return i, true, true
	case c == '\'':
		body, next, ok := delimited(src, i)
		if ok {
			l.emit(strTok(singleQuoted(body, '\'')))
		}
		return next, true, ok
	case c == '"' || c == '`':
		body, next, ok := delimited(src, i)
		if !ok {
			return 0, true, false
		}
		kind := tkStr
		if c == '`' {
			kind = tkCmd
		}
		l.emit(ctok{kind: kind, parts: l.interp(body)})
		return next, true, true
	case c == '/' && l.operand:
		_, next, ok := delimited(src, i)
		if !ok {
			return 0, true, false
		}
		for next < len(src) && isAlnum(src[next]) {
			next++
		}
		l.emit(ctok{kind: tkUnknown, val: "regexp"})
		return next, true, true
	}
	return i, false, true
}

// rubyPercent reads a %-literal: %q %Q %w %W %i %I %x %r %s or a bare %.
func (l *rpLexer) rubyPercent(i int) (int, bool) {
	src := l.src
	kind := byte('Q')
	k := i + 1
	if strings.IndexByte("qQwWiIxrs", src[k]) >= 0 && k+1 < len(src) && !isAlnum(src[k+1]) && src[k+1] != ' ' {
		kind = src[k]
		k++
	} else if isAlnum(src[k]) || src[k] == ' ' || src[k] == '=' {
		return l.op(i), true
	}
	body, next, ok := delimited(src, k)
	if !ok {
		return 0, false
	}
	switch kind {
	case 'q':
		l.emit(strTok(singleQuoted(body, src[k])))
	case 'w', 'i':
		l.out = append(l.out, wordsList(body)...)
		l.operand = false
	case 'W', 'I':
		l.out = append(l.out, wordsList(rpUnescape(body))...)
		l.operand = false
	case 'x':
		l.emit(ctok{kind: tkCmd, parts: l.interp(body)})
	case 'r':
		for next < len(src) && isAlnum(src[next]) {
			next++
		}
		l.emit(ctok{kind: tkUnknown, val: "regexp"})
	case 's':
		l.emit(strTok(body))
	default:
		l.emit(ctok{kind: tkStr, parts: l.interp(body)})
	}
	return next, true
}

func tokenizePerl(src string) ([]ctok, bool) {
	l := &rpLexer{src: src, operand: true, perl: true}
	return l.run(l.perlStep)
}

// perlStep lexes the Perl token at src[i] that lexCommon and sharedStep do
// not: POD (=word to =cut), __END__ and __DATA__ (end: the rest is data),
// here-documents, variables, words, and operators.
func (l *rpLexer) perlStep(i int) (next int, end, ok bool) {
	src := l.src
	c := src[i]
	atLineStart := i == 0 || src[i-1] == '\n'
	switch {
	case atLineStart && c == '=' && i+1 < len(src) && src[i+1]|0x20 >= 'a' && src[i+1]|0x20 <= 'z':
		e := strings.Index(src[i:], "\n=cut")
		if e < 0 {
			return i, true, true // POD to the end
		}
		i += e + 5
		for i < len(src) && src[i] != '\n' {
			i++
		}
		return i, false, true
	case atLineStart && (strings.HasPrefix(src[i:], "__END__") || strings.HasPrefix(src[i:], "__DATA__")):
		return i, true, true
	case c == '<' && strings.HasPrefix(src[i:], "<<") && l.operand:
		if n, ok := l.heredocAt(i); ok {
			return n, false, true
		}
		return l.op(i), false, true
	case (c == '$' || c == '@' || (c == '%' && l.operand) || (c == '&' && l.operand)) && i+1 < len(src):
		return l.perlVar(i), false, true
	case c == '_' || c >= 0x80 || (c|0x20 >= 'a' && c|0x20 <= 'z'):
		n, ok := l.perlWord(i)
		return n, false, ok
	}
	return l.op(i), false, true
}

// perlVar reads a variable: $name, @name, %name, &name, $::name, ${name},
// $#name and the punctuation variables ($_, $!, $0, ...).
func (l *rpLexer) perlVar(i int) int {
	src := l.src
	sig := src[i]
	k := i + 1
	if sig == '$' && src[k] == '#' {
		k++
	}
	if k >= len(src) {
		l.emit(ctok{kind: tkIdent, val: src[i:]})
		return len(src)
	}
	if src[k] == '{' {
		if body, next, ok := delimited(src, k); ok && isPerlName(strings.TrimSpace(body)) {
			l.emit(ctok{kind: tkIdent, val: string(sig) + strings.ReplaceAll(strings.TrimSpace(body), "::", ".")})
			return next
		}
		l.emit(ctok{kind: tkPunct, val: string(sig)})
		return k
	}
	e := k
	for e < len(src) && (isAlnum(src[e]) || (src[e] == ':' && e+1 < len(src) && src[e+1] == ':')) {
		if src[e] == ':' {
			e++
		}
		e++
	}
	if e == k {
		if sig == '$' {
			l.emit(ctok{kind: tkIdent, val: src[i : k+1]}) // $_ $! $0 ...
			return k + 1
		}
		return l.op(i)
	}
	l.emit(ctok{kind: tkIdent, val: string(sig) + strings.ReplaceAll(src[k:e], "::", ".")})
	return e
}

func isPerlName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isAlnum(s[i]) && s[i] != ':' {
			return false
		}
	}
	return true
}

// perlWord reads a bareword or a quote-like operator (q qq qw qx m qr s tr
// y); a bareword before => is a string.
func (l *rpLexer) perlWord(i int) (int, bool) {
	src := l.src
	e := i
	for e < len(src) && (isAlnum(src[e]) || src[e] >= 0x80 || (src[e] == ':' && e+1 < len(src) && src[e+1] == ':' && e+2 < len(src) && isAlnum(src[e+2]))) {
		if src[e] == ':' {
			e++
		}
		e++
	}
	w := src[i:e]
	k := e
	for k < len(src) && (src[k] == ' ' || src[k] == '\t') {
		k++
	}
	fat := strings.HasPrefix(src[k:], "=>")
	if !fat && k < len(src) && isQuoteOp(w) && !isAlnum(src[k]) && src[k] != ',' && src[k] != ';' && src[k] != ')' && !(src[k] == '=' && w != "s" && w != "y" && w != "tr") && (k > e || src[k] != ' ') && src[k] != '\n' {
		return l.perlQuote(w, k)
	}
	if fat {
		l.emit(strTok(w))
		return e, true
	}
	l.emit(ctok{kind: tkIdent, val: strings.ReplaceAll(w, "::", ".")})
	return e, true
}

func isQuoteOp(w string) bool {
	switch w {
	case "q", "qq", "qw", "qx", "m", "qr", "s", "tr", "y":
		return true
	}
	return false
}

// perlQuote reads the quote-like operator w whose delimiter is at k.
func (l *rpLexer) perlQuote(w string, k int) (int, bool) {
	src := l.src
	body, next, ok := delimited(src, k)
	if !ok {
		return 0, false
	}
	switch w {
	case "q":
		l.emit(strTok(singleQuoted(body, src[k])))
	case "qq":
		l.emit(ctok{kind: tkStr, parts: l.interp(body)})
	case "qw":
		l.out = append(l.out, wordsList(body)...)
		l.operand = false
	case "qx":
		if src[k] == '\'' {
			l.emit(ctok{kind: tkCmd, parts: []spart{{lit: body}}})
		} else {
			l.emit(ctok{kind: tkCmd, parts: l.interp(body)})
		}
	case "m", "qr":
		l.emit(ctok{kind: tkUnknown, val: "regexp"})
	case "s", "tr", "y":
		// the replacement: a second body (after its own opening delimiter
		// when the first was a bracket pair)
		n := next
		if closer(src[k]) != src[k] {
			for n < len(src) && (src[n] == ' ' || src[n] == '\t' || src[n] == '\n') {
				n++
			}
		} else {
			n--
		}
		repl, after, ok := delimited(src, n)
		if !ok {
			return 0, false
		}
		next = after
		f := next
		for f < len(src) && isAlnum(src[f]) {
			f++
		}
		if w == "s" && strings.Contains(src[next:f], "e") {
			// s///e runs the replacement as code
			code, ok := tokenizePerl(repl)
			if !ok {
				return 0, false
			}
			l.out = append(l.out, ctok{kind: tkEnd})
			l.out = append(l.out, code...)
			l.out = append(l.out, ctok{kind: tkEnd})
		}
		next = f
		l.emit(ctok{kind: tkUnknown, val: "regexp"})
		return next, true
	}
	for next < len(src) && w != "q" && w != "qq" && w != "qw" && w != "qx" && isAlnum(src[next]) {
		next++
	}
	return next, true
}
