package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v3"

	agentcontext "github.com/hookwarden/hookwarden/templates/agentcontext"
)

// compileContextCommand is `hookwarden compile-context`: it compiles AGENTS.md
// into the vendor instruction files and AGENTS.readonly.md (package
// templates/agentcontext). Exit codes: 0 written or up to date; 1 --verify found
// stale, missing or refused files, a file was refused, or a line budget was
// exceeded; 2 usage error or unreadable source.
func compileContextCommand() *cli.Command {
	return &cli.Command{
		Name:      "compile-context",
		Usage:     "write vendor instruction files and AGENTS.readonly.md from AGENTS.md; --verify writes nothing",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "source", Value: "AGENTS.md", Usage: "the source of agent instructions (relative to --target-dir)"},
			&cli.StringFlag{Name: "target-dir", Value: ".", Usage: "directory the files are written into"},
			&cli.BoolFlag{Name: "verify", Usage: "write nothing; exit 1 listing each stale, missing or refused file with a diff"},
			&cli.StringSliceFlag{Name: "clients", Usage: "clients to compile for (claude, codex, gemini, copilot, cursor, opencode, agy; default all)"},
			&cli.IntFlag{Name: "line-budget", Value: agentcontext.DefaultLineBudget, Usage: "maximum lines per file (negative: no budget)"},
			&cli.BoolFlag{Name: "json", Usage: "report as JSON on stdout"},
		},
		Action: runCompileContext,
	}
}

func runCompileContext(ctx context.Context, c *cli.Command) error {
	if c.NArg() > 0 {
		return cli.Exit("hookwarden: compile-context: takes no arguments (use --source and --target-dir)", 2)
	}
	budget := c.Int("line-budget")
	if budget == 0 {
		budget = -1
	}
	plan, err := agentcontext.Compile(ctx, agentcontext.Options{
		Source:     c.String("source"),
		TargetDir:  c.String("target-dir"),
		Clients:    c.StringSlice("clients"),
		LineBudget: budget,
	})
	out := c.Root().Writer
	asJSON := c.Bool("json")
	write := func(r agentcontext.Report) {
		var werr error
		if asJSON {
			werr = r.WriteJSON(out)
		} else {
			werr = r.WriteText(out)
		}
		if werr != nil {
			fmt.Fprintf(os.Stderr, "hookwarden: compile-context: %v\n", werr)
		}
	}
	if err != nil {
		code := 2 // unreadable source, unknown client: unusable input
		var be *agentcontext.BudgetError
		if errors.As(err, &be) {
			code = 1 // the source is over its line budget: a failed run
		}
		if asJSON {
			write(agentcontext.Report{Verify: c.Bool("verify"), Error: err.Error()})
		}
		return cli.Exit(err.Error(), code)
	}
	rep := agentcontext.NewReport(plan, c.Bool("verify"))
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
