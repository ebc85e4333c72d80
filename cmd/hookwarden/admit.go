package main

import (
	"context"
	"errors"
	"fmt"
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

// admitCommand is `hookwarden admit [--label L] [--wait DUR] -- COMMAND...`
// (admit): wait for headroom, refuse a job count over the host's
// share, run COMMAND and exit with its code (128+N for a signal N); a
// refusal exits 125 with one line `hookwarden: admit refused: <why>`.
func admitCommand() *cli.Command {
	return &cli.Command{
		Name:      "admit",
		Usage:     "run a heavy step once the host has memory, swap and load headroom; exits with the step's code, 125 when refused",
		ArgsUsage: "[--label L] [--wait DUR] -- COMMAND...",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "label", Usage: "a name for the step in messages (the pre-tool refusal suggests one)"},
			&cli.DurationFlag{Name: "wait", Value: 10 * time.Minute, Usage: "wait at most `DUR` for headroom, then refuse"},
		},
		StopOnNthArg: new(1),
		Action:       runAdmit,
	}
}

func runAdmit(ctx context.Context, c *cli.Command) error {
	argv := c.Args().Slice()
	if len(argv) > 0 && argv[0] == "--" {
		argv = argv[1:]
	}
	label := c.String("label")
	if label == "" && len(argv) > 0 {
		label = argv[0]
	}
	refuse := func(err error) error {
		return cli.Exit(fmt.Sprintf("hookwarden: admit refused (%s): %s", label, strings.TrimPrefix(err.Error(), admit.ErrRefused.Error()+": ")), admitRefused)
	}
	divisor := settings.DefaultMaxJobsDivisor
	if wd, err := os.Getwd(); err == nil {
		if tgt, err := workspace.Locate([]string{wd}, "", os.Getenv("HOME")); err == nil {
			eff, err := settings.Load(settings.SourcesFromEnv(os.Getenv), tgt.Roots)
			if err != nil {
				return cli.Exit("hookwarden: admit refused: "+err.Error(), admitRefused)
			}
			divisor = eff.Admission.MaxJobsDivisor
		}
	}
	sigCtx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	err := admit.Admit(sigCtx, argv, admit.Options{Divisor: divisor, Wait: c.Duration("wait"), Poll: 2 * time.Second,
		Read: admit.ReadHost, Limits: admit.DefaultLimits()})
	stop()
	if err != nil {
		if errors.Is(err, admit.ErrRefused) {
			return refuse(err)
		}
		return cli.Exit("hookwarden: admit refused: "+err.Error(), admitRefused)
	}
	// The step gets the terminal's signals itself (same process group);
	// admit only waits for it.
	signal.Ignore(os.Interrupt, syscall.SIGTERM)
	code, err := runStep(argv)
	if err != nil {
		return cli.Exit("hookwarden: admit: "+err.Error(), code)
	}
	if code != 0 {
		return cli.Exit("", code)
	}
	return nil
}

// runStep runs argv with admit's standard streams and returns its exit
// code: the step's own, 128+N when a signal N ended it, 127 with the error
// when it could not be started.
func runStep(argv []string) (int, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
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
