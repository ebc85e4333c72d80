package policy

import (
	"encoding/json"
	"path"
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

// makeCall judges make/gmake: -f FILE (or -f - with a here-document), -C
// DIR, then the targets named (the first target of the file when none).
func (j *judge) makeCall(args []field, env []envVar, depth int, st *syntax.Stmt, sc *scope) {
	var files []string
	stdin := false
	dir := ""
	var targets []field
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "-f" || v == "--file" || v == "--makefile":
			if i+1 < len(args) {
				i++
				if isStdinPath(args[i].val) {
					stdin = true
				} else {
					files = append(files, args[i].val)
				}
			}
		case strings.HasPrefix(v, "-f") && len(v) > 2:
			files = append(files, v[2:])
		case strings.HasPrefix(v, "--file=") || strings.HasPrefix(v, "--makefile="):
			_, f, _ := strings.Cut(v, "=")
			files = append(files, f)
		case v == "-C" || v == "--directory":
			if i+1 < len(args) {
				i++
				dir = args[i].val
			}
		case strings.HasPrefix(v, "-C") && len(v) > 2:
			dir = v[2:]
		case v == "-I" || v == "-o" || v == "-W" || v == "--include-dir" || v == "-j" && i+1 < len(args) && isDigits(args[i+1].val):
			i++
		case strings.HasPrefix(v, "-"):
		case isAssignment(v):
		default:
			targets = append(targets, args[i])
		}
	}
	var src string
	known := true
	switch {
	case stdin:
		for _, f := range hereDocs(st) {
			src += f.val + "\n"
			known = known && !f.dynamic()
		}
	case len(files) > 0:
		for _, f := range files {
			s, ok := j.recipeFile(sc, dir, f)
			if !ok {
				return
			}
			src += s + "\n"
		}
	default:
		found := false
		for _, n := range []string{"GNUmakefile", "makefile", "Makefile"} {
			if s, ok := j.scriptSource(sc, path.Join(dir, n)); ok {
				src, found = s, true
				break
			}
		}
		if !found {
			for _, n := range []string{"GNUmakefile", "makefile", "Makefile"} {
				if j.scriptMatters(sc, path.Join(dir, n)) {
					j.hits.add(RuleScriptUnknown)
				}
			}
			return
		}
	}
	if !known {
		j.hits.add(RuleScriptUnknown)
		return
	}
	rules, first, vars := parseMakefile(src)
	j.runRecipes(rules, first, targets, func(line string) string { return expandMake(line, vars) }, env, depth)
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
	var targets []field
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
	rules := map[string]*recipe{}
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
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "set ") || strings.HasPrefix(t, "[") || strings.Contains(t, ":=") {
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
		if first == "" {
			first = f[0]
		}
	}
	expand := func(l string) string {
		for strings.Contains(l, "{{") {
			a := strings.Index(l, "{{")
			b := strings.Index(l[a:], "}}")
			if b < 0 {
				break
			}
			l = l[:a] + dyn + l[a+b+2:]
		}
		return l
	}
	j.runRecipes(rules, first, targets, expand, env, depth)
}

// taskCall judges go-task's `task [options] [NAME...]`: the cmds (strings,
// or maps with cmd, or task references) and deps of Taskfile.yml; the
// default task when none is named.
func (j *judge) taskCall(args []field, env []envVar, depth int, sc *scope) {
	file := ""
	var targets []field
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
		Tasks map[string]yaml.Node `yaml:"tasks"`
	}
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		return // task refuses a Taskfile it cannot parse
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
		for strings.Contains(l, "{{") {
			a := strings.Index(l, "{{")
			b := strings.Index(l[a:], "}}")
			if b < 0 {
				break
			}
			l = l[:a] + dyn + l[a+b+2:]
		}
		return l
	}
	j.runRecipes(rules, first, targets, expand, env, depth)
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
