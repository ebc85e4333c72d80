package policy

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// dyn marks, inside field.val, a part whose value is only known at run time
// (a parameter with no literal assignment, a command substitution, ...).
const dyn = "\x00"

// field is one shell word after the expansions the policy can do statically.
// val is the value the command would see, with dyn for unknown parts; raw is
// the source spelling with quote characters dropped and backslashes kept (so
// a Windows path .git\hooks survives, which val turns into .githooks).
type field struct {
	val string
	raw string
	// subst: the word holds a command or process substitution; unquoted: an
	// expansion outside double quotes (field splitting may turn it into
	// several words, an option among them); decoded: a substitution whose
	// commands decode or unescape text (decoderIn).
	subst, unquoted, decoded bool
	// inherited: the word begins with a quoted expansion of a variable the
	// script never assigns (scope.assigned), whose value comes from the
	// shell's environment: one word, but any word, --no-verify included.
	inherited bool
	// sourced: the word expands, unknown, a variable naming a file a shell
	// or the client reads as code before commands (sourcedFileVars): a
	// write to it is a write to a start-up file.
	sourced bool
	// substWords: the literal operands of a one-command substitution in the
	// word (rm "$(echo .hookwarden.yaml)" holds .hookwarden.yaml), at most
	// maxSubstWords; classify counts them as spellings of the path.
	substWords []string
	// found: a path find hands its -exec command for {} (written as its
	// start path); find judges the start path itself (holderHit).
	found bool
}

// maxSubstWords bounds the substitution operands one field keeps.
const maxSubstWords = 16

func (f field) dynamic() bool { return strings.Contains(f.val, dyn) }

// scope holds literal variable assignments seen so far in one script and the
// directory the script has changed to with cd ("" when unchanged or unknown;
// cwdUnknown after a cd whose target is known only at run time).
type scope struct {
	vars map[string]string
	// noDecode: do not look for decoders inside substitutions (set while
	// decoderIn itself walks one, so nested substitutions cost linear work).
	noDecode   bool
	cwd        string
	cwdUnknown bool
	// defined: names of functions and aliases the script defines
	// (f() { rm "$@"; }; f .hookwarden.yaml): a call to one is judged as a
	// command known only at run time.
	defined map[string]bool
	// overflow: a word would have grown past MaxCommandBytes by expanding
	// known variables (x=$x$x doubling); the part was kept dynamic and the
	// script is denied with RuleScanBoundCommand.
	overflow bool
	// claudeDir: the script assigned CLAUDE_CONFIG_DIR or HOME (any value,
	// one known only at run time too); a later claude is judged as if the
	// assignment were exported on its command (claudeHooksOff).
	claudeDir bool
	// files: what the command wrote earlier (files.go), for scriptSource.
	files overlay
	// engines: the engine's paths a lookup the run modelled found
	// (command -v hookwarden, lookpath.go); a write to one is a write to
	// the engine wherever it lies.
	engines map[string]bool
	// env: the assignments the script made as statements of their own
	// (scope.exported), in effect for every later command of the script;
	// envOverflow: more than maxScriptEnv of them.
	env         []envVar
	envOverflow bool
	// gitAliases: aliases the script set with git config alias.NAME VALUE
	// (scope.setAlias; dyn for a value known only at run time), in effect
	// for every later git command of the script.
	gitAliases map[string]string
	// dir: the absolute directory the script starts in ("" when not
	// known); globs are matched there (globMatches).
	dir string
	// noBareGlob: while classifying a glob whose directory was read, a
	// wildcard component does not count as naming a lefthook config.
	noBareGlob bool
	// plainHook: hook-manager switches (SKIP, HUSKY, …) the script assigned
	// without exporting, while the environment is known not to hold them
	// (judge.plainHookVar); a later bare export NAME exports them.
	// allExport: the script turns on allexport (set -a), which exports
	// every assignment.
	plainHook map[string]field
	allExport bool
	// indexDropped: a git command earlier in the script emptied the index
	// of every path and no git add of the whole tree followed (indexDrop).
	indexDropped bool
	// substVars: variables the script assigned a command substitution's
	// output (o=$(./p)); their expansions count as substitutions.
	substVars map[string]bool
	// assigned: every variable name the script assigns anywhere
	// (scriptNames); nil where the script is not known as a whole, and
	// then no expansion is taken as inherited.
	assigned map[string]bool
}

func lit(s string) field { return field{val: s, raw: s} }

// fields evaluates a word into zero or more fields. An unquoted $NAME with a
// known literal value is split on blanks, as the shell does.
func (sc *scope) fields(w *syntax.Word) []field {
	if w == nil {
		return nil
	}
	if len(w.Parts) == 1 {
		if pe, ok := w.Parts[0].(*syntax.ParamExp); ok && simpleParam(pe) {
			if v, ok := sc.vars[pe.Param.Value]; ok && len(v) <= MaxCommandBytes {
				// Field splitting uses $IFS: a literal IFS=: assigned in
				// the script splits x=rm:.hookwarden.yaml into rm and
				// .hookwarden.yaml (bash resets IFS at start-up, so an
				// unassigned one is blank, tab and newline).
				split := strings.Fields
				if ifs, set := sc.vars["IFS"]; set {
					split = func(v string) []string {
						return strings.FieldsFunc(v, func(r rune) bool { return strings.ContainsRune(ifs, r) })
					}
				}
				var out []field
				for _, s := range split(v) {
					out = append(out, lit(s))
				}
				return out
			}
		}
	}
	var val, raw strings.Builder
	var f field
	sc.parts(w.Parts, false, &val, &raw, &f)
	f.val, f.raw = val.String(), raw.String()
	return []field{f}
}

// word evaluates a word into exactly one field (no field splitting).
func (sc *scope) word(w *syntax.Word) field {
	if w == nil {
		return field{}
	}
	var val, raw strings.Builder
	var f field
	sc.parts(w.Parts, false, &val, &raw, &f)
	f.val, f.raw = val.String(), raw.String()
	return f
}

// inheritedParam reports whether pe expands a variable the script never
// assigns (scope.assigned): a named variable, not a positional or special
// parameter ($1, $@, $#, $?), whose value is the shell environment's.
func (sc *scope) inheritedParam(pe *syntax.ParamExp) bool {
	if sc.assigned == nil || pe.Param == nil || pe.Excl || pe.Length || pe.Width {
		return false
	}
	n := pe.Param.Value
	return isAssignment(n+"=") && !sc.assigned[n]
}

func simpleParam(pe *syntax.ParamExp) bool {
	return pe.Param != nil && !pe.Excl && !pe.Length && !pe.Width && pe.Index == nil &&
		pe.Slice == nil && pe.Repl == nil && pe.Exp == nil && pe.NestedParam == nil
}

// parts appends the value and raw spelling of parts to val and raw, and
// records in flags what the word holds (substitutions, unquoted expansions,
// decoders).
func (sc *scope) parts(parts []syntax.WordPart, inDbl bool, val, raw *strings.Builder, flags *field) {
	for _, p := range parts {
		switch x := p.(type) {
		case *syntax.Lit:
			raw.WriteString(x.Value)
			val.WriteString(unescape(x.Value, inDbl))
		case *syntax.SglQuoted:
			raw.WriteString(x.Value)
			if x.Dollar {
				val.WriteString(ansiC(x.Value))
			} else {
				val.WriteString(x.Value)
			}
		case *syntax.DblQuoted:
			sc.parts(x.Parts, true, val, raw, flags)
		case *syntax.ParamExp:
			if simpleParam(x) {
				if v, ok := sc.vars[x.Param.Value]; ok {
					if val.Len()+len(v) > MaxCommandBytes || raw.Len()+len(v) > MaxCommandBytes {
						// The value the command would see is past the
						// command bound: never build it (it doubles with
						// each x=$x$x), refuse instead.
						sc.overflow = true
						val.WriteString(dyn)
						raw.WriteString("$")
						continue
					}
					val.WriteString(v)
					raw.WriteString(v)
					continue
				}
			}
			flags.unquoted = flags.unquoted || !inDbl
			// "$o" after o=$(./p), at the start of the word, where an
			// option would begin
			flags.subst = flags.subst || (val.Len() == 0 && x.Param != nil && sc.substVars[x.Param.Value])
			flags.inherited = flags.inherited || (val.Len() == 0 && inDbl && sc.inheritedParam(x))
			flags.sourced = flags.sourced || (x.Param != nil && sourcedFileVars(x.Param.Value))
			val.WriteString(dyn)
			raw.WriteString("$")
		case *syntax.CmdSubst:
			if v, ok := gitDirSubst(x); ok {
				val.WriteString(v)
				raw.WriteString(v)
				continue
			}
			if !refSubst(x) {
				flags.substWords = substOperands(x, flags.substWords)
				flags.subst = true
				flags.unquoted = flags.unquoted || !inDbl
				flags.decoded = flags.decoded || (!sc.noDecode && decoderIn(x))
			}
			val.WriteString(dyn)
			raw.WriteString("$")
		case *syntax.ProcSubst:
			flags.subst = true
			flags.decoded = flags.decoded || (!sc.noDecode && decoderIn(x))
			val.WriteString(dyn)
			raw.WriteString("$")
		default:
			flags.unquoted = flags.unquoted || !inDbl
			val.WriteString(dyn)
			raw.WriteString("$")
		}
	}
}

// gitDirSubst recognises $(git rev-parse --git-dir|--git-common-dir|--git-path X),
// whose output is a path inside the repository's .git directory.
func gitDirSubst(cs *syntax.CmdSubst) (string, bool) {
	if len(cs.Stmts) != 1 {
		return "", false
	}
	call, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) < 3 {
		return "", false
	}
	var a []string
	for _, w := range call.Args {
		a = append(a, w.Lit())
	}
	if path.Base(a[0]) != "git" || a[1] != "rev-parse" {
		return "", false
	}
	for i := 2; i < len(a); i++ {
		switch a[i] {
		case "--git-dir", "--git-common-dir", "--absolute-git-dir":
			return ".git", true
		case "--git-path":
			if i+1 < len(a) {
				return ".git/" + a[i+1], true
			}
		}
	}
	return "", false
}

// unescape removes shell backslash quoting from a literal: outside double
// quotes every backslash escapes the next byte (backslash-newline vanishes);
// inside, only before $ ` " \ and newline.
func unescape(s string, inDbl bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		n := s[i+1]
		if inDbl && !strings.ContainsRune("$`\"\\\n", rune(n)) {
			b.WriteByte(c)
			continue
		}
		i++
		if n != '\n' {
			b.WriteByte(n)
		}
	}
	return b.String()
}

// ansiC decodes a $'...' string as bash does: the named escapes, \xHH,
// \NNN (octal), \uHHHH, \UHHHHHHHH and \cX, so an escaped spelling of a
// flag ($'\x2d\x2dno-verify') is judged as the flag it is.
func ansiC(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case '\\', '\'', '"', '?':
			b.WriteByte(e)
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			} else {
				b.WriteString(`\c`)
			}
		case 'x', 'u', 'U':
			limit := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			n, v := 0, rune(0)
			for n < limit && i+1+n < len(s) && hexVal(s[i+1+n]) >= 0 {
				v = v*16 + rune(hexVal(s[i+1+n]))
				n++
			}
			if n == 0 {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			i += n
			if e == 'x' {
				b.WriteByte(byte(v))
			} else {
				b.WriteRune(v)
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v, n := 0, 0
			for n < 3 && i+n < len(s) && s[i+n] >= '0' && s[i+n] <= '7' {
				v = v*8 + int(s[i+n]-'0')
				n++
			}
			i += n - 1
			b.WriteByte(byte(v))
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String()
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// cmdName is the lower-case base name of a command word without a .exe
// suffix, taken from the value and, for Windows paths, from the raw spelling.
// ok is false when the name is only known at run time.
func cmdName(f field) (string, bool) {
	v := f.val
	if i := strings.LastIndexAny(v, `/\`); i >= 0 {
		v = v[i+1:]
	}
	if strings.Contains(v, dyn) || v == "" {
		return "", false
	}
	if strings.ContainsAny(f.raw, `\`) {
		r := f.raw
		if i := strings.LastIndexAny(r, `/\`); i >= 0 {
			r = r[i+1:]
		}
		if r != "" && !strings.Contains(r, "$") {
			v = r
		}
	}
	v = strings.ToLower(v)
	v = strings.TrimSuffix(v, ".exe")
	return v, true
}

// pathKind classifies a path argument.
type pathKind struct {
	hooks   bool // inside or naming a hooks directory (.git/hooks, .husky, ...)
	store   bool // hookwarden's store directory below a git directory (also sets hooks)
	gitDir  bool // the .git directory itself
	gitConf bool // a git config file
	// gitState: a file git keeps what is checked out in (HEAD, the index,
	// refs, packed-refs, a linked worktree's HEAD and index)
	gitState bool
	mgr      bool // a file a hook manager reads or runs (hookManagerPath)
	// sysClient: a client's machine-wide settings (clientSystemPath)
	sysClient bool
	// startup: a shell start-up file (shellStartupPath)
	startup bool
	guard   guardKind
}

// guarded reports a path with a write rule of its own: a hooks directory,
// the store, the git directory or a config file, a hook manager's file, a
// client's machine-wide settings, a shell start-up file or a guard file.
func (k pathKind) guarded() bool {
	return k.hooks || k.store || k.gitDir || k.gitConf || k.gitState || k.mgr || k.sysClient || k.startup || k.guard != (guardKind{})
}

// classify inspects both spellings of a path, joined to the scope's cwd when
// relative.
func (sc *scope) classify(f field) pathKind {
	k := pathKind{startup: f.sourced}
	for _, w := range f.substWords {
		sc.classifyOne(w, &k)
		if isEngineName(strings.ToLower(w)) {
			// cp x "$(whereis -b hookwarden)": a path found by asking for
			// the engine by name (lookpath.go models command -v, which and
			// type -P; any other asking is taken as naming it too).
			k.guard.own = true
		}
	}
	if matches, ok := sc.globMatches(f.val); ok {
		// A glob is judged by what it matches where the command runs, and
		// as written too (an earlier statement may create what it matches),
		// except that a wildcard is no longer taken to name a lefthook
		// config in another directory (rm -f build/*.json): the directory
		// was read.
		for _, m := range matches {
			sc.classifyOne(m, &k)
		}
		sc.noBareGlob = true
		defer func() { sc.noBareGlob = false }()
	}
	for _, s := range [2]string{f.val, f.raw} {
		if strings.Contains(s, "{") && strings.Contains(s, ",") {
			for _, e := range expandBraces(s, maxBraceWords) {
				sc.classifyOne(e, &k)
			}
			continue
		}
		sc.classifyOne(s, &k)
	}
	return k
}

// classifyOne adds what one spelling s of a path argument is to k.
func (sc *scope) classifyOne(s string, k *pathKind) {
	if s == "" {
		return
	}
	if sc.cwd != "" && !strings.HasPrefix(s, "/") && !strings.HasPrefix(s, `\`) && !(len(s) > 1 && s[1] == ':') {
		s = sc.cwd + "/" + s
	}
	c := classifyPathGlob(s, sc.noBareGlob)
	if sc.engines[enginePathKey(s)] {
		c.guard.own = true
	} else if holdsEngine(s, sc.engines) {
		// rm -rf ~/.local/bin, mv ~/go/bin x: the directory holds the
		// engine the launcher would choose (siteEngineList).
		c.guard.ownParent = true
	}
	if sc.cwdUnknown && isRelative(s) && hookFileName(s) {
		// After cd to a directory known only at run time, a bare hook
		// name may well be inside the hooks directory.
		c.hooks = true
	}
	if sc.cwdUnknown && isRelative(s) {
		g := guardFileName(s)
		c.guard.own = c.guard.own || g.own
		c.guard.client = c.guard.client || g.client
	}
	k.hooks = k.hooks || c.hooks
	k.store = k.store || c.store
	k.guard.own = k.guard.own || c.guard.own
	k.guard.client = k.guard.client || c.guard.client
	k.guard.ownParent = k.guard.ownParent || c.guard.ownParent
	k.guard.clientParent = k.guard.clientParent || c.guard.clientParent
	k.gitDir = k.gitDir || c.gitDir
	k.gitConf = k.gitConf || c.gitConf
	k.gitState = k.gitState || c.gitState
	k.mgr = k.mgr || c.mgr
	k.sysClient = k.sysClient || c.sysClient
	k.startup = k.startup || c.startup
}

// isHookDirName reports the directories hook managers keep hooks in: husky's
// .husky, lefthook's .lefthook and .lefthook-local (script dirs), and the
// conventional .githooks of core.hooksPath setups.
func isHookDirName(c string) bool {
	switch c {
	case ".husky", ".lefthook", ".lefthook-local", ".githooks":
		return true
	}
	return false
}

// StoreDirName is the directory hookwarden keeps its own state in below
// Git's common directory: the dispatch correlation store
// (engine/dispatch.StoreSubdir, "hookwarden/dispatch-correlations") binds
// each dispatched agent to its return gate, so removing or overwriting it
// unbinds every agent and turns their returns into stated skips. The rule
// protecting .git/hooks protects it too; the engine writes it directly, not
// through a judged command.
const StoreDirName = "hookwarden"

// isStoreDirName reports a component that, directly below a git directory
// (or a component known only at run time), is protected like .git/hooks:
// "hooks" itself and hookwarden's store directory (exact names, lower-cased
// by the caller; .git/hooksx and .git/hookwardenx are other files).
func isStoreDirName(c string) bool {
	return c == "hooks" || c == StoreDirName
}

func isRelative(s string) bool {
	return !strings.HasPrefix(s, "/") && !strings.HasPrefix(s, `\`) && !(len(s) > 1 && s[1] == ':')
}

// firstComponent is the lower-cased first component of a relative path
// ("/" or "\" separated, a leading "./" dropped).
func firstComponent(s string) string {
	first := strings.ToLower(strings.ReplaceAll(s, `\`, "/"))
	first = strings.TrimPrefix(first, "./")
	if i := strings.IndexByte(first, '/'); i >= 0 {
		first = first[:i]
	}
	return first
}

// hookFileName reports a relative path whose first component is a git hook
// name (githooks(5); "update" is left out as too common a file name).
func hookFileName(s string) bool {
	switch firstComponent(s) {
	case "applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit",
		"prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase", "post-checkout", "post-merge",
		"pre-push", "pre-receive", "proc-receive", "post-receive", "post-update", "reference-transaction",
		"push-to-checkout", "pre-auto-gc", "post-rewrite", "sendemail-validate", "fsmonitor-watchman",
		"post-index-change":
		return true
	}
	return false
}

func classifyPath(s string) pathKind { return classifyPathGlob(s, false) }

// classifyPathGlob is classifyPath; with noBareGlob a wildcard component is
// not taken to name a lefthook config (classifyGuard).
func classifyPathGlob(s string, noBareGlob bool) pathKind {
	k := pathKind{startup: shellStartupPath(s)}
	// cmd.exe drops its ^ escapes before a command sees the path.
	s = strings.ToLower(strings.ReplaceAll(strings.ReplaceAll(s, "^", ""), `\`, "/"))
	// Keep a URL-looking string out: a hooks path never has a scheme.
	if strings.Contains(s, "://") {
		return k
	}
	comps := pathComponents(s)
	for i, c := range comps {
		k.gitComponent(comps, i)
		// A component known only at run time ($VAR, $(...), cmd's %VAR%,
		// PowerShell's $env:VAR) followed by hooks may be the git directory.
		runtime := strings.Contains(c, dyn) || strings.Contains(c, "$") || (len(c) > 2 && c[0] == '%' && c[len(c)-1] == '%')
		if runtime && i+1 < len(comps) && isStoreDirName(comps[i+1]) {
			k.hooks = true
			k.store = k.store || comps[i+1] == StoreDirName
		}
		glob := strings.ContainsAny(c, "*?[")
		if isHookDirName(c) || (glob && (matchGlob(c, ".husky") || matchGlob(c, ".lefthook") || matchGlob(c, ".lefthook-local") || matchGlob(c, ".githooks"))) {
			k.hooks = true
		}
	}
	if strings.ContainsAny(s, "*?[") || containsGuardKey(s) {
		k.guard = classifyGuard(comps, noBareGlob)
	}
	k.mgr = hookManagerPath(comps)
	k.sysClient = clientSystemPath(comps)
	if n := len(comps); n > 0 {
		if comps[n-1] == ".gitconfig" || (n >= 3 && comps[n-3] == ".config" && comps[n-2] == "git" && comps[n-1] == "config") ||
			(n >= 2 && comps[n-2] == "etc" && comps[n-1] == "gitconfig") {
			k.gitConf = true
		}
	}
	return k
}

// pathComponents splits the slash-separated, lower-cased path s into its
// components, each read as Win32 opens it (".hookwarden.yaml." and
// ".hookwarden.yaml::$DATA" are the manifest there; as with the case
// folding, the other systems are read the same), "" and "." dropped and
// ".." taking the component before it away.
func pathComponents(s string) []string {
	var comps []string
	for _, c := range strings.Split(s, "/") {
		c = Win32Name(c)
		switch {
		case c == "" || c == ".":
		case c == ".." && len(comps) > 0 && comps[len(comps)-1] != "..":
			comps = comps[:len(comps)-1]
		default:
			comps = append(comps, c)
		}
	}
	return comps
}

// gitComponent marks k when comps[i] is (or, as a glob, may be) the git
// directory: the git directory itself when it is the last component, else
// by the entry under it (hooks or hookwarden's store, config,
// config.worktree, a linked worktree's config.worktree).
func (k *pathKind) gitComponent(comps []string, i int) {
	c := comps[i]
	if c != ".git" && !(strings.ContainsAny(c, "*?[") && matchGlob(c, ".git")) {
		return
	}
	if i+1 == len(comps) {
		k.gitDir = true
		return
	}
	n := comps[i+1]
	if isStoreDirName(n) || (strings.ContainsAny(n, "*?[") && (matchGlob(n, "hooks") || matchGlob(n, StoreDirName))) {
		k.hooks = true
	}
	if n == StoreDirName {
		k.store = true
	}
	if n == "config" || n == "config.worktree" {
		k.gitConf = true
	}
	if n == "worktrees" && i+3 < len(comps) && comps[i+3] == "config.worktree" {
		k.gitConf = true
	}
	if gitStateName(n) || n == "worktrees" && i+3 < len(comps) && gitStateName(comps[i+3]) {
		k.gitState = true
	}
}

// gitStateName reports the entries of a git directory (lower case) that
// hold what is checked out: HEAD and the other *_HEAD files, the index,
// refs and packed-refs; a glob that matches one counts.
func gitStateName(n string) bool {
	for _, s := range []string{"head", "orig_head", "fetch_head", "merge_head", "cherry_pick_head", "revert_head", "index", "refs", "packed-refs"} {
		if n == s || strings.ContainsAny(n, "*?[") && matchGlob(n, s) {
			return true
		}
	}
	return false
}

// matchGlob reports whether a glob component matches name; as in the shell,
// a name starting with "." is matched only by a pattern starting with ".",
// and a bracket expression opening with "!" is negated (bash's [!.], which
// path.Match reads as the class of "!" and ".": rm -rf .[!.]* removes
// .hookwarden.yaml).
func matchGlob(pattern, name string) bool {
	if strings.HasPrefix(name, ".") && !strings.HasPrefix(pattern, ".") {
		return false
	}
	ok, err := path.Match(bashBrackets(pattern), name)
	return err == nil && ok
}

// bashBrackets rewrites each unescaped "[!" of a bash glob as path.Match's
// "[^".
func bashBrackets(pattern string) string {
	if !strings.Contains(pattern, "[!") {
		return pattern
	}
	b := []byte(pattern)
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '[':
			if i+1 < len(b) && b[i+1] == '!' {
				b[i+1] = '^'
			}
		}
	}
	return string(b)
}

// maxBraceWords bounds the words one brace expansion may produce for path
// classification; past it the word is classified as written (plus what was
// produced), which never loosens a decision the unexpanded word would get.
const maxBraceWords = 64

// expandBraces expands bash brace expansions ({a,b}, nested, with a prefix
// and suffix) in s, so mv .hookwarden.yaml{,.bak} is classified as the two
// paths bash passes. Sequences ({1..3}) are left as written. The result holds
// s itself first and at most limit words.
func expandBraces(s string, limit int) []string {
	out := []string{s}
	if !strings.Contains(s, "{") || !strings.Contains(s, ",") {
		return out
	}
	queue := []string{s}
	for len(queue) > 0 && len(out) < limit {
		w := queue[0]
		queue = queue[1:]
		open, close, commas := braceGroup(w)
		if open < 0 {
			continue
		}
		prev := open + 1
		for _, c := range append(commas, close) {
			e := w[:open] + w[prev:c] + w[close+1:]
			prev = c + 1
			if len(out) >= limit {
				break
			}
			out = append(out, e)
			queue = append(queue, e)
		}
	}
	return out
}

// braceGroup finds the first brace group of w holding a comma at its own
// level: the offsets of its braces and of those commas; open is -1 when
// there is none.
func braceGroup(w string) (open, close int, commas []int) {
	for i := 0; i < len(w); i++ {
		if w[i] != '{' {
			continue
		}
		depth := 0
		var cs []int
		for k := i; k < len(w); k++ {
			switch w[k] {
			case '{':
				depth++
			case '}':
				depth--
				if depth == 0 {
					if len(cs) > 0 {
						return i, k, cs
					}
					k = len(w)
				}
			case ',':
				if depth == 1 {
					cs = append(cs, k)
				}
			}
		}
	}
	return -1, -1, nil
}

// refSubst recognises a command substitution whose output is one ref name
// or object name, which can neither start with "-" nor split into words
// (git-check-ref-format(1): no component begins with "-", no blanks):
// $(git branch --show-current), $(git rev-parse [--abbrev-ref|--short]
// <rev>), $(git symbolic-ref --short HEAD), $(git merge-base <a> <b>). Such
// an operand (git push origin $(git branch --show-current)) cannot expand to
// a hook-skipping flag.
func refSubst(cs *syntax.CmdSubst) bool {
	if len(cs.Stmts) != 1 || len(cs.Stmts[0].Redirs) > 0 {
		return false
	}
	call, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || len(call.Args) < 2 {
		return false
	}
	var a []string
	for _, w := range call.Args {
		l := w.Lit()
		if l == "" {
			return false // anything but plain literals
		}
		a = append(a, l)
	}
	if a[0] != "git" {
		return false
	}
	rest := a[2:]
	switch a[1] {
	case "branch":
		return len(rest) == 1 && rest[0] == "--show-current"
	case "symbolic-ref":
		return len(rest) == 2 && (rest[0] == "--short" || rest[0] == "-q") && rest[1] == "HEAD"
	case "rev-parse":
		for i, r := range rest {
			if strings.HasPrefix(r, "-") && r != "--abbrev-ref" && r != "--short" && r != "--verify" && r != "-q" && r != "--quiet" {
				return false
			}
			if i == len(rest)-1 && strings.HasPrefix(r, "-") {
				return false // the last word is the revision
			}
		}
		return len(rest) > 0
	case "merge-base":
		return len(rest) == 2 && !strings.HasPrefix(rest[0], "-") && !strings.HasPrefix(rest[1], "-")
	}
	return false
}

// dynPieces returns the literal pieces of a word around its run-time parts
// (rm${IFS}.hookwarden.yaml holds rm and .hookwarden.yaml, which field
// splitting may make separate words); nil for a word with none.
func dynPieces(f field) []field {
	if !f.dynamic() {
		return nil
	}
	var out []field
	for _, p := range strings.Split(f.val, dyn) {
		for _, q := range strings.Fields(p) {
			out = append(out, lit(q))
		}
	}
	return out
}

// scriptNames collects, in one linear walk of f, the names of the
// functions and aliases the script defines anywhere (defined, lower case;
// nil when none) and, as a non-nil map, the names of the variables it
// assigns anywhere (assigned), by any form the evaluator models or may not:
// NAME=V (on its own, before a command, or as export/declare/local/readonly
// NAME=V), for NAME in, select NAME in, ${NAME:=V}, and the name operands of
// read, mapfile, readarray, getopts, printf -v, declare, typeset, local,
// export and readonly. An assigned name it misses only costs a refusal
// (git-dynamic-option), never an allowance.
func scriptNames(f *syntax.File) (defined, assigned map[string]bool) {
	assigned = map[string]bool{}
	define := func(n string) {
		if defined == nil {
			defined = map[string]bool{}
		}
		defined[strings.ToLower(n)] = true
	}
	assign := func(w *syntax.Word) {
		lit := w.Lit()
		if lit == "" || strings.HasPrefix(lit, "-") {
			return
		}
		n, _, _ := strings.Cut(lit, "=")
		n, _, _ = strings.Cut(n, "[")
		assigned[n] = true
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.FuncDecl:
			if x.Name != nil {
				define(x.Name.Value)
			}
		case *syntax.Assign:
			if x.Name != nil {
				assigned[x.Name.Value] = true
			}
		case *syntax.WordIter:
			if x.Name != nil {
				assigned[x.Name.Value] = true
			}
		case *syntax.ParamExp:
			if x.Param != nil && x.Exp != nil && (x.Exp.Op == syntax.AssignUnset || x.Exp.Op == syntax.AssignUnsetOrNull) {
				assigned[x.Param.Value] = true
			}
		case *syntax.DeclClause:
			for _, a := range x.Args {
				if a.Name != nil {
					assigned[a.Name.Value] = true
				}
			}
		case *syntax.CallExpr:
			if len(x.Args) < 2 {
				break
			}
			switch x.Args[0].Lit() {
			case "alias":
				for _, w := range x.Args[1:] {
					var b strings.Builder
					for _, p := range w.Parts {
						if l, ok := p.(*syntax.Lit); ok {
							b.WriteString(l.Value)
						} else {
							break
						}
					}
					if name, _, ok := strings.Cut(b.String(), "="); ok && name != "" {
						define(name)
					}
				}
			case "read", "mapfile", "readarray", "getopts", "declare", "typeset", "local", "export", "readonly":
				for _, w := range x.Args[1:] {
					assign(w)
				}
			case "printf":
				for i, w := range x.Args[1 : len(x.Args)-1] {
					if w.Lit() == "-v" {
						assign(x.Args[i+2])
					}
				}
			}
		}
		return true
	})
	return defined, assigned
}

// substOperands appends to out the literal operands of cs when it is one
// simple command (echo, printf, find, ls ... whose output may be a path it
// was given), each as written with its quotes removed, up to maxSubstWords.
// Only the command's own words are read, so the cost is linear in the
// command however substitutions nest.
func substOperands(cs *syntax.CmdSubst, out []string) []string {
	if len(cs.Stmts) != 1 {
		return out
	}
	call, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) < 2 {
		return out
	}
	for _, w := range call.Args[1:] {
		if len(out) >= maxSubstWords {
			break
		}
		var b strings.Builder
		literal := true
		for _, p := range w.Parts {
			switch x := p.(type) {
			case *syntax.Lit:
				b.WriteString(unescape(x.Value, false))
			case *syntax.SglQuoted:
				b.WriteString(x.Value)
			case *syntax.DblQuoted:
				for _, q := range x.Parts {
					if l, ok := q.(*syntax.Lit); ok {
						b.WriteString(unescape(l.Value, true))
					} else {
						literal = false
					}
				}
			default:
				literal = false
			}
		}
		if literal && b.Len() > 0 && !strings.HasPrefix(b.String(), "-") {
			out = append(out, b.String())
		}
	}
	return out
}

// shellStartupNames are the start-up files of the login and interactive
// shells in a home directory (bash(1) INVOCATION: ~/.bash_profile,
// ~/.bash_login, ~/.profile, ~/.bashrc, ~/.bash_logout; zsh(1) STARTUP/
// SHUTDOWN FILES: ~/.zshenv, ~/.zprofile, ~/.zshrc, ~/.zlogin, ~/.zlogout;
// ksh and mksh: ~/.kshrc, ~/.mkshrc).
func shellStartupNames(name string) bool {
	switch name {
	case ".bash_profile", ".bash_login", ".profile", ".bashrc",
		".bash_logout", ".zshenv", ".zprofile", ".zshrc", ".zlogin", ".zlogout",
		".kshrc", ".mkshrc":
		return true
	}
	return false
}

// sourcedFileVars name a file read as code before the commands of a shell
// or a client's shell tool: BASH_ENV (bash(1): read by a non-interactive
// bash), ENV (sh(1) and bash in POSIX mode: read by an interactive shell),
// CLAUDE_ENV_FILE (Claude Code 2.1.332 bundle: its text is loaded as the
// "session environment" run ahead of each Bash command).
func sourcedFileVars(name string) bool {
	switch name {
	case "BASH_ENV", "ENV", "CLAUDE_ENV_FILE":
		return true
	}
	return false
}

// ClaudeRunFolders are the folders of Claude Code's config directory
// ($CLAUDE_CONFIG_DIR, default ~/.claude) whose files Claude Code runs or
// acts on without asking anyone, and ClaudeRunFile the file there that
// names programs it starts. Claude Code 2.1.332 refuses its own file
// tools' writes to each (its bundle's refusal texts): session-env ("Claude
// Code runs the scripts that hooks leave there ahead of Bash commands"),
// shell-snapshots ("Each Bash command first runs a snapshot, kept there, of
// the shell setup (aliases, functions, options)"), daemon ("The service
// that runs background sessions acts on the files there") and daemon.json
// ("starts the workers listed there").
var ClaudeRunFolders = []string{"session-env", "shell-snapshots", "daemon"}

// ClaudeRunFile: see ClaudeRunFolders.
const ClaudeRunFile = "daemon.json"

// ClaudeConfigRunPath reports whether rel, a slash-separated path relative
// to Claude Code's config directory, is in one of ClaudeRunFolders (or is
// the folder) or is ClaudeRunFile.
func ClaudeConfigRunPath(rel string) bool {
	rel = path.Clean(rel)
	if rel == ClaudeRunFile {
		return true
	}
	first, _, _ := strings.Cut(rel, "/")
	for _, f := range ClaudeRunFolders {
		if first == f {
			return true
		}
	}
	return false
}

// claudeConfigRunPath reports whether the cleaned slash path p has a
// component dir (".claude", or dyn for an unknown prefix such as
// $CLAUDE_CONFIG_DIR) followed by a path ClaudeConfigRunPath accepts.
func claudeConfigRunPath(p, dir string) bool {
	for rest := p; ; {
		i := strings.Index(rest, dir+"/")
		if i < 0 {
			return false
		}
		if (i == 0 || rest[i-1] == '/' || dir == dyn) && ClaudeConfigRunPath(rest[i+len(dir)+1:]) {
			return true
		}
		rest = rest[i+len(dir)+1:]
	}
}

// shellStartupPath reports a shell start-up file: one of shellStartupNames
// in a home directory (a path starting with ~ or absolute; a relative
// .bashrc is a repository's file, dotfiles), fish's config.fish and
// conf.d/*.fish under .config, and the machine-wide ones (/etc/profile,
// /etc/profile.d/, /etc/bash.bashrc, /etc/zsh/, /etc/environment; bash(1),
// zsh(1), pam_env(8)), and Claude Code's folders it runs ahead of Bash
// commands or acts on (ClaudeRunFolders, ClaudeRunFile).
func shellStartupPath(s string) bool {
	p := path.Clean(strings.ReplaceAll(s, `\`, "/"))
	switch {
	case p == "/etc/profile" || p == "/etc/bash.bashrc" || p == "/etc/environment" || p == "/etc/zshenv" || p == "/etc/zshrc" ||
		strings.HasPrefix(p, "/etc/profile.d/") || strings.HasPrefix(p, "/etc/zsh/") || p == "/etc/profile.d" || p == "/etc/zsh":
		return true
	case strings.Contains(p, "/.config/fish/") && strings.HasSuffix(p, ".fish"):
		return true
	case claudeConfigRunPath(p, ".claude") || claudeConfigRunPath(p, dyn):
		return true
	}
	if !strings.HasPrefix(p, "~") && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, dyn) {
		// a relative .bashrc is a repository's file (dotfiles); one under
		// a directory known only at run time ("$X/.bashrc",
		// $env:USERPROFILE\.bashrc) may be a home directory's
		return false
	}
	return shellStartupNames(path.Base(p))
}
