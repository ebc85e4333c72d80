package main

import (
	"context"
	"io"

	"github.com/urfave/cli/v3"

	"github.com/hookwarden/hookwarden/adopt"
)

// codexTrustOptions is what codex-trust runs with: the repositories named
// on the command line and each flag's value.
type codexTrustOptions struct {
	IO           *ioStreams
	Paths        []string
	TrustProject bool
	DryRun       bool
	JSON         bool
}

// codexTrustCommand is `hookwarden codex-trust [PATH...] [--trust-project]
// [--dry-run] [--json]` (adopt.CodexTrust). Exit codes are runCodexTrust's.
func codexTrustCommand(streams *ioStreams) *cli.Command {
	o := &codexTrustOptions{IO: streams}
	return &cli.Command{
		Name:      "codex-trust",
		Usage:     "record Codex's per-hook trust for our rows in $CODEX_HOME/config.toml, so Codex runs them",
		ArgsUsage: "[PATH...]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "trust-project", Destination: &o.TrustProject, Usage: "also mark each repository a trusted Codex project (Codex ignores an untrusted project's .codex/)"},
			&cli.BoolFlag{Name: "dry-run", Destination: &o.DryRun, Usage: "show the rows and the config diff; write nothing"},
			&cli.BoolFlag{Name: "json", Destination: &o.JSON, Usage: "print the report as JSON (schema_version 1)"},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			o.Paths = c.Args().Slice()
			return runCodexTrust(ctx, o)
		},
	}
}

// runCodexTrust records (or, with --dry-run, shows) Codex's trust for the
// rows of the repositories o names ("." when none), reading CODEX_HOME and
// HOME from o.IO.getenv, and writes the report (with --dry-run preceded by
// the config diff) to o.IO.Out. Exit 0, 1 when the run or a repository
// failed or the report could not be written.
func runCodexTrust(_ context.Context, o *codexTrustOptions) error {
	paths := o.Paths
	if len(paths) == 0 {
		paths = []string{"."}
	}
	rep, err := adopt.CodexTrust(paths, adopt.TrustOptions{TrustProject: o.TrustProject, DryRun: o.DryRun, Getenv: o.IO.getenv})
	var werr error
	if o.JSON {
		werr = rep.WriteJSON(o.IO.Out)
	} else {
		if d := rep.Diff(); d != "" && rep.DryRun {
			_, werr = io.WriteString(o.IO.Out, d)
		}
		if werr == nil {
			werr = rep.WriteText(o.IO.Out)
		}
	}
	if err != nil {
		return cli.Exit("hookwarden: codex-trust: "+err.Error(), 1)
	}
	if werr != nil {
		return cli.Exit("hookwarden: codex-trust: writing the report: "+werr.Error(), 1)
	}
	if rep.Failed() {
		return cli.Exit("", 1)
	}
	return nil
}
