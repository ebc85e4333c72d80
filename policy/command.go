package policy

import (
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
}

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
