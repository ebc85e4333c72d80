package policy

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// guardHit adds the self-protection rule for a path argument that names the
// guard's own files; parents also counts a directory holding one (for
// commands that remove, move or re-permission what they are given).
func (j *judge) guardHit(k pathKind, parents bool) {
	if k.guard.own || (parents && k.guard.ownParent) {
		j.hits.add(RuleSelfProtect)
	}
	if k.guard.client || (parents && k.guard.clientParent) {
		j.hits.add(RuleSelfProtectClientHooks)
	}
	if k.mgr {
		j.hits.add(RuleHookManagerConfig)
	}
	if k.sysClient {
		j.hits.add(RuleNestedClientHooks)
	}
	if k.startup {
		j.hits.add(RuleShellStartupWrite)
	}
}

// writeHit adds the rules for a path a command writes (remove: or removes,
// moves or re-permissions): the hooks directory (also the git directory
// itself when remove), a git config file, git's own state (HEAD, the
// index, refs: git-plumbing), and guardHit's.
func (j *judge) writeHit(k pathKind, remove bool) {
	if k.hooks || (remove && k.gitDir) {
		j.hits.add(RuleHooksDirTamper)
	}
	if k.gitConf {
		j.hits.add(RuleGitConfigFileWrite)
	}
	if k.gitState {
		j.hits.add(RuleGitPlumbing)
	}
	j.guardHit(k, remove)
}

// codeSpec is one interpreter's code options (codeFlags).
type codeSpec struct {
	short string   // letters whose option takes code
	long  []string // long options taking code (also --opt=code)
}

// codeFlags lists, per interpreter, the options whose argument is code the
// interpreter runs (issue 14 item 4), from each interpreter's manual: python
// -c (python(1)); node -e/--eval, -p/--print (node --help, v22); bun -e/--eval,
// -p/--print (bun --help, 1.x); perl -e/-E (perlrun); ruby -e (ruby(1));
// php -r (php --help); osascript -e (osascript(1)); lua -e (lua(1)); Rscript
// -e; julia -e/-E; nu, xonsh, elvish -c; ts-node and tsx -e/--eval,
// -p/--print (their --help). A short cluster ending in the letter
// (perl -ne, ruby -pe, python -Ic) counts.
func codeFlags(name string) (codeSpec, bool) {
	switch name {
	case "python", "python2", "python3", "py", "pypy", "pypy3", "xonsh", "elvish":
		return codeSpec{short: "c"}, true
	case "node", "nodejs", "bun", "ts-node", "tsx":
		return codeSpec{short: "ep", long: []string{"--eval", "--print"}}, true
	case "perl":
		return codeSpec{short: "eE"}, true
	case "ruby", "osascript", "lua", "luajit", "rscript":
		return codeSpec{short: "e"}, true
	case "php":
		return codeSpec{short: "r", long: []string{"--run"}}, true
	case "julia":
		return codeSpec{short: "eE", long: []string{"--eval", "--print"}}, true
	case "nu":
		return codeSpec{short: "c", long: []string{"--commands"}}, true
	// Tcl reads its program from a file or stdin (tclsh(1)); expect(1)
	// also takes -c CMDS (runnerforms.go judges exec and spawn in them).
	case "expect":
		return codeSpec{short: "c"}, true
	case "tclsh", "wish", "jimsh":
		return codeSpec{}, true
	}
	return codeSpec{}, false
}

// isInterpreterName reports python3.12 and the like as python3.
func interpreterName(name string) string {
	if strings.HasPrefix(name, "python") {
		rest := strings.TrimLeft(name[len("python"):], "0123456789.")
		if rest == "" {
			if strings.HasPrefix(name, "python2") {
				return "python2"
			}
			return "python3"
		}
	}
	return name
}

// interpreter judges a code-running interpreter (codeFlags, deno eval, awk):
// every code argument, and a script fed on stdin by a here-document or
// here-string, is judged by code. It reports whether name is such an
// interpreter; stdin tells whether the interpreter reads its program from
// stdin (no code argument and no script file), for the pipeline judge.
func (j *judge) interpreter(name string, args []field, env []envVar, depth int, st *syntax.Stmt, sc *scope) (handled bool) {
	name = interpreterName(name)
	switch name {
	case "deno":
		j.denoCode(args, env, depth, st, sc)
		return true
	case "awk", "gawk", "mawk", "nawk", "busybox-awk":
		j.awkCode(name, args, env, depth, sc)
		return true
	}
	spec, ok := codeFlags(name)
	if !ok {
		return false
	}
	sawCode, sawScript := j.codeArgs(name, spec, args, env, depth)
	if !sawCode && !sawScript {
		j.stdinCode(name, st, depth, env)
	}
	if !sawCode && (codeLangOf(name) != nil || runnerLang(name) != "") {
		if f, ok := scriptOperand(name, args); ok && !strings.HasPrefix(f.val, "-") {
			j.scriptFile(name, f, env, depth, sc) // python3 FILE (scripts.go)
		}
	}
	return true
}

// denoCode judges deno run [options] FILE (scripts.go; its options take
// their values stuck, --allow-read=x), deno eval CODE and a program fed on
// stdin.
func (j *judge) denoCode(args []field, env []envVar, depth int, st *syntax.Stmt, sc *scope) {
	rest := skipOpts(args, "", nil)
	if len(rest) > 0 && rest[0].val == "run" {
		for _, a := range rest[1:] {
			if !strings.HasPrefix(a.val, "-") {
				j.scriptFile("deno", a, env, depth, sc)
				break
			}
		}
	}
	if len(rest) > 0 && rest[0].val == "eval" {
		if code := skipOpts(rest[1:], "", nil); len(code) > 0 {
			j.codeIn("deno", code[0], depth, env)
		}
	}
	j.stdinCode("deno", st, depth, env)
}

// awkCode judges an awk program: the first operand is the program unless -f
// names a program file (POSIX awk), -e/--source add program text (gawk), and
// gawk -i inplace edits its operands in place.
func (j *judge) awkCode(name string, args []field, env []envVar, depth int, sc *scope) {
	inPlace := false
	progFile := false
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if v == "--" {
			if i+1 < len(args) && !progFile {
				j.codeIn(name, args[i+1], depth, env)
			}
			break
		}
		if !strings.HasPrefix(v, "-") || v == "-" {
			if !progFile {
				j.codeIn(name, args[i], depth, env)
			}
			break
		}
		switch {
		case v == "-f" || v == "--file" || strings.HasPrefix(v, "--file="):
			progFile = true
			if v == "-f" || v == "--file" {
				i++
			}
		case v == "-i" || v == "--include":
			if i+1 < len(args) && args[i+1].val == "inplace" {
				inPlace = true
			}
			i++
		case v == "-iinplace" || v == "--include=inplace":
			inPlace = true
		case v == "-v" || v == "-F" || v == "--assign" || v == "--field-separator":
			i++
		case v == "-e" || v == "--source":
			if i+1 < len(args) {
				j.codeIn(name, args[i+1], depth, env)
			}
			i++
		}
	}
	for _, a := range args {
		if inPlace {
			j.guardHit(sc.classify(a), false)
		}
	}
}

// codeArgs judges the code options spec names in the arguments of the
// interpreter name (up to its script operand or "--"), and reports whether
// it saw code given inline and whether it reached a script (an operand, or
// python's -m MODULE).
func (j *judge) codeArgs(name string, spec codeSpec, args []field, env []envVar, depth int) (sawCode, sawScript bool) {
	for i := 0; i < len(args) && !sawScript; i++ {
		v := args[i].val
		if v == "--" || isStdinPath(v) {
			break
		}
		if !strings.HasPrefix(v, "-") {
			sawScript = true
			break
		}
		if strings.HasPrefix(v, "--") {
			for _, l := range spec.long {
				if v == l && i+1 < len(args) {
					j.codeIn(name, args[i+1], depth, env)
					sawCode = true
					i++
				} else if strings.HasPrefix(v, l+"=") {
					j.codeIn(name, field{val: v[len(l)+1:], raw: strings.TrimPrefix(args[i].raw, l+"="), subst: args[i].subst, decoded: args[i].decoded}, depth, env)
					sawCode = true
				}
			}
			continue
		}
		// node, bun, ts-node, tsx: -e and -p take no stuck value (node
		// refuses -e"code" and -ep as bad options, v22); -p, -e and the
		// cluster -pe take the next word that is not an option as code
		// (node -p -e CODE, node -pe CODE).
		if jsCodeFlags(name) && len(v) > 1 && strings.Trim(v[1:], spec.short) == "" {
			k := i + 1
			for k < len(args) && strings.HasPrefix(args[k].val, "-") && len(args[k].val) > 1 && strings.Trim(args[k].val[1:], spec.short) == "" {
				k++
			}
			if k < len(args) {
				j.codeIn(name, args[k], depth, env)
				sawCode = true
				i = k
			}
			continue
		}
		code, script, next := j.shortCodeCluster(name, spec, args, i, env, depth)
		sawCode, sawScript, i = sawCode || code, sawScript || script, next
	}
	return sawCode, sawScript
}

// shortCodeCluster judges the short-option cluster args[i]: the first code
// letter takes the rest of the word, or the next word, as code; python's
// -m, -W, -X and -Q take a value (-m runs a module, judged by the
// launcher). It returns whether it found code, whether a module runs, and
// the index of the last word it used.
func (j *judge) shortCodeCluster(name string, spec codeSpec, args []field, i int, env []envVar, depth int) (code, script bool, last int) {
	v := args[i].val
	python := name == "python3" || name == "python2" || name == "py" || name == "pypy" || name == "pypy3"
	for c := 1; c < len(v); c++ {
		if strings.IndexByte(spec.short, v[c]) < 0 {
			if python && strings.IndexByte("mWXQ", v[c]) >= 0 {
				if c == len(v)-1 {
					i++
				}
				return false, v[c] == 'm', i
			}
			continue
		}
		if c < len(v)-1 {
			j.codeIn(name, field{val: v[c+1:], raw: v[c+1:], subst: args[i].subst, decoded: args[i].decoded}, depth, env)
		} else if i+1 < len(args) {
			j.codeIn(name, args[i+1], depth, env)
			i++
		}
		return true, false, i
	}
	return false, false, i
}

// jsCodeFlags reports the JavaScript runtimes whose -e/-p options take
// their code as the next word only.
func jsCodeFlags(name string) bool {
	switch name {
	case "node", "nodejs", "bun", "ts-node", "tsx":
		return true
	}
	return false
}

// stdinCode judges a program fed to an interpreter's stdin by a
// here-document or here-string of its statement.
func (j *judge) stdinCode(name string, st *syntax.Stmt, depth int, env []envVar) {
	for _, f := range hereDocs(st) {
		j.codeIn(name, f, depth, env)
	}
}

// hereDocs returns the here-documents and here-strings of a statement's
// redirections (what a command reads on stdin from the script itself).
func hereDocs(st *syntax.Stmt) []field {
	if st == nil {
		return nil
	}
	var out []field
	sc := &scope{vars: map[string]string{}}
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc != nil {
				out = append(out, sc.word(r.Hdoc))
			}
		case syntax.WordHdoc:
			out = append(out, sc.word(r.Word))
		}
	}
	return out
}

// innerCommand strips the launchers in front of a command (env with its
// options and assignments, busybox, and every launcher launchedCommand
// knows) and returns the command they run (empty when none); viaXargs
// reports that xargs was among them.
func innerCommand(argv []field) (inner []field, viaXargs bool) {
	for steps := 0; len(argv) > 0 && steps < maxLauncherWords; steps++ {
		name, known := cmdName(argv[0])
		if !known {
			return argv, viaXargs
		}
		args := argv[1:]
		switch name {
		case "env":
			argv = skipOpts(args, "uCS", []string{"--unset", "--chdir", "--split-string"})
			for len(argv) > 0 && isAssignment(argv[0].val) {
				argv = argv[1:]
			}
			continue
		case "busybox":
			argv = args
			continue
		}
		if _, simple := simpleLaunchers(name); !simple && name != "command" && name != "sudo" && name != "doas" && name != "pkexec" && name != "run0" {
			return argv, viaXargs
		}
		vals := make([]string, len(args))
		for i, a := range args {
			vals[i] = a.val
		}
		cmd, ok := launchedCommand(name, vals)
		if !ok {
			return argv, viaXargs
		}
		viaXargs = viaXargs || name == "xargs"
		argv = args[len(args)-len(cmd):]
	}
	return argv, viaXargs
}

// code judges text an interpreter runs as code: the text rules search it
// (deny on mention, as the rendered interceptors do), any mention of a guard
// path is self-protection, and code decoded at run time is
// decoded-code-to-shell.
func (j *judge) code(f field, depth int, env []envVar) {
	if f.decoded {
		j.hits.add(RuleDecodedCodeToShell)
	}
	text := strings.ReplaceAll(f.val, dyn, "$")
	if id := j.p.textMatch(j.p.Normalise(text)); id != "" {
		j.hits.add(id)
	}
	j.guardMention(text, false)
	if decodesAndRuns(text) {
		j.hits.add(RuleDecodedCodeToShell)
	}
}

// codeDecoders are spellings, lower-cased, by which code turns encoded text
// into other text (Python base64/binascii/codecs/bytes.fromhex/chr, Node
// atob/Buffer.from(..., 'base64'), PHP base64_decode, Perl MIME::Base64 and
// unpack "m", Ruby unpack1/Base64, PowerShell FromBase64String, zlib),
// besides byte escapes in string literals (hidingEscape).
var codeDecoders = []string{"b64decode", "b32decode", "b85decode", "a85decode", "decodebytes", "fromhex", "unhexlify",
	"codecs.decode", "atob(", "base64'", "base64\"", "base64_decode", "decode_base64", "unpack(\"m", "unpack('m", "unpack1(",
	"decode64", "frombase64string", "decompress", "fromcharcode", "chr(", "rot13", "rot_13", "[::-1]", "reverse("}

// codeRunners are spellings, lower-cased, by which code starts a program or
// runs text as code (os.system, subprocess, exec/eval, child_process,
// Bun.spawn, PHP shell_exec/passthru/proc_open, Perl/Ruby backquotes and
// %x, io.popen, PowerShell Invoke-Expression/Start-Process, AppleScript do
// shell script).
var codeRunners = []string{"system", "exec", "eval", "popen", "subprocess", "spawn", "child_process", "shell_exec", "passthru",
	"proc_open", "`", "%x", "invoke-expression", "iex", "start-process", "do shell script", "pty.", "deno.command", "runtime"}

// decodesAndRuns reports interpreter code that both decodes or unescapes
// text and runs a program or code: what it runs is not in its text, so the
// text rules cannot judge it (decoded-code-to-shell).
func decodesAndRuns(code string) bool {
	lower := strings.ToLower(code)
	decodes := hidingEscape(code)
	for _, d := range codeDecoders {
		if decodes {
			break
		}
		decodes = strings.Contains(lower, d)
	}
	if !decodes {
		return false
	}
	for _, r := range codeRunners {
		if strings.Contains(lower, r) {
			return true
		}
	}
	return false
}

// guardMention adds the self-protection rules when text names a guard path
// anywhere (a token of path characters that classifies as one), or names a
// directory holding one while the code calls something that writes or
// removes (codeMutates); a hooks directory (.git/hooks, .husky, ...) or a
// path inside hookwarden's store (.git/hookwarden) named by code that
// writes or removes is the hooks-dir rule, as is one joined from pieces
// (os.path.join('.git', 'hooks'); gitPieces). Code that only reads a hooks
// directory or the store stays allowed. globs also counts a shell glob that
// matches a guard name (.*, .h*), for a script the shell parser rejects; in
// interpreter code a glob is more often a regular expression
// (re.match('.*', s)), so there only named paths count.
func (j *judge) guardMention(text string, globs bool) {
	lower := strings.ToLower(text)
	hookish := strings.Contains(lower, "hook") || strings.Contains(lower, ".husky")
	if !containsGuardKey(lower) && !hookish && !(globs && strings.ContainsAny(text, "*?[")) {
		return
	}
	mutates := codeMutates(lower)
	isPathByte := func(c byte) bool {
		return c == '.' || c == '/' || c == '\\' || c == '-' || c == '_' || c == '*' || c == '?' || c == '~' ||
			(c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
	}
	tokens := runs(text, isPathByte)
	for _, t := range tokens {
		c := classifyPath(t)
		j.guardHit(pathKind{guard: c.guard}, mutates)
		if mutates && (c.hooks || c.store) {
			j.hits.add(RuleHooksDirTamper)
		}
	}
	if mutates && hookish && gitPieces(tokens) {
		j.hits.add(RuleHooksDirTamper)
	}
}

// gitPieces reports code tokens (guardMention's runs of path characters)
// that name a git directory and, as a separate token, "hooks" or the store's
// name: a path joined at run time (os.path.join('.git', 'hooks'),
// Path('.git') / 'hookwarden', path.join(process.env.GIT_DIR, 'hooks'),
// git rev-parse --git-path hooks).
func gitPieces(tokens []string) bool {
	git, dir := false, false
	for _, t := range tokens {
		l := strings.ToLower(strings.ReplaceAll(t, `\`, "/"))
		l = strings.TrimRight(l, "/")
		switch {
		case l == ".git" || strings.HasSuffix(l, "/.git") || l == "git_dir" || l == "git_common_dir" ||
			l == "--git-dir" || l == "--git-common-dir" || l == "--git-path" || l == "--absolute-git-dir":
			git = true
		case isStoreDirName(l) || strings.HasPrefix(l, "hooks/") || strings.HasPrefix(l, StoreDirName+"/"):
			dir = true
		}
	}
	return git && dir
}

// mutatingStems are lower-cased call names (or their prefixes) by which
// interpreter code writes, creates, moves or removes a file or directory:
// Python os/shutil/pathlib (remove, unlink, rmdir, rmtree, rename, replace,
// mkdir, makedirs, symlink, link, chmod, truncate, write_text, write_bytes,
// touch, copy*, move), Node fs (rmSync, writeFileSync, appendFileSync,
// mkdirSync, cpSync, createWriteStream, ...), Deno and Bun (remove,
// writeTextFile, write), Perl (unlink, rmdir, mkdir, rename, File::Path
// rmtree/make_path/remove_tree, File::Copy copy/move), Ruby File/FileUtils/Dir
// (delete, write, rm_rf, mkdir_p, touch, cp, mv, ln_s), PHP (unlink,
// file_put_contents, mkdir, rename, copy), tarfile/zipfile extract*, and
// os.open's writing flags (O_WRONLY, O_RDWR, O_CREAT, O_APPEND, O_TRUNC).
var mutatingStems = []string{"rm", "mkdir", "makedirs", "make_path", "mkpath", "mkfifo", "mknod", "mkdtemp", "mkstemp",
	"write", "unlink", "remove", "delete", "rename", "move", "copy", "symlink", "hardlink", "link", "chmod", "lchmod",
	"chown", "lchown", "truncate", "ftruncate", "touch", "appendfile", "createwritestream", "file_put_contents",
	"extract", "replace", "outputfile", "emptydir", "ensuredir", "ensurefile", "cp_", "cpsync", "ln_", "mv_",
	"o_wronly", "o_rdwr", "o_creat", "o_append", "o_trunc"}

// mutatingWords are whole lower-cased words too short or too common to
// match as a prefix: Node fs.cp, Ruby FileUtils.cp/mv/ln, and the shell and
// git writers code passes to os.system or subprocess (git clone, worktree,
// init; tar, unzip, rsync, sed, patch). A call whose name is chosen at run
// time (Python getattr, Ruby send/public_send/__send__, JavaScript
// Reflect) counts too: what it calls is not in the text (fail closed).
func mutatingWords(id string) bool {
	switch id {
	case "cp", "mv", "ln", "dd", "tee", "install",
		"clone", "worktree", "init", "tar", "unzip", "rsync", "sed", "patch",
		"getattr", "send", "public_send", "__send__", "reflect":
		return true
	}
	return false
}

// codeMutates reports whether lower-cased interpreter code calls something
// that writes, creates, moves or removes a file: an identifier starting with
// one of mutatingStems or equal to one of mutatingWords, or a file opened for
// writing (openWrites). Identifiers are runs of letters, digits and "_", so
// rmtree, rmSync, write_text and unlinkSync count while platform or
// print(...read()) do not.
func codeMutates(lower string) bool {
	isIdent := func(c byte) bool { return c == '_' || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') }
	for _, id := range runs(lower, isIdent) {
		if mutatingWords(id) {
			return true
		}
		for _, s := range mutatingStems {
			if strings.HasPrefix(id, s) {
				return true
			}
		}
	}
	return openWrites(lower)
}

// openWrites reports a file opened for writing in lower-cased code: a call
// whose name ends in "open" or "opensync" (Python open/io.open/os.fdopen/
// Path.open, Node fs.open/openSync, PHP fopen, Ruby File.open) or Ruby's
// File.new, given a quoted mode of r/w/a/x/b/t/+ letters holding w, a, x or
// + ('w', 'x', 'a', 'r+', 'wb'); or Perl's open with a '>' or '+<' mode
// (open(F, '>', $p), open F, ">$p").
func openWrites(lower string) bool {
	for i := 0; i < len(lower); {
		k := strings.Index(lower[i:], "open")
		n := len("open")
		if f := strings.Index(lower[i:], "file.new"); f >= 0 && (k < 0 || f < k) {
			k, n = f, len("file.new")
		}
		if k < 0 {
			break
		}
		k += i
		rest := lower[k+n:]
		rest = strings.TrimPrefix(rest, "sync")
		var args string
		switch {
		case strings.HasPrefix(rest, "("):
			args = rest[1:]
		case strings.HasPrefix(rest, " ") || strings.HasPrefix(rest, "\t"):
			args = rest // Perl's open without parentheses
		default:
			i = k + n
			continue
		}
		// The argument list, up to its closing parenthesis (or the end
		// of the statement), within maxOpenArgs bytes: an argument list
		// longer than that is taken as writing (fail closed; only code
		// that names a protected path gets here), which keeps the scan
		// linear in the code's length.
		long := len(args) > maxOpenArgs
		if long {
			args = args[:maxOpenArgs]
		}
		depth, end := 0, -1
		for p := 0; p < len(args); p++ {
			c := args[p]
			if isQuote(c) {
				if e := strings.IndexByte(args[p+1:], c); e >= 0 {
					p += e + 1
				}
				continue
			}
			if c == '(' || c == '[' || c == '{' {
				depth++
			}
			if c == ')' || c == ']' || c == '}' || c == ';' || c == '\n' {
				if depth == 0 {
					end = p
					break
				}
				depth--
			}
		}
		if end < 0 {
			if long {
				return true
			}
			end = len(args)
		}
		for _, lit := range quoted(args[:end]) {
			if writeMode(lit) {
				return true
			}
		}
		i = k + n
	}
	return false
}

// runs returns the maximal runs of s's bytes for which in is true, in order.
func runs(s string, in func(byte) bool) []string {
	var out []string
	for i := 0; i < len(s); {
		for i < len(s) && !in(s[i]) {
			i++
		}
		k := i
		for k < len(s) && in(s[k]) {
			k++
		}
		if k > i {
			out = append(out, s[i:k])
		}
		i = k
	}
	return out
}

// maxOpenArgs bounds, in bytes, how much of an open call's argument list
// openWrites reads for its mode.
const maxOpenArgs = 1024

func isQuote(c byte) bool { return c == '\'' || c == '"' || c == '`' }

// quoted returns the contents of the quoted literals of s.
func quoted(s string) []string {
	var out []string
	for p := 0; p < len(s); p++ {
		if !isQuote(s[p]) {
			continue
		}
		e := strings.IndexByte(s[p+1:], s[p])
		if e < 0 {
			break
		}
		out = append(out, s[p+1:p+1+e])
		p += e + 1
	}
	return out
}

// writeMode reports a file mode literal that writes: Python's and C's
// (w, a, x, r+, wb, ab+, ...), Node's flags (wx, as), Perl's > >> +< +>.
func writeMode(m string) bool {
	m = strings.TrimSpace(m)
	if strings.HasPrefix(m, ">") || strings.HasPrefix(m, "+<") || strings.HasPrefix(m, "+>") {
		return true
	}
	if m == "" || len(m) > 4 || strings.Trim(m, "rwaxbt+s") != "" {
		return false
	}
	return strings.ContainsAny(m, "wax+")
}

// decoderIn reports whether the statements of a command or process
// substitution decode or unescape text (isDecoder) anywhere, nested
// substitutions included.
func decoderIn(n syntax.Node) bool {
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		if found {
			return false
		}
		if call, ok := n.(*syntax.CallExpr); ok {
			sc := &scope{vars: map[string]string{}, noDecode: true}
			var argv []field
			for _, w := range call.Args {
				argv = append(argv, sc.fields(w)...)
			}
			if isDecoder(argv) {
				found = true
				return false
			}
		}
		return true
	})
	return found
}

// isDecoder reports a command that turns encoded or escaped text into other
// text: base64/base32/basenc -d|--decode (GNU coreutils; -D on macOS),
// xxd -r, openssl (enc|base64) -d, uudecode, the decompressors, rev, tr,
// printf whose format spells bytes by code (hidingEscape) or whose %b
// argument holds an escape, echo -e with such an escape. Launchers in front
// are skipped (innerCommand).
func isDecoder(argv []field) bool {
	argv, _ = innerCommand(argv)
	if len(argv) == 0 {
		return false
	}
	name, known := cmdName(argv[0])
	if !known {
		return false
	}
	args := argv[1:]
	switch name {
	case "uudecode", "gunzip", "zcat", "bzcat", "xzcat", "unxz", "unzstd", "zstdcat", "rev", "tr", "uncompress", "lzcat":
		return true
	case "base64", "base32", "basenc", "gbase64":
		return optionIn(args, "--decode", "dD")
	case "xxd":
		return optionIn(args, "-revert", "r")
	case "gzip", "bzip2", "xz", "zstd", "lzma":
		return optionIn(args, "--decompress", "d")
	case "openssl":
		for _, a := range args {
			if a.val == "-d" || a.val == "-base64" || a.val == "-a" || a.val == "base64" {
				return true
			}
		}
	case "printf":
		return printfDecodes(args)
	case "echo":
		return echoDecodes(args)
	}
	return false
}

// optionIn reports whether args hold the option word, or a short-option
// cluster (-x, not --x) holding one of letters.
func optionIn(args []field, word, letters string) bool {
	for _, a := range args {
		if a.val == word || (strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "--") && strings.ContainsAny(a.val, letters)) {
			return true
		}
	}
	return false
}

// printfDecodes reports whether printf's format spells bytes by code
// (hidingEscape) or has %b with an argument holding an escape.
func printfDecodes(args []field) bool {
	rest := skipOpts(args, "v", nil)
	if len(rest) == 0 {
		return false
	}
	if hidingEscape(rest[0].val) {
		return true
	}
	if strings.Contains(rest[0].val, "%b") {
		for _, a := range rest[1:] {
			if strings.Contains(a.val, `\`) {
				return true
			}
		}
	}
	return false
}

// echoDecodes reports whether echo -e (a cluster of n, e and E holding e)
// prints an argument that spells bytes by code (hidingEscape).
func echoDecodes(args []field) bool {
	esc := false
	for _, a := range args {
		if strings.HasPrefix(a.val, "-") && strings.Contains(a.val, "e") && strings.Trim(a.val[1:], "neE") == "" {
			esc = true
		}
	}
	if !esc {
		return false
	}
	for _, a := range args {
		if hidingEscape(a.val) {
			return true
		}
	}
	return false
}

// hookRunningGitSub reports the git subcommands that run git hooks and take
// a hook-skipping option (githooks(5): commit, merge, am, rebase, push;
// cherry-pick and revert commit and run the commit hooks).
func hookRunningGitSub(sub string) bool {
	switch sub {
	case "commit", "push", "merge", "am", "rebase", "cherry-pick", "revert", "pull":
		return true
	}
	return false
}

// gitDynamicOptions denies, for a hook-running git subcommand, a word that
// may expand to a hook-skipping flag: an unquoted expansion anywhere before
// "--" (field splitting can make a flag of it, even in an option's value),
// and a command substitution in option position (any word not the value of
// a value-taking option and not starting with a literal other than "-"; git's
// parse-options lets options follow operands). Quoted values (-m "$(cat f)",
// --message="$msg") stay data.
func (j *judge) gitDynamicOptions(spec gitSpec, args []field) {
	for k := 0; k < len(args); k++ {
		a := args[k]
		if a.unquoted && mayBeOption(a) {
			j.hits.add(RuleGitDynamicOption)
			continue
		}
		v := a.val
		if v == "--" {
			return
		}
		isValue, takesNext := false, false
		switch {
		case strings.HasPrefix(v, "--"):
			name, _, hasEq := strings.Cut(v[2:], "=")
			if !strings.Contains(name, dyn) {
				if _, takes, ok := resolveLong(spec.longs, name); ok && takes {
					isValue, takesNext = hasEq, !hasEq
				}
			}
		case strings.HasPrefix(v, "-") && len(v) > 1:
			for c := 1; c < len(v); c++ {
				ch := v[c]
				if ch == dyn[0] {
					break
				}
				if strings.IndexByte(spec.shortVal, ch) >= 0 {
					isValue, takesNext = c < len(v)-1, c == len(v)-1
					break
				}
				if strings.IndexByte(spec.shortOpt, ch) >= 0 {
					isValue = c < len(v)-1
					break
				}
			}
		}
		if a.subst && !isValue && (v == "" || v[0] == dyn[0] || v[0] == '-') {
			j.hits.add(RuleGitDynamicOption)
		}
		if a.inherited && !isValue {
			// A quoted expansion the run cannot know ("$B" of a variable
			// the command inherits) is one word, but that word may be
			// --no-verify: a shell that keeps its variables between calls
			// (Devin's exec session) or sources a file first (Claude Code's
			// CLAUDE_ENV_FILE) can carry one set in an earlier call.
			j.hits.add(RuleGitDynamicOption)
		}
		if takesNext && k+1 < len(args) {
			k++
			if args[k].unquoted {
				j.hits.add(RuleGitDynamicOption)
			}
		}
	}
}

// mayBeOption reports whether a word holding an unquoted expansion may
// expand to an option: its known prefix is empty or starts with "-". A word
// whose known prefix is something else (template/$BRANCH, :$BRANCH) keeps
// that prefix in its first field, which is then no option (issue 28: the
// ordinary `git merge template/$TEMPLATE_BRANCH` and `git push origin
// :$BRANCH`).
func mayBeOption(f field) bool {
	return f.val == "" || f.val[0] == dyn[0] || f.val[0] == '-'
}

// stdinProgram reports whether a pipeline stage runs what it reads on stdin
// as code: a shell with no script operand and no -c (or -s, or the script
// "-" or /dev/stdin), a code interpreter with no code option and no script
// (or "-"), source or . of /dev/stdin; launchers in front are skipped
// (innerCommand), and xargs ... sh -c counts.
func stdinProgram(argv []field) bool {
	argv, viaXargs := innerCommand(argv)
	for len(argv) > 0 {
		name, known := cmdName(argv[0])
		if !known {
			return false
		}
		args := argv[1:]
		if viaXargs && (isShellName(name) || name == "eval") {
			return true // xargs sh -c '{}' runs its input
		}
		switch name {
		case "source", ".":
			return len(args) > 0 && isStdinPath(args[0].val)
		case "eval", "iex", "invoke-expression":
			return false
		case "at", "batch":
			return !slices.ContainsFunc(args, func(a field) bool { return a.val == "-f" }) // at -f FILE
		case "parallel":
			return parallelRunsStdin(args)
		case "crontab":
			return crontabReadsStdin(args)
		case "ssh":
			_, given := sshCommand(args)
			return !given
		case "docker", "podman", "nerdctl":
			return containerReadsScript(args)
		}
		if isShellName(name) || name == "pwsh" || name == "powershell" {
			for _, a := range args {
				v := a.val
				if isStdinPath(v) || v == "-s" {
					return true
				}
				if strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "c") {
					return false
				}
				if v == "-Command" || v == "-c" {
					return false
				}
				if !strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "+") {
					return false
				}
			}
			return true
		}
		in := interpreterName(name)
		if _, ok := codeFlags(in); ok || in == "deno" {
			for _, a := range args {
				v := a.val
				if isStdinPath(v) {
					return true
				}
				if !strings.HasPrefix(v, "-") {
					return false // a script file, or deno's subcommand
				}
			}
			return in != "deno"
		}
		return false
	}
	return false
}

func isStdinPath(v string) bool {
	return v == "-" || v == "/dev/stdin" || v == "/dev/fd/0" || v == "/proc/self/fd/0"
}

// isShellName reports the sh-family shells the launcher judges (launcher's
// shell case).
func isShellName(n string) bool {
	switch n {
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "yash", "fish", "rbash":
		return true
	}
	return false
}

// hidingEscape reports a printf or echo -e escape that spells a byte by its
// code (\xHH, \NNN octal, \uHHHH, \UHHHHHHHH, \cX): text written that way
// reads as something other than what runs. \n, \t and \\ are layout, not
// hiding.
func hidingEscape(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		switch s[i+1] {
		case 'x', 'u', 'U', 'c', '0', '1', '2', '3', '4', '5', '6', '7':
			return true
		case '\\':
			i++
		}
	}
	return false
}
