package policy

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hookwarden/hookwarden/internal/gitdisc"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// The evaluator runs a parsed script symbolically with mvdan.cc/sh/v3/interp
// so that each external command is judged by the argv the shell would build
// (braces, parameter operators, IFS, arrays, set --, for, read, printf -v,
// mapfile, eval, source, globs). Nothing runs: every handler is virtual.
// External commands are handed to (*judge).command and answer unknown output
// (dyn); writes go to an in-memory overlay; reads come from the overlay, from
// the command's stdin, or from disk (bounded, only when the starting
// directory is known). Values the judge cannot know stay unknown: the script
// is run twice, once with every inherited variable holding dyn and external
// commands exiting 0, once with inherited variables unset and external
// commands exiting 1, and both runs are judged (besides the static walk,
// which judges every statement as written, including branches no run
// takes).

// Evaluator bounds: a run stops after maxEvalSteps simple commands or
// evalBudget of wall time; a script that reaches either is refused with
// RuleScanBoundSteps, as nothing unjudged is ever allowed.
const (
	maxEvalSteps = 4096
	// evalBudget is the wall time every symbolic run of one Judge call may
	// take together (nested scripts share it). It is a backstop far above
	// what any corpus case takes (BenchmarkEvaluator), so that a loaded
	// machine does not turn an ordinary command into a refusal; the step
	// and size bounds are what a script reaches first.
	evalBudget = time.Second
	// maxLoopIterations is how many times the evaluator runs one loop's
	// body; a loop still going is left there (a loop whose condition
	// depends on unknown output, `while [ $(date +%s) -lt $end ]`, would
	// otherwise never end).
	maxLoopIterations = 256
	// maxEvalBytes bounds the total size of the variables a run holds
	// (x=$x$x doubling in a loop), checked at each loop iteration.
	maxEvalBytes = 1 << 20
	// maxGlobEntries bounds the directory entries one glob may read.
	maxGlobEntries = 4096
	// maxStdinBytes bounds what a command's stdin is read for (xargs, a
	// shell reading its script on stdin).
	maxStdinBytes = 64 << 10
	// maxNameCalls bounds how often one command name that is not a
	// builtin (a function, or a program) runs in one run: interp looks a
	// variable up through one scope per nested function call, so
	// unbounded recursion (f() { git status; f; }; f) would cost the
	// square of its depth before the step bound stopped it (0.7-1 s);
	// at 512 it stops in tens of milliseconds. A run past it is refused
	// as past the step bound.
	maxNameCalls = 512
)

// evalRoot is the directory the interpreter starts in when the judge does not
// know the real one; nothing below it is read from disk.
const evalRoot = "/hookwarden-unknown-cwd"

// procSubstDir holds the overlay files process substitutions write to.
const procSubstDir = "/dev/hookwarden-procsubst"

// evalDyn marks, inside the symbolic run, a value the judge cannot know (an
// inherited variable, an external command's output, an unknown file). It is
// a Unicode noncharacter, never in real text, and, unlike dyn (NUL), it
// survives command substitution (bash and interp drop NUL bytes there). The
// run hands it to the judge as dyn.
const evalDyn = "\uFDD0"

// evalDynOut follows evalDyn in the output of a program the run cannot know
// (an external command, a script on disk, a download): the text is unknown
// like any evalDyn value, and where it becomes code — a command's name, a
// shell's -c script, a shell's stdin, eval — that code is refused
// (RuleOutputAsCode: ./p | sh, eval "$(./p)", sh -c "$(curl …)"), whereas
// an unknown inherited variable there is judged as before.
const evalDynOut = "\uFDD1"

// unknownText reports whether s holds a value known only at run time
// (evalDyn as interp expands it, dyn as the judge receives it).
func unknownText(s string) bool {
	return strings.Contains(s, evalDyn) || strings.Contains(s, dyn)
}

// unknownParts returns text read from a run with each unknown stretch
// (evalDyn, a program's output marker dropped) as dyn, and dyn for empty
// text.
func unknownParts(text string) string {
	if text == "" {
		return dyn
	}
	return judgeForm(text)
}

// judgeForm returns text from a symbolic run in the judge's form: each
// unknown value (evalDyn) as dyn, a program's output marker dropped.
func judgeForm(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, evalDynOut, ""), evalDyn, dyn)
}

// unknownPath is a path whose content is unknown (evalDyn) when read.
const unknownPath = "/dev/hookwarden-unknown"

var errEvalBound = errors.New("evaluation bound")

// evalMode is one symbolic run: unknown inherited variables as dyn or unset,
// and the exit status of external commands.
type evalMode struct {
	unknownSet bool
	exit       uint8
}

// evalRun is the state of one symbolic run.
type evalRun struct {
	j     *judge
	depth int
	env   []envVar
	mode  evalMode
	start string // the interpreter's starting directory
	mu    sync.Mutex
	steps int
	bound bool
	files overlay
	// reached: the position of each simple command the run handed to the
	// judge, true while every word it got there was known.
	reached map[syntax.Pos]bool
	// loops counts each loop's iterations; truncated: a loop was left at
	// maxLoopIterations.
	loops     map[string]int
	truncated bool
	// engines: the engine's paths a modelled lookup found (lookpath.go).
	engines map[string]bool
	// calls counts the runs of each command name that is not a builtin
	// (maxNameCalls).
	calls map[string]int
	// dirs: the directories the run made (mkdir), which exist for the rest
	// of the run (stat) though nothing is made on disk.
	dirs map[string]bool
	// made: the files the run may have created (a redirection's target,
	// touch, tee, the target of cp, mv, ln and install), which a later
	// glob matches (readDir): touch -- --no-verify && git commit -m x *.
	made map[string]bool
	// madeUnknown: the run made a file whose name is known only at run
	// time (touch "$X"), so a glob in any directory may match it (the name
	// may hold "/../").
	madeUnknown bool
	// globUnknown: a glob read a directory after madeUnknown. Its entry for
	// the unknown name matches only a pattern that matches any name (*, ?*),
	// while the name may be one *.go or [-]* matches too (touch
	// "$(date +-nm%s.go)"; git commit -m wip *.go commits with -n -m), so
	// from then on a git call gets one more unknown word (exec).
	globUnknown bool
	// reposMade: the run reached a git init, clone, worktree or submodule
	// command, after which the repository a directory belongs to is not
	// known (toplevel).
	reposMade bool
}

// worthEvaluating reports whether the evaluator can learn anything the static
// walk does not: a script of simple commands whose words are all plain
// literals, naming no command that runs its input, gains nothing.
func worthEvaluating(f *syntax.File) bool {
	worth := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if worth {
			return false
		}
		switch x := n.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp, *syntax.ForClause,
			*syntax.WhileClause, *syntax.FuncDecl, *syntax.DeclClause, *syntax.CaseClause, *syntax.ExtGlob:
			worth = true
		case *syntax.Lit:
			worth = strings.ContainsAny(x.Value, "{*?[\\")
		case *syntax.SglQuoted:
			worth = x.Dollar
		case *syntax.CallExpr:
			// Any word naming a command that runs its input (also behind
			// a launcher: nice xargs, timeout 5 at).
			for _, w := range x.Args {
				switch w.Lit() {
				case "xargs", "eval", "source", ".", "read", "mapfile", "readarray", "printf", "set", "shift",
					"sh", "bash", "dash", "zsh", "ksh", "busybox", "at", "batch", "parallel", "tmux", "screen", "builtin", "command", "exec",
					"crontab", "ssh":
					worth = true
				default:
					// A code interpreter may read a program's output as its
					// code (curl … | python3): codeFlags' languages.
					if _, ok := codeFlags(interpreterName(w.Lit())); ok {
						worth = true
					}
				}
			}
		case *syntax.Redirect:
			worth = x.Op == syntax.WordHdoc || x.Op == syntax.Hdoc || x.Op == syntax.DashHdoc || isOutputRedirect(x.Op)
		}
		return !worth
	})
	return worth
}

// evaluate runs f symbolically in both modes and judges what it would run.
// It returns the positions of the simple commands both runs reached with
// every word known each time (none when it did not run). arg0 is the
// script's $0 (sh -c SCRIPT NAME; "" for the interpreter's default).
func (j *judge) evaluate(f *syntax.File, depth int, env []envVar, arg0 string) map[syntax.Pos]bool {
	if !worthEvaluating(f) {
		return nil
	}
	rewriteProcSubst(f, procSubstDir+"/")
	rewriteDefaultQuotes(f)
	rewritePrintfV(f)
	markLoops(f)
	// the interpreter's $0 is the file's name (sh -c SCRIPT NAME)
	f.Name = arg0
	var runs [2]map[syntax.Pos]bool
	for i, m := range [...]evalMode{{unknownSet: true, exit: 0}, {unknownSet: false, exit: 1}} {
		reached, bound := j.evalOnce(f, depth, env, m)
		if bound {
			j.hits.add(RuleScanBoundSteps)
			return nil
		}
		runs[i] = reached
	}
	known := map[syntax.Pos]bool{}
	for pos, ok := range runs[0] {
		if ok && runs[1][pos] {
			known[pos] = true
		}
	}
	return known
}

// evalOnce is one symbolic run; it reports whether a bound stopped it.
func (j *judge) evalOnce(f *syntax.File, depth int, env []envVar, m evalMode) (reached map[syntax.Pos]bool, bound bool) {
	// Each run starts where the script starts (judge.gitEntry): the runs
	// before it are other courses the script may take, not earlier steps.
	j.gitMoved, j.gitRefs = j.gitEntry, maps.Clone(j.gitEntryRefs)
	start := evalRoot
	if j.dir != "" {
		start = j.dir
	}
	e := &evalRun{j: j, depth: depth, env: env, mode: m, start: start, files: overlay{}, reached: map[syntax.Pos]bool{}, loops: map[string]int{}, engines: map[string]bool{}, calls: map[string]int{}}
	for _, p := range j.siteEngineList() {
		e.engines[p] = true
	}
	if j.evalDeadline.IsZero() {
		j.evalDeadline = time.Now().Add(evalBudget)
	}
	ctx, cancel := context.WithDeadline(context.Background(), j.evalDeadline)
	defer cancel()
	opts := []interp.RunnerOption{
		interp.Env(unknownEnv{set: m.unknownSet, known: j.siteVars(knownEnv(env))}),
		interp.StdIO(nil, io.Discard, io.Discard),
		interp.CallHandler(e.call),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return e.exec }),
		interp.OpenHandler(e.open),
		interp.ReadDirHandler2(e.readDir),
		interp.StatHandler(e.stat),
		interp.AccessHandler(func(context.Context, string, interp.AccessMode) error { return nil }),
	}
	if assignsGlobIgnore(f) {
		// bash(1): a non-null GLOBIGNORE turns dotglob on, which the
		// interpreter does not model; * then matches .hookwarden.yaml.
		opts = append(opts, interp.BashOpts("-s", "dotglob"))
	}
	r, err := interp.New(opts...)
	if err != nil {
		return nil, false
	}
	r.Dir = start
	_ = r.Run(ctx, f)
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.reached, e.bound || errors.Is(ctx.Err(), context.DeadlineExceeded)
}

// assignsGlobIgnore reports whether the script assigns GLOBIGNORE
// anywhere (GLOBIGNORE=x, export GLOBIGNORE=x, declare GLOBIGNORE=x).
func assignsGlobIgnore(f *syntax.File) bool {
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if a, ok := n.(*syntax.Assign); ok && a.Name != nil && a.Name.Value == "GLOBIGNORE" {
			found = true
		}
		return !found
	})
	return found
}

// call counts every simple command (builtins too) against maxEvalSteps.
func (e *evalRun) call(ctx context.Context, args []string) ([]string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.steps++
	if e.steps > maxEvalSteps {
		e.bound = true
		return nil, errEvalBound
	}
	if len(args) > 1 && args[0] == "set" {
		args = noXtrace(args)
	}
	if len(args) > 0 && !interp.IsBuiltin(args[0]) {
		e.calls[args[0]]++
		if e.calls[args[0]] > maxNameCalls {
			e.bound = true
			return nil, errEvalBound
		}
	}
	if len(args) > 0 && strings.Contains(args[0], evalDynOut) && !strings.Contains(args[0], "/") {
		// $(./p), eval "$(./p)", source <(./p): a program's output run as
		// a command (a path built from it is judged as a script path).
		e.j.hits.add(RuleOutputAsCode)
	}
	if name, ok := lookupName(args); ok {
		return []string{lookupCmd, name}, nil
	}
	if len(args) > 1 && args[0] == "eval" {
		if text, ok := evalProcSubst(strings.Join(args[1:], " "), e.steps); ok {
			return []string{"eval", text}, nil
		}
	}
	if inner, ok := launchedPrint(args); ok {
		// timeout 5 echo ... | sh: the launcher prints what echo or printf
		// prints, so the shell after it reads known text.
		return inner, nil
	}
	if len(args) == 2 && args[0] == ":" && strings.HasPrefix(args[1], loopMark) {
		// A loop past maxLoopIterations is left (break): what ran so far
		// was judged, and nothing after it counts as known (truncated).
		e.loops[args[1]]++
		if e.loops[args[1]] > maxLoopIterations {
			e.truncated = true
			return []string{"break"}, nil
		}
	}
	{
		size := 0
		interp.HandlerCtx(ctx).Env.Each(func(_ string, v expand.Variable) bool {
			size += len(v.Str)
			for _, l := range v.List {
				size += len(l)
			}
			return size <= maxEvalBytes
		})
		if size > maxEvalBytes {
			e.bound = true
			return nil, errEvalBound
		}
	}
	return args, nil
}

// launchedPrint returns the echo or printf a launcher (timeout, nice,
// nohup, env, stdbuf, setsid, ...: innerCommand's) runs, when every word
// is known: the run then prints its text with the shell's builtin.
func launchedPrint(args []string) ([]string, bool) {
	if len(args) < 2 || args[0] == "echo" || args[0] == "printf" {
		return nil, false
	}
	argv := make([]field, len(args))
	for i, a := range args {
		if strings.Contains(a, evalDyn) {
			return nil, false
		}
		argv[i] = lit(a)
	}
	inner, viaXargs := innerCommand(argv)
	if viaXargs || len(inner) == 0 || len(inner) == len(argv) || inner[0].val != "echo" && inner[0].val != "printf" {
		return nil, false
	}
	out := make([]string, len(inner))
	for i, f := range inner {
		out[i] = f.val
	}
	return out, true
}

// exec judges one external command the run reaches and answers for it:
// unknown output, the mode's exit status.
func (e *evalRun) exec(ctx context.Context, args []string) error {
	if len(args) == 2 && args[0] == lookupCmd {
		return e.lookup(ctx, args[1])
	}
	hc := interp.HandlerCtx(ctx)
	argv, allKnown := evalArgv(args)
	outputCode := outputAsCode(args)
	e.mu.Lock()
	allKnown = allKnown && !e.truncated
	if prev, seen := e.reached[hc.Pos]; !seen || prev {
		e.reached[hc.Pos] = allKnown
	}
	e.mu.Unlock()
	env := append([]envVar(nil), e.env...)
	hc.Env.Each(func(name string, v expand.Variable) bool {
		if v.Exported && v.IsSet() {
			val := judgeForm(v.String())
			env = append(env, envVar{name: name, val: field{val: val, raw: val}})
		}
		return true
	})
	sc := e.scope(hc.Dir)
	if len(argv) > 1 && argv[0].val == "busybox" {
		argv = argv[1:]
	}
	text, known, piped := readStdin(hc.Stdin)
	if _, viaXargs := innerCommand(argv); !viaXargs {
		// xargs makes its input words (feed; -I into a script is judged there)
		outputCode = outputCode || strings.Contains(text, evalDynOut) && stdinProgram(argv)
	}
	var st *syntax.Stmt
	if piped {
		st = stdinStmt(text, known)
	}
	argv, scripts, unknownCode := e.feed(argv, text, known, sc)
	for _, t := range createdFiles(argv) {
		e.markMade(hc.Dir, t)
	}
	e.mu.Lock()
	for _, c := range copies(argv, func(p string) bool { return e.j.isDirAt(sc, p) }) {
		content, known := e.j.scriptSource(sc, c.src) // see recordWrites
		key := c.dst
		if !shellAbs(key) {
			key = filepath.Join(hc.Dir, key)
		}
		e.files.write(e.rel(key), content, known, false)
	}
	if e.globUnknown && len(argv) > 0 && path.Base(argv[0].val) == "git" {
		argv = withUnknownWord(argv)
	}
	if known && piped && len(argv) > 1 && path.Base(argv[0].val) == "tee" {
		for _, f := range argv[1:] { // printf CODE | tee t_test.py (writtencode.go)
			if !strings.HasPrefix(f.val, "-") {
				e.j.writtenFile(sc, f, text)
			}
		}
	}
	e.recordMade(hc.Dir, argv)
	e.j.ranIn(hc.Dir, argv)
	if unknownCode {
		e.j.hits.add(RuleScriptUnknown)
	}
	if outputCode {
		e.j.hits.add(RuleOutputAsCode)
	}
	for _, s := range scripts {
		e.j.scriptField(s, e.depth+1, env)
	}
	e.j.command(argv, env, e.depth, st, sc)
	e.mu.Unlock()
	return e.answer(hc, argv, text, known, sc)
}

// withUnknownWord returns a git argv with one unknown word (see
// globUnknown) before its first "--", or at its end: a glob before "--" may
// have matched an option's name.
func withUnknownWord(argv []field) []field {
	at := len(argv)
	for i, a := range argv {
		if a.val == "--" {
			at = i
			break
		}
	}
	return slices.Insert(slices.Clone(argv), at, field{val: dyn, raw: dyn, inherited: true})
}

// evalArgv converts the words interp expanded into the judge's fields,
// evalDyn into dyn (a program's output marker dropped), and reports whether
// every word was known. A word that begins with an unknown value other than
// a program's output (an inherited variable, passed through or not:
// B=${B:-main}) may be any one word (field.inherited).
func evalArgv(args []string) (argv []field, allKnown bool) {
	argv = make([]field, 0, len(args))
	allKnown = true
	for _, a := range args {
		allKnown = allKnown && !strings.Contains(a, evalDyn)
		inherited := strings.HasPrefix(a, evalDyn) && !strings.HasPrefix(a[len(evalDyn):], evalDynOut)
		a = judgeForm(a)
		argv = append(argv, field{val: a, raw: a, inherited: inherited})
	}
	return argv, allKnown
}

// stdinStmt returns a command's stdin as a here-string statement, for the
// judges that read it (git apply, patch, interpreters): known text, or a
// variable no run sets when it is unknown.
func stdinStmt(text string, known bool) *syntax.Stmt {
	w := &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Value: text}}}
	if !known {
		w = &syntax.Word{Parts: []syntax.WordPart{&syntax.ParamExp{Param: &syntax.Lit{Value: "__hookwarden_stdin"}}}}
	}
	return &syntax.Stmt{Redirs: []*syntax.Redirect{{Op: syntax.WordHdoc, Word: w}}}
}

// recordMade records what argv, run in dir, makes for the rest of the run:
// the directories of mkdir (mkdir x && cd x && …), and the files of a
// download (curl -o i.sh URL && sh i.sh: the file holds a download). The
// caller holds e.mu.
func (e *evalRun) recordMade(dir string, argv []field) {
	if len(argv) > 1 && argv[0].val == "mkdir" {
		opts := true
		for _, a := range argv[1:] {
			if opts && a.val == "--" {
				opts = false
				continue
			}
			if !(opts && strings.HasPrefix(a.val, "-")) && !a.dynamic() {
				if e.dirs == nil {
					e.dirs = map[string]bool{}
				}
				d := a.val
				if !filepath.IsAbs(d) {
					d = filepath.Join(dir, d)
				}
				e.dirs[filepath.Clean(d)] = true
			}
		}
	}
	for _, t := range downloadTargets(argv) {
		key := t
		if !shellAbs(key) {
			key = filepath.Join(dir, key)
		}
		e.files.write(e.rel(key), evalDyn+evalDynOut, false, false)
	}
}

// answer writes what the run takes as argv's output and returns its exit
// status: the output when the judge knows it (known), nothing for the setup
// output of a tool such as ssh-agent (shellSetupOutput), else one unknown
// line (a program's output, or, for cat of a file whose directory is not
// known, the file's unknown content) and the mode's exit status.
func (e *evalRun) answer(hc interp.HandlerContext, argv []field, text string, known bool, sc *scope) error {
	if out, ok := e.known(argv, text, known, sc); ok {
		io.WriteString(hc.Stdout, out)
		return nil
	}
	if shellSetupOutput(argv) {
		// eval "$(ssh-agent -s)": output taken as the harmless setup its
		// tool documents (shellSetupOutput).
		return nil
	}
	unknown := evalDyn + evalDynOut
	if e.catOfUnlocatedFile(argv, sc) {
		// cat x.sh | bash where the directory is not known: judged as
		// bash x.sh is (scriptMatters), not as a program's output.
		unknown = evalDyn
	}
	if e.mode.exit == 0 {
		io.WriteString(hc.Stdout, unknown+"\n") // one unknown line
		return nil
	}
	io.WriteString(hc.Stdout, unknown)
	return interp.NewExitStatus(e.mode.exit)
}

// catOfUnlocatedFile reports cat of files whose content the judge cannot
// read but which scriptMatters would not refuse as a script either (missing
// now, or relative while the directory is not known): cat x.sh | bash is
// then judged as bash x.sh is, their content unknown data rather than a
// program's output.
func (e *evalRun) catOfUnlocatedFile(argv []field, sc *scope) bool {
	if len(argv) < 2 || argv[0].val != "cat" {
		return false
	}
	for _, a := range argv[1:] {
		if strings.HasPrefix(a.val, "-") || a.dynamic() || e.j.scriptMatters(sc, a.val) {
			return false
		}
	}
	return true
}

// downloadTargets returns the files a curl or wget command writes its
// download to (curl(1) -o/--output FILE and -O/--remote-name, the URL's last
// path segment; wget(1) -O/--output-document FILE, else the URL's last path
// segment), so that running one of them in the same command is judged as
// running the download. "-" (standard output) and words known only at run
// time are left out.
func downloadTargets(argv []field) []string {
	inner, _ := innerCommand(argv)
	if len(inner) == 0 {
		return nil
	}
	name, ok := cmdName(inner[0])
	if !ok || name != "curl" && name != "wget" {
		return nil
	}
	args := inner[1:]
	var out, urls []string
	remote := name == "wget"
	for i, a := range args {
		v := a.val
		switch {
		case a.dynamic():
		case name == "curl" && (v == "-o" || v == "--output") || name == "wget" && (v == "-O" || v == "--output-document"):
			if i+1 < len(args) && !args[i+1].dynamic() {
				out = append(out, args[i+1].val)
			}
			remote = false
		case name == "curl" && strings.HasPrefix(v, "--output="), name == "wget" && strings.HasPrefix(v, "--output-document="):
			_, f, _ := strings.Cut(v, "=")
			out, remote = append(out, f), false
		case name == "curl" && len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.Contains(v, "o"):
			// -o FILE, -oFILE, -fsSLo FILE: the o of a short option cluster
			// takes the rest of the word, or the next word.
			rest := v[strings.Index(v, "o")+1:]
			if rest == "" && i+1 < len(args) && !args[i+1].dynamic() {
				rest = args[i+1].val
			}
			if rest != "" {
				out, remote = append(out, rest), false
			}
		case name == "curl" && (v == "-O" || v == "--remote-name"):
			remote = true
		case strings.Contains(v, "://"):
			urls = append(urls, v)
		}
	}
	if remote {
		for _, u := range urls {
			u, _, _ = strings.Cut(u, "?")
			if b := path.Base(u); b != "" && b != "/" && b != "." && !strings.Contains(b, ":") {
				out = append(out, b)
			}
		}
	}
	return slices.DeleteFunc(out, func(f string) bool { return f == "-" || f == "" })
}

// pathOutput answers the commands that only compute a path from known
// words or from the site's environment, so a path built from them is judged
// as the path it is (rm -rf "$(dirname "$(command -v hookwarden)")", rm
// -rf "$(go env GOPATH)/bin"): dirname and basename of one known operand
// (POSIX dirname(1), basename(1); no options), and go env GOPATH / GOBIN
// from the site's environment, which the go command prefers to its go.env
// file (GOPATH unset is $HOME/go, go help gopath; GOBIN is answered only
// when set: one set only in go.env would not be known, so it is left
// unanswered then).
func (e *evalRun) pathOutput(argv []field) (string, bool) {
	if len(argv) == 0 {
		return "", false
	}
	for _, a := range argv {
		if a.dynamic() {
			return "", false
		}
	}
	switch {
	case len(argv) == 2 && argv[0].val == "dirname" && !strings.HasPrefix(argv[1].val, "-"):
		return path.Dir(shellSlashes(argv[1].val)) + "\n", true
	case len(argv) == 2 && argv[0].val == "basename" && !strings.HasPrefix(argv[1].val, "-"):
		return path.Base(shellSlashes(argv[1].val)) + "\n", true
	case len(argv) == 3 && argv[0].val == "go" && argv[1].val == "env" && e.j.env != nil:
		switch argv[2].val {
		case "GOPATH":
			if v, ok := e.j.env("GOPATH"); ok && v != "" {
				return v + "\n", true
			}
			if home, ok := e.j.env("HOME"); ok && home != "" {
				return home + "/go\n", true
			}
		case "GOBIN":
			if v, ok := e.j.env("GOBIN"); ok {
				return v + "\n", true
			}
		}
	}
	return "", false
}

// toplevel answers git rev-parse --show-toplevel (git-rev-parse(1): the
// absolute path of the working tree's top directory) where the directory
// the command runs in is known: the repository internal/gitdisc finds there,
// as scripts use it to find their own files ("$(git rev-parse
// --show-toplevel)/scripts/lib.sh", which is then read and judged). Outside a
// repository git prints nothing on stdout. After the run reached a command
// that makes a repository (git init, clone, worktree, submodule) it does not
// answer: the directory may belong to the new one.
func (e *evalRun) toplevel(argv []field, sc *scope) (string, bool) {
	if len(argv) < 2 || argv[0].val != "git" {
		return "", false
	}
	switch argv[1].val {
	case "init", "clone", "worktree", "submodule":
		e.mu.Lock()
		e.reposMade = true
		e.mu.Unlock()
		return "", false
	}
	e.mu.Lock()
	made := e.reposMade
	e.mu.Unlock()
	if len(argv) != 3 || argv[1].val != "rev-parse" || argv[2].val != "--show-toplevel" || made || e.j.dir == "" || sc.cwdUnknown {
		return "", false
	}
	start := filepath.Join(e.j.dir, sc.cwd)
	if filepath.IsAbs(sc.cwd) {
		start = sc.cwd
	}
	repo, found, err := gitdisc.Find(start)
	switch {
	case err != nil:
		return "", false
	case !found:
		return "", true
	}
	return repo.WorkTree + "\n", true
}

// outputAsCode reports a shell whose -c script (shellOperand) holds a
// program's unknown output (evalDynOut): sh -c "$(curl …)", sh -c -x
// "$(curl …)".
func outputAsCode(args []string) bool {
	argv := make([]field, len(args))
	for i, a := range args {
		argv[i] = field{val: a, raw: a}
	}
	inner, _ := innerCommand(argv)
	if len(inner) == 0 {
		return false
	}
	if name, ok := cmdName(inner[0]); !ok || !shellNames(name) {
		return false
	}
	k, cflag, _ := shellOperand(inner[1:])
	return cflag && k < len(inner)-1 && strings.Contains(inner[1+k].val, evalDynOut)
}

// shellSetupCommands are the programs whose documented use is to print
// shell code that sets up the environment, which the user's shell then
// evaluates (each tool's own README or manual: ssh-agent(1) -s/-c,
// pyenv/rbenv/nodenv/goenv/jenv init, direnv hook/export, conda and
// micromamba shell hooks, brew shellenv, starship/zoxide init, opam env,
// fnm env, mise activate/env, minikube docker-env/podman-env,
// docker-machine env, dircolors, keychain --eval, and the completion
// scripts of kubectl, helm, gh, npm, pip, rustup): their output, run by
// eval or source, is taken as that setup, not as unknown code. The first
// word after the name that is not an option must be one of the listed
// subcommands ("" for a program whose output needs none).
func shellSetupCommands(name string) ([]string, bool) {
	switch name {
	case "ssh-agent", "dircolors", "keychain":
		return []string{""}, true
	case "pyenv":
		return []string{"init", "virtualenv-init"}, true
	case "rbenv", "nodenv", "goenv", "jenv", "starship", "zoxide":
		return []string{"init"}, true
	case "direnv":
		return []string{"hook", "export"}, true
	case "conda":
		return []string{"shell.bash", "shell.zsh", "shell.posix", "shell"}, true
	case "micromamba", "mamba":
		return []string{"shell"}, true
	case "brew":
		return []string{"shellenv"}, true
	case "opam":
		return []string{"env", "config"}, true
	case "fnm", "docker-machine":
		return []string{"env"}, true
	case "mise":
		return []string{"activate", "env"}, true
	case "minikube":
		return []string{"docker-env", "podman-env"}, true
	case "kubectl", "helm", "gh", "npm", "pip", "pip3":
		return []string{"completion"}, true
	case "rustup":
		return []string{"completions"}, true
	}
	return nil, false
}

// shellSetupOutput reports a command that is one of shellSetupCommands.
func shellSetupOutput(argv []field) bool {
	if len(argv) == 0 {
		return false
	}
	name, ok := cmdName(argv[0])
	subs, listed := shellSetupCommands(name)
	if !ok || !listed {
		return false
	}
	for _, a := range argv[1:] {
		if strings.HasPrefix(a.val, "-") {
			continue
		}
		return slices.Contains(subs, a.val)
	}
	return slices.Contains(subs, "")
}

// known is the output of the few external commands whose output the judge
// can know: cat of its stdin or of files whose content is known.
func (e *evalRun) known(argv []field, stdin string, stdinKnown bool, sc *scope) (string, bool) {
	if top, ok := e.toplevel(argv, sc); ok {
		return top, true
	}
	if out, ok := e.pathOutput(argv); ok {
		return out, true
	}
	if len(argv) == 0 || argv[0].val != "cat" {
		return "", false
	}
	if len(argv) == 1 {
		return stdin, stdinKnown
	}
	var out strings.Builder
	for _, a := range argv[1:] {
		if strings.HasPrefix(a.val, "-") || a.dynamic() {
			return "", false
		}
		src, ok := e.j.scriptSource(sc, a.val)
		if !ok {
			return "", false
		}
		out.WriteString(src)
	}
	return out.String(), true
}

// scope is the judge's scope for a command the run reaches in dir: the
// working directory relative to the start, and the overlay so far.
func (e *evalRun) scope(dir string) *scope {
	sc := &scope{vars: map[string]string{}, dir: e.j.dir}
	if strings.Contains(dir, evalDyn) {
		sc.cwdUnknown = true
	} else if dir != e.start {
		if rel, err := filepath.Rel(e.start, dir); err == nil && !strings.HasPrefix(rel, "..") {
			sc.cwd = rel
		} else {
			sc.cwd = dir
		}
	}
	e.mu.Lock()
	sc.files = make(overlay, len(e.files))
	for k, v := range e.files {
		sc.files[k] = v
	}
	for k := range e.engines {
		if sc.engines == nil {
			sc.engines = map[string]bool{}
		}
		sc.engines[k] = true
	}
	e.mu.Unlock()
	return sc
}

// feed follows a command's stdin where the command runs it: the words xargs
// appends (or splices in with -I), the script a shell (sh, bash -s, sh -,
// sh /dev/stdin), at or batch reads. Unknown input becomes one unquoted
// unknown word for xargs and an unknown script for a shell; unknownCode
// reports input known only at run time that xargs -I splices into a
// shell's -c script.
func (e *evalRun) feed(argv []field, text string, known bool, sc *scope) (out []field, scripts []field, unknownCode bool) {
	inner, viaXargs := innerCommand(argv)
	if len(inner) == 0 {
		return argv, nil, false
	}
	name, ok := cmdName(inner[0])
	if viaXargs {
		name, ok = "xargs", true // xargs appends its input to the command
	}
	if !ok {
		return argv, nil, false
	}
	script := func() []field {
		if known {
			return []field{lit(text)}
		}
		// Known only in part ((cat x; echo CMD) | sh): the known lines are
		// judged, each unknown stretch standing for an unknown word.
		return []field{{val: unknownParts(text)}}
	}
	switch {
	case name == "xargs":
		return e.feedXargs(argv, inner, text, known, sc)
	case name == "at" || name == "batch" || name == "parallel" && parallelRunsStdin(inner[1:]):
		return argv, script(), false
	case name == "crontab" && crontabReadsStdin(inner[1:]):
		// echo '* * * * * CMD' | crontab -: the jobs' commands (remote.go)
		return argv, []field{{val: cronCommands(script()[0].val)}}, false
	case name == "ssh":
		// echo CMD | ssh host: with no command, the remote shell reads
		// its commands on stdin (remote.go)
		if _, given := sshCommand(inner[1:]); !given {
			return argv, script(), false
		}
	case (name == "docker" || name == "podman" || name == "nerdctl") && containerReadsScript(inner[1:]):
		return argv, script(), false // remote.go
	case shellNames(name) && stdinShell(inner[1:]):
		f := script()
		f[0] = withParams(f[0], stdinShellParams(inner[1:]))
		return argv, f, false
	case shellNames(name):
		return argv, e.shellScriptOperand(inner[1:], sc), false
	}
	return argv, nil, false
}

// feedXargs appends the words xargs reads (from stdin, text, or from -a
// FILE: the file as the command wrote it earlier, or on disk) to argv, or
// splices them in with -I; input known only at run time is one unquoted
// unknown word, and unknownCode reports such input spliced into a shell's
// -c script (xargs -I{} sh -c 'echo {}').
func (e *evalRun) feedXargs(argv, inner []field, text string, ok bool, sc *scope) ([]field, []field, bool) {
	if f, given := xargsArgFile(argv, len(argv)-len(inner)); given {
		text, ok = "", false
		if !f.dynamic() {
			text, ok = e.j.scriptSource(sc, f.val)
		}
	}
	if repl, replacing := xargsReplace(argv, len(argv)-len(inner)); replacing {
		out := xargsSubstitute(argv, len(argv)-len(inner), repl, text, ok)
		return out, nil, shellCodeHolds(inner, repl) && (!ok || strings.Count(strings.TrimSpace(text), "\n") > 0)
	}
	if !ok {
		return append(argv, field{val: dyn, raw: "$", unquoted: true}), nil, false
	}
	for _, w := range xargsWords(text) {
		argv = append(argv, lit(w))
	}
	return argv, nil, false
}

// shellScriptOperand returns the script a shell's operand names when the
// run knows it: the file a process substitution wrote (sh <(...)), or a
// script this command wrote earlier (printf ... > run.sh; bash run.sh),
// unknown when its content is; nil for any other operand.
func (e *evalRun) shellScriptOperand(args []field, sc *scope) []field {
	for _, a := range args {
		if strings.HasPrefix(a.val, "-") {
			continue
		}
		if strings.HasPrefix(a.val, procSubstDir+"/") {
			if src, ok := e.j.scriptSource(sc, a.val); ok {
				return []field{lit(src)}
			}
			return []field{{val: dyn}}
		}
		if f, ok := sc.files[sc.overlayKey(a.val)]; ok {
			if f.known {
				return []field{lit(f.content)}
			}
			return []field{{val: dyn}}
		}
		return nil
	}
	return nil
}

// readStdin reads a command's stdin (bounded): its text (with its evalDyn
// markers when unknown; empty past the bound), whether the text is known
// (no unknown part, within maxStdinBytes), and whether the command has
// a stdin of this command's making at all (a pipe, here-document or
// redirection; false for the shell's own stdin).
func readStdin(stdin io.Reader) (text string, known, piped bool) {
	if f, ok := stdin.(*os.File); stdin == nil || ok && f == nil {
		return "", true, false
	}
	b, err := io.ReadAll(io.LimitReader(stdin, maxStdinBytes+1))
	if err != nil || len(b) > maxStdinBytes {
		return "", false, true
	}
	if bytes.Contains(b, []byte(evalDyn)) {
		return string(b), false, true // unknown; the text keeps its markers
	}
	return string(b), true, true
}

// shellNames are the sh-family interpreters launchers.go follows.
func shellNames(name string) bool {
	switch name {
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "yash", "rbash":
		return true
	}
	return false
}

// stdinShell reports whether a shell with args reads its script from stdin:
// no -c and no script operand, -s, or the operand - or /dev/stdin.
func stdinShell(args []field) bool {
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "-" || v == "--" && i+1 == len(args):
			return true
		case v == "-o" || v == "+o" || v == "-O" || v == "+O" || v == "--rcfile" || v == "--init-file":
			i++
		case strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+"):
			if !strings.HasPrefix(v, "--") && strings.Contains(v, "c") {
				return false
			}
			if !strings.HasPrefix(v, "--") && strings.Contains(v, "s") {
				return true
			}
		default:
			return isStdinPath(v)
		}
	}
	return true
}

// xargsOptsStart returns the index in argv of the first option of the last
// xargs among argv[:cmd] (the command xargs runs starts at cmd), or -1.
func xargsOptsStart(argv []field, cmd int) int {
	start := -1
	for i := 0; i < cmd; i++ {
		if n, ok := cmdName(argv[i]); ok && n == "xargs" {
			start = i + 1
		}
	}
	return start
}

// xargsArgFile returns the file the xargs among argv[:cmd] reads its input
// from instead of stdin: -a FILE, -aFILE, --arg-file FILE, --arg-file=FILE
// (GNU findutils xargs(1)).
func xargsArgFile(argv []field, cmd int) (field, bool) {
	start := xargsOptsStart(argv, cmd)
	if start < 0 {
		return field{}, false
	}
	for i := start; i < cmd; i++ {
		v := argv[i].val
		switch {
		case (v == "-a" || v == "--arg-file") && i+1 < cmd:
			return argv[i+1], true
		case strings.HasPrefix(v, "--arg-file="):
			return withVal(argv[i], v[len("--arg-file="):]), true
		case strings.HasPrefix(v, "-a") && len(v) > 2:
			return withVal(argv[i], v[2:]), true
		}
	}
	return field{}, false
}

// xargsReplace returns the replace-string of the xargs among argv[:cmd]
// (argv[cmd:] is the command xargs runs), when it has one: -I R, -IR,
// -i, -iR, --replace, --replace=R (GNU findutils xargs(1); -i and
// --replace mean {}). With it, xargs runs the command once per input line
// with R replaced by the line inside every argument, instead of appending
// the input.
func xargsReplace(argv []field, cmd int) (string, bool) {
	start := xargsOptsStart(argv, cmd)
	if start < 0 {
		return "", false
	}
	repl, found := "", false
	for i := start; i < cmd; i++ {
		v := argv[i].val
		switch {
		case v == "-I" && i+1 < cmd:
			repl, found = argv[i+1].val, true
			i++
		case strings.HasPrefix(v, "-I") && len(v) > 2:
			repl, found = v[2:], true
		case v == "-i" || v == "--replace":
			repl, found = "{}", true
		case strings.HasPrefix(v, "-i") && len(v) > 2:
			repl, found = v[2:], true
		case strings.HasPrefix(v, "--replace="):
			repl, found = strings.TrimPrefix(v, "--replace="), true
		}
	}
	return repl, found && repl != ""
}

// xargsSubstitute returns argv with repl replaced inside every word of the
// command xargs runs (argv[cmd:]) by the input line: the one line of a known
// input, else (several lines, or input known only at run time) a value known
// only at run time, so the words it reaches are judged as unknown.
func xargsSubstitute(argv []field, cmd int, repl, text string, known bool) []field {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimLeft(l, " \t"); l != "" {
			lines = append(lines, l)
		}
	}
	with, dynamic := "", !known || len(lines) > 1
	if !dynamic && len(lines) == 1 {
		with = lines[0]
	}
	if dynamic {
		with = dyn
	}
	out := append([]field(nil), argv[:cmd]...)
	for _, a := range argv[cmd:] {
		if strings.Contains(a.val, repl) {
			a.val = strings.ReplaceAll(a.val, repl, with)
			a.raw = strings.ReplaceAll(a.raw, repl, with)
		}
		out = append(out, a)
	}
	return out
}

// shellCodeHolds reports whether the command xargs runs is a shell (or
// eval) whose -c script contains repl, so that xargs -I splices its input
// into code rather than into an argument.
func shellCodeHolds(inner []field, repl string) bool {
	name, ok := cmdName(inner[0])
	if !ok {
		return false
	}
	if name == "eval" {
		return slices.ContainsFunc(inner[1:], func(f field) bool { return strings.Contains(f.val, repl) })
	}
	if !shellNames(name) {
		return false
	}
	k, cflag, _ := shellOperand(inner[1:])
	return cflag && k < len(inner)-1 && strings.Contains(inner[1+k].val, repl) // the script, not its parameters
}

// stdinShellParams returns the positional parameters of a shell that reads
// its script from stdin (stdinShell): the operands after its options, after
// - or --, as bash -s ARG... and sh -s -- ARG... give them.
func stdinShellParams(args []field) []field {
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "-" || v == "--":
			return args[i+1:]
		case v == "-o" || v == "+o" || v == "-O" || v == "+O" || v == "--rcfile" || v == "--init-file":
			i++
		case strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+"):
		default:
			return args[i:]
		}
	}
	return nil
}

// xargsWords splits xargs input as GNU xargs does by default: blanks and
// newlines separate, single and double quotes group, backslash escapes.
func xargsWords(s string) []string {
	var out []string
	var b strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				b.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
			in = true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				out = append(out, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, b.String())
	}
	return out
}

// overlayWriter collects one opened file's writes into the run's overlay on
// Close.
type overlayWriter struct {
	e      *evalRun
	key    string
	append bool
	buf    bytes.Buffer
}

func (w *overlayWriter) Read([]byte) (int, error) { return 0, io.EOF }
func (w *overlayWriter) Write(p []byte) (int, error) {
	if w.buf.Len()+len(p) > maxScriptBytes {
		w.buf.WriteString(evalDyn) // past the bound: unknown
		return len(p), nil
	}
	return w.buf.Write(p)
}
func (w *overlayWriter) Close() error {
	w.e.mu.Lock()
	defer w.e.mu.Unlock()
	s := w.buf.String()
	w.e.files.write(w.key, s, !strings.Contains(s, evalDyn), w.append)
	return nil
}

type readOnly struct{ io.Reader }

func (readOnly) Write(p []byte) (int, error) { return len(p), nil }
func (readOnly) Close() error                { return nil }

// open serves the run's redirections and file reads without touching the
// disk for writing.
func (e *evalRun) open(ctx context.Context, path string, flag int, _ os.FileMode) (io.ReadWriteCloser, error) {
	hc := interp.HandlerCtx(ctx)
	switch path {
	case "/dev/null":
		return readOnly{bytes.NewReader(nil)}, nil
	case "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0":
		return readOnly{io.LimitReader(hc.Stdin, maxStdinBytes)}, nil
	case "/dev/stdout", "/dev/fd/1", "/dev/stderr", "/dev/fd/2", "/dev/tty":
		return readOnly{bytes.NewReader(nil)}, nil
	case unknownPath:
		return readOnly{strings.NewReader(evalDyn)}, nil
	}
	key := path
	if !shellAbs(key) {
		key = filepath.Join(hc.Dir, key)
	}
	key = e.rel(key)
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_TRUNC) != 0 {
		e.judgeWrite(hc.Dir, path)
		e.markMade(hc.Dir, path)
		return &overlayWriter{e: e, key: key, append: flag&os.O_APPEND != 0}, nil
	}
	e.mu.Lock()
	f, ok := e.files[key]
	e.mu.Unlock()
	if ok {
		if !f.known {
			if strings.Contains(f.content, evalDynOut) {
				// written from a program's output: source <(./p)
				return readOnly{strings.NewReader(evalDyn + evalDynOut)}, nil
			}
			return readOnly{strings.NewReader(evalDyn)}, nil
		}
		return readOnly{strings.NewReader(f.content)}, nil
	}
	if raw := path; hasDotDot(raw) {
		// The file the kernel opens: a `..` after a symbolic link leads
		// beside the link's target (xargs rm < l/../list), where the key's
		// lexical reading stays beside the link.
		if !shellAbs(raw) {
			raw = hc.Dir + "/" + raw
		}
		if !strings.HasPrefix(raw, evalRoot) {
			if phys, err := filepath.EvalSymlinks(raw); err == nil {
				if src, ok := readBounded(phys); ok {
					return readOnly{strings.NewReader(src)}, nil
				}
				return readOnly{strings.NewReader(evalDyn)}, nil
			}
		}
	}
	if src, ok := e.j.scriptSource(&scope{}, e.abs(key)); ok {
		return readOnly{strings.NewReader(src)}, nil
	}
	return readOnly{strings.NewReader(evalDyn)}, nil
}

// judgeWrite judges a redirection's target as the run expanded it (cat x >
// "$t"), as the static walk judges the target it can read (judge.stmt).
func (e *evalRun) judgeWrite(dir, path string) {
	if strings.HasPrefix(path, procSubstDir+"/") {
		return
	}
	sc := e.scope(dir)
	v := strings.ReplaceAll(path, evalDyn, dyn)
	k := sc.classify(field{val: v, raw: v})
	e.mu.Lock()
	defer e.mu.Unlock()
	if k.hooks {
		e.j.hits.add(RuleHooksDirTamper)
	}
	if k.gitConf {
		e.j.hits.add(RuleGitConfigFileWrite)
	}
	if k.gitState {
		e.j.hits.add(RuleGitPlumbing)
	}
	e.j.guardHit(k, false)
}

// rel is the overlay key of an absolute path: relative to the starting
// directory when below it (as the static walk keys relative paths).
func (e *evalRun) rel(p string) string {
	if rel, err := filepath.Rel(e.start, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.Clean(rel)
	}
	return filepath.Clean(p)
}

// abs is the disk path of an overlay key, "" when the key lies below the
// unknown starting directory.
func (e *evalRun) abs(key string) string {
	if shellAbs(key) {
		if strings.HasPrefix(key, evalRoot) {
			return ""
		}
		return key
	}
	if e.start == evalRoot {
		return ""
	}
	return filepath.Join(e.start, key)
}

// readDir serves globs: the real directory (at most maxGlobEntries entries)
// when the judge knows where the command runs, else nothing (a glob that
// matches nothing stays as written, which the static walk classifies).
func (e *evalRun) readDir(_ context.Context, path string) ([]fs.DirEntry, error) {
	made := e.madeIn(path)
	if strings.HasPrefix(path, evalRoot) || e.start == evalRoot && !shellAbs(path) {
		if len(made) > 0 {
			return made, nil
		}
		return nil, fs.ErrNotExist
	}
	f, err := os.Open(path)
	if err != nil {
		if len(made) > 0 {
			return made, nil
		}
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(maxGlobEntries + 1)
	ents = mergeEntries(ents, made)
	if len(ents) > maxGlobEntries {
		e.mu.Lock()
		e.bound = true
		e.mu.Unlock()
		return nil, errEvalBound
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return ents, nil
}

// stat answers cd and test: the real file when the directory is known,
// else a directory for every path (cd to anywhere succeeds).
func (e *evalRun) stat(_ context.Context, name string, follow bool) (fs.FileInfo, error) {
	if strings.HasPrefix(name, evalRoot) || e.start == evalRoot {
		return fakeDir(filepath.Base(name)), nil
	}
	e.mu.Lock()
	made := e.dirs[filepath.Clean(name)]
	e.mu.Unlock()
	if made {
		return fakeDir(filepath.Base(name)), nil
	}
	if follow {
		return os.Stat(name)
	}
	return os.Lstat(name)
}

// markMade records that the run may have created the file p (relative to
// dir), for the globs after it (readDir). A path known only at run time
// (evalDyn in a redirection's target as interp expands it, dyn in an
// operand the run handed to the judge) is recorded in madeUnknown.
func (e *evalRun) markMade(dir, p string) {
	if p == "" || strings.HasPrefix(p, "/dev/") {
		return
	}
	if !shellAbs(p) {
		p = filepath.Join(dir, p)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if unknownText(p) {
		// A name known only at run time: the later globs of every directory
		// may match it, since the unknown part may hold "/../" (mkdir out;
		// touch "out/$(date +../-nm%s)" makes ./-nm<digits>).
		e.madeUnknown = true
		return
	}
	if e.made == nil {
		e.made = map[string]bool{}
	}
	if len(e.made) < maxGlobEntries {
		e.made[filepath.Clean(p)] = true
	}
}

// madeIn returns the files and directories the run made directly in dir
// (made, dirs) as directory entries; a file whose name is known only at run
// time (madeUnknown) is an entry named evalDyn, which a glob matching any
// name expands to, and that word is then unknown.
func (e *evalRun) madeIn(dir string) []fs.DirEntry {
	dir = filepath.Clean(dir)
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []fs.DirEntry
	if e.madeUnknown {
		out = append(out, fs.FileInfoToDirEntry(fakeFile(evalDyn)))
		e.globUnknown = true
	}
	for p := range e.made {
		if filepath.Dir(p) == dir && !e.dirs[p] {
			out = append(out, fs.FileInfoToDirEntry(fakeFile(filepath.Base(p))))
		}
	}
	for p := range e.dirs {
		if filepath.Dir(p) == dir {
			out = append(out, fs.FileInfoToDirEntry(fakeDir(filepath.Base(p))))
		}
	}
	return out
}

// mergeEntries adds to ents the entries of made whose names ents lacks.
func mergeEntries(ents, made []fs.DirEntry) []fs.DirEntry {
	if len(made) == 0 {
		return ents
	}
	have := make(map[string]bool, len(ents))
	for _, d := range ents {
		have[d.Name()] = true
	}
	for _, d := range made {
		if !have[d.Name()] {
			ents = append(ents, d)
		}
	}
	return ents
}

// createdFiles returns the files a command creates by naming them (the
// operands of touch and tee; the last operand of cp, mv, ln and install,
// or their -t DIRECTORY with each source's name), for readDir. Options are
// skipped up to "--".
func createdFiles(argv []field) []string {
	if len(argv) < 2 {
		return nil
	}
	ops, target := fileOperands(argv)
	switch path.Base(argv[0].val) {
	case "touch", "tee":
		return ops
	case "cp", "mv", "ln", "install":
		if target != "" {
			var out []string
			for _, o := range ops {
				out = append(out, filepath.Join(target, filepath.Base(o)))
			}
			return out
		}
		if len(ops) >= 2 {
			return ops[len(ops)-1:]
		}
	}
	return nil
}

// fileOperands returns the operands of a file command (cp, mv, ln,
// install, touch, tee) and its -t/--target-directory DIRECTORY; options
// (with the value of those that take one) are skipped up to "--".
func fileOperands(argv []field) (ops []string, target string) {
	valued := "S" // --suffix (cp, mv, ln, install; GNU coreutils 9.1)
	if path.Base(argv[0].val) == "install" {
		valued = "SmogZ" // --mode, --owner, --group, --context
	}
	opts := true
	for i := 1; i < len(argv); i++ {
		v := argv[i].val
		switch {
		case opts && v == "--":
			opts = false
		case opts && len(v) == 2 && v[0] == '-' && strings.IndexByte(valued, v[1]) >= 0:
			i++ // -m 755
		case opts && (v == "-t" || v == "--target-directory") && i+1 < len(argv):
			target = argv[i+1].val
			i++
		case opts && strings.HasPrefix(v, "--target-directory="):
			target = v[len("--target-directory="):]
		case opts && strings.HasPrefix(v, "-") && v != "-":
		default:
			ops = append(ops, v)
		}
	}
	return ops, target
}

// copyPair is a file cp, mv, ln or install makes from another: dst then
// holds what src held.
type copyPair struct{ src, dst string }

// copies returns the copies (links) cp, mv, ln and install make, with
// their sources: each source into -t DIRECTORY, or into the last operand
// when it ends in "/" or isDir reports it a directory, else the one source
// onto it. A pair with a word known only at run time is left out.
func copies(argv []field, isDir func(string) bool) []copyPair {
	if len(argv) < 3 {
		return nil
	}
	switch path.Base(argv[0].val) {
	case "cp", "mv", "ln", "install":
	default:
		return nil
	}
	ops, target := fileOperands(argv)
	srcs := ops
	if target == "" && len(ops) >= 2 {
		srcs, target = ops[:len(ops)-1], ops[len(ops)-1]
		if len(srcs) == 1 && !strings.HasSuffix(target, "/") && !isDir(target) {
			if unknownText(srcs[0]) || unknownText(target) {
				return nil
			}
			return []copyPair{{srcs[0], target}}
		}
	}
	var out []copyPair
	for _, s := range srcs {
		if !unknownText(s) && !unknownText(target) {
			out = append(out, copyPair{s, filepath.Join(target, filepath.Base(s))})
		}
	}
	return out
}

type fakeFile string

func (f fakeFile) Name() string     { return string(f) }
func (fakeFile) Size() int64        { return 0 }
func (fakeFile) Mode() fs.FileMode  { return 0o644 }
func (fakeFile) ModTime() time.Time { return time.Time{} }
func (fakeFile) IsDir() bool        { return false }
func (fakeFile) Sys() any           { return nil }

type fakeDir string

func (d fakeDir) Name() string     { return string(d) }
func (fakeDir) Size() int64        { return 0 }
func (fakeDir) Mode() fs.FileMode  { return fs.ModeDir | 0o755 }
func (fakeDir) ModTime() time.Time { return time.Time{} }
func (fakeDir) IsDir() bool        { return true }
func (fakeDir) Sys() any           { return nil }

// unknownEnv is the environment a symbolic run inherits: every variable is
// unknown, as dyn (set) or unset, except IFS (bash resets it at start-up).
type unknownEnv struct {
	set   bool
	known map[string]string
}

// siteVarNames are the inherited variables a symbolic run takes from the
// environment of the process that runs the command (Site.LookupEnv) instead
// of leaving them unknown: the directories programs and the engine are
// installed under, so rm -rf "$GOPATH/bin" is judged as the directory it
// names. Every other inherited variable stays unknown (the two runs).
var siteVarNames = []string{"HOME", "GOPATH", "GOBIN", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_BIN_HOME",
	"CARGO_HOME", "PNPM_HOME", "PYENV_ROOT", "NVM_DIR", "VOLTA_HOME", "BUN_INSTALL", "DENO_INSTALL", "HOOKWARDEN_BIN"}

// siteVars returns known with the siteVarNames the site's environment holds
// added where known does not set them (the command's own assignments win).
func (j *judge) siteVars(known map[string]string) map[string]string {
	if j.env == nil {
		return known
	}
	for _, n := range siteVarNames {
		if _, set := known[n]; set {
			continue
		}
		if v, ok := j.env(n); ok {
			if known == nil {
				known = map[string]string{}
			}
			known[n] = v
		}
	}
	return known
}

// knownEnv holds the assignments with known values an enclosing command
// exported to this script (export O=x; bash -c '...$O...').
func knownEnv(env []envVar) map[string]string {
	var out map[string]string
	for _, e := range env {
		if out == nil {
			out = map[string]string{}
		}
		if e.val.dynamic() {
			delete(out, e.name)
			continue
		}
		out[e.name] = e.val.val
	}
	return out
}

func (u unknownEnv) Get(name string) expand.Variable {
	if v, ok := u.known[name]; ok {
		return expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: v}
	}
	if !u.set || name == "IFS" || name == "OPTIND" || strings.HasPrefix(name, "BASH") {
		return expand.Variable{}
	}
	return expand.Variable{Set: true, Exported: false, Kind: expand.String, Str: evalDyn}
}

func (unknownEnv) Each(func(string, expand.Variable) bool) {}

// evalProcSubst returns the text eval runs with its process substitutions
// rewritten as rewriteProcSubst does for the command itself (overlay paths
// procSubstDir/eSTEP-N, apart from the command's), and whether there was
// one to rewrite: eval "${X:-source <(printf …)}" builds the <(…) only at
// run time, where interp would otherwise make a real FIFO (none on Windows,
// where the code went unjudged). Text that does not parse is left to eval.
func evalProcSubst(text string, step int) (string, bool) {
	if !strings.Contains(text, "<(") && !strings.Contains(text, ">(") {
		return "", false
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(text), "")
	if err != nil {
		return "", false
	}
	if rewriteProcSubst(f, procSubstDir+"/e"+strconv.Itoa(step)+"-") == 0 {
		return "", false
	}
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, f); err != nil {
		return "", false
	}
	return b.String(), true
}

// rewriteProcSubst replaces each process substitution <(cmds) with a command
// substitution that runs cmds with their output in the overlay file
// procSubstDir/N and yields that path, and >(cmds) with one that runs cmds
// reading unknown input; interp would otherwise create a real FIFO (and on
// Windows, where it has none, fail). prefix starts each overlay path
// (procSubstDir + "/" for the command, a longer one for text eval runs).
// It returns how many it replaced.
func rewriteProcSubst(f *syntax.File, prefix string) int {
	n := 0
	syntax.Walk(f, func(node syntax.Node) bool {
		w, ok := node.(*syntax.Word)
		if !ok {
			return true
		}
		for i, p := range w.Parts {
			ps, ok := p.(*syntax.ProcSubst)
			if !ok {
				continue
			}
			n++
			path := prefix + strconv.Itoa(n)
			redir := &syntax.Redirect{Op: syntax.RdrOut, Word: litWord(path)}
			if ps.Op == syntax.CmdOut {
				redir = &syntax.Redirect{Op: syntax.RdrIn, Word: litWord(unknownPath)}
				path = "/dev/null"
			}
			block := &syntax.Stmt{Cmd: &syntax.Block{Stmts: ps.Stmts}, Redirs: []*syntax.Redirect{redir}}
			echo := &syntax.Stmt{Cmd: &syntax.CallExpr{Args: []*syntax.Word{litWord("echo"), litWord(path)}}}
			w.Parts[i] = &syntax.CmdSubst{Stmts: []*syntax.Stmt{block, echo}}
		}
		return true
	})
	return n
}

// rewriteDefaultQuotes makes single quotes literal in the word of
// ${x:-word}, ${x-word}, ${x:=word}, ${x:+word} and their kin inside double
// quotes, as bash reads them (bash(1), "Parameter Expansion": in
// "${x:-'a b'}" the quotes are kept) and interp does not: so
// eval "${X:-bash -c 'git commit -n'}" is run with the code bash would
// hand eval.
func rewriteDefaultQuotes(f *syntax.File) {
	syntax.Walk(f, func(node syntax.Node) bool {
		dq, ok := node.(*syntax.DblQuoted)
		if !ok {
			return true
		}
		for _, p := range dq.Parts {
			if pe, ok := p.(*syntax.ParamExp); ok {
				literalQuotes(pe)
			}
		}
		return true
	})
}

// literalQuotes rewrites one parameter expansion's default, alternate or
// assigned word (and those nested in it) for rewriteDefaultQuotes.
func literalQuotes(pe *syntax.ParamExp) {
	if pe.Exp == nil || pe.Exp.Word == nil {
		return
	}
	switch pe.Exp.Op {
	case syntax.AlternateUnset, syntax.AlternateUnsetOrNull, syntax.DefaultUnset, syntax.DefaultUnsetOrNull,
		syntax.AssignUnset, syntax.AssignUnsetOrNull, syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
	default:
		return
	}
	for i, p := range pe.Exp.Word.Parts {
		switch x := p.(type) {
		case *syntax.SglQuoted:
			if !x.Dollar {
				pe.Exp.Word.Parts[i] = &syntax.Lit{ValuePos: x.Left, ValueEnd: x.Right, Value: "'" + x.Value + "'"}
			}
		case *syntax.ParamExp:
			literalQuotes(x)
		}
	}
}

func litWord(s string) *syntax.Word {
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: s}}}
}

// loopMark is the argument of the `:` the evaluator puts at the head of each
// loop body, so that every iteration passes the call handler (steps and the
// size of the variables) even when the body only assigns.
const loopMark = "\x00hookwarden-loop"

// noXtrace drops xtrace from a set command's options (set -x, -euxo
// pipefail, -o xtrace): the run prints nothing, and interp's trace refuses
// some values.
func noXtrace(args []string) []string {
	out := args[:1:1]
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case (a == "-o" || a == "+o") && i+1 < len(args) && args[i+1] == "xtrace":
			i++
			continue
		case len(a) > 1 && (a[0] == '-' || a[0] == '+') && a != "--" && !strings.HasPrefix(a, "--"):
			if o := strings.ReplaceAll(a, "x", ""); len(o) > 1 {
				out = append(out, o)
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// markLoops puts `: loopMark<N>` first in each for and while body.
func markLoops(f *syntax.File) {
	n := 0
	mark := func() *syntax.Stmt {
		n++
		return &syntax.Stmt{Cmd: &syntax.CallExpr{Args: []*syntax.Word{litWord(":"), litWord(loopMark + strconv.Itoa(n))}}}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.ForClause:
			if len(x.Do) == 0 || !isLoopMark(x.Do[0]) {
				x.Do = append([]*syntax.Stmt{mark()}, x.Do...)
			}
		case *syntax.WhileClause:
			if len(x.Do) == 0 || !isLoopMark(x.Do[0]) {
				x.Do = append([]*syntax.Stmt{mark()}, x.Do...)
			}
		}
		return true
	})
}

func isLoopMark(st *syntax.Stmt) bool {
	c, ok := st.Cmd.(*syntax.CallExpr)
	return ok && len(c.Args) == 2 && strings.HasPrefix(c.Args[1].Lit(), loopMark)
}
