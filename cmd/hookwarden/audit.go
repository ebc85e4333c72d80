package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v3"
	"golang.org/x/term"

	"github.com/hookwarden/hookwarden/adopt"
	"github.com/hookwarden/hookwarden/adopt/audit"
)

// auditCommand is `hookwarden audit [PATH...] [--fleet DIR] [--format
// text|json|sarif] [--strict] [--plan [--workstation]]`: the read-only CI
// check (adopt/audit), with --plan the effective hook plan
// (adopt/hookplan). Exit
// 0 clean, 1 any error finding (or, with --strict, any warning), 2 an
// unusable invocation (bad flag or format, a PATH that is not a directory,
// an unreadable --fleet directory).
func auditCommand() *cli.Command {
	return &cli.Command{
		Name:      "audit",
		Usage:     "check that governed repositories' agents are really guarded; every finding with its fix (never writes)",
		ArgsUsage: "[PATH...]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "fleet", Usage: "audit every repository below `DIR` (directories holding .git)"},
			&cli.IntFlag{Name: "depth", Value: 1, Usage: "with --fleet, look this many directory levels below DIR"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "report format: text, json (schema_version 1) or sarif (SARIF 2.1.0)"},
			&cli.BoolFlag{Name: "json", Usage: "same as --format json"},
			&cli.BoolFlag{Name: "strict", Usage: "exit 1 on warnings too"},
			&cli.BoolFlag{Name: "plan", Usage: "add the effective hook plan: per client every hook that fires on each event, from which file, in what order, and why others do not (a PATH below a governed root plans a session started there)"},
			&cli.BoolFlag{Name: "workstation", Usage: "with --plan, read the clients' user-level files too (~/.claude/settings.json, ~/.codex/hooks.json, ~/.gemini/settings.json)"},
			&cli.IntFlag{Name: "jobs", Usage: "repositories audited at once", DefaultText: "the CPU count"},
		},
		Action: runAudit,
	}
}

func runAudit(ctx context.Context, c *cli.Command) error {
	format := c.String("format")
	if c.Bool("json") {
		if c.IsSet("format") && format != "json" {
			return cli.Exit("hookwarden: audit: --json and --format "+format+" disagree", 2)
		}
		format = "json"
	}
	switch format {
	case "text", "json", "sarif":
	default:
		return cli.Exit(fmt.Sprintf("hookwarden: audit: --format %q: want text, json or sarif", format), 2)
	}
	paths := c.Args().Slice()
	if dir := c.String("fleet"); c.IsSet("fleet") {
		// An empty --fleet (an unset shell variable) must not fall back to ".".
		if dir == "" {
			return cli.Exit("hookwarden: audit: --fleet: empty directory name", 2)
		}
		found, err := adopt.Discover(dir, c.Int("depth"))
		if err != nil {
			return cli.Exit("hookwarden: audit: --fleet: "+err.Error(), 2)
		}
		if len(found) == 0 && len(paths) == 0 {
			return cli.Exit(fmt.Sprintf("hookwarden: audit: --fleet %s: no repository found (a directory holding .git) within depth %d", dir, c.Int("depth")), 2)
		}
		paths = append(paths, found...)
	} else if len(paths) == 0 {
		paths = []string{"."}
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if c.Bool("workstation") && !c.Bool("plan") {
		return cli.Exit("hookwarden: audit: --workstation needs --plan", 2)
	}
	opts := audit.Options{Jobs: c.Int("jobs"), Plan: c.Bool("plan"), Workstation: c.Bool("workstation")}
	// The bar goes to stderr, and only to a terminal: a pipe or a CI log
	// gets the report alone.
	if term.IsTerminal(int(os.Stderr.Fd())) {
		opts.Progress = adopt.ProgressBar(os.Stderr)
	}
	rep, err := audit.Audit(ctx, paths, opts)
	if err != nil {
		// A PATH that is not a directory (audit.ErrNotDirectory) or a
		// registration table this build cannot read: nothing was audited.
		return cli.Exit("hookwarden: audit: "+err.Error(), 2)
	}
	switch format {
	case "json":
		err = rep.WriteJSON(os.Stdout)
	case "sarif":
		err = rep.WriteSARIF(os.Stdout)
	default:
		err = rep.WriteText(os.Stdout)
	}
	if err != nil {
		return cli.Exit("hookwarden: audit: writing the report: "+err.Error(), 2)
	}
	if ctx.Err() != nil {
		return cli.Exit("hookwarden: audit: interrupted; the report is incomplete", 130)
	}
	if rep.Failed(c.Bool("strict")) {
		return cli.Exit("", 1)
	}
	return nil
}
