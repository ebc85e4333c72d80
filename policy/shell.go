package policy

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// maxDepth bounds nested scripts (bash -c, eval, cmd /c, powershell -c,
// aliases, env -S ...). Deeper nesting denies with scan-bound-nesting.
const maxDepth = 8

// maxLauncherWords bounds the launcher steps (env, nice, timeout, sudo, ...)
// one command may take before the command they run, the command itself
// counted. More denies with RuleScanBoundWords, in the judge and in the
// target scan (ScanTargets) alike: a chain no one follows is never allowed.
const maxLauncherWords = 64

// judge is the state of one Judge call.
type judge struct {
	p    *Policy
	hits *hitSet
	// guesses counts the commands found in other programs' arguments being
	// judged (embeddedCommand): inside a command line found in one word,
	// a program's words are still read for git, and no further.
	guesses int
	// writing is set while writtenFile judges code the command writes to a
	// file (a write there is not judged again).
	writing bool
	// adm is set for an admission walk (Policy.Admit): admHit records the
	// first heavy step or unreadable command outside `hookwarden admit`;
	// admitted is true inside one.
	adm      *Admission
	admHit   *admissionHit
	admitted bool
	// dir is the absolute directory the command starts in ("" when not
	// known: nothing relative is read from disk).
	dir string
	// env is the environment of the process that runs the command (Site's
	// LookupEnv; nil when not known): git's configuration files and PATH
	// are found with it.
	env func(string) (string, bool)
	// siteEngines: the engines the launcher would choose where the command
	// runs (siteEngineList), found once per call; siteEnginesDone is set
	// after.
	siteEngines     []string
	siteEnginesDone bool
	// holders: the governed repositories found on disk so far (holders.go).
	holders *holderState
	// evalDeadline ends every symbolic run of this call (eval.go); set by
	// the first one.
	evalDeadline time.Time
	// judged: the scripts (scriptKey) this call has judged.
	judged map[string]bool
	// dynPending: the statements of the script being walked whose only
	// finding is git-dynamic-option, left for the evaluator
	// (commandPending); nested counts the scripts judged so far.
	dynPending map[syntax.Pos]bool
	nested     int
	// cmd holds the parses of this call's scripts (Command); nil parses
	// each script anew.
	cmd *Command
	// gitReplies: git's answers to the questions this call asked
	// (gitask.go), by directory and arguments.
	gitReplies map[string]gitReply
	// gitDeadline ends every git question of this call; set by the
	// first one (gitAskBudget).
	gitDeadline time.Time
	// gitMoved: a git command that runs before the one being judged may
	// have changed what HEAD and the index hold (gitLeavesIndex), so the
	// git state the governance questions read (the state before the call)
	// is not the one that command meets (governance.go). It is kept per
	// pass over a script: the static walk and each symbolic run start from
	// gitEntry, the state where the script itself runs, so a statement is
	// not taken to run after its own judgement in another pass.
	gitMoved, gitEntry bool
	// gitRefs: the branches and tags an earlier git branch, git tag or
	// git fetch of this call made or moved, and HEAD an earlier git reset
	// moved, each to the revision it names then (noteRefMove); a later
	// command naming one means that revision. Kept per pass like gitMoved,
	// from gitEntryRefs.
	gitRefs, gitEntryRefs map[string]field
	// arg0 is the $0 of the next script judged (shellC), "" for the
	// default; script takes it over and clears it.
	arg0 string
	// lines are the simple commands the walk and the evaluator judged,
	// each as its words joined by one space (ran), for the operator
	// patterns; kept only when the policy has some or the command asks
	// for them (Command.KeepRan).
	lines []string
}

// scriptKey identifies one script judgement: its text, depth and the
// environment it inherits.
func scriptKey(src string, depth int, env []envVar) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(depth))
	for _, e := range env {
		b.WriteString("\x00")
		b.WriteString(e.name)
		b.WriteString("=")
		b.WriteString(e.val.val)
	}
	b.WriteString("\x01")
	b.WriteString(src)
	return b.String()
}

// admission records h as the walk's admission finding unless one is
// recorded or the command runs under `hookwarden admit`.
func (j *judge) admission(h admissionHit) {
	if j.adm != nil && j.admHit == nil && !j.admitted {
		j.admHit = &h
	}
}

// envVar is one environment assignment in effect for a command.
type envVar struct {
	name string
	val  field
}

// script parses src as a shell script and judges every command in it. env
// holds assignments inherited from enclosing launchers. A script that does
// not parse is judged by the text rules.
func (j *judge) script(src string, depth int, env []envVar) {
	arg0 := j.arg0
	j.arg0 = ""
	if depth > maxDepth {
		j.hits.add(RuleScanBoundNesting)
		return
	}
	// The same script at the same depth with the same environment adds
	// nothing the first judgement did not: the static walk and both
	// symbolic runs reach a nested bash -c or eval each, which would
	// otherwise cost 3^depth.
	key := scriptKey(src, depth, env) + "\x02" + arg0
	if j.judged[key] {
		return
	}
	if j.judged == nil {
		j.judged = map[string]bool{}
	}
	j.judged[key] = true
	f, err := j.cmd.parse(src, false)
	if err != nil {
		j.admission(admissionHit{rule: RuleAdmissionUnreadable})
		if id := j.p.textMatch(j.p.Normalise(src)); id != "" {
			j.hits.add(id)
		}
		// A script the parser rejects may still run (bash runs an unclosed
		// here-document to the end of input), so naming a guard file in it
		// is refused as it is in interpreter code.
		j.guardMention(src, true)
		return
	}
	defined, assigned := scriptNames(f)
	sc := &scope{vars: map[string]string{}, defined: defined, assigned: assigned, dir: j.dir, allExport: allExportSet(src)}
	for _, p := range j.siteEngineList() {
		if sc.engines == nil {
			sc.engines = map[string]bool{}
		}
		sc.engines[p] = true
	}
	j.nested++
	outerPending := j.dynPending
	j.dynPending = map[syntax.Pos]bool{}
	defer func() { j.dynPending = outerPending }()
	defer j.gitScriptEntry()()
	var innerPipes map[*syntax.BinaryCmd]bool
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Stmt:
			j.stmt(x, depth, env, sc)
		case *syntax.DeclClause:
			j.declClause(x, depth, env, sc)
		case *syntax.ForClause:
			j.forOperands(x, sc)
		case *syntax.BinaryCmd:
			if (x.Op == syntax.Pipe || x.Op == syntax.PipeAll) && !innerPipes[x] {
				innerPipes = markInnerPipes(x, innerPipes)
				j.pipeline(x, depth, env, sc)
			}
		}
		return true
	})
	pending := j.dynPending
	j.dynPending = nil
	if sc.overflow {
		j.hits.add(RuleScanBoundCommand)
		return // denied whole; never built by the evaluator either
	}
	walked, walkedRefs := j.gitMoved, j.gitRefs
	known := j.evaluate(f, depth, env, arg0)
	j.gitAfterRuns(walked, walkedRefs)
	for pos := range pending {
		if !known[pos] {
			j.hits.add(RuleGitDynamicOption)
		}
	}
}

// declClause judges a declaration (export, declare, local, readonly, typeset)
// in sc: each NAME=VALUE as an assignment (exported) and a prompt's code,
// a naked word as declNaked does; export NAME after a plain NAME=… exports
// what it holds.
func (j *judge) declClause(x *syntax.DeclClause, depth int, env []envVar, sc *scope) {
	for _, a := range x.Args {
		if a.Naked && a.Name == nil {
			j.declNaked(sc.word(a.Value), sc)
		}
		if a.Name == nil || a.Naked {
			continue
		}
		v := sc.word(a.Value)
		j.promptCode(a.Name.Value, v, depth, env)
		j.assignment(a.Name.Value, v, true)
		sc.exported(a.Name.Value, v)
		sc.noteSubstVar(a.Name.Value, a.Value)
	}
	for _, a := range x.Args {
		if a.Naked && a.Name != nil && x.Variant.Value != "local" && x.Variant.Value != "readonly" {
			if v, ok := sc.plainHook[a.Name.Value]; ok {
				j.assignment(a.Name.Value, v, true)
			}
		}
	}
}

// markInnerPipes adds to inner (allocated when nil) every pipeline nested
// as a side of the pipeline x, so that the walk judges a pipeline once,
// from its outermost node; it returns inner.
func markInnerPipes(x *syntax.BinaryCmd, inner map[*syntax.BinaryCmd]bool) map[*syntax.BinaryCmd]bool {
	for _, side := range []*syntax.Stmt{x.X, x.Y} {
		if b, ok := side.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
			if inner == nil {
				inner = map[*syntax.BinaryCmd]bool{}
			}
			inner[b] = true
			inner = markInnerPipes(b, inner)
		}
	}
	return inner
}

// stdinFromDescriptor reports a statement whose standard input is another
// descriptor of the shell (<&3, 0<&4) or a descriptor path (< /dev/fd/3):
// its content is not a file or text the judge can read.
func stdinFromDescriptor(st *syntax.Stmt) bool {
	for _, r := range st.Redirs {
		if r.N != nil && r.N.Value != "0" || r.Word == nil {
			continue
		}
		w := r.Word.Lit()
		switch r.Op {
		case syntax.DplIn:
			if w != "0" && w != "-" {
				return true
			}
		case syntax.RdrIn:
			if w == "" || fdPath(w) {
				return true
			}
		}
	}
	return false
}

// promptCode judges the shell variables whose value bash runs or expands as
// code later (bash(1), PARAMETERS and PROMPTING): PROMPT_COMMAND is run
// before each prompt of an interactive shell; PS0 to PS4 are expanded with
// command substitution before a prompt, or PS4 before each command xtrace
// (set -x, bash -x) prints. PROMPT_COMMAND='git commit -n' bash -i and
// PS4='$(git commit -n)' bash -xc true run the code at once, so an
// assignment to one of them is judged as the code it holds, whatever
// follows.
func (j *judge) promptCode(name string, v field, depth int, env []envVar) {
	switch name {
	case "PROMPT_COMMAND":
		j.scriptField(v, depth+1, env)
	case "PS0", "PS1", "PS2", "PS3", "PS4":
		// Expanded as a double-quoted word: a no-op command with the value
		// as its words runs the same substitutions.
		j.scriptField(field{val: ": " + v.val, raw: v.raw, decoded: v.decoded}, depth+1, env)
	}
}

// withParams returns the script field s prefixed with a set -- of params,
// so the script sees them as $1 ... (sh -c SCRIPT NAME ARG..., sh -s
// ARG...): each literal word single-quoted, a word known only at run time
// as the unknown expansion.
func withParams(s field, params []field) field {
	if len(params) == 0 {
		return s
	}
	var b strings.Builder
	b.WriteString("set --")
	for _, p := range params {
		b.WriteByte(' ')
		if p.dynamic() {
			b.WriteString(`"${__hookwarden_dynamic}"`)
			continue
		}
		b.WriteString("'" + strings.ReplaceAll(p.val, "'", `'\''`) + "'")
	}
	b.WriteByte('\n')
	out := s
	out.val = b.String() + s.val
	return out
}

// shellC judges sh -c's operands: words[0] the script, words[1] (when
// given) its $0 and the rest its positional parameters, so `bash -c
// 'terraform $0' destroy` and `sh -c 'terraform "$@"' x destroy` run
// "terraform destroy" for the evaluator and the operator patterns.
func (j *judge) shellC(words []field, depth int, env []envVar) {
	var params []field
	if len(words) > 2 {
		params = words[2:]
	}
	if len(words) > 1 {
		j.arg0 = words[1].val
		if words[1].dynamic() {
			j.arg0 = evalDyn
		}
	}
	j.scriptField(withParams(words[0], params), depth, env)
	j.arg0 = ""
}

// scriptField judges a field holding a script; run-time parts become a
// parameter expansion so the parser keeps them dynamic.
func (j *judge) scriptField(f field, depth int, env []envVar) {
	if f.decoded {
		j.hits.add(RuleDecodedCodeToShell)
	}
	j.script(strings.ReplaceAll(f.val, dyn, "${__hookwarden_dynamic}"), depth, env)
}

func isOutputRedirect(op syntax.RedirOperator) bool {
	switch op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrAll, syntax.AppAll, syntax.ClbOut, syntax.RdrAllClob, syntax.AppAllClob:
		return true
	}
	return false
}

func (j *judge) stmt(st *syntax.Stmt, depth int, env []envVar, sc *scope) {
	for _, r := range st.Redirs {
		if r.Word == nil {
			continue
		}
		if isOutputRedirect(r.Op) || (r.Op == syntax.DplOut && r.Word.Lit() != "-" && !isDigits(r.Word.Lit())) {
			k := sc.classify(sc.word(r.Word))
			if k.hooks {
				j.hits.add(RuleHooksDirTamper)
			}
			if k.gitConf {
				j.hits.add(RuleGitConfigFileWrite)
			}
			j.guardHit(k, false)
		}
	}
	defer j.recordWrites(st, sc)
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok {
		return
	}
	var local []envVar
	for _, a := range call.Assigns {
		if a.Name == nil {
			continue
		}
		v := sc.word(a.Value)
		j.promptCode(a.Name.Value, v, depth, env)
		if len(call.Args) == 0 {
			sc.noteSubstVar(a.Name.Value, a.Value)
			if j.plainHookVar(a.Name.Value, v, sc) {
				// SKIP=… as a plain shell variable the environment does not
				// hold: not exported, so no hook manager reads it (a git
				// command later in this script still sees it: sc.exported)
				if sc.plainHook == nil {
					sc.plainHook = map[string]field{}
				}
				sc.plainHook[a.Name.Value] = v
				sc.exported(a.Name.Value, v)
				continue
			}
			j.assignment(a.Name.Value, v, true)
			sc.exported(a.Name.Value, v)
			continue
		}
		local = append(local, envVar{name: a.Name.Value, val: v})
	}
	if len(call.Args) == 0 {
		return
	}
	var argv []field
	for _, w := range call.Args {
		argv = append(argv, sc.fields(w)...)
	}
	if stdinFromDescriptor(st) && stdinProgram(argv) {
		// exec 3<<<'…'; bash <&3: the script is what descriptor 3 holds
		// when the shell runs, which the judge cannot read.
		j.hits.add(RuleScriptUnknown)
	}
	j.substOperands(call, argv, sc)
	j.fileOperands(st, argv, sc)
	all := append(append(append([]envVar(nil), env...), sc.env...), local...)
	j.commandPending(call, argv, all, depth, st, sc)
}

// commandPending judges a statement's command; a statement whose only
// finding is git-dynamic-option, reached without judging a nested script,
// is left pending for the evaluator (dynPending): when both symbolic runs
// reach it and every word it gets there is known, the value is judged
// instead (set -- --verbose; git commit $*), else the finding stands.
func (j *judge) commandPending(call *syntax.CallExpr, argv []field, env []envVar, depth int, st *syntax.Stmt, sc *scope) {
	if j.dynPending == nil {
		j.command(argv, env, depth, st, sc)
		return
	}
	prev, nested := j.hits, j.nested
	local := &hitSet{}
	j.hits = local
	j.command(argv, env, depth, st, sc)
	j.hits = prev
	if local.best == RuleGitDynamicOption && !local.others && j.nested == nested {
		j.dynPending[call.Pos()] = true
		return
	}
	if local.best != "" {
		prev.add(local.best)
		prev.others = prev.others || local.others
	}
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// allExportOn matches set -a (also in a cluster, -ea) and set -o allexport.
var allExportOn = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[\s;&|(])set\s+(-[A-Za-z]*a|-o\s+allexport)`)
})

// allExportSet reports whether src turns on allexport (allExportOn). A
// script without the word "set" cannot match, and most do not hold it, so
// the expression is compiled only for one that does (a hook process judges
// one command, and the compile was a measurable part of it).
func allExportSet(src string) bool {
	return strings.Contains(src, "set") && allExportOn().MatchString(src)
}

// plainHookVar reports a plain assignment (NAME=V, no export) of a
// hook-manager switch that stays a shell variable: the environment of the
// process that runs the command is known (Site.LookupEnv) and does not hold
// NAME, and the script does not turn on allexport. Such a variable reaches
// no hook manager unless exported later (export NAME) or given to a command
// of the same script, which are judged where they happen.
func (j *judge) plainHookVar(name string, v field, sc *scope) bool {
	if j.env == nil || sc.allExport || !hookManagerOff(name, v) {
		return false
	}
	_, inherited := j.env(name)
	return !inherited
}

// assignment judges one environment assignment. standalone is true for a
// plain or exported assignment statement, which affects every later command,
// so hook-manager switches deny there whatever follows.
func (j *judge) assignment(name string, v field, standalone bool) {
	if id := configEnvRule(name, v); id != "" {
		j.hits.add(id)
	}
	if standalone && hookManagerOff(name, v) {
		j.hits.add(RuleHookManagerEnv)
	}
	if standalone && claudeEnvOff(name, v) {
		j.hits.add(RuleSelfProtectClientHooks)
	}
}

// isGitConfigKeyVar reports GIT_CONFIG_KEY_<n>.
func isGitConfigKeyVar(name string) bool {
	n, ok := strings.CutPrefix(name, "GIT_CONFIG_KEY_")
	return ok && isDigits(n)
}

// configEnvRule judges git's environment configuration: GIT_CONFIG_KEY_<n>
// naming core.hooksPath or an include, and GIT_CONFIG_PARAMETERS mentioning
// them (git-config(1), ENVIRONMENT).
func configEnvRule(name string, v field) string {
	switch {
	case isGitConfigKeyVar(name):
		if hooksKey(strings.ToLower(v.val)) {
			return RuleHooksPathConfig
		}
	case name == "GIT_CONFIG_PARAMETERS":
		l := strings.ToLower(v.val)
		if strings.Contains(l, "core.hookspath") || strings.Contains(l, "include.path") || strings.Contains(l, "includeif.") {
			return RuleHooksPathConfig
		}
	}
	return ""
}

// hooksKey reports whether a lower-cased config key steers hooks: core.hooksPath
// or an include that could set it.
func hooksKey(lk string) bool {
	return lk == "core.hookspath" || lk == "include.path" || (strings.HasPrefix(lk, "includeif.") && strings.HasSuffix(lk, ".path"))
}

// gitLike reports whether a resolved command name runs git (or may: a name
// known only at run time).
func gitLike(name string, known bool) bool {
	return !known || name == "git" || strings.HasPrefix(name, "git-")
}

// command judges one simple command after launcher resolution.
func (j *judge) command(argv []field, env []envVar, depth int, st *syntax.Stmt, sc *scope) {
	j.ran(argv)
	if j.adm != nil {
		// Scripts nested in this command (bash -c, xargs) inherit its
		// admission; the next command does not.
		defer func(prev bool) { j.admitted = prev }(j.admitted)
	}
	for steps := 0; len(argv) > 0; steps++ {
		if steps >= maxLauncherWords {
			j.hits.add(RuleScanBoundWords)
			return
		}
		name, known := cmdName(argv[0])
		if known && sc.defined[name] {
			known = false // a function or alias the script defines
		}
		args := argv[1:]
		if gitLike(name, known) {
			for _, e := range env {
				if hookManagerOff(e.name, e.val) {
					j.hits.add(RuleHookManagerEnv)
				}
			}
		}
		for _, e := range env {
			if id := configEnvRule(e.name, e.val); id != "" {
				j.hits.add(id)
			}
		}
		if j.adm != nil && known {
			if name == "hookwarden" && len(argv) > 1 && argv[1].val == "admit" {
				j.admitted = true
			} else if step := j.adm.heavy(name, argv[1:]); step != "" {
				j.admission(admissionHit{rule: RuleAdmissionRequired, step: step})
			}
		}
		if !known {
			j.admission(admissionHit{rule: RuleAdmissionUnreadable})
			// A command known only at run time ($(echo rm) .hookwarden.yaml)
			// may be any command: a guard path or hooks directory among its
			// words is refused as a removal would be.
			words := append(dynPieces(argv[0]), args...)
			for _, a := range args {
				words = append(words, dynPieces(a)...)
			}
			for _, a := range words {
				k := sc.classify(a)
				if k.hooks {
					j.hits.add(RuleHooksDirTamper)
				}
				j.guardHit(k, true)
			}
			j.unknownShellCode(args, env, depth)
			if unknownNameMatters(args) {
				j.git(args, env, depth, st, sc, nil)
				j.unknownGitSub(args)
			}
			return
		}
		if strings.Contains(argv[0].val, "/") && (!strings.HasPrefix(argv[0].val, "/") || j.dir != "") {
			// ./run.sh (scripts.go); an absolute path too where the
			// command's directory is known ("$(CURDIR)/scripts/x.sh").
			j.scriptFile("exec", argv[0], env, depth, sc)
		}
		next, more := j.launcher(name, args, &env, depth, st, sc)
		if !more {
			return
		}
		argv = next
	}
}

// unknownNameMatters reports whether a command whose name is known only at
// run time could be a hook-skipping git call by its known words: a git
// command name, a short option cluster holding n, an option starting
// --no- or --config, -c before a name=value or an unknown word, or a word
// naming hooks, verify or an alias.
// Without one ($CC $CFLAGS -o x x.c, ${GO} generate ./...), whatever the
// name is, the words it is given skip no hook, so the unknown words among
// them (which the agent's command does not set) do not change the verdict.
// A guard path or hooks directory among the words, a hook-manager switch
// in its environment and shell code after -c are judged regardless.
func unknownNameMatters(args []field) bool {
	for i, a := range args {
		if a.val == "-c" {
			// git -c takes name=value; a compiler's -c takes a file.
			if i+1 < len(args) && (args[i+1].dynamic() || strings.Contains(args[i+1].val, "=")) {
				return true
			}
			continue
		}
		words := []field{a}
		if a.dynamic() {
			words = dynPieces(a)
		}
		for _, w := range words {
			if gitSensitiveWord(w.val) {
				return true
			}
		}
	}
	return false
}

// gitSensitiveWord is one known word of unknownNameMatters.
func gitSensitiveWord(w string) bool {
	l := strings.ToLower(w)
	switch {
	case isGitBuiltin(w), strings.HasPrefix(l, "--config"), strings.HasPrefix(l, "--no-"):
		return true
	case len(l) > 1 && l[0] == '-' && l[1] != '-' && strings.Contains(l, "n"):
		return true
	}
	return strings.Contains(l, "hook") || strings.Contains(l, "verify") || strings.Contains(l, "alias")
}

// unknownShellCode judges the code a command known only at run time would
// run if it were a shell: the word after -c (or an option cluster ending in
// c, -ec, -xc). $SH -c 'git commit -n -m x' is judged as its code.
func (j *judge) unknownShellCode(args []field, env []envVar, depth int) {
	for i := 0; i+1 < len(args); i++ {
		v := args[i].val
		if v == "--" {
			return
		}
		if len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.HasSuffix(v, "c") && !args[i].dynamic() {
			j.shellC(args[i+1:], depth+1, env)
			return
		}
	}
}

// ranIn hands a simple command the evaluator ran in dir to the call's
// Command (Command.Evaluated), when the judge knows where the command starts
// (a run from the unknown directory names no real place).
func (j *judge) ranIn(dir string, argv []field) {
	if j.cmd == nil || j.dir == "" || dir == "" || strings.HasPrefix(dir, evalRoot) {
		return
	}
	home := ""
	if j.env != nil {
		home, _ = j.env("HOME")
	}
	j.cmd.ranIn(dir, home, argv)
}

// maxRanLines bounds judge.lines: a command that runs more simple commands
// is still matched on its text and the first maxRanLines of them.
const maxRanLines = 1024

// ran records argv, a simple command the walk or the evaluator judges
// (words expanded as far as they are known), as one line for the operator
// patterns: `t=terraform; $t destroy`, `terraform  destroy` and
// `echo destroy | xargs terraform` all run the words "terraform destroy",
// and so does `bash -c 'terraform $0' destroy` (shellC binds $0 and the
// positional parameters). When argv holds options before a "--", the line
// without them is recorded too (optionless), so a pattern written without
// the options between its words (terraform destroy) matches
// `terraform -chdir=infra destroy`.
func (j *judge) ran(argv []field) {
	if len(j.p.operators) == 0 && (j.cmd == nil || !j.cmd.keepRan) || len(argv) == 0 {
		return
	}
	j.ranLine(argv, false)
	j.ranLine(argv, true)
}

// ranLine records argv's words joined by one space, without the option
// words before the first "--" (and that "--") when optionless, in
// judge.lines; an optionless line equal to the full one is not recorded.
func (j *judge) ranLine(argv []field, optionless bool) {
	if len(j.lines) >= maxRanLines {
		return
	}
	var b strings.Builder
	skipped, opts := false, optionless
	for i, a := range argv {
		if opts && i > 0 && len(a.val) > 1 && a.val[0] == '-' {
			skipped = true
			opts = a.val != "--"
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a.val)
	}
	if optionless && !skipped {
		return
	}
	if line := b.String(); len(line) <= MaxCommandBytes {
		j.lines = append(j.lines, line)
	}
}
