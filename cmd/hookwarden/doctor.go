package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v3"

	"github.com/hookwarden/hookwarden/adopt/doctor"
)

// doctorCommand is `hookwarden doctor [PATH] [--json]`: run each adopted
// row of the governed repository at PATH (default ".") the way its client
// would, with a canary that must be denied and one that must be allowed
// (adopt/doctor). Exit 0 every row guards, 1 a row does not, 2 an unusable
// invocation (more than one PATH, a PATH that is not governed or whose manifest is invalid).
func doctorCommand() *cli.Command {
	return &cli.Command{
		Name:      "doctor",
		Usage:     "prove on this machine that each adopted row fires and denies: run every registered command the way its client would, with canary payloads",
		ArgsUsage: "[PATH]",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"}},
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.NArg() > 1 {
				return cli.Exit("hookwarden: doctor: one repository at a time", 2)
			}
			path := "."
			if c.NArg() == 1 {
				path = c.Args().First()
			}
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
			defer stop()
			rep, err := doctor.Run(ctx, path, doctor.Options{})
			if err != nil {
				// Not governed (doctor.ErrNotGoverned) or an invalid
				// manifest: nothing to probe.
				return cli.Exit("hookwarden: doctor: "+err.Error(), 2)
			}
			if c.Bool("json") {
				err = rep.WriteJSON(c.Root().Writer)
			} else {
				err = rep.WriteText(c.Root().Writer)
			}
			if err != nil {
				return cli.Exit("hookwarden: doctor: "+err.Error(), 2)
			}
			if ctx.Err() != nil {
				return cli.Exit("hookwarden: doctor: interrupted; the report is incomplete", 130)
			}
			if !rep.OK {
				return cli.Exit("", 1)
			}
			return nil
		},
	}
}
