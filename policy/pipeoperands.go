package policy

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Operands from pipeline data (RuleUnknownOperands): `ls -a | grep
// hookwarden | xargs rm -rf` and `ls -a | while read f; do rm -rf "$f";
// done` hand a changing command names the judge cannot know. Inside a
// governed repository (or a folder holding one) such a command is refused
// unless the stage that produced the names bounds them so that none can be
// a guard file: a find whose name tests no guard name passes (find . -name
// '*.o'; the find expression's reading of findexpr.go, with its printing
// taken as the action), git ls-files, git diff --name-only or git grep -l
// given pathspecs that cannot name one (git ls-files '*.go'), ls given such
// globs, grep -l -r whose --include globs cannot name one, go list (Go
// packages), or literal text (echo, printf: the evaluator reads it); an
// xargs -I R whose command takes each line inside a word whose last
// component cannot be a guard name (rm -f out{}.txt) is bounded too. A filter (grep without files,
// sort, uniq, head, tail) keeps what it is fed. grep -l foo -r . is not
// bounded: its files may be .claude/settings.json, and sed -i there
// rewrites it.

// changingName reports the commands that change the files named by
// their operands, for pipeline data (xargs CMD, while read ... CMD "$f").
func changingName(name string) bool {
	switch name {
	case "rm", "rmdir", "unlink", "shred", "mv", "cp", "ln", "install", "rsync", "truncate", "tee", "dd",
		"chmod", "chown", "chgrp", "chattr", "setfacl", "sponge", "chflags",
		"remove-item", "ri", "move-item", "mi", "rename-item", "rni", "set-content", "sc", "clear-content", "clc":
		return true
	}
	return false
}

// changesOperands reports whether argv (a command xargs or a loop runs)
// changes the files its operands name: changingName, sed/perl/ruby
// in-place, git rm, mv, checkout, restore or clean, or a shell's -c
// script that changes the files its arguments name (scriptChangesArgs).
func changesOperands(argv []field) bool {
	if len(argv) == 0 {
		return false
	}
	name, known := cmdName(argv[0])
	if !known {
		return true // a command known only at run time may be any
	}
	switch name {
	case "sed", "perl", "ruby":
		for _, a := range argv[1:] {
			v := a.val
			if v == "--in-place" || strings.HasPrefix(v, "--in-place=") || strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "i") {
				return true
			}
		}
		return false
	case "git":
		for _, a := range argv[1:] {
			switch a.val {
			case "rm", "mv", "checkout", "restore", "clean":
				return true
			}
		}
		return false
	}
	if shellName(name) {
		return scriptChangesArgs(argv, "") // sh -c 'rm "$@"' (pipescript.go)
	}
	return changingName(name)
}

// inGoverned reports whether the command's current directory at sc is
// inside a governed repository or holds one directly (holdsGoverned); false
// when the directory is not known.
func (j *judge) inGoverned(sc *scope) bool {
	if j.dir == "" || sc.cwdUnknown {
		return false
	}
	here, ok := j.diskPath(sc, ".")
	if !ok {
		return false
	}
	return len(j.governedAbove(path.Clean(here))) > 0 || j.holderWord(sc, lit("."), true) != holdsNo
}

// pipeOperands refuses the xargs stage argv when the stage before it
// printed names the judge cannot bound (unbounded) and the command xargs
// runs changes the files they name, inside a governed repository.
func (j *judge) pipeOperands(argv []field, unbounded bool, sc *scope) {
	if !unbounded {
		return
	}
	inner, viaXargs := innerCommand(argv)
	if !viaXargs || len(inner) == 0 {
		return
	}
	if n, _ := cmdName(inner[0]); copyLike(n) && targetGiven(inner) {
		if _, repl := xargsReplace(argv, len(argv)-len(inner)); !repl {
			return // xargs cp -t DIR: the names are sources, read only
		}
	}
	changes := changesOperands(inner)
	if repl, ok := xargsReplace(argv, len(argv)-len(inner)); ok && !changes {
		changes = scriptChangesArgs(inner, repl) // xargs -I {} sh -c 'rm {}'
	}
	if changes && !replacedBounded(argv, len(argv)-len(inner), inner) && j.inGoverned(sc) {
		j.hits.add(RuleUnknownOperands)
	}
}

// replacedBounded reports an xargs -I R (argv[:cmd]) whose command (inner)
// takes every input line inside a word whose last component cannot name
// a guard entry whatever R becomes (rm -f out{}.txt): R is read as a
// wildcard matching anything, slashes and leading dots included.
func replacedBounded(argv []field, cmd int, inner []field) bool {
	repl, ok := xargsReplace(argv, cmd)
	if !ok || len(inner) == 0 || strings.Contains(inner[0].val, repl) {
		return false // the input is appended as operands of its own, or is the command
	}
	for _, a := range inner[1:] {
		if !strings.Contains(a.val, repl) {
			continue
		}
		// The last component is what follows R's last slash and then the
		// text after R's last use, or that text's own last component.
		tail := a.val[strings.LastIndex(a.val, repl)+len(repl):]
		if strings.ContainsAny(tail, "*?[") || globMayNameGuardComp("*"+tail, false) {
			return false
		}
	}
	return true
}

// whileReadOperands refuses a `while read VAR; do CMD "$VAR"; done` stage
// fed names the judge cannot bound, when CMD changes files (changesOperands)
// and an operand expands a variable read, inside a governed repository.
func (j *judge) whileReadOperands(w *syntax.WhileClause, unbounded bool, sc *scope) {
	if !unbounded || w.Until || len(w.Cond) == 0 {
		return
	}
	vars := readVars(w.Cond[len(w.Cond)-1])
	if vars == nil {
		return
	}
	if bodyChanges(w.Do, vars, sc) && j.inGoverned(sc) {
		j.hits.add(RuleUnknownOperands)
	}
}

// bodyChanges reports whether a loop body runs a command that changes
// files (changesOperands) with an operand expanding one of vars.
func bodyChanges(body []*syntax.Stmt, vars map[string]bool, sc *scope) bool {
	hit := false
	for _, st := range body {
		syntax.Walk(st, func(n syntax.Node) bool {
			call, ok := n.(*syntax.CallExpr)
			if !ok || hit || len(call.Args) < 2 {
				return !hit
			}
			var argv []field
			for _, a := range call.Args {
				argv = append(argv, sc.word(a))
			}
			if changesOperands(argv) && expandsAny(call.Args[1:], vars) {
				hit = true
			}
			return !hit
		})
	}
	return hit
}

// forOperands refuses `for f in $(ls -a); do rm -rf "$f"; done`: a loop
// over a command substitution whose output the judge cannot bound, whose
// body changes the files the loop variable names, inside a governed
// repository.
func (j *judge) forOperands(f *syntax.ForClause, sc *scope) {
	wi, ok := f.Loop.(*syntax.WordIter)
	if !ok || wi.Name == nil {
		return
	}
	for _, w := range wi.Items {
		if j.wordUnbounded(w, sc) {
			if bodyChanges(f.Do, map[string]bool{wi.Name.Value: true}, sc) && j.inGoverned(sc) {
				j.hits.add(RuleUnknownOperands)
			}
			return
		}
	}
}

// substOperands refuses a command that changes files (changesOperands,
// its name known) given the output of a command substitution the judge
// cannot bound (rm -rf $(ls -a), chmod 000 `git ls-files`), inside a
// governed repository.
func (j *judge) substOperands(call *syntax.CallExpr, argv []field, sc *scope) {
	inner, _ := innerCommand(argv)
	if len(inner) == 0 {
		return
	}
	if _, known := cmdName(inner[0]); !known || !changesOperands(inner) {
		return
	}
	words := call.Args[1:]
	if n, _ := cmdName(inner[0]); copyLike(n) && len(inner) == len(argv) && len(words) > 0 {
		words = words[len(words)-1:] // what a copy writes is its destination, the last word
	}
	for _, w := range words {
		if j.wordUnbounded(w, sc) {
			if j.inGoverned(sc) {
				j.hits.add(RuleUnknownOperands)
			}
			return
		}
	}
}

// copyLike reports the commands whose operands are sources they only read
// and a destination they write (the last operand, or -t DIR).
func copyLike(name string) bool {
	switch name {
	case "cp", "ln", "install", "rsync", "scp":
		return true
	}
	return false
}

// targetGiven reports a -t DIR or --target-directory of a copy: the
// operands xargs appends are then sources only.
func targetGiven(inner []field) bool {
	for _, a := range inner[1:] {
		if a.val == "-t" || strings.HasPrefix(a.val, "--target-directory") {
			return true
		}
	}
	return false
}

// wordUnbounded reports a word holding a command substitution whose
// output the judge cannot bound (substUnbounded), unless literal text
// after the last such substitution gives the word a last component no
// guard entry is named ("$(dirname "$x")/build", "$(basename "$f").o").
//
// basename prints one component: after a literal directory that is not the
// repository root or a guard directory (x/$(basename "$f")) it names an
// entry of that directory only.
func (j *judge) wordUnbounded(w *syntax.Word, sc *scope) bool {
	found, tail, tailKnown := false, "", true
	var walk func(parts []syntax.WordPart)
	walk = func(parts []syntax.WordPart) {
		for _, p := range parts {
			switch x := p.(type) {
			case *syntax.Lit:
				tail += x.Value
			case *syntax.SglQuoted:
				tail += x.Value
			case *syntax.DblQuoted:
				walk(x.Parts)
			case *syntax.CmdSubst:
				if oneComponentIn(x, tail, tailKnown && !found, sc) {
					tail += "x"
					continue
				}
				if j.substUnbounded(x, sc) {
					found, tail, tailKnown = true, "", true
				}
			default:
				tailKnown = false // a parameter or arithmetic part: not literal
			}
		}
	}
	walk(w.Parts)
	if !found {
		return false
	}
	return !tailKnown || tail == "" || strings.ContainsAny(tail, "*?[") || globMayNameGuardComp("*"+tail, false)
}

// oneComponentIn reports a basename substitution after the literal
// prefix (known: nothing but literal text before it) that ends in a
// directory that is neither dots only nor guarded: what it prints is one
// entry of that directory.
func oneComponentIn(cs *syntax.CmdSubst, prefix string, known bool, sc *scope) bool {
	if !known || len(cs.Stmts) != 1 || !strings.HasSuffix(prefix, "/") {
		return false
	}
	call, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || call.Args[0].Lit() != "basename" {
		return false
	}
	dir := strings.TrimRight(prefix, "/")
	if dir == "" || dotsOnly(dir) {
		return false
	}
	k := sc.classify(lit(dir))
	return !k.guarded()
}

// substUnbounded reports a command substitution whose output the judge
// cannot bound: anything but one statement whose last pipeline stage
// prints bounded names (stageUnbounded).
func (j *judge) substUnbounded(cs *syntax.CmdSubst, sc *scope) bool {
	if len(cs.Stmts) != 1 {
		return true
	}
	stages := []*syntax.Stmt{cs.Stmts[0]}
	if b, ok := cs.Stmts[0].Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
		stages = pipeStages(b)
	}
	prev := false
	for _, st := range stages {
		call, ok := st.Cmd.(*syntax.CallExpr)
		var argv []field
		if ok {
			for _, w := range call.Args {
				argv = append(argv, sc.fields(w)...)
			}
		}
		if len(argv) == 0 {
			prev = true
			continue
		}
		prev = j.stageUnbounded(argv, prev, sc)
	}
	return prev
}

// readVars returns the variables a `read` statement sets (REPLY when it
// names none), nil when st is not a read.
func readVars(st *syntax.Stmt) map[string]bool {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || call.Args[0].Lit() != "read" {
		return nil
	}
	vars := map[string]bool{}
	args := call.Args[1:]
	for i := 0; i < len(args); i++ {
		v := args[i].Lit()
		switch {
		case v == "-d" || v == "-n" || v == "-N" || v == "-p" || v == "-t" || v == "-u" || v == "-i":
			i++
		case strings.HasPrefix(v, "-a") && len(v) == 2 && i+1 < len(args):
			i++
			vars[args[i].Lit()] = true
		case strings.HasPrefix(v, "-"):
		case v != "":
			vars[v] = true
		}
	}
	if len(vars) == 0 {
		vars["REPLY"] = true
	}
	return vars
}

// expandsAny reports whether a word among words expands one of vars.
func expandsAny(words []*syntax.Word, vars map[string]bool) bool {
	found := false
	for _, w := range words {
		syntax.Walk(w, func(n syntax.Node) bool {
			if pe, ok := n.(*syntax.ParamExp); ok && pe.Param != nil && vars[pe.Param.Value] {
				found = true
			}
			return !found
		})
	}
	return found
}

// stageUnbounded reports whether the pipeline stage argv prints names
// the judge cannot bound away from the guard's files; prev is the answer
// for the stage before it (a filter keeps it).
func (j *judge) stageUnbounded(argv []field, prev bool, sc *scope) bool {
	first, known := cmdName(argv[0])
	if !known {
		return true
	}
	args := argv[1:]
	switch first {
	case "echo", "printf":
		return joinFields(skipOpts(args, "", nil)).dynamic()
	case "sort", "uniq", "head", "tail", "tac", "shuf":
		if len(skipOpts(args, "", nil)) == 0 {
			return prev
		}
	case "grep", "egrep", "fgrep":
		return j.grepUnbounded(args, prev)
	case "find":
		return j.findUnbounded(args, sc)
	case "git":
		return !gitListBounded(args)
	case "ls":
		return !lsBounded(args, sc)
	case "pwd", "mktemp", "seq", "date", "nproc", "uname", "id", "whoami", "hostname",
		"command", "which", "type", "whereis":
		// A directory the evaluator resolves, a fresh temporary path,
		// numbers, a date, system names, a program's path (a lookup of
		// the engine is judged by lookpath.go): never a guard file's name.
		return false
	case "go":
		// go list prints packages (import paths, or their directories with
		// -f {{.Dir}}); its ./... patterns skip directories starting with
		// "." or "_" (go help packages), where the guard's files live.
		return len(args) == 0 || args[0].val != "list"
	}
	return true
}

// grepUnbounded is stageUnbounded for grep: fed stdin (no file operand,
// no -r) it filters what it is fed (prev; -o prints parts of lines, which
// are not bounded); listing files (-l, -L, -r) it is bounded only by
// --include globs that cannot name a guard entry.
func (j *judge) grepUnbounded(args []field, prev bool) bool {
	var includes, operands []string
	recursive, patternGiven, parts := false, false, false
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "-e" || v == "-f" || v == "--regexp" || v == "--file":
			patternGiven = true
			i++
		case v == "-m" || v == "-A" || v == "-B" || v == "-C" || v == "--exclude" || v == "--exclude-dir":
			i++
		case v == "--include" && i+1 < len(args):
			i++
			includes = append(includes, args[i].val)
		case strings.HasPrefix(v, "--include="):
			includes = append(includes, strings.TrimPrefix(v, "--include="))
		case v == "-r" || v == "-R" || v == "--recursive" || v == "--dereference-recursive":
			recursive = true
		case strings.HasPrefix(v, "--"):
		case strings.HasPrefix(v, "-") && len(v) > 1:
			recursive = recursive || strings.ContainsAny(v, "rR")
			parts = parts || strings.Contains(v, "o")
		default:
			operands = append(operands, v)
		}
	}
	if !patternGiven && len(operands) > 0 {
		operands = operands[1:]
	}
	if !recursive && len(operands) == 0 {
		return prev || parts
	}
	if len(includes) == 0 {
		return true
	}
	for _, g := range includes {
		if globMayNameGuardComp(g, false) {
			return true
		}
	}
	return false
}

// findUnbounded is stageUnbounded for find: whether a guard file's name
// reaches what find prints (its -print, -print0, -printf or -ls, or the
// whole expression when it has no action), read as findReach reads a
// changing action.
func (j *judge) findUnbounded(args []field, sc *scope) bool {
	var paths []field
	i := 0
	for ; i < len(args) && !strings.HasPrefix(args[i].val, "-") && args[i].val != "(" && args[i].val != "!"; i++ {
		paths = append(paths, args[i])
	}
	if len(paths) == 0 {
		paths = []field{lit(".")}
	}
	ancestor := false
	for _, p := range paths {
		k := sc.classify(p)
		if k.hooks || k.gitDir || k.guard != (guardKind{}) || p.dynamic() {
			return true
		}
		ancestor = ancestor || dotsOnly(p.val) || j.holdsWord(sc, p)
	}
	var present map[string]bool
	if !ancestor {
		present = sc.findPresent(paths)
	}
	_, own, client, hooks := findReach(findPrinting(args[i:]), ancestor, present)
	return own || client || hooks
}

// findPrinting rewrites a find expression so that what it prints reaches
// a changing action: -print, -print0, -printf FMT and -ls become -delete,
// and an expression without an action is followed by one.
func findPrinting(expr []field) []field {
	out := make([]field, 0, len(expr)+3)
	action := false
	for i := 0; i < len(expr); i++ {
		switch expr[i].val {
		case "-print", "-print0", "-ls":
			out = append(out, lit("-delete"))
			action = true
			continue
		case "-printf", "-fprint", "-fprint0", "-fls":
			out = append(out, lit("-delete"))
			action = true
			i++
			continue
		case "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprintf":
			action = true
		}
		out = append(out, expr[i])
	}
	if action {
		return out
	}
	if len(out) == 0 {
		return []field{lit("-delete")}
	}
	return append(append(append([]field{lit("(")}, out...), lit(")")), lit("-delete"))
}

// gitListBounded reports a git command that prints file names bounded by
// pathspecs none of which can name a guard file: ls-files (its operands),
// diff --name-only or --name-status and grep -l (the words after --).
func gitListBounded(args []field) bool {
	sub, rest := "", []field(nil)
	for i, a := range args {
		if !strings.HasPrefix(a.val, "-") {
			sub, rest = a.val, args[i+1:]
			break
		}
		if a.val == "-C" || a.val == "-c" {
			return false // another directory or configuration: not read here
		}
	}
	var specs []string
	switch sub {
	case "ls-files":
		for _, a := range rest {
			if !strings.HasPrefix(a.val, "-") {
				specs = append(specs, a.val)
			}
		}
	case "diff", "grep":
		for i, a := range rest {
			if a.val == "--" {
				for _, s := range rest[i+1:] {
					specs = append(specs, s.val)
				}
				break
			}
		}
	default:
		return false
	}
	return pathspecsBounded(specs)
}

// pathspecsBounded reports git pathspecs that include something and of
// which none can name a guard file: each a glob whose last component
// cannot name a guard path's component (git's * matches a leading dot and
// a slash too), or a literal path naming no guard file or directory;
// exclusions (:!x, :(exclude)x) bound nothing.
func pathspecsBounded(specs []string) bool {
	n := 0
	for _, s := range specs {
		if strings.Contains(s, dyn) {
			return false
		}
		if strings.HasPrefix(s, ":") {
			if strings.HasPrefix(s, ":!") || strings.HasPrefix(s, ":^") || strings.HasPrefix(s, ":(exclude)") {
				continue
			}
			return false
		}
		n++
		if strings.ContainsAny(s, "*?[") {
			if globMayNameGuardComp(s, false) {
				return false
			}
			continue
		}
		if dotsOnly(s) || classifyPath(s).guarded() {
			return false
		}
	}
	return n > 0
}

// lsBounded reports an ls whose operands all are globs or files that
// cannot name a guard entry (ls *.txt); ls with no operand lists the
// whole directory.
func lsBounded(args []field, sc *scope) bool {
	n := 0
	for _, a := range args {
		v := a.val
		if strings.HasPrefix(v, "-") && v != "-" {
			continue
		}
		n++
		if a.dynamic() || dotsOnly(v) {
			return false
		}
		if strings.ContainsAny(v, "*?[") {
			if globMayNameGuardComp(v, true) {
				return false
			}
			continue
		}
		if sc.classify(a).guarded() || sc.classify(a).guard != (guardKind{}) {
			return false
		}
	}
	return n > 0
}

// globMayNameGuardComp reports whether the last component of the glob g
// may match a component of a guard path, the git directory or a hooks
// directory; dotSpecial is the shell's rule that only a pattern starting
// with "." matches a leading dot (find, git, tar and grep --include do not
// apply it).
func globMayNameGuardComp(g string, dotSpecial bool) bool {
	last := strings.TrimRight(strings.ReplaceAll(g, `\`, "/"), "/")
	if i := strings.LastIndexByte(last, '/'); i >= 0 {
		last = last[i+1:]
	}
	last = asciiLower(last)
	match := func(name string) bool {
		if dotSpecial {
			return matchGlob(last, name)
		}
		ok, err := path.Match(bashBrackets(last), name)
		return err == nil && ok
	}
	for _, n := range []string{".git", "hooks", StoreDirName, ".husky", ".lefthook", ".lefthook-local", ".githooks"} {
		if match(n) {
			return true
		}
	}
	for _, g := range guardTables().comps {
		for _, c := range g {
			if match(c) {
				return true
			}
		}
	}
	return false
}

// fileOperands refuses xargs running a command that changes files with
// names read from a file whose content the judge cannot know (written
// earlier in the command with output it cannot read: ls -a > l; xargs rm
// < l), through stdin (<) or -a/--arg-file, inside a governed repository.
// A file on disk, or one written with known text, is read by the
// evaluator and its names judged as written.
func (j *judge) fileOperands(st *syntax.Stmt, argv []field, sc *scope) {
	inner, viaXargs := innerCommand(argv)
	if !viaXargs || len(inner) == 0 || !changesOperands(inner) {
		return
	}
	var files []field
	if f, ok := xargsArgFile(argv, len(argv)-len(inner)); ok {
		files = append(files, f)
	}
	for _, r := range st.Redirs {
		if r.Op == syntax.RdrIn && r.Word != nil {
			files = append(files, sc.word(r.Word))
		}
	}
	for _, f := range files {
		if _, known := j.scriptSource(sc, f.val); !known && j.fileInSight(sc, f.val) && j.inGoverned(sc) {
			j.hits.add(RuleUnknownOperands)
			return
		}
	}
}
