package policy

import (
	"path"
	"path/filepath"
	"strings"
)

// Code a command or an edit writes, judged before anything runs it.
//
// A file of code written in one call runs in a later one by a program that
// does not name it: pytest imports conftest.py and the test files, jest and
// vitest the *.test.js files, rspec and prove theirs, bats its .bats files.
// The later command cannot be judged by that code without reading the
// whole tree, so the write is: JudgeWrittenCode judges the new content as the code it is
// (writtenCodeKind: by the file's name, else its #! line) and refuses it
// when running it would skip or switch off the hooks (writtenCodeRule).
// The edit guard (engine/editguard) calls it for Write and Edit tools, and
// the shell judge for a redirection or tee of known text into such a file.

// writtenCodeKind returns how a file named name (a path; its base name
// decides) with content is run: "python3", "node", "ruby", "perl" or
// "sh"; "" for a file that is not code hookwarden reads. A file without an
// extension is code when its first line is a #! line (shebangKind).
// package.json scripts, Makefiles and //go:generate lines are not judged
// here: every runner of them reads them when it runs (installScripts,
// packageScript, makeCall, goGenerate).
func writtenCodeKind(name, content string) string {
	base := path.Base(strings.ReplaceAll(name, `\`, "/"))
	switch strings.ToLower(path.Ext(base)) {
	case ".py", ".pyw", ".pth":
		// a .pth file in site-packages runs its import lines at every
		// interpreter start (Python 3.12 library reference, site)
		return "python3"
	case ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx":
		return "node"
	case ".rb", ".rake":
		return "ruby"
	case ".pl", ".pm", ".t":
		return "perl"
	case ".sh", ".bash", ".zsh", ".ksh", ".bats":
		return "sh"
	case "":
		if strings.HasPrefix(content, "#!") {
			return shebangKind(content)
		}
	}
	return ""
}

// JudgeWrittenCode judges content, to be written to the file name, as the
// code it is when run (see writtenCodeKind): a Decision that denies with
// the first of writtenCodeRule the code would earn, else an allow (also
// for a file that is not code). at is where the file is written: scripts
// the code runs by a relative path are read from at.Dir (absolute; else
// nothing relative is read).
func (p *Policy) JudgeWrittenCode(name, content string, at Site) (d Decision) {
	kind := writtenCodeKind(name, content)
	if kind == "" {
		return Decision{Allowed: true}
	}
	defer func() {
		if r := recover(); r != nil {
			d = p.deny(RuleIndirectionUnjudgeable) // a defect: fail closed
		}
	}()
	dir := at.Dir
	if !filepath.IsAbs(dir) {
		dir = ""
	}
	hits := &hitSet{}
	// The Command is only a parse memo here: its parser serves every shell
	// snippet found in the file.
	j := &judge{p: p, hits: hits, dir: dir, env: at.LookupEnv, cmd: NewCommand("")}
	j.keepHits(writtenCodeRule, func() { j.judgeSource(kind, content, nil, 1) })
	if id := hits.first(); id != "" {
		return p.deny(id)
	}
	return Decision{Allowed: true}
}

// writtenCodeRule reports the rules code written to a file can earn it:
// hookRules. What cannot be known (script-unknown, code-dynamic,
// git-dynamic-option), sudo in a script and the scan bounds do not refuse
// a write: they refuse the command that runs the file when it names it.
func writtenCodeRule(id string) bool { return hookRules(id) }

// writtenFile adds to j's hits those of writtenCodeRule that content,
// written by the command to the file name, earns as code (a redirection or
// tee of known text: printf '...' > t_test.py, cat > conftest.py <<EOF).
// A target with a rule of its own (a guard, hook, git config, hook
// manager or start-up file: sc.classify) is judged by that rule alone.
func (j *judge) writtenFile(sc *scope, target field, content string) {
	kind := writtenCodeKind(target.val, content)
	if kind == "" || j.writing || sc.classify(target).guarded() {
		return
	}
	j.writing = true
	defer func() { j.writing = false }()
	j.keepHits(writtenCodeRule, func() { j.judgeSource(kind, content, nil, 1) })
}
