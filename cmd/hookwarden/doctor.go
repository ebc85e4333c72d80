package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v3"

	"github.com/hookwarden/hookwarden/adopt/doctor"
)

// doctorOptions is what doctor runs with: the PATH arguments (at most one
// is valid) and --json.
type doctorOptions struct {
	IO    *ioStreams
	Paths []string
	JSON  bool
}

// doctorCommand is `hookwarden doctor [PATH] [--json]`: run each adopted
// row of the governed repository at PATH (default ".") the way its client
// would, with a canary that must be denied and one that must be allowed
// (adopt/doctor). Exit codes are runDoctor's.
func doctorCommand(streams *ioStreams) *cli.Command {
	o := &doctorOptions{IO: streams}
	return &cli.Command{
		Name:      "doctor",
		Usage:     "prove on this machine that each adopted row fires and denies: run every registered command the way its client would, with canary payloads",
		ArgsUsage: "[PATH]",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "json", Destination: &o.JSON, Usage: "print the report as JSON"}},
		Action: func(ctx context.Context, c *cli.Command) error {
			o.Paths = c.Args().Slice()
			return runDoctor(ctx, o)
		},
	}
}

// runDoctor probes the repository o names with the environment o.IO.Environ
// (the clients would pass it on to the rows) and writes the report to
// o.IO.Out. Exit 0 every row guards, 1 a row does not, 2 an unusable
// invocation (more than one PATH, a PATH that is not governed or whose
// manifest is invalid), 130 interrupted.
func runDoctor(ctx context.Context, o *doctorOptions) error {
	if len(o.Paths) > 1 {
		return cli.Exit("hookwarden: doctor: one repository at a time", 2)
	}
	path := "."
	if len(o.Paths) == 1 {
		path = o.Paths[0]
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := doctor.Run(ctx, path, doctor.Options{Env: o.IO.Environ})
	if err != nil {
		// Not governed (doctor.ErrNotGoverned) or an invalid
		// manifest: nothing to probe.
		return cli.Exit("hookwarden: doctor: "+err.Error(), 2)
	}
	if o.JSON {
		err = rep.WriteJSON(o.IO.Out)
	} else {
		err = rep.WriteText(o.IO.Out)
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
}
