package policy

import (
	"path"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// BoundError reports that a command passed one of the directory scan's
// bounds: Rule is the policy rule id (RuleScanBoundTargets,
// RuleScanBoundNesting, or a scan bound of parseBound). The
// engine denies such a command whatever the workspace, because a command it
// did not scan may act in a governed repository.
type BoundError struct {
	Rule string
}

// Error returns the rule's refusal text (Refusal), which never quotes
// the command.
func (e *BoundError) Error() string {
	if r, ok := Refusal(e.Rule); ok {
		return r
	}
	return "[BLOCKED BY hookwarden:" + e.Rule + "] the command passed a bound of hookwarden's directory scan"
}

// Scan is what ScanTargets finds in one command. Dirs are the directories the
// command points the shell or git at, absolute and cleaned, without
// duplicates, in order of appearance. Unresolved is true when a directory the
// command acts in is known only at run time: an operand built from a
// variable or a substitution, a relative operand read after a `cd` that may
// fail (its target does not exist yet) or after branches that leave the shell
// in different directories, a relative operand in a loop or function body
// that changes directory, a sourced file, a shell fed from a pipe, or a git,
// cd or shell command run by xargs or find. The engine judges such a command
// instead of skipping it.
//
// Paths are the other literal words (arguments, redirection targets, the
// value after an `=` in `--opt=value` or `NAME=value`) that name a path
// leaving the directory they are read in: absolute, `~/`, or with a `..`
// component, made absolute against the shell's current directory, at most
// MaxNamedPaths of them (more sets Unresolved). The engine judges the call
// in every governed repository one of them reaches (issue 29 item 1: `rm
// ../.hookwarden.yaml` from a nested repository, an absolute path into a
// governed repository from outside it).
//
// Below are the relative literal words with a slash and no `..` component
// (`gov/.hookwarden.yaml`, `--file=sub/x`), made absolute the same way, at
// most MaxNamedPaths of them (more sets Unresolved): a path below the
// directory may lie in a governed repository nested there (an agent started
// in a folder of repositories; found 2026-12-06: `rm gov/.hookwarden.yaml`
// from such a folder was skipped).
//
// Names are the other literal words (not an option, not `.`), made
// absolute the same way, at most MaxNamedPaths of them (more sets
// Unresolved): an entry of the directory, which may be a governed
// repository itself (`cp .hookwarden.yaml repo`, `tar -C repo -xf x.tar`
// from a folder of repositories). The engine looks at them only when no
// governed repository contains the directory, where the call would
// otherwise be skipped.
type Scan struct {
	Dirs       []string
	Paths      []string
	Below      []string
	Names      []string
	Unresolved bool
	// Holders are the directories a command that removes, moves or
	// re-permissions what it is given (rm, rmdir, mv, chmod, chown, find's
	// start paths, rsync, …) or cleans (git clean) may take whole, absolute
	// and cleaned, at most MaxNamedPaths of them (more sets Unresolved): a
	// governed repository may lie several levels below one (rm -rf ws with
	// ws/team/proj governed), where Names and Below do not look. For a
	// glob, or operands xargs or find -exec adds, it is the directory they
	// are read in; an operand known only at run time sets Unresolved. A copy's
	// destination (cp, install) counts too: its contents may overwrite a
	// governed repository's files below it (cp -r src/. ws).
	Holders []string
}

// MaxNamedPaths bounds Scan.Paths; a command naming more such paths is
// judged wherever it runs (Scan.Unresolved).
const MaxNamedPaths = 64

// ScanTargets reads the directories the shell command c acts in: `cd`/`pushd`
// (and `popd`, `cd -`), `git -C <dir>` (repeatable; a relative -C is relative
// to the previous, as git documents), `git --git-dir[=]<dir>`,
// `--work-tree[=]<dir>`, GIT_DIR=/GIT_WORK_TREE= assignments (also exported
// and through `env` or `sudo`), `env -C`/`--chdir`, `sudo -D`/`--chdir`,
// behind the launchers launchedCommand knows. Scripts run by `sh|bash|
// dash|zsh|ksh … -c`, `eval`, `env -S`, `su|flock|script -c`, `npx -c`, a git
// `-c alias.X=!…` shell alias and a here-document fed to a shell are read
// the same way, up to maxDepth levels.
//
// The scan is linear in the command: it keeps one current directory per
// branch of the shell's control flow (a subshell, a pipeline element, a
// command substitution and each branch of if/case/&&/|| start from a copy),
// never every combination. Where branches join with different directories
// the current directory becomes uncertain, and a relative operand read from
// an uncertain directory sets Scan.Unresolved. Relative operands start at
// cwd; a bare `~` or a leading `~/` is home. Only literal words count
// (quotes removed); a word built from variables or substitutions sets
// Unresolved. isDir reports whether a directory exists now (nil: every
// directory is taken to exist); a `cd` to one that does not may fail, which
// makes the current directory uncertain.
//
// The scan keeps the parses it makes in c, so the judge that reads c after
// it (JudgeCommand) parses none of those scripts again: the engine's hook
// call parses its command once.
//
// Errors are *BoundError: the command is past the scan bounds (command and
// line length, parenthesis nesting), names more than MaxTargetOperands
// directory operands, or nests scripts past the judge's nesting bound (8). A command the shell parser (mvdan.cc/sh/v3/syntax, bash
// dialect) rejects yields no directories and Unresolved: the policy judges
// its text.
func ScanTargets(c *Command, cwd, home string, isDir func(string) bool) (Scan, error) {
	command := c.Text()
	if id := parseBound(command); id != "" {
		return Scan{}, &BoundError{Rule: id}
	}
	s := &scanner{cmd: c, home: home, isDir: isDir, seen: map[string]bool{}}
	st := &cwdState{dir: filepath.Clean(cwd)}
	if cwd == "" {
		st.dir = ""
	}
	s.script(command, st, 0)
	if s.err != nil {
		return Scan{}, s.err
	}
	return Scan{Dirs: s.dirs, Paths: s.paths, Below: s.below, Names: s.names, Unresolved: s.unresolved, Holders: s.holders}, nil
}

// cwdState is the shell's current directory on one branch of the scan. dir
// is absolute and cleaned ("" when known only at run time); uncertain is
// true when dir is the best guess among several (a cd that may fail,
// branches that disagree). prev is OLDPWD for `cd -`; stack is pushd's.
type cwdState struct {
	dir       string
	uncertain bool
	prev      string
	stack     []string
}

func (c *cwdState) clone() *cwdState {
	d := *c
	d.stack = slices.Clone(c.stack)
	return &d
}

// join makes c the state after either c's branch or o's ran.
func (c *cwdState) join(o *cwdState) {
	if c.dir == o.dir && c.uncertain == o.uncertain {
		return
	}
	if c.dir != o.dir {
		c.uncertain = true
		if o.dir != "" {
			c.dir = o.dir
		}
	}
	c.uncertain = c.uncertain || o.uncertain
}

func (c *cwdState) same(o *cwdState) bool { return c.dir == o.dir && c.uncertain == o.uncertain }

type scanner struct {
	cmd        *Command // keeps the parses for the judge
	home       string
	isDir      func(string) bool
	dirs       []string
	paths      []string
	below      []string
	names      []string
	holders    []string
	seen       map[string]bool
	operands   int
	relative   int // relative operands resolved so far (loop and function bodies)
	unresolved bool
	err        error
}

func (s *scanner) bound(rule string) {
	if s.err == nil {
		s.err = &BoundError{Rule: rule}
	}
}

func (s *scanner) add(p string) {
	if !s.seen[p] {
		s.seen[p] = true
		s.dirs = append(s.dirs, p)
	}
}

// named records v (a literal word when ok) in Scan.Paths when it names a
// path leaving the directory it is read in, in Scan.Below when it is a
// relative path with a slash, in Scan.Names when it is a bare name (see
// Scan): the word itself, or the value
// after its first `=` (`--file=../x`, `NAME=/x`).
func (s *scanner) named(v string, ok bool, st *cwdState) {
	if !ok || v == "" {
		return
	}
	if i := strings.IndexByte(v, '='); i > 0 && !filepath.IsAbs(v) {
		v = v[i+1:]
	}
	list := &s.paths
	if !filepath.IsAbs(v) && !strings.HasPrefix(v, "~/") && !hasDotDot(v) {
		switch {
		case strings.Contains(v, "/"):
			list = &s.below
		case v == "." || strings.HasPrefix(v, "-"):
			return // the directory itself, or an option
		default:
			list = &s.names
		}
	}
	if len(*list) >= MaxNamedPaths {
		s.unresolved = true
		return
	}
	var p string
	switch {
	case strings.HasPrefix(v, "~/"):
		if s.home == "" {
			return
		}
		p = s.home + v[1:]
	case filepath.IsAbs(v):
		p = v
	case st.dir == "":
		s.unresolved = true
		return
	default:
		p = st.dir + "/" + v
	}
	s.physical(p)
	p = filepath.Clean(p)
	if !slices.Contains(*list, p) {
		*list = append(*list, p)
	}
}

// physical records in Scan.Paths where the kernel takes raw (an absolute
// path as written, not cleaned) when a `..` in it follows a symbolic link
// and so leads elsewhere than its lexical reading: with l -> /src/gov/sub,
// `rm l/../.hookwarden.yaml` and `git -C l/.. clean -fdx` act in /src/gov,
// though l/.. reads as the directory holding l (found 2026-12-06: both
// were skipped from an ungoverned repository). The shell's own `cd l/..`
// is logical, but `cd -P`, `git -C`, `env -C` and every path a program
// opens are not, and an extra path only widens where the call is judged.
func (s *scanner) physical(raw string) {
	if !hasDotDot(raw) {
		return
	}
	phys, ok := physicalPath(raw)
	if !ok || phys == filepath.Clean(raw) || slices.Contains(s.paths, phys) {
		return
	}
	if len(s.paths) >= MaxNamedPaths {
		s.unresolved = true
		return
	}
	s.paths = append(s.paths, phys)
}

// physicalPath returns raw (absolute, not cleaned) resolved as the kernel
// resolves it: its longest existing prefix through filepath.EvalSymlinks
// (which takes a `..` after a link from the link's target), the rest
// appended lexically; ok is false when no prefix but the root resolves.
func physicalPath(raw string) (string, bool) {
	p, rest := raw, ""
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest), true
		}
		i := strings.LastIndexByte(strings.TrimRight(p, "/"), '/')
		if i <= 0 {
			return "", false
		}
		rest = filepath.Join(strings.TrimRight(p, "/")[i+1:], rest)
		p = p[:i]
	}
}

// holderOperands records in Scan.Holders the directories the command name
// with args rest may take whole (Scan.Holders): the operands of the
// commands holderHit judges (removesWhole, mv), find's start paths,
// rsync's operands, and the directory git clean runs in. A glob's
// directory is the one it is read in; an operand known only at run time
// sets Unresolved.
func (s *scanner) holderOperands(name string, rest []string, rlit []bool, local *cwdState, viaArgs bool) {
	ops := false
	switch {
	case name == "cp" || name == "install":
		// A recursive copy's contents may overwrite a governed
		// repository's files below its destination (cp -r src/. ws): the
		// destination, -t's value or the last operand.
		dest, destLit := copyDest(rest, rlit)
		if viaArgs {
			s.holder(local.dir) // operands from xargs or find -exec: names read in this directory
		}
		if dest != "" {
			rest, rlit = []string{dest}, []bool{destLit}
			ops = true
		}
	case removesWhole(name) || name == "mv" || name == "rsync":
		ops = true
	case removedOperands(name, lits(rest)) != nil:
		ops = true // tar --remove-files, zip -m, gio trash, …
	case name == "find":
		ops = true
		rest, rlit = findStarts(rest, rlit)
		if len(rest) == 0 {
			s.holder(local.dir) // find with no start path starts at .
			return
		}
	case name == "git":
		for i, a := range rest {
			if rlit[i] && a == "clean" {
				s.holder(local.dir)
				break
			}
		}
		return
	}
	if !ops {
		return
	}
	if viaArgs {
		s.holder(local.dir) // operands from xargs or find -exec: names read in this directory
	}
	dashdash := false
	for i, a := range rest {
		switch {
		case !rlit[i]:
			if strings.ContainsAny(a, "*?[") && !strings.ContainsAny(a, "$`") {
				s.holder(local.dir) // a glob: read in this directory (or below)
			} else {
				s.unresolved = true
			}
		case a == "--" && !dashdash:
			dashdash = true
		case strings.HasPrefix(a, "-") && !dashdash, a == "":
		default:
			var p string
			switch {
			case filepath.IsAbs(a):
				p = a
			case local.dir == "":
				s.unresolved = true
				continue
			default:
				p = local.dir + "/" + a
			}
			s.holder(p)
		}
	}
}

// copyDest returns the destination of cp or install with words rest
// (rlit: which are literal): -t's value (also at the end of a bundle of
// short options, -ft DIR), --target-directory's, else the last operand;
// destLit tells whether it is literal.
func copyDest(rest []string, rlit []bool) (dest string, destLit bool) {
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case (a == "-t" || a == "--target-directory" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.HasSuffix(a, "t")) && i+1 < len(rest):
			return rest[i+1], rlit[i+1] // -t DIR names it
		case strings.HasPrefix(a, "--target-directory="):
			return strings.TrimPrefix(a, "--target-directory="), rlit[i]
		case !strings.HasPrefix(a, "-"):
			dest, destLit = a, rlit[i] // the last operand, unless -t follows
		}
	}
	return dest, destLit
}

// findStarts returns find's start paths among its words rest (rlit: which
// are literal): after -L, -H and -P, up to the first option, ( or !.
func findStarts(rest []string, rlit []bool) ([]string, []bool) {
	i := 0
	for i < len(rest) && rlit[i] && (rest[i] == "-L" || rest[i] == "-H" || rest[i] == "-P") {
		i++
	}
	k := i
	for k < len(rest) && !(rlit[k] && (strings.HasPrefix(rest[k], "-") || rest[k] == "(" || rest[k] == "!")) {
		k++
	}
	return rest[i:k], rlit[i:k]
}

// lits returns words as literal fields.
func lits(words []string) []field {
	out := make([]field, len(words))
	for i, w := range words {
		out[i] = lit(w)
	}
	return out
}

// holder records p in Scan.Holders.
func (s *scanner) holder(p string) {
	if p == "" {
		s.unresolved = true
		return
	}
	p = filepath.Clean(p)
	if slices.Contains(s.holders, p) {
		return
	}
	if len(s.holders) >= MaxNamedPaths {
		s.unresolved = true
		return
	}
	s.holders = append(s.holders, p)
}

// hasDotDot reports whether v has a `..` path component (either separator).
func hasDotDot(v string) bool {
	for _, c := range strings.FieldsFunc(v, func(r rune) bool { return r == '/' || r == '\\' }) {
		if c == ".." {
			return true
		}
	}
	return false
}

// operand counts one directory operand v (literal when ok) and returns its
// absolute form resolved against base ("" when it cannot be resolved).
func (s *scanner) operand(v string, ok bool, base *cwdState) string {
	s.operands++
	if s.operands > MaxTargetOperands {
		s.bound(RuleScanBoundTargets)
		return ""
	}
	if !ok || v == "" {
		s.unresolved = true
		return ""
	}
	var p string
	switch {
	case strings.HasPrefix(v, "~") && v != "~" && !strings.HasPrefix(v, "~/"):
		s.unresolved = true // ~user: another user's home
		return ""
	case v == "~" || strings.HasPrefix(v, "~/"):
		if s.home == "" {
			s.unresolved = true
			return ""
		}
		p = s.home + v[1:]
	case filepath.IsAbs(v):
		p = v
	default:
		s.relative++
		if base.dir == "" {
			s.unresolved = true
			return ""
		}
		if base.uncertain {
			s.unresolved = true
		}
		p = base.dir + "/" + v
	}
	s.physical(p)
	p = filepath.Clean(p)
	s.add(p)
	return p
}

func (s *scanner) script(src string, st *cwdState, depth int) {
	if depth > maxDepth {
		s.bound(RuleScanBoundNesting)
		return
	}
	if id := parseBound(src); id != "" {
		s.bound(id)
		return
	}
	f, err := s.cmd.parse(src, true)
	if err != nil {
		// A script this parser rejects may still run in some shell: judge
		// the command (the policy reads its text) rather than skip it.
		s.unresolved = true
		return
	}
	s.stmts(f.Stmts, st, depth)
}

func (s *scanner) stmts(list []*syntax.Stmt, st *cwdState, depth int) {
	for _, x := range list {
		if s.err != nil {
			return
		}
		s.stmt(x, st, depth)
	}
}

func (s *scanner) stmt(x *syntax.Stmt, st *cwdState, depth int) {
	for _, r := range x.Redirs {
		s.word(r.Word, st, depth)
		s.word(r.Hdoc, st, depth)
		if r.Word != nil && r.Hdoc == nil {
			v, ok := wordLit(r.Word, s.home)
			s.named(v, ok, st)
		}
	}
	if x.Background || x.Coprocess || x.Disown {
		st = st.clone() // runs asynchronously: its cd never reaches the next command
	}
	s.command(x.Cmd, x, st, depth)
}

// substs scans the command and process substitutions inside node (a word,
// an arithmetic or test expression), each from a copy of st.
func (s *scanner) substs(node syntax.Node, st *cwdState, depth int) {
	if node == nil || s.err != nil {
		return
	}
	syntax.Walk(node, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			s.stmts(x.Stmts, st.clone(), depth)
			return false
		case *syntax.ProcSubst:
			s.stmts(x.Stmts, st.clone(), depth)
			return false
		}
		return s.err == nil
	})
}

// word is substs for a word that may be nil.
func (s *scanner) word(w *syntax.Word, st *cwdState, depth int) {
	if w != nil {
		s.substs(w, st, depth)
	}
}

// repeated scans a body that may run any number of times (a loop, a
// function): when it changes directory, a relative operand inside it may
// resolve against another directory on a later run.
func (s *scanner) repeated(run func(c *cwdState), st *cwdState) {
	c := st.clone()
	before := s.relative
	run(c)
	if !c.same(st) {
		if s.relative > before {
			s.unresolved = true
		}
		st.join(c)
	}
}

func (s *scanner) command(cmd syntax.Command, x *syntax.Stmt, st *cwdState, depth int) {
	switch c := cmd.(type) {
	case nil:
	case *syntax.CallExpr:
		s.call(c, x, st, depth)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt, syntax.OrStmt:
			s.andOr(c, st, depth)
		default: // pipelines: every element in a subshell (bash); zsh runs the last in the shell
			s.stmt(c.X, st.clone(), depth)
			r := st.clone()
			s.stmt(c.Y, r, depth)
			st.join(r)
		}
	case *syntax.Subshell:
		s.stmts(c.Stmts, st.clone(), depth)
	case *syntax.Block:
		s.stmts(c.Stmts, st, depth)
	case *syntax.IfClause:
		s.ifClause(c, st, depth)
	case *syntax.WhileClause:
		s.repeated(func(b *cwdState) {
			s.stmts(c.Cond, b, depth)
			s.stmts(c.Do, b, depth)
		}, st)
	case *syntax.ForClause:
		switch l := c.Loop.(type) {
		case *syntax.WordIter:
			for _, w := range l.Items {
				s.word(w, st, depth)
				s.pathWord(w, st) // for d in /gov; do rm $d/x; done
			}
		case *syntax.CStyleLoop:
			if l != nil {
				s.substs(l, st, depth)
			}
		}
		s.repeated(func(b *cwdState) { s.stmts(c.Do, b, depth) }, st)
	case *syntax.CaseClause:
		s.word(c.Word, st, depth)
		out := st.clone()
		for _, it := range c.Items {
			for _, p := range it.Patterns {
				s.word(p, st, depth)
			}
			b := st.clone()
			s.stmts(it.Stmts, b, depth)
			out.join(b)
		}
		*st = *out
	case *syntax.FuncDecl:
		// The body runs when the function is called, from wherever the
		// shell is then.
		s.repeated(func(b *cwdState) {
			b.uncertain = true
			if c.Body != nil {
				s.stmt(c.Body, b, depth)
			}
		}, st)
	case *syntax.DeclClause:
		for _, a := range c.Args {
			s.assign(a, st, st, depth)
		}
	case *syntax.TimeClause:
		if c.Stmt != nil {
			s.stmt(c.Stmt, st, depth)
		}
	case *syntax.CoprocClause:
		if c.Stmt != nil {
			s.stmt(c.Stmt, st.clone(), depth)
		}
	case *syntax.ArithmCmd, *syntax.TestClause, *syntax.LetClause, *syntax.TestDecl:
		s.substs(cmd, st, depth)
	}
}

// andOr scans `X && Y` or `X || Y`. It leaves st as the state after the
// list whatever its outcome, and returns the state on the path where the
// list succeeded: in `cd a && cd b && git -C c …` git runs only after both
// cds succeeded, so c is read from a/b with certainty.
func (s *scanner) andOr(b *syntax.BinaryCmd, st *cwdState, depth int) *cwdState {
	succX := s.listStmt(b.X, st, depth)
	if b.Op == syntax.AndStmt {
		r := succX.clone()
		succY := s.listStmt(b.Y, r, depth)
		st.join(r)
		return succY
	}
	// Y runs where X failed; st stands for that state.
	okX := succX.clone()
	r := st.clone()
	succY := s.listStmt(b.Y, r, depth)
	st.join(r)
	okX.join(succY)
	return okX
}

// listStmt scans one element of an && / || list and returns its success
// state (see andOr); for anything but a nested list that is st itself.
func (s *scanner) listStmt(x *syntax.Stmt, st *cwdState, depth int) *cwdState {
	if b, ok := x.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.AndStmt || b.Op == syntax.OrStmt) &&
		!x.Background && !x.Coprocess && !x.Disown && !x.Negated && len(x.Redirs) == 0 {
		return s.andOr(b, st, depth)
	}
	s.stmt(x, st, depth)
	return st
}

// ifClause scans if/elif/else: the condition runs, then exactly one branch
// (or none without an else).
func (s *scanner) ifClause(c *syntax.IfClause, st *cwdState, depth int) {
	s.stmts(c.Cond, st, depth)
	out := st.clone()
	s.stmts(c.Then, out, depth)
	rest := st.clone()
	switch {
	case c.Else == nil:
	case !c.Else.ThenPos.IsValid(): // else
		s.stmts(c.Else.Then, rest, depth)
	default: // elif
		s.ifClause(c.Else, rest, depth)
	}
	out.join(rest)
	*st = *out
}

// assign reads GIT_DIR= and GIT_WORK_TREE= (relative to the command's
// directory, base) and the substitutions in any assigned value.
func (s *scanner) assign(a *syntax.Assign, st, base *cwdState, depth int) {
	if a == nil {
		return
	}
	s.word(a.Value, st, depth)
	if a.Array != nil {
		s.substs(a.Array, st, depth)
	}
	if a.Index != nil {
		s.substs(a.Index, st, depth)
	}
	if a.Name == nil {
		return
	}
	switch a.Name.Value {
	case "GIT_DIR", "GIT_WORK_TREE":
		if a.Naked {
			s.unresolved = true // `export GIT_DIR`: a value set elsewhere
			return
		}
		v, ok := wordLit(a.Value, s.home)
		s.operand(v, ok, base)
	case "CDPATH":
		s.unresolved = true // cd then searches other directories first
	}
}

// scriptOpts are launchers whose option runs a script string: su(1) -c,
// flock(1) -c, script(1) -c, npx/bunx/pnpx -c (npm exec --call).
func scriptOpts(name string) []string {
	switch name {
	case "su":
		return []string{"-c", "--command", "--session-command"}
	case "flock", "script":
		return []string{"-c", "--command"}
	case "npx", "bunx", "pnpx":
		return []string{"-c", "--call"}
	}
	return nil
}

// dirCommands are the command names whose words the scan reads.
func dirCommand(name string) bool {
	return name == "git" || strings.HasPrefix(name, "git-") || name == "cd" || name == "pushd" || name == "popd" ||
		name == "env" || isShellName(name) || name == "eval" || name == "source" || name == "."
}

func (s *scanner) call(ce *syntax.CallExpr, x *syntax.Stmt, st *cwdState, depth int) {
	for _, w := range ce.Args {
		s.word(w, st, depth)
	}
	for _, a := range ce.Assigns {
		s.assign(a, st, st, depth)
	}
	args := make([]string, len(ce.Args))
	lit := make([]bool, len(ce.Args))
	for i, w := range ce.Args {
		if i == 0 {
			args[i], lit[i] = wordLit(w, s.home)
			continue
		}
		args[i], lit[i] = s.pathWord(w, st)
	}
	for _, a := range ce.Assigns {
		if a.Value != nil {
			v, ok := wordLit(a.Value, s.home)
			s.named(v, ok, st)
		}
	}
	s.run(args, lit, x, st, st, depth, true, false)
}

// run reads one simple command's words. st is the shell's state (a `cd`
// changes it when inShell); local is the directory the command itself runs
// in (env -C and sudo -D move it). viaArgs is true when a launcher (xargs,
// find -exec) adds words known only at run time.
func (s *scanner) run(args []string, lit []bool, x *syntax.Stmt, st, local *cwdState, depth int, inShell, viaArgs bool) {
	for steps := 0; len(args) > 0; steps++ {
		if s.err != nil {
			return
		}
		if steps >= maxLauncherWords {
			s.bound(RuleScanBoundWords)
			return
		}
		if !lit[0] {
			s.unresolved = true // a command name known only at run time
			return
		}
		name := path.Base(args[0])
		rest, rlit := args[1:], lit[1:]
		if viaArgs && dirCommand(name) {
			s.unresolved = true
		}
		k := 0
		switch {
		case name == "builtin" || name == "command":
			cmd, _ := launchedCommand(name, rest)
			k = len(rest) - len(cmd)
		case name == "busybox":
			k = 0 // busybox APPLET ARGS
		case name == "env":
			local = local.clone()
			k, inShell = s.env(rest, rlit, local, depth), false
		case name == "sudo" || name == "doas" || name == "pkexec" || name == "run0":
			local = local.clone()
			k, inShell = s.sudo(name, rest, rlit, local), false
		case name == "xargs" || name == "parallel":
			cmd, _ := launchedCommand("xargs", rest)
			k, inShell, viaArgs = len(rest)-len(cmd), false, true
		default:
			s.holderOperands(name, rest, rlit, local, viaArgs)
			if s.terminal(name, rest, rlit, x, st, local, depth, inShell) {
				return
			}
			cmd, ok := launchedCommand(name, rest)
			if !ok {
				return
			}
			k, inShell = len(rest)-len(cmd), false
		}
		args, lit = rest[k:], rlit[k:]
	}
}

// sudo places the directory sudo (doas, pkexec, run0) runs its command in
// (sudoChdir) and the GIT_DIR and GIT_WORK_TREE assignments among its
// operands, and returns the index in rest of the command it runs.
func (s *scanner) sudo(name string, rest []string, rlit []bool, local *cwdState) int {
	s.sudoChdir(rest, rlit, local)
	cmd, _ := launchedCommand(name, rest)
	k := len(rest) - len(cmd)
	for k < len(rest) && rlit[k] && isAssignment(rest[k]) {
		n, v, _ := strings.Cut(rest[k], "=")
		if n == "GIT_DIR" || n == "GIT_WORK_TREE" {
			s.operand(v, true, local)
		}
		k++
	}
	return k
}

// terminal scans a command that runs no other command after its options: the
// ones whose words move or name directories (find, cd, git, a shell's
// script, eval, alias, a -c script option), and marks the scan unresolved
// for those whose directory is known only at run time (source, cmd,
// PowerShell, watch, an interpreter's code, an assignment of GIT_DIR,
// GIT_WORK_TREE or CDPATH). It reports whether name was one of them.
func (s *scanner) terminal(name string, rest []string, rlit []bool, x *syntax.Stmt, st, local *cwdState, depth int, inShell bool) bool {
	switch {
	case name == "find":
		s.find(rest, rlit, x, st, local, depth)
	case name == "cd" || name == "pushd" || name == "popd" || name == "chdir":
		s.cd(name, rest, rlit, st, local, inShell)
	case name == "git" || strings.HasPrefix(name, "git-"):
		if name == "git" {
			s.git(rest, rlit, local, depth)
		}
	case isShellName(name):
		s.shell(rest, rlit, x, local, depth)
	case name == "eval":
		src, ok := joinLit(rest, rlit)
		switch {
		case !ok:
			s.unresolved = true
		case inShell:
			s.script(src, st, depth+1) // eval runs in this shell: its cd stays
		default:
			s.script(src, local.clone(), depth+1)
		}
	case name == "source" || name == ".":
		// A file read only at run time: it may change directory.
		s.unresolved = true
		st.uncertain = true
	case name == "alias":
		for i, a := range rest {
			if _, v, ok := strings.Cut(a, "="); ok && rlit[i] {
				s.repeated(func(b *cwdState) { s.script(v, b, depth+1) }, st)
			}
		}
	case name == "cmd" || name == "powershell" || name == "pwsh" || name == "watch":
		// Their scripts are not read by this scan: judge the command.
		s.unresolved = true
	case scriptOpts(name) != nil:
		s.scriptOption(rest, rlit, scriptOpts(name), local, depth)
	case runsCode(name, rest):
		s.unresolved = true // an interpreter's own code may change directory and run git
	case setsVar(name, rest):
		s.unresolved = true // GIT_DIR, GIT_WORK_TREE or CDPATH set at run time
	default:
		return false
	}
	return true
}

// setsVar reports a builtin that sets GIT_DIR, GIT_WORK_TREE or CDPATH from
// a value known only at run time: read, printf -v, mapfile/readarray, and
// export/declare/typeset/local naming the variable alone.
func setsVar(name string, args []string) bool {
	switch name {
	case "read", "printf", "mapfile", "readarray", "export", "declare", "typeset", "local", "readonly":
	default:
		return false
	}
	for _, a := range args {
		n, _, _ := strings.Cut(a, "=")
		if n == "GIT_DIR" || n == "GIT_WORK_TREE" || n == "CDPATH" {
			return true
		}
	}
	return false
}

func joinLit(args []string, lit []bool) (string, bool) {
	for _, ok := range lit {
		if !ok {
			return "", false
		}
	}
	return strings.Join(args, " "), true
}

// cd applies cd, pushd, popd (bash builtins) to st when they run in the
// shell; behind a launcher they run as a separate process and only their
// operand counts.
func (s *scanner) cd(name string, args []string, lit []bool, st, local *cwdState, inShell bool) {
	if name == "popd" {
		if !inShell {
			return
		}
		if n := len(st.stack); n > 0 {
			st.prev, st.dir = st.dir, st.stack[n-1]
			st.stack = st.stack[:n-1]
		} else {
			st.prev, st.dir = st.dir, "" // a stack from before this command
		}
		return
	}
	i := 0
	for i < len(args) && lit[i] && strings.HasPrefix(args[i], "-") && args[i] != "-" && args[i] != "--" {
		i++
	}
	if i < len(args) && args[i] == "--" {
		i++
	}
	var dir string
	switch {
	case i >= len(args):
		if s.home == "" {
			s.unresolved = true
		}
		dir = s.home
	case lit[i] && args[i] == "-":
		dir = st.prev
		if dir == "" {
			s.unresolved = true
		}
	default:
		dir = s.operand(args[i], lit[i], local)
		if i+1 < len(args) {
			s.unresolved = true // zsh's two-argument cd substitutes in the cwd
		}
	}
	if !inShell {
		return
	}
	if name == "pushd" {
		st.stack = append(st.stack, st.dir)
	}
	st.prev = st.dir
	st.dir = dir
	if dir != "" && s.isDir != nil && !s.isDir(dir) {
		st.uncertain = true // the cd may fail (or a mkdir earlier in the command makes it)
	}
}

// env reads env's options and assignments from args and returns the index
// of the command word env runs. -C/--chdir moves local.
func (s *scanner) env(args []string, lit []bool, local *cwdState, depth int) int {
	for i := 0; i < len(args); i++ {
		if !lit[i] {
			s.unresolved = true
			return len(args)
		}
		a := args[i]
		switch {
		case a == "--":
			return i + 1
		case isOpt(a, "-C", "--chdir"):
			v, ok, next := scanOptValue(args, lit, i)
			s.chdir(v, ok, local)
			i = next
		case isOpt(a, "-S", "--split-string"):
			str, ok, next := scanOptValue(args, lit, i)
			if !ok {
				s.unresolved = true
				return len(args)
			}
			rest, _ := joinLit(args[next+1:], lit[next+1:])
			s.script(str+" "+rest, local.clone(), depth+1)
			return len(args)
		case a == "-u" || a == "--unset" || a == "-P":
			i++
		case isAssignment(a):
			n, v, _ := strings.Cut(a, "=")
			if n == "GIT_DIR" || n == "GIT_WORK_TREE" {
				s.operand(v, true, local)
			}
		case strings.HasPrefix(a, "-"):
		default:
			return i
		}
	}
	return len(args)
}

func (s *scanner) chdir(v string, ok bool, local *cwdState) {
	if d := s.operand(v, ok, local); d != "" {
		local.dir = d
	} else {
		local.dir = ""
	}
}

// sudoChdir reads sudo's -D/--chdir (sudo(8)).
func (s *scanner) sudoChdir(args []string, lit []bool, local *cwdState) {
	for i := 0; i < len(args) && lit[i] && strings.HasPrefix(args[i], "-") && args[i] != "--"; i++ {
		if isOpt(args[i], "-D", "--chdir") {
			var v string
			var ok bool
			v, ok, i = scanOptValue(args, lit, i)
			s.chdir(v, ok, local)
		}
	}
}

// isOpt reports whether a is the short option (alone or with its value
// stuck on) or the long option (alone or as --long=value).
func isOpt(a, short, long string) bool {
	return a == long || strings.HasPrefix(a, long+"=") || strings.HasPrefix(a, short)
}

// scanOptValue returns the value of the option at args[i] (isOpt): stuck on it,
// after "=", or the next word; ok is false when that word is not literal or
// missing. next is the index of the last word the option used.
func scanOptValue(args []string, lit []bool, i int) (v string, ok bool, next int) {
	a := args[i]
	if _, val, found := strings.Cut(a, "="); found && strings.HasPrefix(a, "--") {
		return val, true, i
	}
	if !strings.HasPrefix(a, "--") && len(a) > 2 {
		return a[2:], true, i
	}
	if i+1 < len(args) {
		return args[i+1], lit[i+1], i + 1
	}
	return "", false, i
}

// git reads git's global options (before the subcommand): -C chains,
// --git-dir, --work-tree, and `-c alias.<name>=!<script>` shell aliases.
func (s *scanner) git(args []string, lit []bool, local *cwdState, depth int) {
	chain := local.clone()
	for i := 0; i < len(args); i++ {
		if !lit[i] {
			s.unresolved = true
			return
		}
		a := args[i]
		val := func() (string, bool, bool) {
			if i+1 < len(args) {
				i++
				return args[i], lit[i], true
			}
			return "", false, false
		}
		switch {
		case a == "-C":
			if v, ok, has := val(); has {
				s.chdir(v, ok, chain)
			}
		case strings.HasPrefix(a, "-C") && len(a) > 2:
			s.chdir(a[2:], true, chain)
		case a == "--git-dir" || a == "--work-tree":
			if v, ok, has := val(); has {
				s.operand(v, ok, chain)
			}
		case strings.HasPrefix(a, "--git-dir=") || strings.HasPrefix(a, "--work-tree="):
			_, v, _ := strings.Cut(a, "=")
			s.operand(v, true, chain)
		case a == "-c":
			if v, ok, has := val(); has {
				s.gitConfig(v, ok, chain, depth)
			}
		case a == "--namespace" || a == "--config-env" || a == "--super-prefix" || a == "--list-cmds" || a == "--attr-source":
			val()
		case strings.HasPrefix(a, "-"):
		default:
			return
		}
	}
}

// gitConfig reads one `git -c key=value`: a shell alias (alias.<name>=!…)
// runs its script from the top of the work tree, which the scan takes as
// chain's directory.
func (s *scanner) gitConfig(kv string, ok bool, chain *cwdState, depth int) {
	if !ok {
		return
	}
	k, v, _ := strings.Cut(kv, "=")
	if strings.HasPrefix(strings.ToLower(k), "alias.") && strings.HasPrefix(v, "!") {
		s.script(v[1:], chain.clone(), depth+1)
	}
}

// shell handles sh-family interpreters: a -c string, or a here-document or
// here-string fed on stdin; a shell reading a pipe runs code this scan does
// not see.
func (s *scanner) shell(args []string, lit []bool, x *syntax.Stmt, local *cwdState, depth int) {
	for k := 0; k < len(args); k++ {
		if !lit[k] {
			s.unresolved = true
			return
		}
		v := args[k]
		if v == "--" || v == "-" || !(strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+")) {
			if v != "--" && v != "-" {
				return // a script file: not read here
			}
			break
		}
		if v == "-o" || v == "+o" || v == "-O" || v == "+O" || v == "--rcfile" || v == "--init-file" {
			k++
			continue
		}
		if (strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "c")) || v == "--command" {
			if k+1 < len(args) {
				if !lit[k+1] {
					s.unresolved = true
					return
				}
				s.script(args[k+1], local.clone(), depth+1)
			}
			return
		}
	}
	fed := false
	if x != nil {
		for _, r := range x.Redirs {
			var w *syntax.Word
			switch r.Op {
			case syntax.Hdoc, syntax.DashHdoc:
				w = r.Hdoc
			case syntax.WordHdoc:
				w = r.Word
			case syntax.RdrIn:
				fed = true // a script file on stdin
				continue
			default:
				continue
			}
			fed = true
			src, ok := wordLit(w, "")
			if !ok {
				s.unresolved = true
				continue
			}
			s.script(src, local.clone(), depth+1)
		}
	}
	if !fed {
		s.unresolved = true // stdin from a pipe or the caller
	}
}

// scriptOption reads a launcher whose option runs a script (scriptOpts).
func (s *scanner) scriptOption(args []string, lit []bool, opts []string, local *cwdState, depth int) {
	for i, a := range args {
		for _, o := range opts {
			switch {
			case a == o && i+1 < len(args):
				if !lit[i+1] {
					s.unresolved = true
					return
				}
				s.script(args[i+1], local.clone(), depth+1)
				return
			case strings.HasPrefix(a, o+"=") && strings.HasPrefix(o, "--"):
				s.script(strings.TrimPrefix(a, o+"="), local.clone(), depth+1)
				return
			}
		}
	}
}

// find: a command run by -exec/-execdir/-ok/-okdir gets paths known only at
// run time (and -execdir runs it in their directories). A find inside
// find's -exec is one more nesting level (maxDepth), which keeps the
// scan linear: each level reads the words up to its terminator.
func (s *scanner) find(args []string, lit []bool, x *syntax.Stmt, st, local *cwdState, depth int) {
	if depth+1 > maxDepth {
		s.bound(RuleScanBoundNesting)
		return
	}
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j] != ";" && args[j] != "+" {
				j++
			}
			s.run(args[i+1:j], lit[i+1:j], nil, st.clone(), local.clone(), depth+1, false, true)
			i = j
		}
	}
}

// pathWord reads w, a word bash passes to a command (or a for loop's
// item), read in st: its literal value (ok false when built at run time or
// expanded by bash into other words), recorded in Scan.Paths when it names a
// path leaving st's directory. A word bash expands (a glob, a brace
// expansion: `cd {/gov,}`, `rm /g?v/.hookwarden.yaml`) that may leave the
// directory (it holds a slash or starts with ~) makes the scan unresolved:
// the words it becomes are known only at run time.
func (s *scanner) pathWord(w *syntax.Word, st *cwdState) (string, bool) {
	v, ok := wordLit(w, s.home)
	if ok && expands(w) {
		ok = false
		if strings.Contains(v, "/") || strings.HasPrefix(v, "~") {
			s.unresolved = true
		}
	}
	s.named(v, ok, st)
	return v, ok
}

// expands reports whether bash expands the command word w into other words
// after quote removal: an unquoted part holds a glob character (*, ?, [) or
// a brace expansion ({a,b}, {1..3}, {a,'b'}; not {} or {x..1y}), found as
// the evaluator's expansion (mvdan.cc/sh expand.Fields) finds it:
// syntax.SplitBraces on a copy of w (it rewrites the word it is given),
// then a brace expansion among the parts. Assignment values are not
// expanded so.
func expands(w *syntax.Word) bool {
	for _, part := range w.Parts {
		l, ok := part.(*syntax.Lit)
		if !ok {
			continue
		}
		if strings.ContainsAny(l.Value, "*?") {
			return true
		}
		if i := strings.IndexByte(l.Value, '['); i >= 0 && strings.IndexByte(l.Value[i+1:], ']') >= 0 {
			return true // a bracket expression; a lone [ (test) is a word
		}
	}
	cp := *w
	return syntax.SplitBraces(&cp) && slices.ContainsFunc(cp.Parts, func(p syntax.WordPart) bool {
		_, ok := p.(*syntax.BraceExp)
		return ok
	})
}

// wordLit returns the literal value of w with quotes removed, and false when
// w contains expansions.
func wordLit(w *syntax.Word, home string) (string, bool) {
	if w == nil {
		return "", false
	}
	var b strings.Builder
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := unescape(p.Value, false)
			if i == 0 && home != "" && (v == "~" || strings.HasPrefix(v, "~/")) {
				v = home + v[1:]
			}
			b.WriteString(v)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, dp := range p.Parts {
				l, ok := dp.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescape(l.Value, true))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}
