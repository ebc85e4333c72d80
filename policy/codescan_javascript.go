package policy

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/js"
)

// JavaScript and TypeScript (node, deno, bun, ts-node, tsx) are read with
// the lexer of github.com/tdewolff/parse/v2/js (pure Go, ECMAScript 2020+
// with template literals nested in substitutions; no tables built at
// package init beyond a keyword map). A '/' is re-read as a regular
// expression where an operand is expected (after an operator, an opening
// bracket, a comma, a keyword or at the start), which is the rule the
// ECMAScript grammar leaves to the parser. TypeScript's type annotations
// lex as JavaScript tokens and are passed over by the scanner.

var jsLang = &codeLang{name: "js", concat: "+", tokenize: tokenizeJS}

func tokenizeJS(src string) ([]ctok, bool) {
	src = strings.ReplaceAll(src, dyn, " __hookwarden_dyn__ ")
	// a #! line (node and deno skip it)
	if strings.HasPrefix(src, "#!") {
		if i := strings.IndexByte(src, '\n'); i >= 0 {
			src = src[i:]
		} else {
			src = ""
		}
	}
	l := js.NewLexer(parse.NewInputString(src))
	t := jsTokens{operand: true}
	for steps := 0; ; steps++ {
		if steps > maxCodeTokens {
			return nil, false
		}
		tt, data := l.Next()
		switch tt {
		case js.ErrorToken:
			if l.Err() == io.EOF && len(t.stack) == 0 {
				return t.out, true
			}
			return nil, false
		case js.WhitespaceToken, js.CommentToken:
			continue
		case js.LineTerminatorToken, js.CommentLineTerminatorToken:
			t.out = append(t.out, ctok{kind: tkEnd})
			continue
		case js.DivToken, js.DivEqToken:
			if t.operand {
				if tt, _ = l.RegExp(); tt == js.ErrorToken {
					return nil, false
				}
				t.out = append(t.out, ctok{kind: tkUnknown, val: "regexp"})
				t.operand = false
				continue
			}
		}
		if !t.add(tt, string(data)) {
			return nil, false
		}
	}
}

// jsTokens is what tokenizeJS has read: the tokens, the template literals
// being read (innermost last), and whether an operand is expected (a '/'
// there starts a regular expression).
type jsTokens struct {
	out     []ctok
	stack   []jsTemplate
	operand bool
}

// jsTemplate is a template literal being read: its parts so far, and the
// index in out where the current substitution's tokens start.
type jsTemplate struct {
	parts []spart
	from  int
}

// add converts one lexer token (type tt, text d) to the scanner's tokens;
// false when it cannot be read (a string whose escapes do not decode, a
// template piece with no template open).
func (t *jsTokens) add(tt js.TokenType, d string) bool {
	switch {
	case tt == js.StringToken:
		s, ok := jsUnquote(d[1 : len(d)-1])
		if !ok {
			return false
		}
		t.out = append(t.out, strTok(s))
		t.operand = false
	case tt == js.TemplateToken:
		s, _ := jsUnquote(d[1 : len(d)-1])
		t.out = append(t.out, ctok{kind: tkStr, tmpl: true, parts: []spart{{lit: s}}})
		t.operand = false
	case tt == js.TemplateStartToken:
		s, _ := jsUnquote(d[1 : len(d)-2])
		t.stack = append(t.stack, jsTemplate{parts: []spart{{lit: s}}, from: len(t.out)})
		t.operand = true
	case tt == js.TemplateMiddleToken || tt == js.TemplateEndToken:
		return t.templatePiece(tt, d)
	case tt == js.IdentifierToken || tt == js.PrivateIdentifierToken:
		if d == "__hookwarden_dyn__" {
			t.out = append(t.out, ctok{kind: tkUnknown})
		} else {
			t.out = append(t.out, ctok{kind: tkIdent, val: d})
		}
		t.operand = false
	case tt == js.SemicolonToken:
		t.out = append(t.out, ctok{kind: tkEnd})
		t.operand = true
	case js.IsNumeric(tt):
		t.out = append(t.out, ctok{kind: tkNum, val: d})
		t.operand = false
	case js.IsReservedWord(tt) || js.IsIdentifierName(tt):
		t.out = append(t.out, ctok{kind: tkIdent, val: d})
		t.operand = d != "this" && d != "super" && d != "null" && d != "true" && d != "false"
	default:
		t.out = append(t.out, ctok{kind: tkPunct, val: d})
		t.operand = !(d == ")" || d == "]" || d == "}" || d == "++" || d == "--")
	}
	return true
}

// templatePiece closes the current substitution of the innermost template
// literal (its tokens become an expression part) and adds the literal text
// of a middle piece, or, for the end piece, completes the literal as one
// string token.
func (t *jsTokens) templatePiece(tt js.TokenType, d string) bool {
	if len(t.stack) == 0 {
		return false
	}
	top := &t.stack[len(t.stack)-1]
	expr := append([]ctok(nil), t.out[top.from:]...)
	t.out = t.out[:top.from]
	top.parts = append(top.parts, spart{isExpr: true, expr: expr})
	if tt == js.TemplateMiddleToken {
		s, _ := jsUnquote(d[1 : len(d)-2])
		top.parts = append(top.parts, spart{lit: s})
		top.from = len(t.out)
		t.operand = true
		return true
	}
	s, _ := jsUnquote(d[1 : len(d)-1])
	top.parts = append(top.parts, spart{lit: s})
	t.out = append(t.out, ctok{kind: tkStr, tmpl: true, parts: top.parts})
	t.stack = t.stack[:len(t.stack)-1]
	t.operand = false
	return true
}

// jsUnquote decodes the escapes of a JavaScript string or template body:
// \n and the other single-letter escapes, \xHH, \uHHHH, \u{H...}, legacy
// octal \NNN, line continuations; an escape it cannot read is dyn.
func jsUnquote(s string) (string, bool) {
	if !strings.Contains(s, `\`) {
		return s, true
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
		case '\n':
		case '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte(8)
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case 'x':
			if i+2 < len(s)+0 && i+3 <= len(s) {
				if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
					b.WriteByte(byte(v))
					i += 2
					continue
				}
			}
			b.WriteString(dyn)
		case 'u':
			hex := ""
			if i+1 < len(s) && s[i+1] == '{' {
				end := strings.IndexByte(s[i:], '}')
				if end < 0 {
					b.WriteString(dyn)
					continue
				}
				hex = s[i+2 : i+end]
				i += end
			} else if i+5 <= len(s) {
				hex = s[i+1 : i+5]
				i += 4
			}
			v, err := strconv.ParseUint(hex, 16, 32)
			if err != nil || !utf8.ValidRune(rune(v)) {
				b.WriteString(dyn)
				continue
			}
			b.WriteRune(rune(v))
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
	return b.String(), true
}
