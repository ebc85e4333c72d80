package workspace

import (
	"errors"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"mvdan.cc/sh/v3/syntax"
)

func isENOTDIR(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// TargetDirs returns the directories a shell command points git or the shell
// at, absolute and cleaned, without duplicates, in order of appearance:
// `git -C <dir>` (repeatable; each relative -C is relative to the previous,
// as git documents), `git --git-dir[=]<dir>`, `git --work-tree[=]<dir>`,
// GIT_DIR=<dir> / GIT_WORK_TREE=<dir> assignments (also through `env`),
// `cd <dir>` / `pushd <dir>`, `env -C <dir>` / `env --chdir[=]<dir>`.
// The script of `sh|bash|dash|zsh|ksh -c '<script>'` is parsed the same way
// (up to 3 levels deep). Relative paths are taken relative to cwd and to
// every earlier `cd` target
// (both candidates are returned: more repositories only add restrictions).
// Only literal words count (quotes removed, a leading `~` or `~/` expanded
// with home); a word built from variables or substitutions is skipped. A
// command the shell parser (mvdan.cc/sh/v3/syntax, bash dialect) rejects
// yields nil: the policy still judges its text.
func TargetDirs(command, cwd, home string) []string {
	raw := rawTargets(command, home, 0)
	if len(raw) == 0 {
		return nil
	}
	bases := []string{cwd}
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		p = filepath.Clean(p)
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, r := range raw {
		isCd := strings.HasPrefix(r, "\x00cd:")
		r = strings.TrimPrefix(r, "\x00cd:")
		if filepath.IsAbs(r) {
			add(r)
			if isCd {
				bases = append(bases, filepath.Clean(r))
			}
			continue
		}
		n := len(bases)
		for _, b := range bases[:n] {
			p := filepath.Join(b, r)
			add(p)
			if isCd {
				bases = append(bases, p)
			}
		}
	}
	return out
}

// maxShellDepth bounds how deep `bash -c '…'` strings are parsed for targets.
const maxShellDepth = 3

// rawTargets parses command and returns its targets in order, cd-like ones
// marked with the "\x00cd:" prefix.
func rawTargets(command, home string, depth int) []string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return nil
	}
	var raw []string
	syntax.Walk(f, func(n syntax.Node) bool {
		ce, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		raw = append(raw, callTargets(ce, home, depth)...)
		return true
	})
	return raw
}

// shells run their -c string as a script; its targets count too.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true}

// wordLit returns the literal value of w with quotes removed, and false when
// w contains expansions.
func wordLit(w *syntax.Word, home string) (string, bool) {
	if w == nil {
		return "", false
	}
	var b strings.Builder
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := unescape(p.Value)
			if i == 0 && home != "" && (v == "~" || strings.HasPrefix(v, "~/")) {
				v = home + v[1:]
			}
			b.WriteString(v)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, dp := range p.Parts {
				l, ok := dp.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescape removes shell backslash escapes from an unquoted literal.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// launchers run their arguments as a command (the word after them is the
// command word).
var launchers = map[string]bool{"command": true, "exec": true, "nohup": true, "builtin": true, "time": true, "sudo": true, "doas": true}

func callTargets(ce *syntax.CallExpr, home string, depth int) []string {
	var out []string
	for _, a := range ce.Assigns {
		if a.Name != nil && (a.Name.Value == "GIT_DIR" || a.Name.Value == "GIT_WORK_TREE") {
			if v, ok := wordLit(a.Value, home); ok && v != "" {
				out = append(out, v)
			}
		}
	}
	args := make([]string, len(ce.Args))
	lit := make([]bool, len(ce.Args))
	for i, w := range ce.Args {
		args[i], lit[i] = wordLit(w, home)
	}
	i := 0
	for i < len(args) {
		if !lit[i] {
			return out
		}
		name := path.Base(args[i])
		switch {
		case launchers[name]:
			i++
			for i < len(args) && lit[i] && strings.HasPrefix(args[i], "-") {
				i++
			}
			continue
		case name == "env":
			i = envTargets(args, lit, i+1, &out)
			continue
		case name == "cd" || name == "pushd":
			for j := i + 1; j < len(args); j++ {
				if !lit[j] {
					break
				}
				if strings.HasPrefix(args[j], "-") && args[j] != "-" {
					continue
				}
				if args[j] != "-" {
					out = append(out, "\x00cd:"+args[j])
				}
				break
			}
			return out
		case shells[name]:
			if depth >= maxShellDepth {
				return out
			}
			for j := i + 1; j < len(args) && lit[j]; j++ {
				a := args[j]
				if !strings.HasPrefix(a, "-") {
					return out
				}
				// -c, or a flag cluster holding c (-ec, -lc).
				if a != "--" && !strings.HasPrefix(a, "--") && strings.Contains(a, "c") {
					if j+1 < len(args) && lit[j+1] {
						out = append(out, rawTargets(args[j+1], home, depth+1)...)
					}
					return out
				}
			}
			return out
		case name == "git" || strings.HasPrefix(name, "git-"):
			return append(out, gitTargets(args[i+1:], lit[i+1:])...)
		}
		return out
	}
	return out
}

// envTargets reads env's options and assignments from args[i:] and returns
// the index of the command word env runs.
func envTargets(args []string, lit []bool, i int, out *[]string) int {
	for i < len(args) && lit[i] {
		a := args[i]
		switch {
		case a == "-C" || a == "--chdir":
			if i+1 < len(args) && lit[i+1] {
				*out = append(*out, "\x00cd:"+args[i+1])
			}
			i += 2
			continue
		case strings.HasPrefix(a, "--chdir="):
			*out = append(*out, "\x00cd:"+strings.TrimPrefix(a, "--chdir="))
		case strings.HasPrefix(a, "-C") && len(a) > 2:
			*out = append(*out, "\x00cd:"+a[2:])
		case a == "-u" || a == "--unset" || a == "-S" || a == "--split-string":
			i += 2
			continue
		case strings.HasPrefix(a, "GIT_DIR=") || strings.HasPrefix(a, "GIT_WORK_TREE="):
			_, v, _ := strings.Cut(a, "=")
			if v != "" {
				*out = append(*out, v)
			}
		case strings.HasPrefix(a, "-") || strings.Contains(a, "="):
		default:
			return i
		}
		i++
	}
	return i
}

// gitTargets reads git's global options (before the subcommand).
func gitTargets(args []string, lit []bool) []string {
	var out []string
	var chain string
	for i := 0; i < len(args); i++ {
		if !lit[i] {
			return out
		}
		a := args[i]
		val := func() (string, bool) {
			if i+1 < len(args) && lit[i+1] {
				i++
				return args[i], true
			}
			return "", false
		}
		switch {
		case a == "-C":
			if v, ok := val(); ok && v != "" {
				if chain != "" && !filepath.IsAbs(v) {
					v = filepath.Join(chain, v)
				}
				chain = v
				out = append(out, "\x00cd:"+v)
			}
		case strings.HasPrefix(a, "-C") && len(a) > 2:
			v := a[2:]
			if chain != "" && !filepath.IsAbs(v) {
				v = filepath.Join(chain, v)
			}
			chain = v
			out = append(out, "\x00cd:"+v)
		case a == "--git-dir" || a == "--work-tree":
			if v, ok := val(); ok && v != "" {
				out = append(out, v)
			}
		case strings.HasPrefix(a, "--git-dir=") || strings.HasPrefix(a, "--work-tree="):
			_, v, _ := strings.Cut(a, "=")
			if v != "" {
				out = append(out, v)
			}
		case a == "-c" || a == "--namespace" || a == "--config-env" || a == "--super-prefix" || a == "--list-cmds" || a == "--attr-source":
			val()
		case strings.HasPrefix(a, "-"):
		default:
			return out
		}
	}
	return out
}
