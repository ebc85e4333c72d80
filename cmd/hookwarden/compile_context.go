package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/urfave/cli/v3"

	agentcontext "github.com/hookwarden/hookwarden/templates/agentcontext"
)

// compileContextCommand is `hookwarden compile-context`: it compiles AGENTS.md
// into the vendor instruction files and AGENTS.readonly.md (package
// templates/agentcontext). Exit codes: 0 written or up to date; 1 --verify found
// stale, missing or refused files, a file was refused, or a line budget was
// exceeded; 2 usage error or unreadable source.
// compileContextOptions is what compile-context runs with: its arguments
// (there must be none) and each flag's value.
type compileContextOptions struct {
	IO         *ioStreams
	Args       []string
	Source     string
	TargetDir  string
	Verify     bool
	Clients    []string
	LineBudget int
	JSON       bool
}

func compileContextCommand(streams *ioStreams) *cli.Command {
	o := &compileContextOptions{IO: streams}
	return &cli.Command{
		Name:      "compile-context",
		Usage:     "write vendor instruction files and AGENTS.readonly.md from AGENTS.md; --verify writes nothing",
		UsageText: "hookwarden compile-context [options]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "source", Value: "AGENTS.md", Destination: &o.Source, Usage: "the source of agent instructions (relative to --target-dir)"},
			&cli.StringFlag{Name: "target-dir", Value: ".", Destination: &o.TargetDir, Usage: "directory the files are written into"},
			&cli.BoolFlag{Name: "verify", Destination: &o.Verify, Usage: "write nothing; exit 1 listing each stale, missing or refused file with a diff"},
			&cli.StringSliceFlag{Name: "clients", Destination: &o.Clients, Usage: "clients to compile for (claude, codex, gemini, copilot, cursor, opencode, agy; default all)"},
			&cli.IntFlag{Name: "line-budget", Value: agentcontext.DefaultLineBudget, Destination: &o.LineBudget, Usage: "maximum lines per file (negative: no budget)"},
			&cli.BoolFlag{Name: "json", Destination: &o.JSON, Usage: "report as JSON on stdout"},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			o.Args = c.Args().Slice()
			return runCompileContext(ctx, o)
		},
	}
}

// runCompileContext compiles (or, with --verify, checks) the files o names
// and writes the report to o.IO.Out (a report that cannot be written is
// said on o.IO.ErrOut). Exit codes are compileContextCommand's.
func runCompileContext(ctx context.Context, o *compileContextOptions) error {
	if len(o.Args) > 0 {
		return cli.Exit("hookwarden: compile-context: takes no arguments (use --source and --target-dir)", 2)
	}
	budget := o.LineBudget
	if budget == 0 {
		budget = -1
	}
	plan, err := agentcontext.Compile(ctx, agentcontext.Options{
		Source:     o.Source,
		TargetDir:  o.TargetDir,
		Clients:    o.Clients,
		LineBudget: budget,
	})
	write := func(r agentcontext.Report) {
		var werr error
		if o.JSON {
			werr = r.WriteJSON(o.IO.Out)
		} else {
			werr = r.WriteText(o.IO.Out)
		}
		if werr != nil {
			fmt.Fprintf(o.IO.ErrOut, "hookwarden: compile-context: %v\n", werr)
		}
	}
	if err != nil {
		code := 2 // unreadable source, unknown client: unusable input
		var be *agentcontext.BudgetError
		if errors.As(err, &be) {
			code = 1 // the source is over its line budget: a failed run
		}
		if o.JSON {
			write(agentcontext.Report{Verify: o.Verify, Error: err.Error()})
		}
		return cli.Exit(err.Error(), code)
	}
	rep := agentcontext.NewReport(plan, o.Verify)
	if rep.Verify {
		rep.Findings = agentcontext.Verify(plan)
		write(rep)
		if len(rep.Findings) > 0 {
			return cli.Exit(fmt.Sprintf("hookwarden: compile-context: %d file(s) missing, stale or refused; run hookwarden compile-context (and resolve any refusal it prints)", len(rep.Findings)), 1)
		}
		return nil
	}
	written, err := agentcontext.Apply(ctx, plan)
	rep.Written = written
	if err != nil {
		rep.Error = err.Error()
	}
	write(rep)
	if err != nil {
		return cli.Exit(err.Error(), 1)
	}
	return nil
}
