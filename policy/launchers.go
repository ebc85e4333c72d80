package policy

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf16"

	"mvdan.cc/sh/v3/syntax"
)

// launcher judges the command called name with args. When the command runs
// another command (a launcher), it returns that command's argv and true.
// Which options take a separate value comes from the --help of GNU coreutils
// (env, nice, timeout, stdbuf), findutils (xargs) and util-linux (flock,
// setsid, ionice) as installed on the build machine, and sudo(8), su(1),
// watch(1), script(1) manuals; an unknown option is taken as a flag. Each
// family of commands has its judge below (launchForm dispatches); a command
// none of them takes is judged by otherCommand.
func (j *judge) launcher(name string, args []field, env *[]envVar, depth int, st *syntax.Stmt, sc *scope) ([]field, bool) {
	if in := interpreterName(name); in == "python3" || in == "python2" {
		name = "python3"
	}
	if j.commitTool(name, args, *env) {
		return nil, false
	}
	j.optionCode(name, args, *env, depth)    // optcode.go
	j.sedScript(name, args, *env, depth, sc) // sedscript.go
	if spec, ok := simpleLaunchers(name); ok {
		return args[specIndex(spec, len(args), func(i int) string { return args[i].val }):], true
	}
	if strings.HasPrefix(name, "claude-code@") { // npx @anthropic-ai/claude-code@VERSION
		name = "claude-code"
	}
	if nestedClientNames(name) {
		j.nestedClient(name, args, *env)
	}
	if rest, runs, done := j.launchForm(name, args, env, depth, st, sc); done {
		return rest, runs
	}
	j.otherCommand(name, args, *env, depth, st, sc)
	return nil, false
}

// launchForm judges name when one of the command families knows it: done
// is true when it did, with the argv the command runs (runs true) or none.
// A family may judge a command and still leave it to otherCommand (done
// false): hookwarden other than admit, codex, claude.
func (j *judge) launchForm(name string, args []field, env *[]envVar, depth int, st *syntax.Stmt, sc *scope) (rest []field, runs, done bool) {
	switch name {
	case "hookwarden":
		// `hookwarden admit [--label L] -- CMD` runs CMD (heavy-step
		// admission): CMD is judged like any command, so admit cannot carry
		// a denied one past the rules.
		// Any other verb is judged as any other command is.
		if len(args) > 0 && args[0].val == "admit" {
			rest, runs = admitWords(args[1:])
			return rest, runs, true
		}
		return nil, false, false
	case "env":
		rest, runs = j.envLauncher(args, env, depth)
		return rest, runs, true
	case "sudo", "doas", "pkexec", "run0", "su", "runas", "gsudo", "start-process", "saps", "start":
		rest, runs = j.elevation(name, args, env, depth)
		return rest, runs, true
	case "command", "eval", "iex", "invoke-expression", "trap", "alias", "watch", "script", "flock", "npx", "bunx", "pnpx":
		rest, runs = j.scriptLauncher(name, args, *env, depth)
		return rest, runs, true
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "yash", "fish", "rbash":
		j.shellEnvFile(*env, depth, sc)
		j.shell(args, *env, depth, st, sc)
		return nil, false, true
	case "busybox":
		return args, true, true
	case "tmux", "screen", "parallel", "at", "batch":
		rest, runs = j.multiplexer(name, args, *env, depth, sc)
		return rest, runs, true
	case "cmd":
		j.cmdExe(args, *env, depth)
		return nil, false, true
	case "powershell", "pwsh", "powershell_ise":
		j.powershell(args, *env, depth)
		return nil, false, true
	case "npm", "pnpm", "yarn", "bun", "uv", "pipx":
		rest, runs = j.packageManager(name, args, *env, depth, st, sc)
		return rest, runs, true
	case "make", "gmake", "just", "task", "go-task":
		j.taskRunner(name, args, *env, depth, st, sc) // taskrunner.go
		return nil, false, true
	case "uvx", "poetry", "pipenv", "pdm", "hatch", "rye", "conda", "mamba", "micromamba", "pixi", "python", "python3", "py":
		rest, runs = j.environmentRunner(name, args, *env, depth, st, sc)
		return rest, runs, true
	case "codex", "claude", "claude-code", "lefthook", "pre-commit", "pre_commit", "husky":
		j.hookSwitches(name, args, *env, sc)
		return nil, false, name != "codex" && name != "claude" && name != "claude-code"
	case "ssh":
		if c, ok := sshCommand(args); ok {
			j.scriptField(c, depth+1, *env) // remote.go
		}
		return nil, false, true
	case "docker", "podman", "nerdctl":
		rest, runs = containerCommand(args)
		return rest, runs, true
	case "crontab":
		j.crontab(args, *env, depth, sc)
		return nil, false, true
	case "hash":
		j.hashShadows(args) // remote.go
		return nil, false, true
	case "cd", "pushd", "chdir", "set-location", "sl", "popd":
		rest := skipOpts(args, "", nil)
		if name != "popd" && len(rest) == 1 {
			if cdPhysical(args) {
				j.chdirPhysical(sc, rest[0])
			} else {
				sc.chdir(rest[0])
			}
		} else {
			sc.cwd, sc.cwdUnknown = "", true
		}
		return nil, false, true
	}
	return nil, false, j.tool(name, args, *env, depth, st, sc)
}

// tool judges the programs with judges of their own that run no other
// command (find, git, patch, gh, the HTTP clients) and reports whether name
// was one of them.
func (j *judge) tool(name string, args []field, env []envVar, depth int, st *syntax.Stmt, sc *scope) bool {
	switch name {
	case "find":
		j.find(args, env, depth, st, sc)
	case "git":
		j.git(args, env, depth, st, sc, nil)
	case "patch", "apply_patch", "applypatch":
		// GNU patch and Codex's apply_patch: the paths of the patch they
		// read are judged as writes (patches.go).
		if name == "patch" {
			j.patchCmd(args, st, sc)
		} else {
			j.patchInputs(args, st, sc)
		}
	case "gh":
		j.gh(args)
	case "curl", "wget", "http", "https", "xh", "xhs", "curlie", "invoke-restmethod", "irm", "invoke-webrequest", "iwr":
		j.guardWriters(name, args, sc, func(v string) bool { return strings.HasPrefix(v, "-") })
		for _, a := range args {
			if forgeMergeArg(a.val) {
				j.hits.add(RuleForgeAdminMerge)
			}
		}
	default:
		return false
	}
	return true
}

// otherCommand judges a command no family of launchForm took: git-SUBCOMMAND
// as git SUBCOMMAND, source and . by the script they read, an interpreter by
// its code, anything else by what it writes (tamper).
func (j *judge) otherCommand(name string, args []field, env []envVar, depth int, st *syntax.Stmt, sc *scope) {
	if strings.HasPrefix(name, "git-") {
		j.gitSub(strings.TrimPrefix(name, "git-"), args, env, depth, st, sc)
		return
	}
	if name == "source" || name == "." {
		// source <(base64 -d ...), . <(printf '\x..'): decoded code run by
		// the shell itself.
		if len(args) > 0 && args[0].decoded {
			j.hits.add(RuleDecodedCodeToShell)
		}
		if len(args) > 0 && !isStdinPath(args[0].val) {
			j.scriptFile("sh", args[0], env, depth, sc) // scripts.go
		}
		return
	}
	code := j.interpreter(name, args, env, depth, st, sc)
	if code && name != "perl" && name != "ruby" && name != "awk" && name != "gawk" {
		return // perl -i, ruby -i and gawk -i inplace write files too (tamper)
	}
	j.tamper(name, args, sc)
	if !code {
		j.buildCode(name, args, env, depth, sc)       // buildcode.go
		j.embeddedCommand(name, args, env, depth, sc) // embedded.go
	}
}

// elevation judges the commands that run another with more privilege
// (RulePrivilegeEscalation): sudo, doas, pkexec and run0 run the command
// that follows their options (returned, with sudo's NAME=VALUE operands
// added to env); su -c/--command runs a script; Windows' runas and gsudo,
// and PowerShell's Start-Process -Verb RunAs.
func (j *judge) elevation(name string, args []field, env *[]envVar, depth int) ([]field, bool) {
	switch name {
	case "sudo", "doas", "pkexec", "run0":
		j.hits.add(RulePrivilegeEscalation)
		rest := skipOpts(args, sudoSpec.valShort, sudoSpec.valLong)
		for len(rest) > 0 && isAssignment(rest[0].val) {
			n, v, _ := strings.Cut(rest[0].val, "=")
			*env = append(*env, envVar{name: n, val: lit(v)})
			rest = rest[1:]
		}
		return rest, true
	case "su":
		for i, a := range args {
			v := a.val
			if v == "--command" || v == "--session-command" || (strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "c")) {
				j.hits.add(RulePrivilegeEscalation)
				if i+1 < len(args) {
					j.scriptField(args[i+1], depth+1, *env)
				}
			} else if strings.HasPrefix(v, "--command=") || strings.HasPrefix(v, "--session-command=") {
				j.hits.add(RulePrivilegeEscalation)
				_, s, _ := strings.Cut(v, "=")
				j.script(s, depth+1, *env)
			}
		}
	case "runas", "gsudo":
		// Windows elevation: runas /user:<admin> <command>, gsudo <command>.
		j.hits.add(RulePrivilegeEscalation)
	default: // start-process, saps, start: PowerShell Start-Process -Verb RunAs elevates.
		for i, a := range args {
			if strings.EqualFold(a.val, "-verb") && i+1 < len(args) && strings.EqualFold(args[i+1].val, "runas") {
				j.hits.add(RulePrivilegeEscalation)
			}
			if strings.EqualFold(a.val, "-verb:runas") {
				j.hits.add(RulePrivilegeEscalation)
			}
		}
	}
	return nil, false
}

// scriptLauncher judges the commands that run a script given as a string or
// the command after their options: command, eval (and PowerShell's
// Invoke-Expression), trap, alias, watch, script -c, flock and npx/bunx/pnpx.
func (j *judge) scriptLauncher(name string, args []field, env []envVar, depth int) ([]field, bool) {
	switch name {
	case "command":
		for _, a := range args {
			if a.val == "-v" || a.val == "-V" {
				return nil, false
			}
		}
		return skipOpts(args, "", nil), true
	case "eval", "iex", "invoke-expression":
		j.scriptField(joinFields(skipOpts(args, "", nil)), depth+1, env)
	case "trap":
		// trap ACTION SIGNAL...: the shell runs ACTION as a script
		// (bash(1), SHELL BUILTIN COMMANDS); -l, -p and a single word
		// (trap - or trap SIG) run nothing.
		rest := args
		if len(rest) > 0 && rest[0].val == "--" {
			rest = rest[1:]
		}
		if len(rest) >= 2 && !strings.HasPrefix(rest[0].val, "-") {
			j.scriptField(rest[0], depth+1, env)
		}
	case "alias":
		for _, a := range args {
			if _, v, ok := strings.Cut(a.val, "="); ok {
				j.script(v, depth+1, env)
			}
		}
	case "watch":
		rest := skipOpts(args, "nqs", []string{"--interval", "--differences", "--equexit"})
		for _, a := range args {
			if a.val == "-x" || a.val == "--exec" {
				return rest, true
			}
		}
		if len(rest) > 0 {
			j.scriptField(joinFields(rest), depth+1, env)
		}
	case "script":
		for i, a := range args {
			short := strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "--") && strings.HasSuffix(a.val, "c")
			if (short || a.val == "--command") && i+1 < len(args) {
				j.scriptField(args[i+1], depth+1, env)
			} else if strings.HasPrefix(a.val, "--command=") {
				j.script(strings.TrimPrefix(a.val, "--command="), depth+1, env)
			}
		}
	case "flock":
		for i, a := range args {
			if (a.val == "-c" || a.val == "--command") && i+1 < len(args) {
				j.scriptField(args[i+1], depth+1, env)
				return nil, false
			}
		}
		if rest := skipOpts(args, "wE", []string{"--timeout", "--conflict-exit-code"}); len(rest) > 1 {
			return rest[1:], true
		}
	default: // npx, bunx, pnpx
		for i, a := range args {
			if (a.val == "-c" || a.val == "--call") && i+1 < len(args) {
				j.scriptField(args[i+1], depth+1, env)
				return nil, false
			}
		}
		return skipOpts(args, "p", []string{"--package"}), true
	}
	return nil, false
}

// packageManager judges npm, pnpm, yarn, bun, uv and pipx: exec/x/dlx (and
// uv's run, tool run) run the command returned; run NAME, yarn NAME, npm
// test/start/stop/restart run the script package.json defines
// (taskrunner.go); pkg set scripts.X writes one; bun also runs code (-e)
// and files.
func (j *judge) packageManager(name string, args []field, env []envVar, depth int, st *syntax.Stmt, sc *scope) ([]field, bool) {
	if name == "bun" {
		j.interpreter(name, args, env, depth, st, sc) // bun -e/-p code
	}
	rest := skipOpts(args, "", nil)
	if installs(name, rest) && !optionIn(args, "--ignore-scripts", "") {
		j.installScripts(env, depth, sc) // taskrunner.go
	}
	if len(rest) == 0 {
		return nil, false
	}
	switch rest[0].val {
	case "exec", "x", "dlx", "run":
		if rest[0].val == "run" && name != "uv" && name != "pipx" {
			j.packageScript(rest[1:], env, depth, sc) // taskrunner.go
			return nil, false
		}
		rest = skipOpts(rest[1:], "", nil)
		if len(rest) > 0 && rest[0].val == "run" { // uv tool run
			rest = rest[1:]
		}
		return rest, true
	case "tool":
		if len(rest) > 1 && rest[1].val == "run" {
			return skipOpts(rest[2:], "", nil), true
		}
		return nil, false
	}
	if name != "uv" && name != "pipx" {
		j.packageScriptSet(rest, env, depth) // npm pkg set scripts.X=…
	}
	switch {
	case name == "bun" && isScriptPath(rest[0].val):
		j.scriptFile("bun", rest[0], env, depth, sc) // bun FILE (scripts.go)
	case name == "yarn" || name == "pnpm":
		j.packageScript(rest, env, depth, sc) // yarn NAME runs the script NAME when there is one
		return rest, true
	case name == "npm" && (rest[0].val == "test" || rest[0].val == "t" || rest[0].val == "start" || rest[0].val == "stop" || rest[0].val == "restart"):
		t := rest[0]
		if t.val == "t" {
			t = lit("test")
		}
		j.packageScript(append([]field{t}, rest[1:]...), env, depth, sc)
	}
	return nil, false
}

// taskRunner judges make, just and task by the recipes they run
// (taskrunner.go).
func (j *judge) taskRunner(name string, args []field, env []envVar, depth int, st *syntax.Stmt, sc *scope) {
	switch name {
	case "make", "gmake":
		j.makeCall(args, env, depth, st, sc)
	case "just":
		j.justCall(args, env, depth, sc)
	default: // task, go-task
		j.taskCall(args, env, depth, sc)
	}
}

// environmentRunner judges the commands that run another in a language
// environment: uvx; `<tool> run [options] <command>` for poetry, pipenv,
// pdm, hatch, rye and pixi, and conda, mamba and micromamba run with -n/-p
// naming the environment; python -m MODULE (after its code is judged).
func (j *judge) environmentRunner(name string, args []field, env []envVar, depth int, st *syntax.Stmt, sc *scope) ([]field, bool) {
	switch name {
	case "uvx":
		return skipOpts(args, "", []string{"--from", "--with", "--python"}), true
	case "python", "python3", "py":
		j.interpreter(name, args, env, depth, st, sc)
		j.judgeArchive("python3", args, sc) // python -m zipfile -e, -m tarfile -e
		for i, a := range args {
			if a.val == "-m" && i+1 < len(args) {
				return args[i+1:], true
			}
			if a.val == "-c" {
				return nil, false
			}
		}
		return nil, false
	}
	rest := skipOpts(args, "", nil)
	if len(rest) == 0 || rest[0].val != "run" {
		return nil, false
	}
	return skipOpts(rest[1:], "np", []string{"--name", "--prefix", "--environment", "--env", "-e"}), true
}

// hookSwitches judges the client and hook-manager commands that can switch
// hooks off: a hook manager's uninstall (RuleHookManagerUninstall); codex
// -c overrides of hooks or trust, claude with a settings, config-directory
// or home switch (RuleSelfProtectClientHooks). An earlier
// CLAUDE_CONFIG_DIR=DIR or HOME=DIR (or export, any value) in this script
// counts as on the command (taken as exported: fail closed).
func (j *judge) hookSwitches(name string, args []field, env []envVar, sc *scope) {
	switch name {
	case "codex":
		if codexHooksOff(args) {
			j.hits.add(RuleSelfProtectClientHooks)
		}
	case "claude", "claude-code":
		if sc.claudeDir || claudeHooksOff(args, env) {
			j.hits.add(RuleSelfProtectClientHooks)
		}
	default: // lefthook, pre-commit, pre_commit, husky
		rest := skipOpts(args, "c", []string{"--config"})
		if len(rest) > 0 && rest[0].val == "uninstall" {
			j.hits.add(RuleHookManagerUninstall)
		}
	}
}

func isAssignment(s string) bool {
	n, _, ok := strings.Cut(s, "=")
	if !ok || n == "" {
		return false
	}
	for i, c := range n {
		if !(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (i > 0 && c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
}

// skipOpts drops leading options: short options whose letter is in valShort
// take a value (stuck or next argument), long options in valLong take one
// unless written --opt=value; "--" ends the options.
func skipOpts(args []field, valShort string, valLong []string) []field {
	i := skipOptsIndex(len(args), func(i int) string { return args[i].val }, valShort, valLong)
	if i >= len(args) {
		return nil
	}
	return args[i:]
}

// joinFields joins fields with blanks, as a script text; the result holds a
// substitution, unquoted expansion or decoder when any part does.
func joinFields(fs []field) field {
	var v, r []string
	var out field
	for _, f := range fs {
		v = append(v, f.val)
		r = append(r, f.raw)
		out.subst = out.subst || f.subst
		out.unquoted = out.unquoted || f.unquoted
		out.decoded = out.decoded || f.decoded
	}
	out.val, out.raw = strings.Join(v, " "), strings.Join(r, " ")
	return out
}

// envLauncher handles env(1): options, NAME=VALUE assignments, -S strings
// (GNU coreutils env, --split-string).
func (j *judge) envLauncher(args []field, env *[]envVar, depth int) ([]field, bool) {
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "--":
			return args[i+1:], true
		case v == "-S" || v == "--split-string":
			if i+1 < len(args) {
				return append(j.splitString(args[i+1]), args[i+2:]...), true
			}
			return nil, false
		case strings.HasPrefix(v, "--split-string="):
			return append(j.splitString(lit(strings.TrimPrefix(v, "--split-string="))), args[i+1:]...), true
		case strings.HasPrefix(v, "-S"):
			return append(j.splitString(lit(v[2:])), args[i+1:]...), true
		case v == "-u" || v == "-C" || v == "--unset" || v == "--chdir" || v == "-P":
			i++
		case strings.HasPrefix(v, "-"):
			if strings.Contains(v[1:], "S") && !strings.HasPrefix(v, "--") {
				// a cluster such as -iS 'cmd'
				if i+1 < len(args) {
					return append(j.splitString(args[i+1]), args[i+2:]...), true
				}
			}
		case isAssignment(v):
			n, val, _ := strings.Cut(v, "=")
			raw := args[i].raw
			if _, r, ok := strings.Cut(raw, "="); ok {
				raw = r
			}
			*env = append(*env, envVar{name: n, val: field{val: val, raw: raw}})
		default:
			return args[i:], true
		}
	}
	return nil, false
}

// splitString splits an env -S string into words with the shell parser (close
// to env's own quoting rules).
func (j *judge) splitString(f field) []field {
	src := strings.ReplaceAll(f.val, dyn, "${__hookwarden_dynamic}")
	file, err := syntax.NewParser().Parse(strings.NewReader(src), "")
	if err != nil || len(file.Stmts) != 1 {
		if id := j.p.textMatch(j.p.Normalise(f.val)); id != "" {
			j.hits.add(id)
		}
		return nil
	}
	call, ok := file.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok {
		return nil
	}
	sc := &scope{vars: map[string]string{}}
	var out []field
	for _, a := range call.Assigns {
		if a.Name != nil {
			out = append(out, lit(a.Name.Value+"="+sc.word(a.Value).val))
		}
	}
	for _, w := range call.Args {
		out = append(out, sc.fields(w)...)
	}
	return out
}

// shell handles sh-family interpreters: -c strings, and a script fed on
// stdin by a here-document or here-string.
func (j *judge) shell(args []field, env []envVar, depth int, st *syntax.Stmt, sc *scope) {
	k, cflag, rcfiles := shellOperand(args)
	for _, f := range rcfiles {
		// bash(1) INVOCATION: an interactive shell runs the startup file
		// it names: a script like any other.
		j.scriptFile("sh", f, env, depth, sc)
	}
	if cflag {
		if k < len(args) {
			// sh -c SCRIPT NAME ARG...: NAME is the script's $0, the
			// words after it its positional parameters ($1 ...).
			j.shellC(args[k:], depth+1, env)
		}
		return
	}
	if k < len(args) && !isStdinPath(args[k].val) {
		if args[k].decoded {
			j.hits.add(RuleDecodedCodeToShell) // bash <(base64 -d ...)
		}
		j.scriptFile("sh", args[k], env, depth, sc) // a script file (scripts.go)
		return
	}
	for _, f := range hereDocs(st) {
		j.scriptField(f, depth+1, env)
	}
}

// shellOperand reads an sh-family shell's options as the shell does
// (bash(1) OPTIONS and INVOCATION): k is the index of its first operand
// (the -c script when cflag, else a script file; len(args) when none),
// cflag reports -c (also in a cluster, -ec, or --command), and rcfiles are
// the files --rcfile and --init-file name. -o/+o/-O/+O take the next word;
// an option after -c does not move the script (sh -c -x 'SCRIPT').
func shellOperand(args []field) (k int, cflag bool, rcfiles []field) {
	for ; k < len(args); k++ {
		v := args[k].val
		if v == "--" || v == "-" {
			return k + 1, cflag, rcfiles
		}
		if !(strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+")) {
			return k, cflag, rcfiles
		}
		if strings.HasPrefix(v, "--") {
			switch v {
			case "--command":
				return k + 1, true, rcfiles
			case "--rcfile", "--init-file":
				k++
				if k < len(args) {
					rcfiles = append(rcfiles, args[k])
				}
			}
			continue
		}
		if strings.HasPrefix(v, "-") && strings.Contains(v, "c") {
			cflag = true
		}
		if v == "-o" || v == "+o" || v == "-O" || v == "+O" {
			k++
		}
	}
	return k, cflag, rcfiles
}

// cmdExe handles cmd.exe /c and /k: the rest of the line is the command.
func (j *judge) cmdExe(args []field, env []envVar, depth int) {
	for i, a := range args {
		l := strings.ToLower(a.raw)
		if l == "/c" || l == "/k" || l == "/r" {
			j.script(joinFields(args[i+1:]).raw, depth+1, env)
			return
		}
		if (strings.HasPrefix(l, "/c") || strings.HasPrefix(l, "/k")) && len(a.val) >= 2 && len(a.raw) >= 2 {
			rest := append([]field{{val: a.val[2:], raw: a.raw[2:]}}, args[i+1:]...)
			j.script(joinFields(rest).raw, depth+1, env)
			return
		}
	}
}

// powershell handles powershell.exe and pwsh: -Command (any unique prefix,
// -c), -EncodedCommand (base64 of UTF-16LE), or a bare command line.
func (j *judge) powershell(args []field, env []envVar, depth int) {
	valued := []string{"executionpolicy", "ep", "ex", "windowstyle", "version", "outputformat", "inputformat", "configurationname", "workingdirectory", "wd", "settingsfile", "custompipename"}
	for i := 0; i < len(args); i++ {
		a := args[i].raw
		if !(strings.HasPrefix(a, "-") || strings.HasPrefix(a, "/")) {
			j.powershellScript(joinFields(args[i:]).raw, depth+1, env)
			return
		}
		n := strings.ToLower(strings.TrimLeft(a, "-/"))
		switch {
		case n == "":
			continue
		case strings.HasPrefix("command", n):
			if i+1 < len(args) {
				j.powershellScript(joinFields(args[i+1:]).raw, depth+1, env)
			}
			return
		case strings.HasPrefix("encodedcommand", n) || n == "ec":
			if i+1 < len(args) {
				s, ok := decodePowerShell(args[i+1].val)
				if !ok {
					j.hits.add(RuleIndirectionUnjudgeable)
					return
				}
				j.powershellScript(s, depth+1, env)
			}
			return
		case strings.HasPrefix("file", n):
			return
		}
		for _, v := range valued {
			if strings.HasPrefix(v, n) && len(n) >= 2 || n == "w" || n == "v" {
				i++
				break
			}
		}
	}
}

func decodePowerShell(s string) (string, bool) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil || len(b)%2 != 0 {
		return "", false
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return string(utf16.Decode(u)), true
}

// find: a hooks path with -delete or -exec/-ok, and the -exec commands themselves.
func (j *judge) find(args []field, env []envVar, depth int, st *syntax.Stmt, sc *scope) {
	var paths []field
	i := 0
	for ; i < len(args) && !strings.HasPrefix(args[i].val, "-") && args[i].val != "(" && args[i].val != "!"; i++ {
		paths = append(paths, args[i])
	}
	hooks := false
	var guard pathKind
	for _, p := range paths {
		k := sc.classify(p)
		if k.hooks || k.gitDir {
			hooks = true
		}
		guard.guard.own = guard.guard.own || k.guard.own || k.guard.ownParent
		guard.guard.client = guard.guard.client || k.guard.client || k.guard.clientParent
	}
	inGuardDir := guard.guard.own || guard.guard.client
	if len(paths) == 0 {
		paths = []field{lit(".")} // GNU find starts at "." when given no path
	}
	// A start path of dots only (find ., find ..) may be the repository
	// root or above it: whatever the expression does not rule out, it
	// reaches the guard's files. Below another start path, a guard file is
	// reached only through a name test it matches (find build -name
	// settings.json -delete). find's -name does not treat a leading "."
	// specially (findutils manual, "Base Name Patterns"), so -name
	// '*.yaml' matches .hookwarden.yaml. Which files reach -delete, or an
	// -exec that changes them, is read from the expression (findexpr.go):
	// find . -name '*.o' -o -name '*.tmp' -delete deletes *.tmp files only.
	ancestor := false
	for _, p := range paths {
		// A start path that is or holds a governed repository (find gov
		// -delete from a folder of repositories) is read like one of dots.
		ancestor = ancestor || dotsOnly(p.val) || j.holdsWord(sc, p)
	}
	var present map[string]bool
	if !ancestor && !inGuardDir && !hooks {
		// Where the command's directory is known, a guard name counts only
		// if a file or directory of that name is below the start paths
		// (find build -name '*.json' -delete in a build tree without one).
		present = sc.findPresent(paths)
	}
	j.findRepos(paths, args[i:], sc)
	anyFile, own, client, hooksDir := findReach(args[i:], ancestor, present)
	if !anyFile {
		hooks, guard = false, pathKind{}
	}
	hooks = hooks || hooksDir
	if !inGuardDir {
		// Under a guard directory (find .claude -name '*.json') the start
		// path already says which guard files are reached.
		guard.guard.own = guard.guard.own || own
		guard.guard.client = guard.guard.client || client
	}
	if hooks {
		j.hits.add(RuleHooksDirTamper)
	}
	j.guardHit(guard, false)
	for ; i < len(args); i++ {
		switch args[i].val {
		case "-exec", "-execdir", "-ok", "-okdir":
			var sub []field
			for i++; i < len(args) && args[i].val != ";" && args[i].val != "+"; i++ {
				if args[i].val == "{}" && len(paths) > 0 {
					for _, p := range paths {
						p.found = true
						sub = append(sub, p)
					}
					continue
				}
				sub = append(sub, args[i])
			}
			j.command(sub, env, depth+1, nil, sc)
		}
	}
}

// findRepos refuses a find whose name tests bring a governed
// repository's root, met below or at its start paths (repoNamesUnder), to
// -delete or a changing -exec: the whole repository goes (self-protect).
func (j *judge) findRepos(paths, expr []field, sc *scope) {
	for _, p := range paths {
		names, unknown := j.repoNamesUnder(sc, p)
		if unknown {
			j.hits.add(RuleScanBoundSteps)
		}
		if findNamesReach(expr, names) {
			j.hits.add(RuleSelfProtect)
		}
	}
}

// findChangers are commands that, run by find -exec on the files it found,
// delete, move, truncate, overwrite or re-permission them.
func findChangers(name string) bool {
	switch name {
	case "rm", "rmdir", "unlink", "shred", "mv", "truncate",
		"chmod", "chown", "chgrp", "chattr", "tee", "sed", "perl", "dd", "cp",
		"sh", "bash", "zsh", "dash", "xargs", "sponge":
		return true
	}
	return false
}

// findGuardNames are the names a find name test may match to reach the
// guard's files: every component of the guard paths, the files rendered
// into the guard directories (templates/files; the agy plugin's
// hooks.json and plugin.json), Claude's settings.local.json, Codex's
// config.toml and the lefthook configs; own is
// false for the client hook files.
var findGuardNames = []struct {
	name string
	own  bool
}{
	{".hookwarden.yaml", true}, {".hookwarden", true}, {"hook.sh", true}, {"hook.py", true},
	{"interceptor.py", true}, {"backups", true}, {".agents", true}, {"plugins", true},
	{"hookwarden", true}, {"plugin.json", true}, {".opencode", true}, {"hookwarden.js", true},
	{".github", true}, {"hookwarden.json", true}, {".kiro", true}, {".clinerules", true}, {"pretooluse", true},
	{".claude", false}, {"settings.json", false}, {"settings.local.json", false},
	{".codex", false}, {"hooks.json", false}, {"config.toml", false}, {".gemini", false}, {".cursor", false}, {".windsurf", false}, {".qwen", false}, {".factory", false},
	{".devin", false}, {"hooks.v1.json", false},
	// The lefthook configs (lefthookcfg.BaseNames).
	{"lefthook.yml", false}, {".lefthook.yml", false}, {"lefthook-local.yml", false}, {".lefthook-local.yml", false},
	{"lefthook.yaml", false}, {".lefthook.yaml", false}, {"lefthook-local.yaml", false}, {".lefthook-local.yaml", false},
	{"lefthook.json", false}, {".lefthook.json", false}, {"lefthook-local.json", false}, {".lefthook-local.json", false},
	{"lefthook.jsonc", false}, {".lefthook.jsonc", false}, {"lefthook-local.jsonc", false}, {".lefthook-local.jsonc", false},
	{"lefthook.toml", false}, {".lefthook.toml", false}, {"lefthook-local.toml", false}, {".lefthook-local.toml", false},
}

// findTestMatches reports whether the find test (-name, -iname, -path,
// -ipath, -wholename, -iwholename, -regex, -iregex) with argument pat may
// match a file whose base name is name (one of findGuardNames). A pattern
// known only at run time, or a regular expression RE2 cannot read, matches
// everything; a regular expression that matches a guard path (or a file in
// a guard directory) is taken to match every guard name.
func findTestMatches(test string, pat field, name string) bool {
	if pat.dynamic() {
		return true
	}
	p := strings.ToLower(pat.val)
	if test == "-regex" || test == "-iregex" {
		re, err := regexp.Compile("^(?:" + p + ")$")
		if err != nil {
			return true
		}
		if slices.Contains(findHookDirNames, name) {
			// A hooks directory's paths (findReach's hooksDir).
			return re.MatchString("./.git/"+name) || re.MatchString("./"+name)
		}
		for _, g := range guardTables().paths {
			for _, cand := range []string{"./" + g.Path, "./" + g.Path + "/hook.sh"} {
				if re.MatchString(cand) || re.MatchString(strings.ToLower(cand)) {
					return true
				}
			}
		}
		return false
	}
	if strings.HasSuffix(test, "path") || strings.HasSuffix(test, "wholename") {
		// -path '*' also matches "/"; judge the last component, and a
		// pattern whose last component is a bare * matches anything.
		if q := strings.LastIndexByte(p, '/'); q >= 0 {
			p = p[q+1:]
		}
	}
	ok, err := path.Match(bashBrackets(p), name)
	return err == nil && ok
}

// cdPhysical reports whether cd's options make it resolve `..` after a
// symbolic link physically (-P, the last of -L and -P wins).
func cdPhysical(args []field) bool {
	phys := false
	for _, a := range args {
		v := a.val
		if v == "--" || !strings.HasPrefix(v, "-") || v == "-" {
			break
		}
		for _, c := range v[1:] {
			switch c {
			case 'P':
				phys = true
			case 'L':
				phys = false
			}
		}
	}
	return phys
}

// chdir moves the scope's working directory to dir, as cd does: a
// directory known only at run time, or one longer than MaxLineBytes, makes
// the working directory unknown.
func (sc *scope) chdir(dir field) {
	if dir.dynamic() {
		sc.cwd, sc.cwdUnknown = "", true
		return
	}
	p := strings.ReplaceAll(dir.raw, `\`, "/")
	if strings.HasPrefix(p, "/") || (len(p) > 1 && p[1] == ':') || sc.cwd == "" {
		sc.cwd = p
	} else {
		sc.cwd = path.Clean(sc.cwd + "/" + p)
	}
	sc.cwdUnknown = false
	if len(sc.cwd) > MaxLineBytes {
		sc.cwd, sc.cwdUnknown = "", true // a directory this long is not tracked
	}
}

// codexHooksOff reports a Codex CLI command line that switches Codex's
// hooks off, ours included: `codex features disable hooks` (or the
// deprecated codex_hooks), which writes [features] hooks = false into
// $CODEX_HOME/config.toml for every later session (measured on Codex
// 0.169.0: "Disabled feature `hooks` in config.toml."); `--disable hooks`;
// and a `-c`/`--config` override of features.hooks, features.codex_hooks
// or the whole features table (also under profiles.NAME) to anything but
// true (codex --help: "-c key=value ... parsed as TOML"); and a -c override
// of the trust that makes Codex load the project's rows: a projects table or
// key that sets a trust_level other than "trusted", and any override of the
// hooks table (hooks.state holds each hook's trusted hash). Measured on
// Codex 0.171.0 on 2026-12-05 (engine/conformance TestClientFacts
// codex/c-untrust-project, c-hook-hash-wrong): with the user's config
// trusting the project and its hooks, `-c
// 'projects={"REPO"={trust_level="untrusted"}}'` and `-c
// 'hooks.state={"KEY"={trusted_hash="sha256:00"}}'` each skipped the hook
// and the tool ran. An empty projects or hooks table changed nothing there
// (it merges into the user's), and hooks overrides other than trust are
// refused anyway: an agent's nested Codex has no need of them. A feature
// name or override known only at run time counts.
func codexHooksOff(args []field) bool {
	hooksName := func(f field) bool {
		v := strings.ToLower(strings.TrimSpace(f.val))
		return f.dynamic() || v == "hooks" || v == "codex_hooks"
	}
	override := func(f field) bool {
		if f.dynamic() {
			return true
		}
		key, val, _ := strings.Cut(f.val, "=")
		key = strings.ToLower(bareTOML(key))
		val = strings.ToLower(strings.TrimSpace(val))
		if codexTrustOverride(key, val) {
			return true
		}
		if i := strings.LastIndex(key, "features"); i >= 0 && (i == 0 || key[i-1] == '.') {
			switch key[i:] {
			case "features":
				return strings.Contains(val, "hooks")
			case "features.hooks", "features.codex_hooks":
				return val != "true"
			}
		}
		return false
	}
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "--disable" || v == "-c" || v == "--config":
			if i+1 < len(args) {
				if (v == "--disable" && hooksName(args[i+1])) || (v != "--disable" && override(args[i+1])) {
					return true
				}
				i++
			}
		case strings.HasPrefix(v, "--disable="):
			if hooksName(lit(v[len("--disable="):])) {
				return true
			}
		case strings.HasPrefix(v, "--config="):
			if override(lit(v[len("--config="):])) {
				return true
			}
		case strings.HasPrefix(v, "-c") && len(v) > 2 && !strings.HasPrefix(v, "--"):
			if override(lit(v[2:])) {
				return true
			}
		case strings.HasPrefix(v, "-"):
		default:
			// codex features disable NAME... (after options whose values
			// are not told apart from subcommands: any features word
			// followed by disable counts).
			if v == "features" && i+1 < len(args) && args[i+1].val == "disable" {
				for _, a := range args[i+2:] {
					if !strings.HasPrefix(a.val, "-") && hooksName(a) {
						return true
					}
				}
			}
		}
	}
	return false
}

// codexTrustOverride reports a Codex -c override (key without spaces or
// quotes and lower-cased, val lower-cased) of the trust Codex needs to load
// a project's hook rows (codexHooksOff): any key under hooks, and a
// projects key (projects, projects.PATH, projects.PATH.trust_level) whose
// value sets a trust_level other than "trusted". The key may sit under
// profiles.NAME.
func codexTrustOverride(key, val string) bool {
	if strings.HasPrefix(key, "profiles.") {
		if _, rest, ok := strings.Cut(strings.TrimPrefix(key, "profiles."), "."); ok {
			key = rest
		}
	}
	if key == "hooks" || strings.HasPrefix(key, "hooks.") {
		return true
	}
	if key != "projects" && !strings.HasPrefix(key, "projects.") {
		return false
	}
	v := bareTOML(val)
	if strings.HasSuffix(key, ".trust_level") {
		return v != "trusted"
	}
	for _, part := range strings.Split(v, "trust_level=")[1:] {
		if part != "trusted" && !strings.HasPrefix(part, "trusted,") && !strings.HasPrefix(part, "trusted}") {
			return true
		}
	}
	return false
}

// bareTOML returns a TOML key or value of a -c override without its
// blanks and quotes, the form codexHooksOff compares.
func bareTOML(s string) string {
	return strings.NewReplacer(" ", "", "\t", "", `"`, "", "'", "").Replace(s)
}

// claudeHooksOff reports a Claude Code command line (args after the command
// name, env the assignments in effect for it) that starts a session without
// the project's hook rows, ours included. Measured on Claude Code 2.1.328
// against the loopback model server on 2026-12-02
// (testdata/clients/claude/2.1.328/nested-hooks-off: a project PreToolUse row
// was skipped and the tool ran) for: --settings JSON or --settings FILE
// holding "disableAllHooks": true; --setting-sources with a list without
// project (user, "user,local", ""); --bare; CLAUDE_CODE_SIMPLE=1; and a
// CLAUDE_CONFIG_DIR whose settings.json sets disableAllHooks, or (without
// CLAUDE_CONFIG_DIR) a HOME whose .claude/settings.json does. Not switched
// off (same measurement): --dangerously-skip-permissions, --permission-mode
// bypassPermissions, CLAUDE_CODE_PERSONAL_HOOKS_OFF=1, --settings JSON
// without the key. So a --settings value that is not inline JSON we can
// parse (a file the judge cannot read, a value known only at run time)
// counts, and so does any CLAUDE_CONFIG_DIR or HOME set for the command (the
// judge does not read the settings there); inline JSON counts when
// disableAllHooks or allowManagedHooksOnly is present and not false (the
// latter not measured: the bundle reads both from the --settings source).
func claudeHooksOff(args []field, env []envVar) bool {
	for _, e := range env {
		if claudeEnvOff(e.name, e.val) || e.name == "CLAUDE_CONFIG_DIR" || e.name == "HOME" {
			return true
		}
	}
	sources := func(f field) bool {
		if f.dynamic() {
			return true
		}
		for _, s := range strings.Split(f.val, ",") {
			if strings.EqualFold(strings.TrimSpace(s), "project") {
				return false
			}
		}
		return true
	}
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "--":
			return false
		case v == "--bare":
			return true
		case v == "--settings" || v == "--setting-sources":
			if i+1 >= len(args) {
				return false
			}
			i++
			if (v == "--settings" && claudeSettingsOff(args[i])) || (v == "--setting-sources" && sources(args[i])) {
				return true
			}
		case strings.HasPrefix(v, "--settings="):
			if claudeSettingsOff(lit(v[len("--settings="):])) {
				return true
			}
		case strings.HasPrefix(v, "--setting-sources="):
			if sources(lit(v[len("--setting-sources="):])) {
				return true
			}
		}
	}
	return false
}

// claudeSettingsOff reports a `claude --settings` value that may switch hooks
// off: anything but inline JSON (an object) that parses and leaves
// disableAllHooks and allowManagedHooksOnly absent or false. A file path
// counts because the judge cannot see its content and a file holding
// disableAllHooks switched our rows off (measured, see claudeHooksOff).
func claudeSettingsOff(f field) bool {
	if f.dynamic() {
		return true
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(f.val)), &m); err != nil {
		return true
	}
	for _, k := range []string{"disableAllHooks", "allowManagedHooksOnly"} {
		if v, ok := m[k]; ok && v != false {
			return true
		}
	}
	return false
}

// claudeEnvOff reports CLAUDE_CODE_SIMPLE set to anything but an empty, 0,
// false, no or off value (or a value known only at run time): Claude Code
// 2.1.328's bare mode, which skipped the project's hook rows (measured with
// CLAUDE_CODE_SIMPLE=1, testdata/clients/claude/2.1.328/nested-hooks-off).
func claudeEnvOff(name string, v field) bool {
	if name != "CLAUDE_CODE_SIMPLE" {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(v.val)) {
	case "", "0", "false", "no", "off":
		return v.dynamic()
	}
	return true
}
