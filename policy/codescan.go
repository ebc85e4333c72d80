package policy

import (
	"path"
	"strings"
)

// Code in interpreters (issue 28 item 4). Python, JavaScript/TypeScript,
// Ruby and Perl code, given inline (-c, -e, -p, eval, a here-document on
// stdin) or as a script file, is read by a tokenizer of its language
// (codescan_python.go, codescan_js.go, codescan_ruby.go,
// codescan_perl.go) into ctoks; the scanner below finds the calls that run
// commands or write files, rebuilds their argument (a list of string
// literals is an argv, a string is a shell command) and judges it with the
// same policy as a command typed at the shell. A string that is only
// printed, logged or compared is data. A call whose argument is known only
// at run time is refused (RuleCodeDynamic) only when the code names a
// hook-sensitive word (codeSensitive). Code a tokenizer cannot read falls
// back to the text rules (judge.code).

// ctokKind is the kind of one code token.
type ctokKind uint8

const (
	tkIdent   ctokKind = iota + 1 // a name (Perl's carry their sigil: $x, @x, %ENV)
	tkStr                         // a string literal (parts: literal text and interpolations)
	tkCmd                         // a shell command literal: Ruby/Perl backticks, %x(), qx()
	tkNum                         // a number
	tkPunct                       // an operator or punctuation, val holds its text
	tkEnd                         // the end of a statement (newline or ;)
	tkUnknown                     // text known only at run time, or an opaque literal (regular expression)
)

// ctok is one token of interpreter code.
type ctok struct {
	kind  ctokKind
	val   string  // name, number or punctuation text
	parts []spart // tkStr, tkCmd: the literal's pieces
	// tmpl marks a JavaScript template literal (a tagged template runs
	// with zx's or Bun's $).
	tmpl bool
}

// spart is one piece of a string literal: literal text (with dyn for a
// byte known only at run time), or an interpolated expression.
type spart struct {
	lit  string
	expr []ctok
	// isExpr marks an interpolation (expr may be empty: unknown).
	isExpr bool
}

// strTok returns a string token holding the literal s.
func strTok(s string) ctok { return ctok{kind: tkStr, parts: []spart{{lit: s}}} }

// cval is the value of a code expression as far as it is known: a string
// (s, with dyn where unknown) or a list of strings.
type cval struct {
	s      string
	list   []string
	isList bool
	// known: every part is a literal; decoded: the expression decodes or
	// unescapes text at run time (a decoder call, a reversing slice).
	known, decoded bool
}

func (v cval) text() string {
	if v.isList {
		return strings.Join(v.list, " ")
	}
	return v.s
}

var unknownVal = cval{s: dyn}

// codeLang describes what the scanner needs to know of one language.
type codeLang struct {
	name string
	// concat is the string concatenation operator ("+", or "." in Perl).
	concat string
	// parenless: calls may be written without parentheses (Ruby, Perl).
	parenless bool
	tokenize  func(src string) ([]ctok, bool)
}

// maxCodeTokens bounds the tokens one code text may hold (the code is
// itself bounded by MaxCommandBytes or maxScriptBytes); past it the code is
// judged by the text rules.
const maxCodeTokens = 1 << 17

// maxCodeDepth bounds interpolations and expressions nested in one another.
const maxCodeDepth = 32

// codeScan judges src as code of lang: it returns false when the tokenizer
// could not read it (the caller then falls back to the text rules).
func (j *judge) codeScan(lang *codeLang, src string, depth int, env []envVar) bool {
	toks, ok := lang.tokenize(src)
	if !ok || len(toks) > maxCodeTokens {
		return false
	}
	s := &codeScanner{j: j, lang: lang, toks: toks, depth: depth, env: env, vars: map[string]cval{}, alias: map[string]string{}}
	s.run()
	return true
}

// codeScanner is the state of one scan.
type codeScanner struct {
	j     *judge
	lang  *codeLang
	toks  []ctok
	depth int
	env   []envVar
	vars  map[string]cval   // names bound to literal values
	alias map[string]string // local name -> the dotted name it stands for
	// sensRun, sensPath cache sensitive(true), sensitive(false): 0 not
	// yet computed, 1 no, 2 yes.
	sensRun, sensPath int
	// calls holds the calls read so far by the index of their closing
	// parenthesis; bound the names bound at least once.
	calls  map[int]codeCall
	bound  map[string]bool
	runner bool // the code calls something that runs a program
	// envSets are the hook-relevant environment assignments the code makes,
	// judged once the whole code is read (they matter only when it runs
	// something).
	envSets []envVar
}

func (s *codeScanner) run() {
	for i := 0; i < len(s.toks); {
		i = s.statementAt(i)
	}
	if s.runner {
		for _, e := range s.envSets {
			s.j.assignment(e.name, e.val, true)
		}
	}
}

// statementAt reads the construct starting at token i and returns the
// index to continue from (always > i).
func (s *codeScanner) statementAt(i int) int {
	t := s.toks[i]
	switch t.kind {
	case tkCmd:
		s.runner = true
		s.shellCode(s.strVal(t, 0))
		return i + 1
	case tkIdent:
		if n := s.importAt(i); n > i {
			return n
		}
		if n := s.envAssignAt(i); n > i {
			return n
		}
		if n := s.assignAt(i); n > i {
			return n
		}
		s.mutationAt(i)
		if n, ok := s.callAt(i); ok {
			return n
		}
		s.runnerValueAt(i)
	case tkStr:
		if n := s.envKeyAt(i); n > i {
			return n
		}
	case tkPunct:
		if t.val == "[" && s.lang.name == "js" {
			// a computed call: obj[expr](...)
			return i + 1
		}
	}
	return i + 1
}

// mutationAt forgets the value of a bound name the code changes in place:
// a method called on it (cmd.append('-n'), c.push(x), s.replace(...)), an
// element assigned (cmd[2] = '-n'), Ruby's cmd << x, Perl's push/unshift/
// splice @a. From then on the name is known only at run time.
func (s *codeScanner) mutationAt(i int) {
	t := s.toks[i]
	switch {
	case s.lang.name == "perl" && (t.val == "push" || t.val == "unshift" || t.val == "splice"):
		k := i + 1
		if s.isPunct(k, "(") {
			k++
		}
		if k < len(s.toks) && s.toks[k].kind == tkIdent {
			s.forget(s.toks[k].val)
		}
		return
	}
	if _, bound := s.vars[t.val]; !bound || s.isPunct(i-1, ".") {
		return
	}
	switch {
	case s.isPunct(i+1, ".") && i+3 < len(s.toks) && s.toks[i+2].kind == tkIdent && s.isPunct(i+3, "("):
		switch s.toks[i+2].val {
		case "join", "split", "strip", "format", "count", "index", "startswith", "endswith", "get", "keys", "toString", "includes", "indexOf", "slice", "trim", "to_s", "length", "size":
			return
		}
		s.forget(t.val)
	case s.isPunct(i+1, "["):
		end := s.closeOf(i + 1)
		if s.isPunct(end+1, "=") || s.isPunct(end+1, "+=") {
			s.forget(t.val)
		}
	case s.isPunct(i+1, "<<"):
		s.forget(t.val)
	}
}

// forget makes a bound name known only at run time for the rest of the
// code.
func (s *codeScanner) forget(name string) {
	delete(s.vars, name)
	if s.bound == nil {
		s.bound = map[string]bool{}
	}
	s.bound[name] = true
}

// runnerValueAt refuses, in code naming a hook-sensitive word, a function
// that runs commands passed as a value instead of called
// (map(os.system, cmds), Thread(target=os.system, ...)): what it will be
// called with is not in the code's calls.
func (s *codeScanner) runnerValueAt(i int) {
	if !(s.isPunct(i-1, "(") || s.isPunct(i-1, ",") || s.isPunct(i-1, "[") || (s.isPunct(i-1, "=") && (s.isPunct(i-3, "(") || s.isPunct(i-3, ",")))) {
		return
	}
	name, next, computed := s.nameAt(i)
	if computed || s.isPunct(next, "(") || s.isPunct(next, ".") {
		return
	}
	if k, ok := s.lookupCall(name); ok && k != ckWrite && k != ckRemove && k != ckCopy && k != ckOpen && s.sensitive(true) {
		s.j.hits.add(RuleCodeDynamic)
	}
}

// skipTo returns the index of the token closing the bracket opened at i
// (or len(toks)).
func (s *codeScanner) closeOf(i int) int {
	open := s.toks[i].val
	close := map[string]string{"(": ")", "[": "]", "{": "}"}[open]
	d := 0
	for k := i; k < len(s.toks); k++ {
		if s.toks[k].kind != tkPunct {
			continue
		}
		switch s.toks[k].val {
		case "(", "[", "{":
			d++
		case ")", "]", "}":
			d--
			if d == 0 {
				if s.toks[k].val != close {
					return k
				}
				return k
			}
		}
	}
	return len(s.toks)
}

func (s *codeScanner) isPunct(i int, v string) bool {
	return i >= 0 && i < len(s.toks) && s.toks[i].kind == tkPunct && s.toks[i].val == v
}

// stmtEnd returns the index of the end of the expression starting at i:
// the first tkEnd, or closing bracket or comma at depth 0.
func (s *codeScanner) exprEnd(i int, stopWords bool) int {
	d := 0
	for k := i; k < len(s.toks); k++ {
		t := s.toks[k]
		switch t.kind {
		case tkEnd:
			if d == 0 {
				return k
			}
		case tkPunct:
			switch t.val {
			case "(", "[", "{":
				d++
			case ")", "]", "}":
				if d == 0 {
					return k
				}
				d--
			case ",":
				if d == 0 {
					return k
				}
			}
		case tkIdent:
			if stopWords && d == 0 && k > i {
				switch t.val {
				case "if", "unless", "or", "and", "while", "until", "rescue", "do", "then":
					return k
				}
			}
		}
	}
	return len(s.toks)
}

// nameAt reads a dotted name starting at i (a.b.c, a::b, __import__('os').x,
// require('child_process').x, getattr(os, 'system'), obj['key']); it
// returns the name, the index after it, and computed=true when a part of
// the name is known only at run time.
func (s *codeScanner) nameAt(i int) (name string, next int, computed bool) {
	var parts []string
	k := i
	for k < len(s.toks) {
		t := s.toks[k]
		if t.kind != tkIdent {
			break
		}
		v := t.val
		if (v == "new" || v == "await") && len(parts) == 0 {
			k++
			continue
		}
		if a, ok := s.alias[v]; ok && len(parts) == 0 {
			v = a
		}
		var done bool
		if parts, k, done, computed = s.namePart(v, k, parts); done {
			return strings.Join(parts, "."), k, computed
		}
		var more bool
		if parts, k, more, computed = s.members(k, parts); !more {
			return strings.Join(parts, "."), k, computed
		}
	}
	return strings.Join(parts, "."), k, false
}

// namePart reads the identifier v at k into parts: a module a call names
// (__import__('os'), require('x'), import('x'),
// importlib.import_module('x')) or an attribute getattr(o, 'n') names by
// literals, else v itself. It returns the parts, the index after what it
// read, and done with computed=true when the call's operands are known
// only at run time (the name ends there).
func (s *codeScanner) namePart(v string, k int, parts []string) (out []string, next int, done, computed bool) {
	if (v == "__import__" || v == "require" || v == "import" || v == "importlib.import_module") && s.isPunct(k+1, "(") {
		end := s.closeOf(k + 1)
		if m, ok := s.literalArg(k+2, end, 0); ok {
			return append(parts, strings.TrimPrefix(m, "node:")), end + 1, false, false
		}
		return append(parts, v), end + 1, true, true
	}
	if v == "getattr" && s.isPunct(k+1, "(") {
		end := s.closeOf(k + 1)
		if args := s.splitArgs(k+2, end); len(args) >= 2 {
			base, _, comp := s.nameIn(args[0].toks)
			attr := s.eval(args[1].toks, 0)
			if !comp && attr.known && !attr.isList {
				return append(parts, base, attr.s), end + 1, false, false
			}
		}
		return []string{"getattr"}, end + 1, true, true
	}
	parts = append(parts, v)
	k++
	if strings.Join(parts, ".") == "importlib.import_module" && s.isPunct(k, "(") {
		end := s.closeOf(k)
		if m, ok := s.literalArg(k+1, end, 0); ok {
			return []string{m}, end + 1, false, false
		}
		return []string{"importlib.import_module"}, end + 1, true, true
	}
	return parts, k, false, false
}

// literalArg returns argument n of the call whose arguments span from..to
// when it is one known string.
func (s *codeScanner) literalArg(from, to, n int) (string, bool) {
	args := s.splitArgs(from, to)
	if len(args) <= n {
		return "", false
	}
	a := s.eval(args[n].toks, 0)
	return a.s, a.known && !a.isList
}

// members reads what follows a name's parts at k: more is true when a
// member access (., ::, ?., ->) introduces another identifier (k then at
// it); a subscript with a known key followed by a call or a member adds
// the key (os.__dict__['system'], sys.modules['os'] drop __dict__ and
// modules) and reads on; a key known only at run time ends the name with
// computed=true.
func (s *codeScanner) members(k int, parts []string) (out []string, next int, more, computed bool) {
	for {
		switch {
		case s.isPunct(k, ".") || s.isPunct(k, "::") || s.isPunct(k, "?.") || s.isPunct(k, "->"):
			if k+1 < len(s.toks) && s.toks[k+1].kind == tkIdent {
				return parts, k + 1, true, false
			}
		case s.isPunct(k, "[") && len(parts) > 0:
			end := s.closeOf(k)
			key := s.eval(s.toks[k+1:end], 0)
			if parts[len(parts)-1] == "__dict__" || parts[len(parts)-1] == "modules" {
				parts = parts[:len(parts)-1]
			}
			if !key.known || key.isList {
				return parts, end + 1, false, true
			}
			if s.isPunct(end+1, "(") || s.isPunct(end+1, ".") {
				parts = append(parts, key.s)
				k = end + 1
				continue
			}
		}
		return parts, k, false, false
	}
}

// nameIn reads a whole token list as a dotted name.
func (s *codeScanner) nameIn(toks []ctok) (string, int, bool) {
	sub := &codeScanner{j: s.j, lang: s.lang, toks: toks, vars: s.vars, alias: s.alias}
	n, next, comp := sub.nameAt(0)
	return n, next, comp || next != len(toks)
}

// carg is one argument of a call: its keyword (Python name=, "" when
// positional) and its tokens.
type carg struct {
	kw   string
	toks []ctok
}

// splitArgs splits toks[from:to] on depth-0 commas.
func (s *codeScanner) splitArgs(from, to int) []carg {
	var out []carg
	d, start := 0, from
	flush := func(end int) {
		if end <= start {
			return
		}
		a := carg{toks: s.toks[start:end]}
		if len(a.toks) > 2 && a.toks[0].kind == tkIdent && a.toks[1].kind == tkPunct && (a.toks[1].val == "=" || a.toks[1].val == ":") {
			a.kw, a.toks = a.toks[0].val, a.toks[2:]
		}
		out = append(out, a)
	}
	for k := from; k < to && k < len(s.toks); k++ {
		t := s.toks[k]
		if t.kind == tkPunct {
			switch t.val {
			case "(", "[", "{":
				d++
			case ")", "]", "}":
				d--
			case ",", "=>":
				if d == 0 && t.val == "," {
					flush(k)
					start = k + 1
				}
			}
		}
		if t.kind == tkEnd && d == 0 && s.lang.parenless {
			to = k
			break
		}
	}
	flush(min(to, len(s.toks)))
	return out
}

// eval evaluates an expression's tokens to the value it is known to have.
func (s *codeScanner) eval(toks []ctok, depth int) cval {
	if len(toks) == 0 || depth > maxCodeDepth {
		return unknownVal
	}
	// a Perl list: ("git", "commit", "-n")
	if s.lang.name == "perl" && len(toks) >= 2 && toks[0].kind == tkPunct && toks[0].val == "(" && closeIn(toks, 0) == len(toks)-1 {
		sub := &codeScanner{j: s.j, lang: s.lang, toks: toks, vars: s.vars, alias: s.alias}
		if args := sub.splitArgs(1, len(toks)-1); len(args) > 1 {
			return s.listVal(args, depth)
		}
	}
	// strip wrapping parentheses
	for len(toks) >= 2 && toks[0].kind == tkPunct && toks[0].val == "(" && toks[len(toks)-1].kind == tkPunct && toks[len(toks)-1].val == ")" && closeIn(toks, 0) == len(toks)-1 {
		toks = toks[1 : len(toks)-1]
	}
	if len(toks) == 0 {
		return cval{known: true, isList: true}
	}
	// a + b + c (or Perl's a . b), and Python's adjacent literals
	var terms [][]ctok
	d, start := 0, 0
	for k, t := range toks {
		if t.kind == tkPunct {
			switch t.val {
			case "(", "[", "{":
				d++
			case ")", "]", "}":
				d--
			}
			if d == 0 && (t.val == s.lang.concat || (s.lang.name == "ruby" && t.val == "+")) && k > start {
				terms = append(terms, toks[start:k])
				start = k + 1
				continue
			}
		}
		if d == 0 && k > start && t.kind == tkStr && toks[k-1].kind == tkStr && s.lang.name == "python" {
			terms = append(terms, toks[start:k])
			start = k
		}
	}
	terms = append(terms, toks[start:])
	if len(terms) > 1 {
		out := s.term(terms[0], depth+1)
		for _, t := range terms[1:] {
			v := s.term(t, depth+1)
			switch {
			case out.isList && v.isList:
				out.list = append(append([]string(nil), out.list...), v.list...)
			case out.isList || v.isList:
				return cval{s: dyn, decoded: out.decoded || v.decoded}
			default:
				out.s += v.s
			}
			out.known = out.known && v.known
			out.decoded = out.decoded || v.decoded
		}
		return out
	}
	return s.term(toks, depth+1)
}

func closeIn(toks []ctok, i int) int {
	d := 0
	for k := i; k < len(toks); k++ {
		if toks[k].kind != tkPunct {
			continue
		}
		switch toks[k].val {
		case "(", "[", "{":
			d++
		case ")", "]", "}":
			d--
			if d == 0 {
				return k
			}
		}
	}
	return -1
}

// term evaluates one operand of a concatenation.
func (s *codeScanner) term(toks []ctok, depth int) cval {
	if len(toks) == 0 || depth > maxCodeDepth {
		return unknownVal
	}
	sub := &codeScanner{j: s.j, lang: s.lang, toks: toks, vars: s.vars, alias: s.alias, depth: s.depth, env: s.env}
	t := toks[0]
	if t.kind == tkPunct && (t.val == "*" || t.val == "..." || t.val == "**") && len(toks) > 1 {
		return s.term(toks[1:], depth+1) // a splat: *%w[...], ...args
	}
	switch {
	case len(toks) == 1 && t.kind == tkStr:
		return s.strVal(t, depth)
	case len(toks) == 1 && t.kind == tkNum:
		return cval{s: t.val, known: true}
	case len(toks) == 1 && t.kind == tkIdent:
		if v, ok := s.vars[t.val]; ok {
			return v
		}
		return cval{s: dyn, decoded: isDecoderName(t.val)}
	case t.kind == tkPunct && (t.val == "[" || (t.val == "(" && s.lang.name == "perl")) && closeIn(toks, 0) == len(toks)-1:
		return s.listVal(sub.splitArgs(1, len(toks)-1), depth)
	case t.kind == tkStr && len(toks) >= 3 && toks[1].kind == tkPunct && toks[1].val == "[":
		// a slice of a literal ('abc'[::-1]) decodes at run time
		return cval{s: dyn, decoded: true}
	}
	// method calls on a value: X.join(sep), X.split(), sep.join(X), ...
	if v, ok := s.methodVal(toks, depth); ok {
		return v
	}
	out := unknownVal
	for _, x := range toks {
		if x.kind == tkIdent && isDecoderName(x.val) {
			out.decoded = true
		}
		if x.kind == tkStr && (strLit(x) == "base64" || strLit(x) == "hex") {
			out.decoded = true
		}
	}
	return out
}

// methodVal evaluates the string and list helpers whose result is known
// from literal operands: sep.join(LIST) and shlex.join(LIST) (Python),
// LIST.join(sep) (JavaScript, Ruby), join(sep, LIST) (Perl),
// S.split() and shlex.split(S), os.path.join/path.join/File.join of
// literals, and String(x)/str(x)/x.toString()/x.strip().
func (s *codeScanner) methodVal(toks []ctok, depth int) (cval, bool) {
	c, ok := s.methodCallOf(toks, depth)
	if !ok {
		return cval{}, false
	}
	switch {
	case c.method == "join":
		return c.join(s, depth)
	case c.method == "split" && (c.recvName == "shlex" || len(c.recv) > 0):
		v := c.arg(0)
		if c.recvName != "shlex" {
			v = s.eval(c.recv, depth+1)
		}
		if v.isList {
			return cval{s: dyn}, true
		}
		return cval{list: strings.Fields(v.s), isList: true, known: v.known}, true
	case (c.method == "strip" || c.method == "toString" || c.method == "trim" || c.method == "chomp" || c.method == "to_s") && len(c.recv) > 0 && len(c.args) == 0:
		v := s.eval(c.recv, depth+1)
		if !v.isList {
			v.s = strings.TrimSpace(v.s)
		}
		return v, true
	case (c.method == "str" || c.method == "String") && len(c.recv) == 0 && len(c.args) == 1:
		return c.arg(0), true
	}
	return cval{}, false
}

// methodCall is a call ending toks: recv.method(args) or method(args), with
// the receiver's name (through the scanner's import aliases) when it has
// one, and arg evaluating one argument.
type methodCall struct {
	method, recvName string
	recv             []ctok
	args             []carg
	arg              func(i int) cval
}

// methodCallOf reads toks as a call that ends them (the last token closes
// the parenthesis that an identifier opens); false when they are not one.
func (s *codeScanner) methodCallOf(toks []ctok, depth int) (methodCall, bool) {
	last := len(toks) - 1
	if toks[last].kind != tkPunct || toks[last].val != ")" {
		return methodCall{}, false
	}
	open := -1
	d := 0
	for k := last; k >= 0 && open < 0; k-- {
		if toks[k].kind != tkPunct {
			continue
		}
		switch toks[k].val {
		case ")", "]", "}":
			d++
		case "(", "[", "{":
			d--
			if d == 0 {
				open = k
			}
		}
	}
	if open < 1 || toks[open-1].kind != tkIdent {
		return methodCall{}, false
	}
	sub := &codeScanner{j: s.j, lang: s.lang, toks: toks, vars: s.vars, alias: s.alias}
	c := methodCall{method: toks[open-1].val, args: sub.splitArgs(open+1, last)}
	if open >= 2 && toks[open-2].kind == tkPunct && (toks[open-2].val == "." || toks[open-2].val == "::") {
		c.recv = toks[:open-2]
	}
	if len(c.recv) > 0 {
		c.recvName, _, _ = sub.nameIn(c.recv)
		if a, ok := s.alias[c.recvName]; ok {
			c.recvName = a
		}
	}
	c.arg = func(i int) cval {
		if i < len(c.args) {
			return s.eval(c.args[i].toks, depth+1)
		}
		return unknownVal
	}
	return c, true
}

// join evaluates the join helpers: shlex.join(LIST) and sep.join(LIST)
// (Python), os.path.join/path.join/File.join of literals, LIST.join(sep)
// (JavaScript, Ruby; "," by default) and join(sep, LIST) (Perl).
func (c methodCall) join(s *codeScanner, depth int) (cval, bool) {
	switch {
	case c.recvName == "shlex" || c.recvName == "shlex_join":
		l := c.arg(0)
		if !l.isList {
			return cval{s: dyn, decoded: l.decoded}, true
		}
		q := make([]string, len(l.list))
		for i, w := range l.list {
			q[i] = shellQuote(w)
		}
		return cval{s: strings.Join(q, " "), known: l.known}, true
	case c.recvName == "os.path" || c.recvName == "path" || c.recvName == "posixpath" || c.recvName == "File" || c.recvName == "Path" || c.recvName == "path.posix":
		var ps []string
		known := true
		for i := range c.args {
			v := c.arg(i)
			known = known && v.known
			ps = append(ps, v.text())
		}
		return cval{s: path.Join(ps...), known: known}, true
	case len(c.recv) > 0:
		l, sep := s.eval(c.recv, depth+1), c.arg(0)
		if s.lang.name == "python" {
			l, sep = sep, l // sep.join(LIST)
		} else if len(c.args) == 0 {
			sep = cval{s: ",", known: true}
		}
		if !l.isList || sep.isList {
			return cval{s: dyn, decoded: l.decoded || sep.decoded}, true
		}
		return cval{s: strings.Join(l.list, sep.s), known: l.known && sep.known}, true
	case s.lang.name == "perl" && len(c.args) >= 1:
		sep := c.arg(0)
		var ws []string
		known := sep.known
		for i := 1; i < len(c.args); i++ {
			v := c.arg(i)
			known = known && v.known
			if v.isList {
				ws = append(ws, v.list...)
			} else {
				ws = append(ws, v.s)
			}
		}
		return cval{s: strings.Join(ws, sep.s), known: known}, true
	}
	return cval{}, false
}

// shellQuote quotes w as Python's shlex.quote does.
func shellQuote(w string) string {
	if w == "" {
		return "''"
	}
	if strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_") == "" {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'"'"'`) + "'"
}

// listVal evaluates list elements.
func (s *codeScanner) listVal(args []carg, depth int) cval {
	out := cval{isList: true, known: true}
	for _, a := range args {
		if len(a.toks) == 1 && a.toks[0].kind == tkPunct && a.toks[0].val == "*" {
			continue
		}
		v := s.eval(a.toks, depth+1)
		if len(a.toks) > 0 && a.toks[0].kind == tkPunct && (a.toks[0].val == "*" || a.toks[0].val == "...") {
			v = s.eval(a.toks[1:], depth+1)
		}
		out.known = out.known && v.known
		out.decoded = out.decoded || v.decoded
		if v.isList {
			out.list = append(out.list, v.list...)
		} else {
			out.list = append(out.list, v.s)
		}
	}
	return out
}

// strVal evaluates a string literal's parts: interpolations of known
// values are inlined, others are dyn.
func (s *codeScanner) strVal(t ctok, depth int) cval {
	out := cval{known: true}
	var b strings.Builder
	for _, p := range t.parts {
		if !p.isExpr {
			b.WriteString(p.lit)
			if strings.Contains(p.lit, dyn) {
				out.known = false
			}
			continue
		}
		v := s.eval(p.expr, depth+1)
		out.known = out.known && v.known
		out.decoded = out.decoded || v.decoded
		b.WriteString(v.text())
	}
	out.s = b.String()
	return out
}

// strLit is the literal text of a string token without interpolations.
func strLit(t ctok) string {
	var b strings.Builder
	for _, p := range t.parts {
		if p.isExpr {
			b.WriteString(dyn)
		} else {
			b.WriteString(p.lit)
		}
	}
	return b.String()
}

// isDecoderName reports an identifier by which code decodes text
// (codeDecoders without their punctuation).
func isDecoderName(n string) bool {
	switch strings.ToLower(n) {
	case "b64decode", "b32decode", "b85decode", "a85decode", "decodebytes", "fromhex", "unhexlify", "atob",
		"base64_decode", "decode_base64", "decode64", "unpack", "unpack1", "frombase64string", "decompress",
		"fromcharcode", "chr", "rot13", "rot_13", "reverse", "reversed", "decode", "pack", "hex", "oct", "bytes", "bytearray":
		return true
	}
	return false
}

// codeLangOf returns the scanner language of an interpreter (its name as
// interpreterName gives it), or nil for one without a tokenizer here (PHP,
// Lua, osascript, ...: their code is judged by the text rules).
func codeLangOf(name string) *codeLang {
	switch name {
	case "python", "python2", "python3", "py", "pypy", "pypy3":
		return pythonLang
	case "node", "nodejs", "bun", "deno", "ts-node", "tsx":
		return jsLang
	case "ruby":
		return rubyLang
	case "perl":
		return perlLang
	}
	return nil
}

// codeIn judges code the interpreter name runs: with the language's
// scanner where there is one and it reads the code, else with the text
// rules (judge.code).
func (j *judge) codeIn(name string, f field, depth int, env []envVar) {
	lang := codeLangOf(interpreterName(name))
	if lang == nil {
		j.code(f, depth, env)
		j.runnerCode(name, f, depth, env) // runnerforms.go
		return
	}
	if f.decoded {
		j.hits.add(RuleDecodedCodeToShell)
	}
	if !j.codeScan(lang, f.val, depth, env) {
		j.code(f, depth, env)
	}
}
