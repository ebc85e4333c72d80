package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Shell scripts that take pipeline data as their arguments (adversarial
// pass, stop 45: ls -a | xargs sh -c 'rm -rf "$@"' sh was allowed): xargs
// sh -c SCRIPT [ARG0] hands the names it reads to SCRIPT as $0, $1 … and
// "$@", so a changing command (changesOperands) in SCRIPT whose operand
// expands one of them, or a for loop or assignment over them, or an
// output redirection into one, changes the files the names give, as xargs
// rm would. With xargs -I R the names are written into SCRIPT's text in
// place of R, and a changing command's word holding R counts the same.

// shellNames are the shells whose -c runs a script with the words after it
// as $0, $1, ….
func shellName(name string) bool {
	switch name {
	case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh":
		return true
	}
	return false
}

// shellCScript returns the script a shell's -c runs (args are the words
// after the shell's name): the first operand after options, among them a
// cluster holding c (-c, -ec, -lc).
func shellCScript(args []field) (field, bool) {
	c := false
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "-o" || v == "+o" || v == "-O" || v == "+O" || v == "--rcfile" || v == "--init-file":
			i++
		case v == "--" || v == "-":
			if c && i+1 < len(args) {
				return args[i+1], true
			}
			return field{}, false
		case strings.HasPrefix(v, "--"):
		case (v[0] == '-' || v[0] == '+') && len(v) > 1:
			c = c || v[0] == '-' && strings.Contains(v, "c")
		default:
			if c {
				return args[i], true
			}
			return field{}, false
		}
	}
	return field{}, false
}

// scriptChangesArgs reports whether argv is a shell running a -c script
// that changes the files its arguments name (see above); marker, when not
// empty, is xargs -I's replacement string. A script that does not parse
// counts; one known only at run time is left to the code rules.
func scriptChangesArgs(argv []field, marker string) bool {
	if len(argv) == 0 {
		return false
	}
	if name, known := cmdName(argv[0]); !known || !shellName(name) {
		return false
	}
	script, ok := shellCScript(argv[1:])
	if !ok {
		return false
	}
	if script.dynamic() {
		return false // code known only at run time: the code rules' (output-as-code, script-unknown …)
	}
	file, err := syntax.NewParser().Parse(strings.NewReader(script.val), "")
	if err != nil {
		return true
	}
	vars := map[string]bool{"@": true, "*": true}
	for _, d := range "0123456789" {
		vars[string(d)] = true
	}
	sc := &scope{vars: map[string]string{}}
	takes := func(words []*syntax.Word) bool {
		if expandsAny(words, vars) {
			return true
		}
		if marker == "" {
			return false
		}
		for _, w := range words {
			if strings.Contains(sc.word(w).val, marker) {
				return true
			}
		}
		return false
	}
	hit := false
	syntax.Walk(file, func(n syntax.Node) bool {
		if hit {
			return false
		}
		switch x := n.(type) {
		case *syntax.ForClause:
			if wi, ok := x.Loop.(*syntax.WordIter); ok && wi.Name != nil && (!wi.InPos.IsValid() || takes(wi.Items)) {
				vars[wi.Name.Value] = true // for f; do … iterates "$@"
			}
		case *syntax.Assign:
			if x.Name != nil && x.Value != nil && takes([]*syntax.Word{x.Value}) {
				vars[x.Name.Value] = true
			}
		case *syntax.Redirect:
			if redirectWrites(x.Op) && x.Word != nil && takes([]*syntax.Word{x.Word}) {
				hit = true
			}
		case *syntax.CallExpr:
			if len(x.Args) < 2 {
				return true
			}
			var words []field
			for _, a := range x.Args {
				words = append(words, sc.word(a))
			}
			if (changesOperands(words) || scriptChangesArgs(words, marker)) && takes(writtenWords(x.Args, words)) {
				hit = true
			}
		}
		return !hit
	})
	return hit
}

// redirectWrites reports the redirection operators that write their file.
func redirectWrites(op syntax.RedirOperator) bool {
	switch op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob:
		return true
	}
	return false
}

// writtenWords returns the words of a changing command (args, evaluated
// as words) that name what it changes: a copy's destination only (its -t
// value, else its last word: cp "$1" /tmp/out/ reads the name), every
// operand of any other.
func writtenWords(args []*syntax.Word, words []field) []*syntax.Word {
	if n, _ := cmdName(words[0]); !copyLike(n) {
		return args[1:]
	}
	for i, w := range words[1:] {
		switch {
		case w.val == "-t" && i+2 < len(args):
			return args[i+2 : i+3]
		case strings.HasPrefix(w.val, "-t") || strings.HasPrefix(w.val, "--target-directory"):
			return args[i+1 : i+2]
		}
	}
	return args[len(args)-1:]
}
