package main

import (
	"context"
	"fmt"
	"github.com/hookwarden/hookwarden/internal/fleetgc"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v3"

	"github.com/hookwarden/hookwarden/adopt"
	"github.com/hookwarden/hookwarden/adopt/audit"
)

// auditOptions is what audit runs with: the repositories named on the
// command line and each flag's value (bound by auditCommand); FleetSet and
// FormatSet record whether --fleet and --format were given.
type auditOptions struct {
	IO          *ioStreams
	Paths       []string
	Fleet       string
	Depth       int
	Format      string
	JSON        bool
	Strict      bool
	Plan        bool
	Workstation bool
	Jobs        int
	FleetSet    bool
	FormatSet   bool
}

// auditCommand is `hookwarden audit [PATH...] [--fleet DIR] [--format
// text|json|sarif] [--strict] [--plan [--workstation]]`: the read-only CI
// check (adopt/audit), with --plan the effective hook plan
// (adopt/hookplan). Exit codes are runAudit's.
func auditCommand(streams *ioStreams) *cli.Command {
	o := &auditOptions{IO: streams}
	return &cli.Command{
		Name:      "audit",
		Usage:     "check that governed repositories' agents are really guarded; every finding with its fix (never writes)",
		ArgsUsage: "[PATH...]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "fleet", Destination: &o.Fleet, Usage: "audit every repository below `DIR` (directories holding .git)"},
			&cli.IntFlag{Name: "depth", Value: 1, Destination: &o.Depth, Usage: "with --fleet, look this many directory levels below DIR"},
			&cli.StringFlag{Name: "format", Value: "text", Destination: &o.Format, Usage: "report format: text, json (schema_version 1) or sarif (SARIF 2.1.0)"},
			&cli.BoolFlag{Name: "json", Destination: &o.JSON, Usage: "same as --format json"},
			&cli.BoolFlag{Name: "strict", Destination: &o.Strict, Usage: "exit 1 on warnings too"},
			&cli.BoolFlag{Name: "plan", Destination: &o.Plan, Usage: "add the effective hook plan: per client every hook that fires on each event, from which file, in what order, and why others do not (a PATH below a governed root plans a session started there)"},
			&cli.BoolFlag{Name: "workstation", Destination: &o.Workstation, Usage: "with --plan, read the clients' user-level files too (~/.claude/settings.json, ~/.codex/hooks.json, ~/.gemini/settings.json)"},
			&cli.IntFlag{Name: "jobs", Destination: &o.Jobs, Usage: "repositories audited at once", DefaultText: "four per CPU"},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			o.Paths, o.FleetSet, o.FormatSet = c.Args().Slice(), c.IsSet("fleet"), c.IsSet("format")
			return runAudit(ctx, o)
		},
	}
}

// runAudit audits as o says and writes the report to o.IO.Out. Exit 0
// clean, 1 any error finding (or, with --strict, any warning), 2 an
// unusable invocation (bad flag or format, a PATH that is not a directory,
// an unreadable --fleet directory), 130 interrupted.
func runAudit(ctx context.Context, o *auditOptions) error {
	format := o.Format
	if o.JSON {
		if o.FormatSet && format != "json" {
			return cli.Exit("hookwarden: audit: --json and --format "+format+" disagree", 2)
		}
		format = "json"
	}
	switch format {
	case "text", "json", "sarif":
	default:
		return cli.Exit(fmt.Sprintf("hookwarden: audit: --format %q: want text, json or sarif", format), 2)
	}
	paths, err := fleetPaths("audit", o.Paths, o.Fleet, o.FleetSet, o.Depth)
	if err != nil {
		return err
	}
	if o.Workstation && !o.Plan {
		return cli.Exit("hookwarden: audit: --workstation needs --plan", 2)
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := audit.Options{Jobs: o.Jobs, Plan: o.Plan, Workstation: o.Workstation, Getenv: o.IO.getenv}
	// The bar goes to stderr, and only to a terminal: a pipe or a CI log
	// gets the report alone.
	if o.IO.ErrTTY {
		opts.Progress = adopt.ProgressBar(o.IO.ErrOut)
	}
	defer fleetgc.Tune(o.IO.getenv)()
	rep, err := audit.Audit(ctx, paths, opts)
	if err != nil {
		// A PATH that is not a directory (audit.ErrNotDirectory) or a
		// registration table this build cannot read: nothing was audited.
		return cli.Exit("hookwarden: audit: "+err.Error(), 2)
	}
	switch format {
	case "json":
		err = rep.WriteJSON(o.IO.Out)
	case "sarif":
		err = rep.WriteSARIF(o.IO.Out)
	default:
		err = rep.WriteText(o.IO.Out)
	}
	if err != nil {
		return cli.Exit("hookwarden: audit: writing the report: "+err.Error(), 2)
	}
	if ctx.Err() != nil {
		return cli.Exit("hookwarden: audit: interrupted; the report is incomplete", 130)
	}
	if rep.Failed(o.Strict) {
		return cli.Exit("", 1)
	}
	return nil
}
