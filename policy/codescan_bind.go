package policy

import (
	"strings"
)

// declWords are the keywords that introduce a binding (JavaScript const,
// let, var; Perl my, our, local).
func declWord(v string) bool {
	switch v {
	case "const", "let", "var", "my", "our", "local", "export":
		return true
	}
	return false
}

// importAt reads an import that binds a local name to a module or a
// module's member: Python `import a.b as c`, `from m import a as b, c`,
// `from m import *`; JavaScript `import x from 'm'`, `import * as x from
// 'm'`, `import {a as b} from 'm'`.
func (s *codeScanner) importAt(i int) int {
	t := s.toks[i]
	switch {
	case s.lang.name == "python" && t.val == "import":
		k := i + 1
		for k < len(s.toks) && s.toks[k].kind != tkEnd {
			mod, next, _ := s.nameAt(k)
			if next <= k {
				break
			}
			k = next
			if k+1 < len(s.toks) && s.toks[k].kind == tkIdent && s.toks[k].val == "as" && s.toks[k+1].kind == tkIdent {
				s.alias[s.toks[k+1].val] = mod
				k += 2
			}
			if s.isPunct(k, ",") {
				k++
			}
		}
		return k
	case s.lang.name == "python" && t.val == "from":
		mod, k, _ := s.nameAt(i + 1)
		if k >= len(s.toks) || s.toks[k].val != "import" {
			return i + 1
		}
		k++
		for k < len(s.toks) && s.toks[k].kind != tkEnd {
			tk := s.toks[k]
			switch {
			case tk.kind == tkPunct && tk.val == "*":
				for key := range codeCalls()["python"] {
					if m, n, ok := strings.Cut(key, "."); ok && m == mod {
						s.alias[n] = key
					}
				}
			case tk.kind == tkIdent:
				local := tk.val
				if k+2 < len(s.toks) && s.toks[k+1].val == "as" && s.toks[k+2].kind == tkIdent {
					local = s.toks[k+2].val
					k += 2
				}
				s.alias[local] = mod + "." + tk.val
			}
			k++
		}
		return k
	case s.lang.name == "js" && t.val == "import" && !s.isPunct(i+1, "("):
		end := i + 1
		for end < len(s.toks) && s.toks[end].kind != tkEnd && !(s.toks[end].kind == tkIdent && s.toks[end].val == "from") {
			end++
		}
		if end+1 >= len(s.toks) || s.toks[end].kind != tkIdent || s.toks[end+1].kind != tkStr {
			return end
		}
		mod := strings.TrimPrefix(strLit(s.toks[end+1]), "node:")
		s.bindImports(i+1, end, mod)
		return end + 2
	}
	return i
}

// bindImports binds the names of a JavaScript import clause or
// destructuring pattern toks[from:to] to mod's members.
func (s *codeScanner) bindImports(from, to int, mod string) {
	inBraces := false
	for k := from; k < to; k++ {
		t := s.toks[k]
		switch {
		case t.kind == tkPunct && t.val == "{":
			inBraces = true
		case t.kind == tkPunct && t.val == "}":
			inBraces = false
		case t.kind == tkPunct && t.val == "*" && k+2 < to && s.toks[k+1].val == "as":
			s.alias[s.toks[k+2].val] = mod
			k += 2
		case t.kind == tkIdent && !inBraces:
			s.alias[t.val] = mod
		case t.kind == tkIdent && inBraces:
			member, local := t.val, t.val
			if k+2 < to && (s.toks[k+1].val == "as" || s.toks[k+1].val == ":") && s.toks[k+2].kind == tkIdent {
				local = s.toks[k+2].val
				k += 2
			}
			s.alias[local] = mod + "." + member
		}
	}
}

// assignAt reads a binding: NAME = EXPR (after an optional declaration
// keyword), NAME += EXPR (Perl NAME .= EXPR), and JavaScript's
// destructuring const {a, b: c} = require('m'). A name bound to a dotted
// name (r = os.system) becomes an alias; a name bound to a literal value
// keeps it; a name bound twice to different values, or to anything else,
// is known only at run time from then on.
func (s *codeScanner) assignAt(i int) int {
	k := i
	if declWord(s.toks[k].val) {
		k++
	}
	if k >= len(s.toks) {
		return i
	}
	if s.isPunct(k, "{") && s.lang.name == "js" {
		end := s.closeOf(k)
		if s.isPunct(end+1, "=") {
			mod, _, comp := s.nameAt(end + 2)
			if !comp && mod != "" {
				s.bindImports(k, end+1, mod)
			}
			return end + 2
		}
		return i
	}
	if s.isPunct(k, "(") && s.lang.name == "perl" { // my ($a, $b) = ...
		end := s.closeOf(k)
		for x := k + 1; x < end; x++ {
			if s.toks[x].kind == tkIdent {
				s.bindName(s.toks[x].val, unknownVal)
			}
		}
		return k + 1
	}
	if s.toks[k].kind != tkIdent || k+1 >= len(s.toks) || s.toks[k+1].kind != tkPunct {
		return i
	}
	name, op := s.toks[k].val, s.toks[k+1].val
	if op != "=" && op != "+=" && op != ".=" && op != ":=" && op != "||=" {
		return i
	}
	if k > 0 && (s.isPunct(k-1, ".") || s.isPunct(k-1, "->") || s.isPunct(k-1, "::")) {
		return i // an attribute, not a name
	}
	start := k + 2
	end := s.exprEnd(start, s.lang.parenless)
	rhs := s.toks[start:end]
	if op == "=" && len(rhs) > 0 && rhs[0].kind == tkIdent {
		if target, next, comp := s.nameAt(start); !comp && next == end && target != "" {
			if _, isVar := s.vars[target]; !isVar {
				s.alias[name] = target
				delete(s.vars, name)
				return k + 2
			}
		}
	}
	v := s.eval(rhs, 0)
	if op == "+=" || op == ".=" {
		old, ok := s.vars[name]
		if !ok || old.isList != v.isList {
			v = unknownVal
		} else if v.isList {
			v = cval{isList: true, list: append(append([]string(nil), old.list...), v.list...), known: old.known && v.known}
		} else {
			v = cval{s: old.s + v.s, known: old.known && v.known}
		}
		s.vars[name] = v
		return k + 2
	}
	if op == "||=" {
		if _, ok := s.vars[name]; ok {
			return k + 2
		}
	}
	s.bindName(name, v)
	return k + 2
}

// bindName records name = v: a second different value makes the name
// known only at run time for the rest of the code (the scanner does not
// follow control flow, so either value may reach a later call).
func (s *codeScanner) bindName(name string, v cval) {
	delete(s.alias, name)
	if s.bound == nil {
		s.bound = map[string]bool{}
	}
	if old, ok := s.vars[name]; ok && s.bound[name] {
		if old.isList != v.isList || old.s != v.s || strings.Join(old.list, "\x01") != strings.Join(v.list, "\x01") {
			v = unknownVal
		}
	} else if s.bound[name] {
		v = unknownVal
	}
	s.bound[name] = true
	if v.s == dyn && !v.isList && !v.decoded {
		delete(s.vars, name)
		return
	}
	s.vars[name] = v
}

// hookEnvName reports an environment variable whose value hook managers,
// git or Claude Code read (hookManagerOff, configEnvRule, claudeEnvOff).
func hookEnvName(n string) bool {
	switch n {
	case "LEFTHOOK", "LEFTHOOK_EXCLUDE", "LEFTHOOK_CONFIG", "HUSKY", "HUSKY_SKIP_HOOKS", "SKIP", "GIT_CONFIG_PARAMETERS", "CLAUDE_CODE_SIMPLE":
		return true
	}
	return isGitConfigKeyVar(n)
}

// envAssignAt reads an environment assignment written with an identifier
// key: process.env.X = v (JavaScript), $ENV{X} = v (Perl), and a keyword
// argument or object key X: v / X=v inside a call or literal
// (os.environ.update(X=v), {X: v}).
func (s *codeScanner) envAssignAt(i int) int {
	t := s.toks[i]
	if !hookEnvName(t.val) {
		return i
	}
	return s.envKey(i, t.val)
}

// envKeyAt reads an environment assignment written with a string key:
// os.environ['X'] = v, ENV['X'] = v, {'X': v}, {"X" => v},
// os.putenv('X', v), ENV.store('X', v).
func (s *codeScanner) envKeyAt(i int) int {
	v := s.strVal(s.toks[i], 0)
	if !v.known || !hookEnvName(v.s) {
		return i
	}
	return s.envKey(i, v.s)
}

// envKey reads the value assigned to the environment variable named by the
// key token at i, in one of the forms of envAssignAt and envKeyAt.
func (s *codeScanner) envKey(i int, name string) int {
	valAt := -1
	switch {
	case s.isPunct(i+1, ":") || s.isPunct(i+1, "=>"):
		if s.isPunct(i-1, "{") || s.isPunct(i-1, ",") || s.isPunct(i-1, "(") {
			valAt = i + 2
		}
	case s.isPunct(i+1, "="):
		if s.isPunct(i-1, "(") || s.isPunct(i-1, ",") || s.isPunct(i-1, ".") {
			valAt = i + 2
		}
	case (s.isPunct(i+1, "]") || s.isPunct(i+1, "}")) && (s.isPunct(i+2, "=") || s.isPunct(i+2, "||=")):
		valAt = i + 3
	case s.isPunct(i+1, ",") && s.isPunct(i-1, "("):
		valAt = i + 2
	}
	if valAt < 0 || valAt >= len(s.toks) {
		return i
	}
	end := s.exprEnd(valAt, s.lang.parenless)
	v := s.eval(s.toks[valAt:end], 0)
	s.envSets = append(s.envSets, envVar{name: name, val: field{val: v.text(), raw: v.text()}})
	return i + 1
}

// sensitive reports whether the code names a hook-sensitive word: for run
// (a command the code runs), git (a word git, a path ending in /git,
// git-*), --no-verify, core.hooksPath, a hook-manager or git config
// variable, or a path the guard protects; for a path the code writes, only
// the protected paths (hooks directories, git config files, the guard's
// and the clients' hook files), also joined from pieces ('.git', 'hooks').
func (s *codeScanner) sensitive(run bool) bool {
	c := &s.sensPath
	if run {
		c = &s.sensRun
	}
	if *c != 0 {
		return *c == 2
	}
	*c = 1
	var words []string
	var walk func(ts []ctok)
	walk = func(ts []ctok) {
		for _, t := range ts {
			switch t.kind {
			case tkIdent:
				words = append(words, t.val)
			case tkStr, tkCmd:
				for _, p := range t.parts {
					if p.isExpr {
						walk(p.expr)
					} else {
						words = append(words, runs(p.lit, isCodeWordByte)...)
					}
				}
			}
		}
	}
	walk(s.toks)
	if sensitiveWords(words, run) {
		*c = 2
		return true
	}
	return false
}

// isCodeWordByte reports a byte of a word sensitiveWords looks at: a path
// or option character.
func isCodeWordByte(b byte) bool {
	return b == '.' || b == '/' || b == '\\' || b == '-' || b == '_' || b == '~' ||
		(b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9')
}

// sensitiveWords reports whether words (from code) hold a hook-sensitive
// one (codeScanner.sensitive, whose run has the same meaning), or name a
// protected path joined from pieces (gitPieces).
func sensitiveWords(words []string, run bool) bool {
	for _, w := range words {
		l := strings.ToLower(w)
		k := classifyPath(w)
		if k.hooks || k.gitConf || k.gitDir || k.guard.own || k.guard.client || k.guard.ownParent || k.guard.clientParent {
			return true
		}
		if run && (hookProgram(l) || strings.HasSuffix(l, "/git") || l == "git.exe" ||
			strings.Contains(l, "no-verify") || strings.Contains(l, "no_verify") || strings.Contains(l, "hookspath") || hookEnvName(w)) {
			return true
		}
	}
	return gitPieces(words)
}

// codeSensitive is sensitiveWords for a command's words in code text that
// no tokenizer reads (runnerCode).
func codeSensitive(text string) bool { return sensitiveWords(runs(text, isCodeWordByte), true) }
