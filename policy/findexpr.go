package policy

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// find's expression (findutils manual, "Finding Files": operators "!",
// -not, -a, -and, juxtaposition, -o, -or, ",", and parentheses, in
// decreasing precedence, evaluated left to right with short circuits) is
// read as a tree, so that what an action applies to is what find would
// hand it: in `find . -name '*.o' -o -name '*.tmp' -delete` only the files
// named *.tmp reach -delete, since -a binds tighter than -o. Each guard file
// name (findGuardNames) is then run through the tree with its name tests
// answered and every other test (-type, -mtime, ...) unknown: the guard is
// reached when some path through the tree brings that name to a changing
// action (-delete, or -exec/-ok with a command that changes the files).

// findNode is one node of a find expression.
type findNode struct {
	op   string // "and", "or", ",", "not", "test", "action"
	a, b *findNode
	// test: the primary and its argument; action: changes is true for
	// -delete and an -exec/-ok whose command changes files.
	prim    string
	arg     field
	changes bool
}

// findArity is the number of arguments of find's primaries that take any
// (findutils 4.9 manual); -exec and its kin run to ";" or "+".
func findArity(name string) int {
	switch name {
	case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
		"-lname", "-ilname", "-type", "-xtype", "-user", "-group", "-uid", "-gid", "-perm",
		"-size", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-used",
		"-newer", "-anewer", "-cnewer", "-links", "-inum", "-samefile", "-fstype", "-context",
		"-maxdepth", "-mindepth", "-regextype", "-fprint", "-fprint0", "-fls", "-printf",
		"-files0-from":
		return 1
	case "-fprintf":
		return 2
	}
	return 0
}

// findParser reads a find expression from its words.
type findParser struct {
	words []field
	i     int
	// paths: the start paths ({} in -exec stands for what was found).
	paths []field
}

func (p *findParser) peek() string {
	if p.i < len(p.words) {
		return p.words[p.i].val
	}
	return ""
}

func (p *findParser) comma() *findNode {
	n := p.or()
	for p.peek() == "," {
		p.i++
		n = &findNode{op: ",", a: n, b: p.or()}
	}
	return n
}

func (p *findParser) or() *findNode {
	n := p.and()
	for p.peek() == "-o" || p.peek() == "-or" {
		p.i++
		n = &findNode{op: "or", a: n, b: p.and()}
	}
	return n
}

func (p *findParser) and() *findNode {
	n := p.unary()
	for p.i < len(p.words) {
		switch p.peek() {
		case ")", "-o", "-or", ",":
			return n
		case "-a", "-and":
			p.i++
		}
		n = &findNode{op: "and", a: n, b: p.unary()}
	}
	return n
}

func (p *findParser) unary() *findNode {
	switch p.peek() {
	case "":
		return &findNode{op: "test", prim: "-true"}
	case "!", "-not":
		p.i++
		return &findNode{op: "not", a: p.unary()}
	case "(":
		p.i++
		n := p.comma()
		if p.peek() == ")" {
			p.i++
		}
		return n
	}
	return p.primary()
}

func (p *findParser) primary() *findNode {
	w := p.words[p.i]
	p.i++
	switch w.val {
	case "-delete":
		return &findNode{op: "action", prim: w.val, changes: true}
	case "-exec", "-execdir", "-ok", "-okdir":
		var sub []field
		for ; p.i < len(p.words) && p.words[p.i].val != ";" && p.words[p.i].val != "+"; p.i++ {
			sub = append(sub, p.words[p.i])
		}
		p.i++ // the terminator
		changes := true
		if len(sub) > 0 {
			if n, ok := cmdName(sub[0]); ok && !findChangers(n) {
				changes = false
			}
		}
		return &findNode{op: "action", prim: w.val, changes: changes}
	}
	n := &findNode{op: "test", prim: w.val}
	if k := findArity(w.val); k > 0 || strings.HasPrefix(w.val, "-newer") && len(w.val) == 8 {
		if k == 0 {
			k = 1 // -newerXY
		}
		if p.i < len(p.words) {
			n.arg = p.words[p.i]
		}
		p.i += k
	}
	return n
}

// findOutcome is what evaluating a node may give for one file: true,
// false, and (named) true only through a name test that matched.
type findOutcome struct{ t, f, namedT bool }

// findEval runs one candidate file through a find expression.
type findEval struct {
	// name: the candidate's base name ("" for a file about which no name
	// test is known: every name test is then unknown).
	name string
	// reached: some path brings the file to a changing action; named:
	// one such path passed a name test the file matched.
	reached, named bool
}

func (e *findEval) eval(n *findNode, named bool) findOutcome {
	switch n.op {
	case "and":
		a := e.eval(n.a, named)
		if !a.t {
			return findOutcome{f: true}
		}
		b := e.eval(n.b, named || a.namedT)
		return findOutcome{t: b.t, f: a.f || b.f, namedT: b.t && (a.namedT || b.namedT)}
	case "or":
		a := e.eval(n.a, named)
		if !a.f {
			return a
		}
		b := e.eval(n.b, named)
		return findOutcome{t: a.t || b.t, f: b.f, namedT: (!a.t || a.namedT) && (!b.t || b.namedT) && (a.t || b.t)}
	case ",":
		e.eval(n.a, named)
		return e.eval(n.b, named)
	case "not":
		a := e.eval(n.a, named)
		return findOutcome{t: a.f, f: a.t}
	case "action":
		if n.changes {
			e.reached = true
			e.named = e.named || named
		}
		return findOutcome{t: true, f: true}
	}
	return e.test(n)
}

// test answers one test for the candidate: a name test it matches is
// true (named), one it does not match false; any other test is unknown.
func (e *findEval) test(n *findNode) findOutcome {
	switch n.prim {
	case "-true":
		return findOutcome{t: true}
	case "-false":
		return findOutcome{f: true}
	case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex":
		if e.name == "" {
			return findOutcome{t: true, f: true}
		}
		if findTestMatches(n.prim, n.arg, e.name) {
			return findOutcome{t: true, namedT: true}
		}
		return findOutcome{f: true}
	}
	return findOutcome{t: true, f: true}
}

// findReach judges which files a find expression's changing actions reach.
// any: a file about which nothing is known reaches one (its start path
// decides); own, client: a guard file's name reaches one, through a name
// test it matched unless ancestor (a start path of dots only, where every
// guard file lies below).
//
// present, when not nil, holds the lower-case base names found below the
// start paths (findPresent): a guard name absent there reaches nothing.
//
// hooksDir: below a start path of dots only, a name test matches a hooks
// directory's name (findHookDirNames) on its way to a changing action:
// find . -name hooks -exec rm -rf {} + reaches .git/hooks (an adversarial
// pass found it allowed, 2026-12-06).
func findReach(expr []field, ancestor bool, present map[string]bool) (any, own, client, hooksDir bool) {
	if len(expr) == 0 {
		return false, false, false, false
	}
	p := &findParser{words: expr}
	root := p.comma()
	for p.i < len(p.words) {
		// A stray ")" or a word the grammar left: read the rest too.
		p.i++
		root = &findNode{op: ",", a: root, b: p.comma()}
	}
	e := &findEval{}
	e.eval(root, false)
	any = e.reached
	for _, g := range findGuardNames {
		if present != nil && !present[g.name] {
			continue
		}
		e := &findEval{name: g.name}
		e.eval(root, false)
		if e.reached && (ancestor || e.named) {
			own, client = own || g.own, client || !g.own
		}
	}
	if ancestor {
		for _, h := range findHookDirNames {
			e := &findEval{name: h}
			e.eval(root, false)
			hooksDir = hooksDir || e.reached && e.named
		}
	}
	return any, own, client, hooksDir
}

// findNamesReach reports whether a file with one of names as its base
// name reaches a changing action of the find expression through a name
// test it matched (find .. -maxdepth 1 -name repo -exec rm -rf {} +).
func findNamesReach(expr []field, names []string) bool {
	if len(expr) == 0 || len(names) == 0 {
		return false
	}
	p := &findParser{words: expr}
	root := p.comma()
	for p.i < len(p.words) {
		p.i++
		root = &findNode{op: ",", a: root, b: p.comma()}
	}
	for _, n := range names {
		e := &findEval{name: strings.ToLower(n)}
		e.eval(root, false)
		if e.reached && e.named {
			return true
		}
	}
	return false
}

// findHookDirNames are the base names of the directories the
// hooks-dir-tamper rule guards: isStoreDirName's below a git directory
// (hooks, hookwarden) and isHookDirName's (TestFindHookDirNames holds the
// three lists together).
var findHookDirNames = []string{"hooks", StoreDirName, ".husky", ".lefthook", ".lefthook-local", ".githooks"}

// maxFindEntries bounds the directory entries findPresent reads in all.
const maxFindEntries = 4096

// findPresent walks find's start paths below the directory the command
// starts in (bounded by maxFindEntries) and returns the lower-case base
// names found there, start paths included; nil when the judge cannot tell
// (no directory known, a start path known only at run time, of dots only
// or missing (an earlier statement may make it), the bound reached, an
// unreadable directory).
func (sc *scope) findPresent(paths []field) map[string]bool {
	if sc.dir == "" || sc.cwdUnknown {
		return nil
	}
	present := map[string]bool{}
	budget := maxFindEntries
	for _, p := range paths {
		if p.dynamic() || dotsOnly(p.val) || strings.ContainsAny(p.val, "*?[") {
			return nil
		}
		full := p.val
		if !shellAbs(full) {
			full = filepath.Join(sc.dir, sc.cwd, full)
		}
		if !walkNames(full, present, &budget) {
			return nil
		}
	}
	return present
}

// walkNames adds the base names of root and everything below it to names,
// counting entries against budget; false when the budget runs out or a
// directory cannot be read. Symbolic links are not followed (find's
// default).
func walkNames(root string, names map[string]bool, budget *int) bool {
	fi, err := os.Lstat(root)
	if err != nil {
		return false
	}
	names[strings.ToLower(filepath.Base(root))] = true
	if !fi.IsDir() {
		return true
	}
	d, err := os.Open(root)
	if err != nil {
		return false
	}
	entries, err := d.ReadDir(*budget + 1)
	d.Close()
	if len(entries) > *budget || err != nil && !errors.Is(err, io.EOF) {
		return false
	}
	*budget -= len(entries)
	for _, e := range entries {
		full := filepath.Join(root, e.Name())
		if e.IsDir() {
			if !walkNames(full, names, budget) {
				return false
			}
			continue
		}
		names[strings.ToLower(e.Name())] = true
	}
	return true
}
