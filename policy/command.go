package policy

import (
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Command is one command text as a hook call hands it over, with the shell
// parses of the scripts in it (the command itself and the scripts it runs:
// `bash -c '…'`, eval, a git `!` alias, a here-document fed to a shell). The
// engine makes one per call and hands it to the target scan (ScanTargets)
// and then to the judge (JudgeCommand), so each script text is parsed once
// per call: the scan keeps what it parsed, and the judge takes it over (the
// judge's evaluator rewrites a tree it runs, so a tree the judge took is
// never handed out again; a later read parses anew). A Command is not safe
// for concurrent use; NewCommand makes one.
type Command struct {
	text   string
	parser *syntax.Parser
	kept   map[string]parsed
	parses int // how many times the parser ran (tests)
	// evaluated is the target scan of the commands the judge's evaluator
	// ran (ranIn), nil until it runs one.
	evaluated *scanner
	// keepRan (KeepRan) makes the judge record the simple commands it saw
	// run (judge.lines) even when its policy has no operator pattern; ran
	// holds those of the last judgement, for JudgeOperators.
	keepRan bool
	ran     []string
}

// KeepRan makes the next judgement of c (JudgeCommand) keep the simple
// commands it sees run, as it does for a policy with operator patterns, so
// that Policy.JudgeOperators can match further operator patterns against
// them without judging c again. The engine asks for it only for a command
// that may reach governed repositories the workspace scan could not name.
func (c *Command) KeepRan() { c.keepRan = true }

// parsed is one shell parse: its tree, or the parser's error.
type parsed struct {
	file *syntax.File
	err  error
}

// NewCommand returns the Command for text (the command as the agent hands it
// to a shell), nothing parsed yet.
func NewCommand(text string) *Command { return &Command{text: text} }

// Text returns the command text NewCommand was given.
func (c *Command) Text() string { return c.text }

// parse parses src (the command or a script in it) with the bash dialect;
// a nil c parses without keeping anything.
// keep stores the result for the next reader (the target scan); otherwise
// the result is handed over and forgotten (the judge, which may rewrite the
// tree).
func (c *Command) parse(src string, keep bool) (*syntax.File, error) {
	if c == nil {
		c = &Command{}
	}
	if p, ok := c.kept[src]; ok {
		if !keep {
			delete(c.kept, src)
		}
		return p.file, p.err
	}
	if c.parser == nil {
		c.parser = syntax.NewParser(syntax.Variant(syntax.LangBash))
	}
	c.parses++
	f, err := c.parser.Parse(strings.NewReader(src), "")
	if keep {
		if c.kept == nil {
			c.kept = map[string]parsed{}
		}
		c.kept[src] = parsed{f, err}
	}
	return f, err
}

// ranIn records a simple command the judge's evaluator ran, with the words
// argv (expanded; a word holding the dynamic marker is not known), in dir
// (the evaluator's current directory, absolute): dir itself, the paths its
// known words name that leave dir (absolute, `~/` with home, or with a `..`
// component), and the directories it points git or the shell at (`git -C`,
// `env -C`, `sudo -D` and the rest of what ScanTargets reads), with the
// target scan's own reading of one command.
func (c *Command) ranIn(dir, home string, argv []field) {
	s := c.evaluated
	if s == nil {
		s = &scanner{home: home, seen: map[string]bool{}}
		c.evaluated = s
	}
	if s.err != nil {
		return
	}
	st := &cwdState{dir: filepath.Clean(dir)}
	s.add(st.dir)
	args := make([]string, len(argv))
	lit := make([]bool, len(argv))
	for i, f := range argv {
		args[i], lit[i] = f.val, !f.dynamic()
		if i > 0 {
			s.named(args[i], lit[i], st)
		}
	}
	s.run(args, lit, nil, st, st, 0, false, false)
}

// Evaluated returns where the judge's evaluator saw the command act, after
// JudgeCommand: the directories it ran each simple command in, with the
// expanded words it knew, and the directories and paths those words name
// (ScanTargets' reading of each command: `git -C "$d"`, `cd "$1"`, a path
// built by brace expansion or `set --`), absolute and without duplicates.
// It is empty when the evaluator did not run (a command of plain literal
// words, which ScanTargets read whole) or the judge had no directory to run
// it in. The error is a *BoundError when the commands it ran passed the
// target scan's bounds (more than MaxTargetOperands directory operands):
// the engine refuses such a command rather than judge it in fewer
// repositories than it reaches.
func (c *Command) Evaluated() ([]string, error) {
	if c == nil || c.evaluated == nil {
		return nil, nil
	}
	s := c.evaluated
	if s.err != nil {
		return nil, s.err
	}
	return slices.Concat(s.dirs, s.paths, s.below, s.names), nil
}
