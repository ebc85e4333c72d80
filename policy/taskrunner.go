package policy

import (
	"encoding/json"
	"path"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
	"mvdan.cc/sh/v3/syntax"
)

// Task runners are scripts too (issue 28 item 3): npm/pnpm/yarn/bun run
// NAME -- ARGS is judged by the script package.json defines for NAME (its
// pre and post scripts with it) with ARGS appended; make TARGET by the
// recipes of TARGET and of what it depends on (make -f FILE, -f - with a
// here-document, -C DIR); just RECIPE by its body; task NAME by the cmds
// of Taskfile.yml. Each file is read through scriptSource; one that cannot
// be read where it matters is refused (script-unknown, scriptMatters).

// maxRecipeTargets bounds the targets and dependencies one make, just or
// task call is followed through.
const maxRecipeTargets = 64

// packageScript judges `npm|pnpm|yarn|bun run NAME [--] ARGS` (and npm
// test/start/stop/restart, yarn NAME, pnpm NAME): name is the tool,
// rest the words after run (or the script name itself).
func (j *judge) packageScript(rest []field, env []envVar, depth int, sc *scope) {
	rest = skipOpts(rest, "", []string{"--workspace", "-w", "--prefix", "--filter", "--dir", "-C"})
	if len(rest) == 0 {
		return
	}
	target := rest[0]
	args := rest[1:]
	if len(args) > 0 && args[0].val == "--" {
		args = args[1:]
	}
	src, known := j.scriptSource(sc, "package.json")
	if !known {
		if j.scriptMatters(sc, "package.json") {
			j.hits.add(RuleScriptUnknown)
		}
		return
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if err := json.Unmarshal([]byte(src), &pkg); err != nil {
		return // npm refuses a package.json it cannot parse: nothing runs
	}
	if target.dynamic() {
		// any script may run
		for _, s := range pkg.Scripts {
			j.scriptField(lit(s), depth+1, env)
		}
		return
	}
	var extra []string
	for _, a := range args {
		extra = append(extra, shellQuote(a.val))
	}
	for _, n := range []string{"pre" + target.val, target.val, "post" + target.val} {
		s, ok := pkg.Scripts[n]
		if !ok {
			continue
		}
		if n == target.val && len(extra) > 0 {
			s += " " + strings.Join(extra, " ")
		}
		j.scriptField(lit(s), depth+1, env)
	}
}

// installs reports a package manager's words (after its options) that
// install the project's dependencies, which runs the project's own
// lifecycle scripts: npm install/ci and their aliases (npm-install(1),
// npm-ci(1)), yarn with no command or install/add, pnpm and bun
// install/i/add.
func installs(name string, rest []field) bool {
	if len(rest) == 0 {
		return name == "yarn" // yarn alone installs
	}
	switch name {
	case "npm":
		switch rest[0].val {
		case "install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal", "isntall", "add",
			"ci", "clean-install", "ic", "install-clean", "isntall-clean", "install-ci-test", "cit", "it", "install-test":
			return true
		}
	case "yarn", "pnpm", "bun":
		switch rest[0].val {
		case "install", "i", "add":
			return true
		}
	}
	return false
}

// installScripts judges the lifecycle scripts of the project's
// package.json that an install runs: preinstall, install, postinstall,
// prepublish, preprepare, prepare and postprepare (npm docs, "Life Cycle
// Operation Order": npm ci and npm install; yarn, pnpm and bun run the
// root project's install and prepare scripts too). --ignore-scripts runs
// none (the caller checks it).
func (j *judge) installScripts(env []envVar, depth int, sc *scope) {
	for _, t := range []string{"install", "prepublish", "prepare"} {
		j.packageScript([]field{lit(t)}, env, depth, sc)
	}
}

// packageScriptSet judges the scripts a package manager writes into
// package.json as the shell code they are, when they are written: `npm pkg
// set scripts.NAME=CMD` (also pnpm and bun's pkg; npm-pkg(1): "set" takes
// key=value pairs) and npm 7-8's `npm set-script NAME CMD`. A later `npm
// run NAME`, in the same command or another, runs CMD (packageScript reads
// package.json as it is on disk, before the write), as a git alias runs
// what it was defined to.
func (j *judge) packageScriptSet(rest []field, env []envVar, depth int) {
	if len(rest) >= 3 && rest[0].val == "set-script" {
		j.scriptField(rest[2], depth+1, env)
		return
	}
	if len(rest) < 2 || rest[0].val != "pkg" || rest[1].val != "set" {
		return
	}
	for _, a := range rest[2:] {
		key, val, ok := strings.Cut(a.val, "=")
		if !ok {
			continue
		}
		k := strings.NewReplacer(`"`, "", "'", "").Replace(key)
		if k == "scripts" || strings.HasPrefix(k, "scripts.") || strings.HasPrefix(k, "scripts[") {
			j.scriptField(withVal(a, val), depth+1, env)
		}
	}
}

// makeCall judges make/gmake: -f FILE (or -f - with a here-document), -C
// DIR, then the targets named (the first target of the file when none).
func (j *judge) makeCall(args []field, env []envVar, depth int, st *syntax.Stmt, sc *scope) {
	m := parseMakeArgs(args)
	src, known, ok := j.makeSource(m, st, sc)
	if !ok {
		return
	}
	for _, e := range m.evals {
		known = known && !strings.Contains(e, dyn)
	}
	if !known {
		j.hits.add(RuleScriptUnknown)
		return
	}
	if len(m.evals) > 0 {
		src = strings.Join(m.evals, "\n") + "\n" + src
	}
	src = j.makeIncludes(sc, m.dir, src, 0)
	rules, first, vars := parseMakefile(src)
	j.makeBuiltins(vars, sc, m.dir)
	j.makeShellCalls(src, vars, env, depth)
	j.runRecipes(rules, first, m.targets, func(line string) string { return expandMake(line, vars) }, env, depth)
}

// makeArgs is what make's arguments name: the makefiles (-f), whether one is
// stdin (-f -), the directory (-C), the text of --eval options and the
// targets.
type makeArgs struct {
	files   []string
	stdin   bool
	dir     string
	evals   []string
	targets []field
}

// parseMakeArgs reads GNU make's options (make --help, 4.x): -f/--file/
// --makefile, -C/--directory, -E/--eval (makefile text evaluated before the
// makefiles are read, whose first rule can be the goal), the options that
// take a value; NAME=VALUE assignments are skipped and every other operand
// is a target.
func parseMakeArgs(args []field) makeArgs {
	var m makeArgs
	for i := 0; i < len(args); i++ {
		v := args[i].val
		next := i+1 < len(args)
		switch {
		case v == "-E" || v == "--eval":
			if next {
				i++
				m.evals = append(m.evals, args[i].val)
			}
		case strings.HasPrefix(v, "--eval="):
			m.evals = append(m.evals, strings.TrimPrefix(v, "--eval="))
		case strings.HasPrefix(v, "-E") && len(v) > 2:
			m.evals = append(m.evals, v[2:])
		case v == "-f" || v == "--file" || v == "--makefile":
			if next {
				i++
				if isStdinPath(args[i].val) {
					m.stdin = true
				} else {
					m.files = append(m.files, args[i].val)
				}
			}
		case strings.HasPrefix(v, "-f") && len(v) > 2:
			m.files = append(m.files, v[2:])
		case strings.HasPrefix(v, "--file=") || strings.HasPrefix(v, "--makefile="):
			_, f, _ := strings.Cut(v, "=")
			m.files = append(m.files, f)
		case v == "-C" || v == "--directory":
			if next {
				i++
				m.dir = args[i].val
			}
		case strings.HasPrefix(v, "-C") && len(v) > 2:
			m.dir = v[2:]
		case v == "-I" || v == "-o" || v == "-W" || v == "--include-dir" || v == "-j" && next && isDigits(args[i+1].val):
			i++
		case strings.HasPrefix(v, "-"), isAssignment(v):
		default:
			m.targets = append(m.targets, args[i])
		}
	}
	return m
}

// makeSource returns the makefile text make would read: the here-document
// of -f - (known false when it holds an unknown value), the -f files, or
// the first of GNUmakefile, makefile and Makefile in the directory. ok is
// false when there is nothing to judge: a -f file that could not be read
// (recipeFile has judged it), or no makefile and no --eval (one that
// matters but cannot be read is RuleScriptUnknown).
func (j *judge) makeSource(m makeArgs, st *syntax.Stmt, sc *scope) (src string, known, ok bool) {
	known = true
	switch {
	case m.stdin:
		for _, f := range hereDocs(st) {
			src += f.val + "\n"
			known = known && !f.dynamic()
		}
	case len(m.files) > 0:
		for _, f := range m.files {
			s, ok := j.recipeFile(sc, m.dir, f)
			if !ok {
				return "", false, false
			}
			src += s + "\n"
		}
	default:
		for _, n := range []string{"GNUmakefile", "makefile", "Makefile"} {
			if s, ok := j.scriptSource(sc, path.Join(m.dir, n)); ok {
				return s, true, true
			}
		}
		for _, n := range []string{"GNUmakefile", "makefile", "Makefile"} {
			if j.scriptMatters(sc, path.Join(m.dir, n)) {
				j.hits.add(RuleScriptUnknown)
			}
		}
		return "", true, len(m.evals) > 0
	}
	return src, known, true
}

// makeBuiltins adds the variables make sets itself (GNU make manual,
// "Other Special Variables", "How the MAKE Variable Works") unless the
// makefile sets them: CURDIR, the absolute directory make runs in (known
// when the command's directory is), and MAKE.
func (j *judge) makeBuiltins(vars map[string]string, sc *scope, dir string) {
	if _, set := vars["MAKE"]; !set {
		vars["MAKE"] = "make"
	}
	if _, set := vars["CURDIR"]; set || j.dir == "" || sc.cwdUnknown || strings.Contains(dir, dyn) {
		return
	}
	cur := path.Join(filepath.ToSlash(j.dir), sc.cwd)
	if path.IsAbs(sc.cwd) {
		cur = sc.cwd
	}
	if dir != "" {
		if path.IsAbs(dir) {
			cur = dir
		} else {
			cur = path.Join(cur, dir)
		}
	}
	vars["CURDIR"] = cur
}

// maxMakeIncludes bounds how deep included makefiles are followed.
const maxMakeIncludes = 8

// makeIncludes returns src with each include, -include and sinclude line
// (GNU make manual, "Including Other Makefiles") replaced by the text of
// the files it names, read relative to dir like the makefile itself
// (recipeFile: unreadable or over the bound is script-unknown, a missing
// file is skipped). A name known only at run time is script-unknown for
// include; for -include and sinclude, whose usual names are generated
// dependency files ($(OBJS:.o=.d)), it is skipped.
func (j *judge) makeIncludes(sc *scope, dir, src string, level int) string {
	if !strings.Contains(src, "include") {
		return src
	}
	_, _, vars := parseMakefile(src)
	lines := strings.Split(src, "\n")
	for i, ln := range lines {
		t := strings.TrimSpace(ln)
		kw, rest, ok := strings.Cut(t, " ")
		if !ok || strings.HasPrefix(ln, "\t") || kw != "include" && kw != "-include" && kw != "sinclude" {
			continue
		}
		if level >= maxMakeIncludes {
			j.hits.add(RuleScanBoundNesting)
			return src
		}
		var text []string
		for _, name := range strings.Fields(expandMake(rest, vars)) {
			if strings.Contains(name, dyn) {
				if kw == "include" {
					j.hits.add(RuleScriptUnknown)
				}
				continue
			}
			if inc, ok := j.recipeFile(sc, dir, name); ok {
				text = append(text, j.makeIncludes(sc, dir, inc, level+1))
			}
		}
		lines[i] = strings.Join(text, "\n")
	}
	return strings.Join(lines, "\n")
}

// makeShellCalls judges the commands make runs while it reads a makefile:
// every $(shell CMD) (GNU make manual, "The shell Function"; judged
// wherever it stands, since expanding the variable that holds it runs it)
// and every VAR != CMD assignment, with make variables expanded.
func (j *judge) makeShellCalls(src string, vars map[string]string, env []envVar, depth int) {
	for rest := src; ; {
		i := strings.Index(rest, "$(shell ")
		if i < 0 {
			break
		}
		body, after := balancedParen(rest[i+len("$(shell "):])
		j.scriptField(lit(expandMake(body, vars)), depth+1, env)
		rest = after
	}
	for _, ln := range strings.Split(src, "\n") {
		if strings.HasPrefix(ln, "\t") {
			continue
		}
		if name, cmd, ok := strings.Cut(ln, "!="); ok && !strings.ContainsAny(strings.TrimSpace(name), " \t$():") {
			j.scriptField(lit(expandMake(strings.TrimSpace(cmd), vars)), depth+1, env)
		}
	}
}

// balancedParen splits s after the ")" that closes an already opened "(":
// the text before it and the text after. An unclosed s is all body.
func balancedParen(s string) (body, after string) {
	n := 1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			n++
		case ')':
			n--
			if n == 0 {
				return s[:i], s[i+1:]
			}
		}
	}
	return s, ""
}

// recipeFile reads a task runner's file at dir/name, adding script-unknown
// when it matters and cannot be read.
func (j *judge) recipeFile(sc *scope, dir, name string) (string, bool) {
	p := name
	if dir != "" && !path.IsAbs(name) {
		p = path.Join(dir, name)
	}
	s, ok := j.scriptSource(sc, p)
	if !ok && j.scriptMatters(sc, p) {
		j.hits.add(RuleScriptUnknown)
	}
	return s, ok
}

// recipe is one make target, just recipe or task: its dependencies and its
// command lines.
type recipe struct {
	deps  []string
	lines []string
}

// runRecipes judges the recipes of targets (first when none) and their
// dependencies, each line passed through expand, at most maxRecipeTargets.
func (j *judge) runRecipes(rules map[string]*recipe, first string, targets []field, expand func(string) string, env []envVar, depth int) {
	var queue []string
	for _, t := range targets {
		if t.dynamic() {
			for n := range rules { // any target may run
				queue = append(queue, n)
			}
			continue
		}
		queue = append(queue, t.val)
	}
	if len(targets) == 0 && first != "" {
		queue = append(queue, first)
	}
	seen := map[string]bool{}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if seen[n] {
			continue
		}
		seen[n] = true
		if len(seen) > maxRecipeTargets {
			j.hits.add(RuleScanBoundWords)
			return
		}
		r, ok := rules[n]
		if !ok {
			continue
		}
		queue = append(queue, r.deps...)
		for _, l := range r.lines {
			j.scriptField(lit(expand(l)), depth+1, env)
		}
	}
}

// parseMakefile reads rules (target: deps, then tab-indented recipe
// lines), simple variable assignments, and the default target (the first
// not starting with '.').
func parseMakefile(src string) (map[string]*recipe, string, map[string]string) {
	rules := map[string]*recipe{}
	vars := map[string]string{}
	first := ""
	var cur []*recipe
	lines := strings.Split(strings.ReplaceAll(src, "\\\n", " "), "\n")
	for _, ln := range lines {
		if strings.HasPrefix(ln, "\t") {
			body := strings.TrimLeft(strings.TrimPrefix(ln, "\t"), "@-+ ")
			for _, r := range cur {
				r.lines = append(r.lines, body)
			}
			continue
		}
		t := strings.TrimSpace(ln)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if n, v, ok := makeAssignment(t); ok {
			vars[n] = v
			cur = nil
			continue
		}
		head, deps, ok := strings.Cut(t, ":")
		if !ok || strings.HasPrefix(deps, "=") {
			cur = nil
			continue
		}
		deps = strings.TrimPrefix(deps, ":")
		var inline string
		deps, inline, _ = strings.Cut(deps, ";")
		cur = nil
		for _, name := range strings.Fields(head) {
			r := rules[name]
			if r == nil {
				r = &recipe{}
				rules[name] = r
			}
			r.deps = append(r.deps, strings.Fields(deps)...)
			if strings.TrimSpace(inline) != "" {
				r.lines = append(r.lines, strings.TrimSpace(inline))
			}
			cur = append(cur, r)
			if first == "" && !strings.HasPrefix(name, ".") && !strings.Contains(name, "%") {
				first = name
			}
		}
	}
	return rules, first, vars
}

// makeAssignment reads NAME = value, NAME := value, NAME ?= value, NAME +=
// value (and export NAME = value).
func makeAssignment(t string) (string, string, bool) {
	t = strings.TrimPrefix(t, "export ")
	i := strings.IndexAny(t, "=:")
	if i <= 0 {
		return "", "", false
	}
	if t[i] == ':' && !strings.HasPrefix(t[i:], ":=") && !strings.HasPrefix(t[i:], "::=") {
		return "", "", false
	}
	name := strings.TrimRight(t[:i], " ?+:")
	if strings.ContainsAny(name, " \t$()") {
		return "", "", false
	}
	v := strings.TrimLeft(t[i:], ":=")
	return name, strings.TrimSpace(v), true
}

// expandMake expands $(VAR) and ${VAR} from vars (unknown ones, and
// functions, stay unknown) and $$ to $.
func expandMake(line string, vars map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c != '$' || i+1 >= len(line) {
			b.WriteByte(c)
			continue
		}
		n := line[i+1]
		switch {
		case n == '$':
			b.WriteByte('$')
			i++
		case n == '(' || n == '{':
			cl := ")"
			if n == '{' {
				cl = "}"
			}
			end := strings.Index(line[i:], cl)
			if end < 0 {
				b.WriteString(dyn)
				i = len(line)
				continue
			}
			name := line[i+2 : i+end]
			if v, ok := vars[name]; ok && !strings.Contains(v, "$") {
				b.WriteString(v)
			} else {
				b.WriteString(dyn)
			}
			i += end
		default:
			b.WriteString(dyn) // $@ $< $^ ...
			i++
		}
	}
	return b.String()
}

// justCall judges `just [options] [RECIPE [ARGS]]`: the justfile's recipe
// bodies (indented lines after "name args: deps"), the first recipe when
// none is named.
func (j *judge) justCall(args []field, env []envVar, depth int, sc *scope) {
	file := ""
	var targets, given []field
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "-f" || v == "--justfile":
			if i+1 < len(args) {
				i++
				file = args[i].val
			}
		case v == "-d" || v == "--working-directory" || v == "--set" || v == "--shell" || v == "--dotenv-path":
			i++
		case strings.HasPrefix(v, "-"):
		default:
			if len(targets) == 0 {
				targets = append(targets, args[i])
				given = args[i+1:]
			}
		}
	}
	var src string
	ok := false
	if file != "" {
		if src, ok = j.recipeFile(sc, "", file); !ok {
			return
		}
	} else {
		for _, n := range []string{"justfile", "Justfile", ".justfile", "JUSTFILE"} {
			if src, ok = j.scriptSource(sc, n); ok {
				break
			}
			if j.scriptMatters(sc, n) {
				j.hits.add(RuleScriptUnknown)
				return
			}
		}
		if !ok {
			return
		}
	}
	rules, params, first, vars := j.parseJustfile(src, env, depth)
	var bound map[string]string
	if len(targets) > 0 {
		bound = justParams(params[targets[0].val], given)
	} else {
		bound = justParams(params[first], nil)
	}
	expand := func(l string) string {
		return expandBraces2(l, func(name string) (string, bool) {
			if v, ok := bound[name]; ok {
				return v, true
			}
			v, ok := vars[name]
			return v, ok
		})
	}
	j.runRecipes(rules, first, targets, expand, env, depth)
}

// parseJustfile reads a justfile: recipes (a line "name params: deps" and
// its indented body), each recipe's parameter names, the first recipe, and
// the variables "[export] NAME := value" whose value is a quoted string.
// A backtick value runs when just starts (just manual, "Command
// Evaluation Using Backticks"): its command is judged here.
func (j *judge) parseJustfile(src string, env []envVar, depth int) (map[string]*recipe, map[string][]string, string, map[string]string) {
	rules := map[string]*recipe{}
	params := map[string][]string{}
	vars := map[string]string{}
	first := ""
	var cur *recipe
	for _, ln := range strings.Split(src, "\n") {
		if cur != nil && (strings.HasPrefix(ln, " ") || strings.HasPrefix(ln, "\t")) {
			if body := strings.TrimLeft(strings.TrimSpace(ln), "@-"); body != "" && !strings.HasPrefix(body, "#") {
				cur.lines = append(cur.lines, body)
			}
			continue
		}
		cur = nil
		t := strings.TrimSpace(ln)
		if name, val, ok := strings.Cut(strings.TrimPrefix(t, "export "), ":="); ok && !strings.ContainsAny(strings.TrimSpace(name), " \t") {
			vars[strings.TrimSpace(name)] = j.justValue(strings.TrimSpace(val), env, depth)
			continue
		}
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "set ") || strings.HasPrefix(t, "[") {
			continue
		}
		head, deps, found := strings.Cut(t, ":")
		if !found {
			continue
		}
		f := strings.Fields(strings.TrimPrefix(head, "@"))
		if len(f) == 0 {
			continue
		}
		cur = &recipe{deps: strings.Fields(deps)}
		rules[f[0]] = cur
		for _, p := range f[1:] {
			p, _, _ = strings.Cut(strings.TrimLeft(p, "+*$"), "=")
			params[f[0]] = append(params[f[0]], p)
		}
		if first == "" {
			first = f[0]
		}
	}
	return rules, params, first, vars
}

// justValue is a just variable's value: a quoted string's text; a backtick
// command is judged and its output is unknown; any other expression is
// unknown.
func (j *judge) justValue(v string, env []envVar, depth int) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] && !strings.ContainsRune(v[1:len(v)-1], rune(v[0])) {
		return v[1 : len(v)-1]
	}
	for rest := v; ; {
		a := strings.IndexByte(rest, '`')
		if a < 0 {
			break
		}
		b := strings.IndexByte(rest[a+1:], '`')
		if b < 0 {
			j.scriptField(lit(rest[a+1:]), depth+1, env)
			break
		}
		j.scriptField(lit(rest[a+1:a+1+b]), depth+1, env)
		rest = rest[a+b+2:]
	}
	return dyn
}

// justParams binds a recipe's parameters to the words given after the
// recipe's name on just's command line; an unbound one is unknown.
func justParams(names []string, given []field) map[string]string {
	out := map[string]string{}
	for i, n := range names {
		if i < len(given) {
			out[n] = given[i].val
		} else {
			out[n] = dyn
		}
	}
	return out
}

// expandBraces2 replaces each {{ NAME }} (just, go-task's {{.NAME}}) with
// lookup's value for NAME (a leading "." dropped), unknown (dyn) when
// lookup has none or the expression is more than a name.
func expandBraces2(l string, lookup func(string) (string, bool)) string {
	for strings.Contains(l, "{{") {
		a := strings.Index(l, "{{")
		b := strings.Index(l[a:], "}}")
		if b < 0 {
			break
		}
		name := strings.TrimPrefix(strings.TrimSpace(l[a+2:a+b]), ".")
		v, ok := lookup(name)
		if !ok {
			v = dyn
		}
		l = l[:a] + v + l[a+b+2:]
	}
	return l
}

// taskCall judges go-task's `task [options] [NAME...]`: the cmds (strings,
// or maps with cmd, or task references) and deps of Taskfile.yml; the
// default task when none is named.
func (j *judge) taskCall(args []field, env []envVar, depth int, sc *scope) {
	file := ""
	var targets, cliArgs []field
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "-t" || v == "--taskfile":
			if i+1 < len(args) {
				i++
				file = args[i].val
			}
		case v == "-d" || v == "--dir":
			i++
		case v == "--":
			cliArgs = args[i+1:]
			i = len(args)
		case strings.HasPrefix(v, "-"):
		default:
			targets = append(targets, args[i])
		}
	}
	names := []string{"Taskfile.yml", "taskfile.yml", "Taskfile.yaml", "taskfile.yaml"}
	if file != "" {
		names = []string{file}
	}
	var src string
	ok := false
	for _, n := range names {
		if src, ok = j.scriptSource(sc, n); ok {
			break
		}
		if j.scriptMatters(sc, n) {
			j.hits.add(RuleScriptUnknown)
			return
		}
	}
	if !ok {
		return
	}
	var doc struct {
		Vars  map[string]yaml.Node `yaml:"vars"`
		Tasks map[string]yaml.Node `yaml:"tasks"`
	}
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		return // task refuses a Taskfile it cannot parse
	}
	vars := map[string]string{"CLI_ARGS": dyn}
	if len(cliArgs) > 0 {
		var words []string
		for _, a := range cliArgs {
			words = append(words, a.val)
		}
		vars["CLI_ARGS"] = strings.Join(words, " ")
	}
	for name, n := range doc.Vars {
		vars[name] = j.taskVar(&n, env, depth)
	}
	for _, t := range doc.Tasks {
		// A task's own vars: their sh commands run; their values are
		// taken as unknown (the task's scope is not modelled).
		if v := yamlNode(&t, "vars"); v != nil {
			for k := 0; k+1 < len(v.Content); k += 2 {
				j.taskVar(v.Content[k+1], env, depth)
				vars[v.Content[k].Value] = dyn
			}
		}
	}
	rules := map[string]*recipe{}
	for name, node := range doc.Tasks {
		rules[name] = taskRecipe(&node)
	}
	first := ""
	if _, ok := rules["default"]; ok {
		first = "default"
	}
	expand := func(l string) string {
		return expandBraces2(l, func(name string) (string, bool) { v, ok := vars[name]; return v, ok })
	}
	j.runRecipes(rules, first, targets, expand, env, depth)
}

// taskVar is one go-task variable's value: a string's text; {sh: CMD} runs
// CMD when the Taskfile is read (go-task docs, "Dynamic variables"), so CMD
// is judged and the value is unknown; anything else is unknown.
func (j *judge) taskVar(n *yaml.Node, env []envVar, depth int) string {
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Value
	case yaml.MappingNode:
		if sh := yamlNode(n, "sh"); sh != nil && sh.Kind == yaml.ScalarNode {
			j.scriptField(lit(sh.Value), depth+1, env)
		}
	}
	return dyn
}

// yamlNode is the value node of key in mapping n (nil when absent).
func yamlNode(n *yaml.Node, key string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for k := 0; k+1 < len(n.Content); k += 2 {
		if n.Content[k].Value == key {
			return n.Content[k+1]
		}
	}
	return nil
}

// taskRecipe reads one go-task task: a list of commands, or a map with
// cmds (strings, {cmd: ...}, {task: ...}) and deps.
func taskRecipe(n *yaml.Node) *recipe {
	r := &recipe{}
	var cmds *yaml.Node
	switch n.Kind {
	case yaml.SequenceNode:
		cmds = n
	case yaml.MappingNode:
		for k := 0; k+1 < len(n.Content); k += 2 {
			switch n.Content[k].Value {
			case "cmds":
				cmds = n.Content[k+1]
			case "cmd":
				r.lines = append(r.lines, n.Content[k+1].Value)
			case "deps":
				for _, d := range n.Content[k+1].Content {
					if d.Kind == yaml.ScalarNode {
						r.deps = append(r.deps, d.Value)
					} else {
						r.deps = append(r.deps, yamlMember(d, "task"))
					}
				}
			}
		}
	case yaml.ScalarNode:
		r.lines = append(r.lines, n.Value)
	}
	if cmds != nil {
		for _, c := range cmds.Content {
			switch c.Kind {
			case yaml.ScalarNode:
				r.lines = append(r.lines, c.Value)
			case yaml.MappingNode:
				if v := yamlMember(c, "cmd"); v != "" {
					r.lines = append(r.lines, v)
				}
				if v := yamlMember(c, "task"); v != "" {
					r.deps = append(r.deps, v)
				}
			}
		}
	}
	return r
}

func yamlMember(n *yaml.Node, key string) string {
	for k := 0; k+1 < len(n.Content); k += 2 {
		if n.Content[k].Value == key {
			return n.Content[k+1].Value
		}
	}
	return ""
}
