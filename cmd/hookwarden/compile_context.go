package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/urfave/cli/v3"

	agentcontext "github.com/hookwarden/hookwarden/templates/context"
)

// compileContextCommand is `hookwarden compile-context`: it compiles AGENTS.md
// into the vendor instruction files and AGENTS.readonly.md (package
// templates/context). Exit codes: 0 written or up to date; 1 --verify found
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

type ccFileReport struct {
	Path    string `json:"path"`
	Client  string `json:"client"`
	Status  string `json:"status"`
	Refusal string `json:"refusal,omitempty"`
}

type ccReport struct {
	Source       string                 `json:"source"`
	SourceDigest string                 `json:"source_sha256"`
	Verify       bool                   `json:"verify"`
	Files        []ccFileReport         `json:"files"`
	Findings     []agentcontext.Finding `json:"findings,omitempty"`
	Written      []string               `json:"written,omitempty"`
	Notes        []string               `json:"notes,omitempty"`
	Error        string                 `json:"error,omitempty"`
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
	if err != nil {
		code := 2 // unreadable source, unknown client: unusable input
		var be *agentcontext.BudgetError
		if errors.As(err, &be) {
			code = 1 // the source is over its line budget: a failed run
		}
		if asJSON {
			ccWriteJSON(out, ccReport{Verify: c.Bool("verify"), Error: err.Error()})
		}
		return cli.Exit(err.Error(), code)
	}
	rep := ccReport{Source: plan.Source, SourceDigest: plan.SourceDigest, Verify: c.Bool("verify"), Notes: plan.Notes}
	for _, f := range plan.Files {
		rep.Files = append(rep.Files, ccFileReport{Path: f.Path, Client: f.Client, Status: string(f.Status), Refusal: f.Refusal})
	}
	if c.Bool("verify") {
		rep.Findings = agentcontext.Verify(plan)
		if asJSON {
			ccWriteJSON(out, rep)
		} else {
			for _, f := range rep.Findings {
				fmt.Fprintf(out, "%s: %s: %s\n", f.Problem, f.Path, f.Reason)
				if f.Diff != "" {
					fmt.Fprint(out, f.Diff)
				}
			}
			if len(rep.Findings) == 0 {
				fmt.Fprintf(out, "all %d files up to date\n", len(plan.Files))
			}
		}
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
	if asJSON {
		ccWriteJSON(out, rep)
	} else {
		for _, f := range plan.Files {
			switch f.Status {
			case agentcontext.StatusRefused:
				fmt.Fprintf(out, "refused    %s: %s\n", f.Path, f.Refusal)
			case agentcontext.StatusUnchanged:
				fmt.Fprintf(out, "unchanged  %s\n", f.Path)
			default:
				if slices.Contains(written, f.Path) {
					fmt.Fprintf(out, "wrote      %s\n", f.Path)
				}
			}
		}
		for _, n := range plan.Notes {
			fmt.Fprintf(out, "note       %s\n", n)
		}
	}
	if err != nil {
		return cli.Exit(err.Error(), 1)
	}
	return nil
}

func ccWriteJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(os.Stderr, "hookwarden: compile-context: json: %v\n", err)
	}
}
