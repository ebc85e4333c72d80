package policy

import (
	"path"
	"strings"
)

// Languages without a tokenizer here (codeLangOf gives none) whose code
// still runs shell commands in a form a reader can find: the text rules
// judge their code as a whole (judge.code), which misses a command held in
// a string the language hands to a shell. Each form, from its manual:
//   - awk (POSIX awk, gawk 5.2 manual "Using I/O Redirections"): system(S),
//     print … | S and S | getline run the string S with sh -c, and when S
//     is a shell, what print writes to it is the shell's script;
//   - AppleScript (osascript -e; Apple's AppleScript Language Guide,
//     "do shell script"): do shell script S runs S with /bin/sh;
//   - Tcl (tclsh, wish, expect -c; Tcl's exec(n), Expect's spawn): exec
//     ARGS and spawn ARGS run a program with the words that follow, up to
//     the end of the command (a newline, ";" or "]").
// runnerCommands returns the shell commands such code runs that are
// string literals (awk, AppleScript) or literal words (Tcl), and whether it
// runs one whose text is not literal (a variable, a concatenation).

// runnerLang names the language of an interpreter for runnerCommands, or "".
func runnerLang(name string) string {
	switch interpreterName(name) {
	case "awk", "gawk", "mawk", "nawk", "busybox-awk":
		return "awk"
	case "osascript":
		return "applescript"
	case "tclsh", "wish", "expect", "jimsh":
		return "tcl"
	}
	return ""
}

// runnerCommands: see the comment above runnerLang.
func runnerCommands(lang, code string) (cmds []string, dynamic bool) {
	var r runners
	switch lang {
	case "awk":
		// system(S), | S, |& S, S | getline: the string after "system(" or
		// a "|", or before a "| getline".
		for i := 0; i < len(code); i++ {
			switch {
			case strings.HasPrefix(code[i:], "system("):
				r.add(awkString(code[i+len("system("):]))
			case code[i] == '|' && !strings.HasPrefix(code[i:], "||") && (i == 0 || code[i-1] != '|'):
				rest := strings.TrimLeft(strings.TrimPrefix(code[i+1:], "&"), " \t")
				if strings.HasPrefix(rest, "getline") {
					r.add(awkStringBefore(code[:i])) // S | getline: the command is the string before
					continue
				}
				s, ok := awkString(rest)
				r.add(s, ok)
				if f := strings.Fields(s); ok && len(f) > 0 && isShellName(path.Base(f[0])) {
					// print … | "sh": what is printed is the shell's script
					r.add(awkPrinted(code[:i]))
				}
			}
		}
	case "applescript":
		lower := strings.ToLower(code)
		for i := 0; ; {
			k := strings.Index(lower[i:], "do shell script")
			if k < 0 {
				break
			}
			i += k + len("do shell script")
			r.add(awkString(code[i:])) // AppleScript strings escape \" and \\ as awk's do
		}
	case "tcl":
		for _, line := range strings.FieldsFunc(code, func(r rune) bool { return r == '\n' || r == ';' || r == '[' }) {
			words := strings.Fields(strings.TrimSuffix(strings.TrimSpace(line), "]"))
			for k, w := range words {
				if w != "exec" && w != "spawn" {
					continue
				}
				rest := words[k+1:]
				for len(rest) > 0 && strings.HasPrefix(rest[0], "-") { // exec -ignorestderr, spawn -noecho
					rest = rest[1:]
				}
				text := strings.Join(rest, " ")
				if strings.ContainsAny(text, "$[") {
					r.dynamic = true
				}
				if text != "" {
					r.cmds = append(r.cmds, text)
				}
				break
			}
		}
	}
	return r.cmds, r.dynamic
}

// runners collects what runnerCommands finds: the literal commands, and
// whether a runner's command was not literal.
type runners struct {
	cmds    []string
	dynamic bool
}

// add records a runner's command s when it is literal (ok), else that the
// runner is dynamic.
func (r *runners) add(s string, ok bool) {
	if ok {
		r.cmds = append(r.cmds, s)
	} else {
		r.dynamic = true
	}
}

// awkString reads a double-quoted string literal at the start of s (after
// blanks and an opening parenthesis), with \" and \\ escapes, and reports
// whether s starts with one that is not concatenated with more (awk
// concatenates by juxtaposition: "git " x).
func awkString(s string) (string, bool) {
	s = strings.TrimLeft(s, " \t(")
	if !strings.HasPrefix(s, `"`) {
		return "", false
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			if i+1 < len(s) {
				i++
				switch s[i] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				default:
					b.WriteByte(s[i])
				}
			}
		case '"':
			after := strings.TrimLeft(s[i+1:], " \t")
			if after != "" && strings.IndexByte(");}\n|>,", after[0]) < 0 {
				return "", false
			}
			return b.String(), true
		default:
			b.WriteByte(c)
		}
	}
	return "", false
}

// awkPrinted returns the literal a print or printf statement ending s
// prints (print "git commit -n" | "sh": s is what comes before the "|"),
// and false when the statement prints anything else.
func awkPrinted(s string) (string, bool) {
	start := strings.LastIndexAny(s, "{;\n")
	stmt := strings.TrimSpace(s[start+1:])
	for _, kw := range []string{"printf", "print"} {
		if rest, ok := strings.CutPrefix(stmt, kw); ok {
			return awkString(rest)
		}
	}
	return "", false
}

// awkStringBefore reads the double-quoted string literal that ends s (the
// command of "cmd" | getline).
func awkStringBefore(s string) (string, bool) {
	s = strings.TrimRight(s, " \t")
	if !strings.HasSuffix(s, `"`) {
		return "", false
	}
	for i := len(s) - 2; i >= 0; i-- {
		if s[i] == '"' && (i == 0 || s[i-1] != '\\') {
			return awkString(s[i:])
		}
	}
	return "", false
}

// runnerCode judges the shell commands runnerCommands finds in code run by
// interpreter name, each as a script; a command that is not literal is
// refused as RuleCodeDynamic when the code names a hook-sensitive word
// (codeSensitive), as the tokenized languages do.
func (j *judge) runnerCode(name string, f field, depth int, env []envVar) {
	lang := runnerLang(name)
	if lang == "" {
		return
	}
	cmds, dynamic := runnerCommands(lang, f.val)
	for _, c := range cmds {
		j.scriptField(withVal(f, c), depth+1, env)
	}
	if dynamic && codeSensitive(f.val) {
		j.hits.add(RuleCodeDynamic)
	}
}
