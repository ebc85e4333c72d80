package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/hookwarden/hookwarden/admit"
	"github.com/hookwarden/hookwarden/engine/workspace"
	"github.com/hookwarden/hookwarden/settings"
)

// admitRefused is admit's exit code for a step it did not run (the code
// env(1) and `spawn exec` use for the wrapper's own failure).
const admitRefused = 125

// admitOptions is what admit runs with: the step's command line (Argv, a
// leading "--" dropped by runAdmit), --label and --wait.
type admitOptions struct {
	IO    *ioStreams
	Argv  []string
	Label string
	Wait  time.Duration
}

// admitCommand is `hookwarden admit [--label L] [--wait DUR] -- COMMAND...`
// (admit): wait for headroom, refuse a job count over the host's share,
// run COMMAND and exit with its code. Exit codes are runAdmit's.
func admitCommand(streams *ioStreams) *cli.Command {
	o := &admitOptions{IO: streams}
	return &cli.Command{
		Name:      "admit",
		Usage:     "run a heavy step once the host has memory, swap and load headroom; exits with the step's code, 125 when refused",
		ArgsUsage: "-- COMMAND...",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "label", Destination: &o.Label, Usage: "a name for the step in messages (the pre-tool refusal suggests one)"},
			&cli.DurationFlag{Name: "wait", Value: 10 * time.Minute, Destination: &o.Wait, Usage: "wait at most `DUR` for headroom, then refuse"},
		},
		StopOnNthArg: new(1),
		Action: func(ctx context.Context, c *cli.Command) error {
			o.Argv = c.Args().Slice()
			return runAdmit(ctx, o)
		},
	}
}

// runAdmit waits for headroom with the job share of the settings layers of
// the working directory's repository, then runs the step with o.IO's
// streams. It returns the step's exit code (128+N for a signal N); a
// refusal exits 125 with one line `hookwarden: admit refused: <why>`.
func runAdmit(ctx context.Context, o *admitOptions) error {
	argv := o.Argv
	if len(argv) > 0 && argv[0] == "--" {
		argv = argv[1:]
	}
	label := o.Label
	if label == "" && len(argv) > 0 {
		label = argv[0]
	}
	divisor := settings.DefaultMaxJobsDivisor
	if wd, err := o.IO.Getwd(); err == nil {
		if tgt, err := workspace.Locate([]string{wd}, nil, o.IO.getenv("HOME")); err == nil {
			eff, err := settings.Load(settings.SourcesFromEnv(o.IO.getenv), tgt.Roots)
			if err != nil {
				return cli.Exit("hookwarden: admit refused: "+err.Error(), admitRefused)
			}
			divisor = eff.Admission.MaxJobsDivisor
		}
	}
	sigCtx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	err := admit.Admit(sigCtx, argv, admit.Options{Divisor: divisor, Wait: o.Wait, Poll: 2 * time.Second,
		Read: admit.ReadHost, Limits: admit.DefaultLimits()})
	stop()
	if err != nil {
		if errors.Is(err, admit.ErrRefused) {
			return cli.Exit(fmt.Sprintf("hookwarden: admit refused (%s): %s", label, strings.TrimPrefix(err.Error(), admit.ErrRefused.Error()+": ")), admitRefused)
		}
		return cli.Exit("hookwarden: admit refused: "+err.Error(), admitRefused)
	}
	// The step gets the terminal's signals itself (same process group);
	// admit only waits for it.
	signal.Ignore(os.Interrupt, syscall.SIGTERM)
	code, err := runStep(argv, o.IO.In, o.IO.Out, o.IO.ErrOut)
	if err != nil {
		return cli.Exit("hookwarden: admit: "+err.Error(), code)
	}
	if code != 0 {
		return cli.Exit("", code)
	}
	return nil
}

// runStep runs argv with the given standard streams and returns its exit
// code: the step's own, 128+N when a signal N ended it, 127 with the error
// when it could not be started.
func runStep(argv []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return ee.ExitCode(), nil
	}
	return 127, err
}
