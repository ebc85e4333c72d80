package clientjson

import (
	"regexp"
	"sort"
	"strings"
	"sync"
)

var (
	claudeList = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_|, -]+$`) })
	codexList  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_|]+$`) })
)

type selKind int

const (
	selAll    selKind = iota // every tool
	selNames                 // exactly the tools in names
	selOpaque                // a regex we do not reduce; compared by its text
)

// selection is the set of tools a matcher selects, as far as we can name it.
type selection struct {
	kind  selKind
	names map[string]bool
	text  string
}

func namesSel(list []string) selection {
	s := selection{kind: selNames, names: map[string]bool{}}
	for _, n := range list {
		s.names[n] = true
	}
	return s
}

func selectionOf(client, m string) selection {
	switch client {
	case "claude", "droid":
		// Factory Droid documents Claude Code's matcher reading ("Simple
		// strings match exactly", regex, "*" and "" for all;
		// docs.factory.ai/reference/hooks-reference).
		if m == "" || m == "*" {
			return selection{kind: selAll}
		}
		if claudeList().MatchString(m) {
			var list []string
			for _, p := range strings.FieldsFunc(m, func(r rune) bool { return r == '|' || r == ',' }) {
				if p = strings.TrimSpace(p); p != "" {
					list = append(list, p)
				}
			}
			return namesSel(list)
		}
	case "codex":
		if m == "" || m == "*" {
			return selection{kind: selAll}
		}
		if codexList().MatchString(m) {
			var list []string
			for _, p := range strings.Split(m, "|") {
				if p != "" {
					list = append(list, p)
				}
			}
			return namesSel(list)
		}
	case "gemini", "qwen":
		// Qwen Code is a Gemini CLI fork; its matcher reading is taken to
		// be Gemini's (not verified beyond the anchored matchers of the
		// table, which TestRealQwen runs).
		m = strings.TrimSpace(m)
		if m == "" || m == "*" {
			return selection{kind: selAll}
		}
	case "cursor", "windsurf", "devin":
		// A handler without a matcher runs for every call of its event
		// (beforeShellExecution takes none); other matchers are read as
		// regular expressions, not verified against Cursor. Devin CLI
		// documents the same: "Regex matched against the hook event's
		// tool_name. Empty string or an omitted matcher matches all tool
		// names" (docs.devin.ai/cli/extensibility/hooks/overview, read
		// 2026-12-05).
		if m == "" {
			return selection{kind: selAll}
		}
	}
	return reduceRegex(m)
}

// Selects reports whether a hook group with the given matcher runs for tool
// under client ("claude", "codex" or "gemini"), for the tool events
// (PreToolUse/PostToolUse, BeforeTool/AfterTool) where the matcher is tested
// against the tool name. How each client reads a matcher:
//
//   - Claude Code 2.1.328 (read from the installed binary's bundled JS, the
//     matcher function used for hook groups): absent, "" and "*" select every
//     tool. A matcher made only of ASCII letters, digits, "_", "|", ",", "-"
//     and space (the list form for tool events) is a list of exact tool names,
//     split on "|" and ",", each entry trimmed, empty entries dropped.
//     Anything else is `new RegExp(matcher)` tested against the name, so it is
//     unanchored. Both forms are also tried against the tool's alias names.
//   - Codex CLI (openai/codex codex-rs/hooks/src/events/common.rs at commit
//     0b9770e; "Bash" and "^Bash$" measured on 0.169.0 with reader_probe.py;
//     matches_matcher and is_exact_matcher): absent, "" and "*" select every
//     tool; a matcher made only of ASCII letters, digits, "_" and "|" is a list
//     of exact names split on "|"; anything else is an unanchored Rust regex
//     (an invalid one selects nothing).
//   - Gemini CLI 0.61.0 (bundle, HookPlanner.matchesContext and
//     matchesToolName): the matcher is trimmed; "" and "*" select every tool;
//     anything else is `new RegExp(matcher).test(toolName)` — unanchored, so
//     "run_shell_command" also selects "run_shell_command_v2" — and an invalid
//     regex falls back to exact string equality.
//
// A matcher that is neither a name list nor a literal alternation is
// evaluated with Go's RE2, which agrees with the JS and Rust engines on the
// syntax common to them; a pattern RE2 cannot compile selects nothing for
// Claude and Codex (as an invalid pattern does there) and falls back to exact
// equality for Gemini. Claude's alias names are not modelled. An unknown
// client selects nothing.
func Selects(client, matcher, tool string) bool {
	if _, err := dialectFor(client); err != nil {
		return false
	}
	s := selectionOf(client, matcher)
	switch s.kind {
	case selAll:
		return true
	case selNames:
		return s.names[tool]
	}
	if client == "gemini" {
		matcher = strings.TrimSpace(matcher)
	}
	re, err := regexp.Compile(matcher)
	if err != nil {
		return client == "gemini" && matcher == tool
	}
	return re.MatchString(tool)
}

// Equivalent reports whether matchers a and b select exactly the same tools
// under client. It is sound, not complete: true only when both select every
// tool, both reduce to the same finite set of exact names (a name list, or a
// regex that is an anchored alternation of literals such as "^Bash$",
// "^(Edit|Write)$" or "^Edit$|^Write$"), or both are the same regex text
// (Gemini: after trimming). Anything it cannot decide answers false: a false
// "not equivalent" only makes Merge add a new matcher group, while a false
// "equivalent" could leave a tool unguarded. Claude Code also tries a tool's
// alias and family names, for a name list and for an anchored literal regex
// alike (its bundle tests both forms against them), so this assumes aliases
// widen two equivalent matchers in the same way. An unknown client answers
// false.
func Equivalent(client, a, b string) bool {
	if _, err := dialectFor(client); err != nil {
		return false
	}
	sa, sb := selectionOf(client, a), selectionOf(client, b)
	if sa.kind != sb.kind {
		return false
	}
	switch sa.kind {
	case selAll:
		return true
	case selNames:
		if len(sa.names) != len(sb.names) {
			return false
		}
		for n := range sa.names {
			if !sb.names[n] {
				return false
			}
		}
		return true
	}
	return sa.text == sb.text
}

// reduceRegex reduces an unanchored regex to a selection when it is built
// only from literal name characters, escaped metacharacters, "^", "$", ".*",
// groups "(…)" / "(?:…)" and "|": each alternative must then be either
// anchored at both ends (an exact name), or carry no literal at all (it
// matches every name). Everything else is opaque.
func reduceRegex(m string) selection {
	opaque := selection{kind: selOpaque, text: m}
	p := &reParser{s: m}
	seqs, ok := p.alt()
	if !ok || p.i != len(p.s) || len(seqs) == 0 {
		return opaque
	}
	var names []string
	for _, seq := range seqs {
		var lit strings.Builder
		startAnch, endAnch, any := false, false, false
		for k, t := range seq {
			switch t {
			case tokBegin:
				if lit.Len() > 0 || any {
					return opaque // "^" after text never matches without the m flag; do not guess
				}
				startAnch = true
			case tokEnd:
				// "$" must be last (possibly repeated)
				for _, u := range seq[k:] {
					if u != tokEnd {
						return opaque
					}
				}
				endAnch = true
			case tokAny:
				any = true
			default:
				if endAnch {
					return opaque
				}
				lit.WriteRune(t)
			}
		}
		switch {
		case lit.Len() == 0 && (any || !(startAnch && endAnch)):
			return selection{kind: selAll}
		case any:
			return opaque
		case startAnch && endAnch:
			names = append(names, lit.String())
		default:
			return opaque
		}
	}
	sort.Strings(names)
	return namesSel(names)
}

const (
	tokBegin rune = -1 - iota
	tokEnd
	tokAny // ".*"
)

type reParser struct {
	s string
	i int
}

const maxAlternatives = 64

// alt parses alternatives separated by "|", returning every token sequence
// the expression can expand to.
func (p *reParser) alt() ([][]rune, bool) {
	var out [][]rune
	for {
		seqs, ok := p.seq()
		if !ok {
			return nil, false
		}
		out = append(out, seqs...)
		if len(out) > maxAlternatives {
			return nil, false
		}
		if p.i < len(p.s) && p.s[p.i] == '|' {
			p.i++
			continue
		}
		return out, true
	}
}

func (p *reParser) seq() ([][]rune, bool) {
	cur := [][]rune{{}}
	add := func(t rune) {
		for k := range cur {
			cur[k] = append(cur[k], t)
		}
	}
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '|' || c == ')':
			return cur, true
		case c == '^':
			add(tokBegin)
			p.i++
		case c == '$':
			add(tokEnd)
			p.i++
		case c == '.' && p.i+1 < len(p.s) && p.s[p.i+1] == '*':
			add(tokAny)
			p.i += 2
		case c == '(':
			p.i++
			if strings.HasPrefix(p.s[p.i:], "?:") {
				p.i += 2
			} else if p.i < len(p.s) && p.s[p.i] == '?' {
				return nil, false // lookaround or named group: opaque
			}
			inner, ok := p.alt()
			if !ok || p.i >= len(p.s) || p.s[p.i] != ')' {
				return nil, false
			}
			p.i++
			if p.i < len(p.s) && strings.ContainsRune("*+?{", rune(p.s[p.i])) {
				return nil, false // quantified group
			}
			var next [][]rune
			for _, a := range cur {
				for _, b := range inner {
					next = append(next, append(append([]rune{}, a...), b...))
				}
			}
			if len(next) > maxAlternatives {
				return nil, false
			}
			cur = next
		case c == '\\':
			if p.i+1 >= len(p.s) || !strings.ContainsRune(`.*+?()[]{}|^$\`, rune(p.s[p.i+1])) {
				return nil, false
			}
			if p.i+2 < len(p.s) && strings.ContainsRune("*+?{", rune(p.s[p.i+2])) {
				return nil, false
			}
			add(rune(p.s[p.i+1]))
			p.i += 2
		case isNameChar(c):
			if p.i+1 < len(p.s) && strings.ContainsRune("*+?{", rune(p.s[p.i+1])) {
				return nil, false // quantified literal
			}
			add(rune(c))
			p.i++
		default:
			return nil, false
		}
	}
	return cur, true
}

func isNameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == ':' || c == ' '
}
