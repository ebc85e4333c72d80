package audit

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// commandPathProblem returns why a hook command breaks when bash runs it
// (Git Bash on Windows: Claude Code 2.1.328 runs its shell commands through
// Git Bash when installed, bundle string CLAUDE_CODE_GIT_BASH_PATH), or ""
// when it does not: a path written with backslashes (an escape character in
// bash, so an unquoted `C:\hooks\x` reaches the program as `C:hooksx`; the
// issue counts quoted backslash paths too), a parameter expansion such as
// $CLAUDE_PROJECT_DIR used
// unquoted inside a path (split on the spaces of a directory name), a path
// visibly split in two by a space, or text that is not shell syntax at all.
// It never returns the command itself (it may hold a secret).
func commandPathProblem(cmd string) string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil {
		return "is not valid shell syntax"
	}
	why := ""
	syntax.Walk(f, func(n syntax.Node) bool {
		if why != "" {
			return false
		}
		call, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		// An assignment's value is a path too (the sourced rows set
		// hw_self to the launcher's path).
		for _, a := range call.Assigns {
			if a.Value == nil {
				continue
			}
			raw := cmd[a.Value.Pos().Offset():a.Value.End().Offset()]
			switch {
			case backslashPath(raw):
				why = "writes a path with backslashes"
			case unquotedExpansionInPath(a.Value):
				why = "uses an unquoted variable in a path (a directory name with a space splits it into two words)"
			}
			if why != "" {
				return false
			}
		}
		var prev *syntax.Word
		for _, w := range call.Args {
			raw := cmd[w.Pos().Offset():w.End().Offset()]
			switch {
			case backslashPath(raw):
				why = "writes a path with backslashes"
			case unquotedExpansionInPath(w):
				why = "uses an unquoted variable in a path (a directory name with a space splits it into two words)"
			case prev != nil && splitPath(cmd[prev.Pos().Offset():prev.End().Offset()], raw, prev, w):
				why = "writes a path with a space and no quotes"
			}
			if why != "" {
				return false
			}
			prev = w
		}
		return true
	})
	return why
}

// backslashPath reports whether a word's source text holds a Windows path
// written with backslashes: a drive prefix (`C:\`), a UNC prefix (`\\`), or
// a backslash followed by a dot-directory (`\.hookwarden`) or by a file name
// with an extension (`\hook.py`). A lone escape such as `\n` or `\ ` is not
// a path.
func backslashPath(raw string) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		if i+1 < len(raw) && raw[i+1] == '\\' {
			return true
		}
		if i >= 2 && raw[i-1] == ':' && isLetter(raw[i-2]) && (i == 2 || !isPathChar(raw[i-3])) {
			return true
		}
		seg := raw[i+1:]
		end := 0
		for end < len(seg) && isPathChar(seg[end]) {
			end++
		}
		seg = seg[:end]
		if strings.HasPrefix(seg, ".") && len(seg) > 1 {
			return true
		}
		if k := strings.LastIndexByte(seg, '.'); k > 0 && k < len(seg)-1 {
			return true
		}
	}
	return false
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// unquotedExpansionInPath reports whether w holds an unquoted parameter
// expansion next to a literal slash (a path built from a variable).
func unquotedExpansionInPath(w *syntax.Word) bool {
	hasExp, hasSlash := false, false
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst:
			hasExp = true
		case *syntax.Lit:
			if strings.Contains(p.Value, "/") {
				hasSlash = true
			}
		}
	}
	return hasExp && hasSlash
}

// splitPath reports whether two adjacent unquoted words look like one path
// split at a space: the first starts like an absolute or home path and has
// no file extension in its last element, the second is relative and holds
// a slash (`/home/my user/.hookwarden/hook.py`).
func splitPath(a, b string, wa, wb *syntax.Word) bool {
	if !plainLit(wa) || !plainLit(wb) {
		return false
	}
	rooted := strings.HasPrefix(a, "/") || strings.HasPrefix(a, "~/") || len(a) >= 3 && a[1] == ':' && (a[2] == '/' || a[2] == '\\')
	if !rooted || strings.HasSuffix(a, "/") {
		return false
	}
	last := a[strings.LastIndexAny(a, `/\`)+1:]
	if strings.Contains(last, ".") {
		return false
	}
	return strings.Contains(b, "/") && !strings.HasPrefix(b, "/") && !strings.HasPrefix(b, "-")
}

func plainLit(w *syntax.Word) bool {
	return len(w.Parts) == 1 && func() bool { _, ok := w.Parts[0].(*syntax.Lit); return ok }()
}

func isPathChar(c byte) bool {
	return isLetter(c) || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
}
