package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// multiplexer judges the commands tmux, screen, GNU parallel, at and batch
// run for the caller. tmux: new-session/new-window/split-window/
// respawn-pane/respawn-window/run-shell/display-popup take a shell command
// (one word: a script; several: an argv, tmux(1) "shell-command"), and
// send-keys types its keys into a shell (each key argument judged as script
// text, Enter and C-m being the newline); screen [options] CMD ARGS runs an
// argv and `screen -X stuff TEXT` types TEXT (screen(1)); parallel CMD :::
// ARGS runs CMD with each argument appended or put in place of {} (GNU
// parallel(1)); at -f FILE runs FILE's content (at(1); at and batch reading
// stdin are followed by the evaluator). It returns the argv to judge next,
// if any.
func (j *judge) multiplexer(name string, args []field, env []envVar, depth int, sc *scope) ([]field, bool) {
	switch name {
	case "tmux":
		return j.tmux(args, env, depth)
	case "screen":
		for i := 0; i < len(args); i++ {
			v := args[i].val
			switch {
			case v == "-X":
				if i+2 < len(args) && args[i+1].val == "stuff" {
					j.scriptField(joinFields(args[i+2:]), depth+1, env)
				}
				return nil, false
			case strings.HasPrefix(v, "-") && len(v) > 1 && strings.IndexByte("ScehpstT", v[len(v)-1]) >= 0:
				i++ // an option (or a cluster ending in one) that takes a value
			case strings.HasPrefix(v, "-"):
			default:
				return args[i:], true
			}
		}
		return nil, false
	case "parallel":
		return j.parallel(args, env, depth)
	case "at", "batch":
		for i, a := range args {
			if a.val == "-f" && i+1 < len(args) {
				if src, ok := j.scriptSource(sc, args[i+1].val); ok {
					j.script(src, depth+1, env)
				} else {
					j.scriptField(field{val: dyn}, depth+1, env)
				}
			}
		}
	}
	return nil, false
}

// tmuxCommands are the tmux commands that take a shell command after their
// options, with the options of each that take a value (tmux(1)).
func tmuxCommands(sub string) (string, bool) {
	switch sub {
	case "new-session", "new":
		return "cFnstxyefc", true
	case "new-window", "neww":
		return "cFntse", true
	case "split-window", "splitw":
		return "cFlte", true
	case "respawn-pane", "respawnp", "respawn-window", "respawnw":
		return "cte", true
	case "run-shell", "run":
		return "dt", true
	case "display-popup", "popup":
		return "bcdehsStTwxy", true
	}
	return "", false
}

func (j *judge) tmux(args []field, env []envVar, depth int) ([]field, bool) {
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i].val, "-"); i++ {
		if v := args[i].val; v == "-L" || v == "-S" || v == "-f" || v == "-c" || v == "-T" {
			if v == "-c" && i+1 < len(args) { // tmux -c shell-command
				j.scriptField(args[i+1], depth+1, env)
			}
			i++
		}
	}
	if i >= len(args) {
		return nil, false
	}
	sub, rest := args[i].val, args[i+1:]
	if sub == "send-keys" || sub == "send" {
		var keys []string
		for k := 0; k < len(rest); k++ {
			v := rest[k].val
			if v == "-t" || v == "-N" || v == "-c" {
				k++
				continue
			}
			if strings.HasPrefix(v, "-") && len(v) > 1 && len(keys) == 0 {
				continue
			}
			switch v {
			case "Enter", "C-m", "KPEnter":
				keys = append(keys, "\n")
			default:
				keys = append(keys, v)
			}
		}
		j.script(strings.Join(keys, " "), depth+1, env)
		return nil, false
	}
	valued, ok := tmuxCommands(sub)
	if !ok {
		return nil, false
	}
	k := 0
	for ; k < len(rest); k++ {
		v := rest[k].val
		if v == "--" {
			k++
			break
		}
		if !strings.HasPrefix(v, "-") || len(v) < 2 {
			break
		}
		if strings.IndexByte(valued, v[len(v)-1]) >= 0 && len(v) == 2 {
			k++
		}
	}
	rest = rest[min(k, len(rest)):]
	switch len(rest) {
	case 0:
		return nil, false
	case 1:
		j.scriptField(rest[0], depth+1, env)
		return nil, false
	}
	return rest, true
}

// parallelStart returns the index of the first of GNU parallel's args
// after its options and their values.
func parallelStart(args []field) int {
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i].val, "-"); i++ {
		switch args[i].val {
		case "-j", "--jobs", "-S", "--sshlogin", "--joblog", "-a", "--arg-file", "--delay", "--timeout", "-d", "--delimiter", "-I", "--results", "--tmpdir", "-N":
			i++
		}
	}
	return i
}

// parallelRunsStdin reports GNU parallel given neither a command nor
// ::: / :::: inputs (nor -a): it runs each line of its stdin as a command
// line (parallel(1)).
func parallelRunsStdin(args []field) bool {
	start := parallelStart(args)
	for _, a := range args[:start] {
		if a.val == "-a" || a.val == "--arg-file" {
			return false
		}
	}
	return start == len(args)
}

// parallel judges GNU parallel: the command before ::: (or :::: files, read
// as unknown) with each argument put in place of {} or appended; with no
// command, each input as a command line.
func (j *judge) parallel(args []field, env []envVar, depth int) ([]field, bool) {
	i := parallelStart(args)
	var cmd, inputs []field
	sep := ""
	for ; i < len(args); i++ {
		v := args[i].val
		if v == ":::" || v == "::::" || v == ":::+" || v == "::::+" {
			sep = v
			continue
		}
		if sep == "" {
			cmd = append(cmd, args[i])
		} else if strings.HasPrefix(sep, "::::") {
			inputs = append(inputs, field{val: dyn, raw: "$", unquoted: true})
		} else {
			inputs = append(inputs, args[i])
		}
	}
	if sep == "" {
		inputs = []field{{val: dyn, raw: "$", unquoted: true}} // read from stdin
	}
	if len(cmd) == 0 {
		// No command: each input line is a command line parallel runs
		// with the shell (GNU parallel(1): "If command is not given, the
		// line of input is executed").
		for _, in := range inputs {
			j.scriptField(in, depth+1, env)
		}
		return nil, false
	}
	if len(cmd) == 1 {
		// A one-word command is a shell command line (parallel runs it with
		// the shell): judge it with each input appended.
		for _, in := range inputs {
			j.scriptField(joinFields([]field{cmd[0], in}), depth+1, env)
		}
		return nil, false
	}
	for _, in := range inputs {
		argv := make([]field, 0, len(cmd)+1)
		placed := false
		for _, c := range cmd {
			if strings.Contains(c.val, "{}") {
				c = field{val: strings.ReplaceAll(c.val, "{}", in.val), raw: strings.ReplaceAll(c.raw, "{}", in.raw), unquoted: in.unquoted}
				placed = true
			}
			argv = append(argv, c)
		}
		if !placed {
			argv = append(argv, in)
		}
		j.command(argv, env, depth+1, nil, &scope{vars: map[string]string{}})
	}
	return nil, false
}

// rewritePrintfV rewrites `printf -v NAME ARGS...` (a bash builtin interp
// lacks) as the assignment NAME=$(printf ARGS...), which the evaluator runs
// (the trailing newlines a substitution strips do not change a verdict).
func rewritePrintfV(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok {
			return true
		}
		call, ok := st.Cmd.(*syntax.CallExpr)
		if ok && len(call.Args) > 2 && call.Args[0].Lit() == "printf" && call.Args[1].Lit() == "--" {
			// interp's printf takes "--" for the format; bash ends the
			// options there.
			call.Args = append(call.Args[:1:1], call.Args[2:]...)
		}
		if !ok || len(call.Args) < 4 || call.Args[0].Lit() != "printf" || call.Args[1].Lit() != "-v" {
			return true
		}
		name := call.Args[2].Lit()
		if name == "" || !isAssignment(name+"=") {
			return true
		}
		rest := call.Args[3:]
		if rest[0].Lit() == "--" {
			rest = rest[1:]
		}
		if len(rest) == 0 {
			return true
		}
		inner := &syntax.Stmt{Cmd: &syntax.CallExpr{Args: append([]*syntax.Word{litWord("printf")}, rest...)}}
		st.Cmd = &syntax.CallExpr{Assigns: append(call.Assigns, &syntax.Assign{
			Name:  &syntax.Lit{Value: name},
			Value: &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: []syntax.WordPart{&syntax.CmdSubst{Stmts: []*syntax.Stmt{inner}}}}}},
		})}
		return true
	})
}
