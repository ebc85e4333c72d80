package main

import (
	"context"
	"fmt"
	"os"

	"github.com/urfave/cli/v3"

	"github.com/hookwarden/hookwarden/adopt"
)

func codexTrustCommand() *cli.Command {
	return &cli.Command{
		Name:      "codex-trust",
		Usage:     "record Codex's per-hook trust for our rows in $CODEX_HOME/config.toml, so Codex runs them",
		ArgsUsage: "[PATH...]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "trust-project", Usage: "also mark each repository a trusted Codex project (Codex ignores an untrusted project's .codex/)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "show the rows and the config diff; write nothing"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON (schema_version 1)"},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			paths := c.Args().Slice()
			if len(paths) == 0 {
				paths = []string{"."}
			}
			rep, err := adopt.CodexTrust(paths, adopt.TrustOptions{TrustProject: c.Bool("trust-project"), DryRun: c.Bool("dry-run")})
			if c.Bool("json") {
				rep.WriteJSON(os.Stdout)
			} else {
				if d := rep.Diff(); d != "" && rep.DryRun {
					fmt.Print(d)
				}
				rep.WriteText(os.Stdout)
			}
			if err != nil {
				return cli.Exit("hookwarden: codex-trust: "+err.Error(), 1)
			}
			if rep.Failed() {
				return cli.Exit("", 1)
			}
			return nil
		},
	}
}
