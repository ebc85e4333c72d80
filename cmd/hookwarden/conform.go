package main

import "github.com/urfave/cli/v2"

func conformCommand() *cli.Command {
	return &cli.Command{
		Name:      "conform",
		Usage:     "re-apply adoption to governed repositories: repair drift, refresh rendered files, retract our stale rows",
		ArgsUsage: "[PATH...]",
		Flags: append(fleetFlags(),
			&cli.BoolFlag{Name: "strict", Usage: "exit 1 when a repository is not governed"},
		),
		Action: func(c *cli.Context) error { return runFleet(c, "conform") },
	}
}
