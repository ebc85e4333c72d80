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
		),
		Action: func(ctx context.Context, c *cli.Command) error { return runFleet(ctx, c, "conform") },
	}
}
