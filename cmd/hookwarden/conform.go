package main

import (
	"context"

	"github.com/urfave/cli/v3"
)

func conformCommand() *cli.Command {
	return &cli.Command{
		Name:      "conform",
		Usage:     "re-apply adoption to governed repositories: repair drift, refresh rendered files, retract our stale rows",
		ArgsUsage: "[PATH...]",
		Flags: append(fleetFlags(),
			&cli.BoolFlag{Name: "strict", Usage: "exit 1 when a repository is not governed"},
			&cli.BoolFlag{Name: "check", Usage: "write nothing; print the diff of every change conform would make and exit 1 when any repository is not as conform would leave it (the CI form of conform; exit codes as audit's)"},
		),
		Action: func(ctx context.Context, c *cli.Command) error { return runFleet(ctx, c, "conform") },
	}
}
