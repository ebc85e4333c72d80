package policy

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Python's tokens, after the Python 3.12 language reference, "Lexical
// analysis": comments, explicit (backslash) and implicit (inside
// brackets) line joining, string literals with their prefixes (r, b, u, f
// and combinations, any case), single- and triple-quoted, escape sequences
// of non-raw literals, and f-string replacement fields ({expr!r:spec}, {{
// and }}). No Go tokenizer of Python is kept up to date without cgo
// (go-python/gpython's lexer targets Python 3.4 and brings its whole
// runtime), so this one is ours; it reads only what the scanner needs.

var pythonLang = &codeLang{name: "python", concat: "+", tokenize: tokenizePython}

// pyOps are Python's operators and delimiters of more than one byte,
// longest first.
var pyOps = []string{"**=", "//=", ">>=", "<<=", "...", "->", ":=", "==", "!=", "<=", ">=", "**", "//", "<<", ">>",
	"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@="}

func tokenizePython(src string) ([]ctok, bool) {
	var out []ctok
	depth := 0
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '\\' && i+1 < len(src) && (src[i+1] == '\n' || src[i+1] == '\r'):
			i += 2
		case c == '\n' || c == ';':
			if depth == 0 || c == ';' {
				out = append(out, ctok{kind: tkEnd})
			}
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			i++
		case c == dyn[0]:
			out = append(out, ctok{kind: tkUnknown})
			i++
		case isPyStrStart(src, i):
			t, n, ok := pyString(src, i)
			if !ok {
				return nil, false
			}
			out = append(out, t)
			i = n
		case c == '_' || c >= 0x80 || (c|0x20 >= 'a' && c|0x20 <= 'z'):
			k := i
			for k < len(src) {
				r, w := utf8.DecodeRuneInString(src[k:])
				if r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) {
					k += w
					continue
				}
				break
			}
			if k == i {
				return nil, false
			}
			out = append(out, ctok{kind: tkIdent, val: src[i:k]})
			i = k
		case c >= '0' && c <= '9':
			k := i
			for k < len(src) && (isAlnum(src[k]) || src[k] == '.' || src[k] == '_') {
				k++
			}
			out = append(out, ctok{kind: tkNum, val: src[i:k]})
			i = k
		default:
			op := string(c)
			for _, o := range pyOps {
				if strings.HasPrefix(src[i:], o) {
					op = o
					break
				}
			}
			switch op {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				depth = max(depth-1, 0)
			}
			out = append(out, ctok{kind: tkPunct, val: op})
			i += len(op)
		}
	}
	return out, true
}

func isAlnum(c byte) bool {
	return c == '_' || (c >= '0' && c <= '9') || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

// isPyStrStart reports a string literal at i: a quote, or up to two prefix
// letters (r, b, u, f, in any case and order Python accepts) then a quote.
func isPyStrStart(src string, i int) bool {
	if i > 0 && (isAlnum(src[i-1]) || src[i-1] >= 0x80) {
		return src[i] == '\'' || src[i] == '"'
	}
	for k := i; k < len(src) && k < i+3; k++ {
		switch src[k] | 0x20 {
		case 'r', 'b', 'u', 'f':
			continue
		}
		return src[k] == '\'' || src[k] == '"'
	}
	return false
}

// pyString reads the string literal at i.
func pyString(src string, i int) (ctok, int, bool) {
	raw, fstr := false, false
	for src[i] != '\'' && src[i] != '"' {
		switch src[i] | 0x20 {
		case 'r':
			raw = true
		case 'f':
			fstr = true
		}
		i++
	}
	q := src[i : i+1]
	if strings.HasPrefix(src[i:], q+q+q) {
		q = q + q + q
	}
	i += len(q)
	body := -1
	for k := i; k < len(src); k++ {
		if src[k] == '\\' {
			k++
			continue
		}
		if len(q) == 1 && src[k] == '\n' {
			return ctok{}, 0, false
		}
		if strings.HasPrefix(src[k:], q) {
			body = k
			break
		}
	}
	if body < 0 {
		return ctok{}, 0, false
	}
	text := src[i:body]
	t := ctok{kind: tkStr}
	if fstr {
		parts, ok := pyFString(text, raw)
		if !ok {
			return ctok{}, 0, false
		}
		t.parts = parts
	} else {
		t.parts = []spart{{lit: pyUnescape(text, raw)}}
	}
	return t, body + len(q), true
}

// pyFString splits an f-string's body into literal text and replacement
// fields; a field's expression is tokenized as Python.
func pyFString(text string, raw bool) ([]spart, bool) {
	var parts []spart
	var lit strings.Builder
	for k := 0; k < len(text); k++ {
		c := text[k]
		if c == '{' && k+1 < len(text) && text[k+1] == '{' {
			lit.WriteByte('{')
			k++
			continue
		}
		if c == '}' && k+1 < len(text) && text[k+1] == '}' {
			lit.WriteByte('}')
			k++
			continue
		}
		if c != '{' {
			lit.WriteByte(c)
			continue
		}
		end, exprEnd := fStringField(text, k)
		if end < 0 {
			return nil, false
		}

		parts = append(parts, spart{lit: pyUnescape(lit.String(), raw)})
		lit.Reset()
		expr, ok := tokenizePython(strings.TrimSuffix(strings.TrimSpace(text[k+1:exprEnd]), "="))
		if !ok {
			expr = []ctok{{kind: tkUnknown}}
		}
		p := spart{isExpr: true, expr: expr}
		if exprEnd < end {
			p.expr = []ctok{{kind: tkUnknown}} // a conversion or format spec changes the text
			if spec := text[exprEnd:end]; spec == "!s" || spec == ":" {
				p.expr = expr
			}
		}
		parts = append(parts, p)
		k = end
	}
	parts = append(parts, spart{lit: pyUnescape(lit.String(), raw)})
	return parts, true
}

// fStringField finds the replacement field opening at text[k] ("{"): it
// runs to the matching "}" (end; -1 when there is none), quotes and
// brackets inside it skipped, and its expression ends at a top-level "!"
// (not "!=") or ":" (exprEnd; end when there is neither).
func fStringField(text string, k int) (end, exprEnd int) {
	d := 0
	end, exprEnd = -1, -1
	var quote byte
	for e := k + 1; e < len(text) && end < 0; e++ {
		b := text[e]
		if quote != 0 {
			if b == quote {
				quote = 0
			}
			continue
		}
		switch b {
		case '\'', '"':
			quote = b
		case '(', '[', '{':
			d++
		case ')', ']':
			d--
		case '}':
			if d == 0 {
				end = e
			} else {
				d--
			}
		case '!':
			if d == 0 && exprEnd < 0 && e+1 < len(text) && text[e+1] != '=' {
				exprEnd = e
			}
		case ':':
			if d == 0 && exprEnd < 0 {
				exprEnd = e
			}
		}
	}
	if exprEnd < 0 {
		exprEnd = end
	}
	return end, exprEnd
}

// pyUnescape decodes Python's escape sequences (\n, \xHH, \ooo, \uHHHH,
// \UHHHHHHHH, \N{...} taken as unknown); raw literals keep them.
func pyUnescape(s string, raw bool) string {
	if raw || !strings.Contains(s, `\`) {
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
		case '\n':
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"':
			b.WriteByte(e)
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if i+1+n > len(s) {
				b.WriteString(dyn)
				continue
			}
			v, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
			if err != nil {
				b.WriteString(dyn)
				continue
			}
			i += n
			if e == 'x' {
				b.WriteByte(byte(v))
			} else {
				b.WriteRune(rune(v))
			}
		case 'N':
			if end := strings.IndexByte(s[i:], '}'); end >= 0 {
				i += end
			}
			b.WriteString(dyn)
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v, n := 0, 0
			for n < 3 && i+n < len(s) && s[i+n] >= '0' && s[i+n] <= '7' {
				v = v*8 + int(s[i+n]-'0')
				n++
			}
			i += n - 1
			b.WriteByte(byte(v))
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String()
}
