package policy

import "strings"

// GNU sed runs shell commands and writes files from inside its script (GNU
// sed 4.9 manual, "Extended Commands" and "The s Command"; checked with
// Debian 12's sed 4.9): `e COMMAND` runs COMMAND, a bare `e` runs the
// pattern space as a command, the `e` flag of `s` runs the pattern space
// after the substitution, and `w FILE`, `W FILE` and the `w FILE` flag of `s`
// write FILE. --sandbox (-- "reject e/r/w commands") turns all of them off.
// So `sed -n '1e git commit -n -m wip' f` is the git commit it runs.

// sedEffects is what one sed script does beyond editing text: the shell
// commands its e commands name (code), whether it runs text known only at
// run time as a command (runsInput: a bare e, or the s command's e flag),
// and the files it writes (writes).
type sedEffects struct {
	code      []string
	runsInput bool
	writes    []string
}

// parseSed reads a sed script command by command: addresses, then one
// command letter and what that letter takes (a label, a file name or text
// to the end of the line, the two or three delimited parts of s and y and
// the s flags). It returns what the script does (sedEffects) and false when
// the script does not parse as sed would read it, which the caller treats
// as unknown.
func parseSed(script string) (sedEffects, bool) {
	var eff sedEffects
	r := &sedReader{s: script}
	for {
		r.s = strings.TrimLeft(r.s, " \t\n;")
		if r.s == "" {
			return eff, true
		}
		if !r.addresses() || r.s == "" {
			return eff, false
		}
		cmd := r.s[0]
		r.s = r.s[1:]
		if !r.command(cmd, &eff) {
			return eff, false
		}
	}
}

// sedReader is the rest s of a sed script parseSed has not read yet.
type sedReader struct{ s string }

// restOfLine takes and returns the text up to the next newline (which
// stays).
func (r *sedReader) restOfLine() string {
	i := strings.IndexByte(r.s, '\n')
	if i < 0 {
		i = len(r.s)
	}
	line := r.s[:i]
	r.s = r.s[i:]
	return line
}

// addresses skips a command's addresses: numbers, $, first~step, /re/ or
// \cREc, joined by "," and followed by an optional "!"; false when a
// regular expression is not closed.
func (r *sedReader) addresses() bool {
	for len(r.s) > 0 {
		switch c := r.s[0]; {
		case c >= '0' && c <= '9' || c == '$' || c == ',' || c == '~' || c == '+' || c == '!' || c == ' ' || c == '\t':
			r.s = r.s[1:]
		case c == '/' || c == '\\':
			d := byte('/')
			if c == '\\' {
				if len(r.s) < 2 {
					return false
				}
				d, r.s = r.s[1], r.s[1:]
			}
			end, ok := sedDelimited(r.s[1:], d)
			if !ok {
				return false
			}
			r.s = strings.TrimLeft(r.s[1+end+1:], "IM")
		default:
			return true
		}
	}
	return true
}

// command reads what the command letter cmd takes and adds what it does to
// eff; false when the letter is not sed's or its arguments do not parse.
func (r *sedReader) command(cmd byte, eff *sedEffects) bool {
	switch cmd {
	case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'l', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
	case 'q', 'Q', 'L':
		r.s = strings.TrimLeft(r.s, " \t0123456789")
	case ':', 'b', 't', 'T':
		i := strings.IndexAny(r.s, ";\n")
		if cmd == ':' {
			i = strings.IndexByte(r.s, '\n') // a label takes the rest of the line
		}
		if i < 0 {
			i = len(r.s)
		}
		r.s = r.s[i:]
	case 'a', 'i', 'c':
		// text to the end of the line, a line ending in a backslash
		// continuing it
		for {
			line := r.restOfLine()
			if !strings.HasSuffix(line, "\\") || r.s == "" {
				break
			}
			r.s = r.s[1:]
		}
	case 'r', 'R', '#':
		r.restOfLine()
	case 'w', 'W':
		eff.writes = append(eff.writes, strings.TrimSpace(r.restOfLine()))
	case 'e':
		if c := strings.TrimSpace(r.restOfLine()); c != "" {
			eff.code = append(eff.code, c)
		} else {
			eff.runsInput = true
		}
	case 's', 'y':
		return r.substitute(cmd, eff)
	default:
		return false
	}
	return true
}

// substitute reads the delimited parts of s or y and the flags of s: g, p,
// i, I, m, M, e (the pattern space run as a command), a number, and w FILE
// (the rest of the line).
func (r *sedReader) substitute(cmd byte, eff *sedEffects) bool {
	if r.s == "" || r.s[0] == '\n' || r.s[0] == '\\' {
		return false
	}
	d := r.s[0]
	r.s = r.s[1:]
	for part := 0; part < 2; part++ {
		end, ok := sedDelimited(r.s, d)
		if !ok {
			return false
		}
		r.s = r.s[end+1:]
	}
	if cmd == 'y' {
		return true
	}
	for len(r.s) > 0 && strings.IndexByte("gpiImMe0123456789w", r.s[0]) >= 0 {
		f := r.s[0]
		r.s = r.s[1:]
		if f == 'e' {
			eff.runsInput = true
		}
		if f == 'w' {
			eff.writes = append(eff.writes, strings.TrimSpace(r.restOfLine()))
			break
		}
	}
	return true
}

// sedDelimited returns the index in s of the first d not escaped by a
// backslash (a newline inside is allowed, as in a multi-line s command).
func sedDelimited(s string, d byte) (int, bool) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case d:
			return i, true
		}
	}
	return 0, false
}

// sedNames are GNU sed's command names (gsed on systems whose sed is BSD's).
func sedNames(name string) bool {
	switch name {
	case "sed", "gsed":
		return true
	}
	return false
}

// sedScripts returns the scripts a sed command line runs (each -e SCRIPT,
// --expression=SCRIPT, or else the first operand), the script files it
// reads (-f FILE, --file=FILE), and whether it runs with --sandbox.
func sedScripts(args []field) (scripts, files []field, sandbox bool) {
	explicit := false
	var operands []field
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "--":
			operands = append(operands, args[i+1:]...)
			i = len(args)
		case v == "--sandbox":
			sandbox = true
		case v == "-e" || v == "--expression" || v == "-f" || v == "--file":
			if i+1 < len(args) {
				explicit = true
				if v == "-e" || v == "--expression" {
					scripts = append(scripts, args[i+1])
				} else {
					files = append(files, args[i+1])
				}
				i++
			}
		case strings.HasPrefix(v, "--expression="):
			explicit = true
			scripts = append(scripts, withVal(args[i], v[len("--expression="):]))
		case strings.HasPrefix(v, "--file="):
			explicit = true
			files = append(files, withVal(args[i], v[len("--file="):]))
		case v == "-l" || v == "--line-length":
			i++ // takes a number
		case strings.HasPrefix(v, "--"):
		case strings.HasPrefix(v, "-") && len(v) > 1:
			// a short cluster: -ne SCRIPT, -nf FILE, -i.bak (a suffix), -E
			if k := strings.IndexAny(v, "ef"); k > 0 && !strings.Contains(v[:k], "i") && !strings.Contains(v[:k], "l") {
				explicit = true
				val := v[k+1:]
				if val == "" && i+1 < len(args) {
					i++
					val = args[i].val
					if v[k] == 'e' {
						scripts = append(scripts, args[i])
					} else {
						files = append(files, args[i])
					}
					continue
				}
				if v[k] == 'e' {
					scripts = append(scripts, withVal(args[i], val))
				} else {
					files = append(files, withVal(args[i], val))
				}
			}
		default:
			operands = append(operands, args[i])
		}
	}
	if !explicit && len(operands) > 0 {
		// A word known only at run time ahead of a literal one is taken
		// for options, as in the portable in-place idiom
		// sed "${sed_no_backup[@]}" 's/…/' f (an array holding -i or
		// -i ''); alone, it is the script.
		s := operands[0]
		for _, o := range operands {
			if strings.Trim(o.val, dyn) != "" {
				s = o
				break
			}
		}
		scripts = append(scripts, s)
	}
	return scripts, files, sandbox
}

// withVal returns f with its value replaced by v (an option's attached
// value, a part of a script), keeping what f knows of its origin (decoded,
// subst) but not its raw spelling.
func withVal(f field, v string) field {
	f.val, f.raw = v, v
	return f
}

// sedScript judges what a GNU sed command's scripts do besides editing text
// (sedEffects): each e command is judged as shell code, a script that runs
// text known only at run time (a bare e, the s command's e flag) and a
// script that does not parse (an unknown part where sed reads a command
// letter or a flag among them) are refused as
// RuleScriptUnknown, and each w file is judged as a write. Not judged: an
// unknown value inside an s command's replacement that holds the delimiter
// and so ends the command early and adds flags (s/a/$X/ with X=b/e); the
// value is taken as text there. --sandbox turns
// these commands off, so it is not judged further.
func (j *judge) sedScript(name string, args []field, env []envVar, depth int, sc *scope) {
	if !sedNames(name) {
		return
	}
	scripts, files, sandbox := sedScripts(args)
	if sandbox {
		return
	}
	for _, f := range files {
		src, known := j.scriptSource(sc, f.val)
		if !known {
			if f.dynamic() || j.scriptMatters(sc, f.val) {
				j.hits.add(RuleScriptUnknown)
			}
			continue
		}
		scripts = append(scripts, lit(src))
	}
	for _, f := range scripts {
		// A part known only at run time (sed "s/v1/$V/") is read as text:
		// it may not stand where sed reads a command letter or a flag.
		eff, ok := parseSed(f.val)
		if !ok {
			j.hits.add(RuleScriptUnknown)
			continue
		}
		if eff.runsInput {
			j.hits.add(RuleScriptUnknown)
		}
		for _, c := range eff.code {
			j.scriptField(withVal(f, c), depth+1, env)
		}
		for _, w := range eff.writes {
			if w != "/dev/stdout" && w != "/dev/stderr" {
				j.writeHit(sc.classify(lit(w)), false)
			}
		}
	}
}
