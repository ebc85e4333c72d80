package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/urfave/cli/v3"

	"github.com/hookwarden/hookwarden/engine/checkpoint"
	"github.com/hookwarden/hookwarden/engine/hook"
	"github.com/hookwarden/hookwarden/engine/hook/live"
	"github.com/hookwarden/hookwarden/skewguard"
)

// hookCommand is `hookwarden hook [CLIENT EVENT]`: with no arguments it
// prints the served pairs, the answer to the launcher's listing probe
// (skewguard.ProbeAnswer); with two it serves one hook call (engine/hook.Run)
// and exits with the client's own exit code.
func hookCommand(streams *ioStreams) *cli.Command {
	return &cli.Command{
		Name:            "hook",
		Usage:           "serve one hook call of an agent client (payload on stdin); no arguments: list the served pairs",
		ArgsUsage:       "[CLIENT EVENT]",
		SkipFlagParsing: true,
		Action: func(_ context.Context, c *cli.Command) error {
			return runHook(streams, c.Args().Slice())
		},
	}
}

// isHookCall reports whether args (os.Args) are exactly `hookwarden hook
// CLIENT EVENT` with neither operand looking like a flag: the live hook
// call, which main serves without building the CLI (urfave/cli's set-up of
// every verb's flags cost about a third of the hook process's own work,
// measured with perf; README "Benchmarks"). Anything else goes through the
// CLI, so help and usage errors are unchanged.
func isHookCall(args []string) bool {
	return len(args) == 4 && args[1] == "hook" &&
		!strings.HasPrefix(args[2], "-") && !strings.HasPrefix(args[3], "-")
}

// runHook is the hook verb reached through the CLI (runHookCall serves the
// exact `hook CLIENT EVENT` form before the CLI is built): with no args it
// writes the served pairs to streams.Out (skewguard.ProbeAnswer); with two
// it serves the call; otherwise it writes the usage to streams.ErrOut and
// exits 2 (2 also when the embedded registration table is malformed).
func runHook(streams *ioStreams, args []string) error {
	if len(args) == 0 {
		deps, err := live.Deps()
		if err != nil {
			return cli.Exit("hookwarden: hook: "+err.Error(), 2)
		}
		_, err = io.WriteString(streams.Out, skewguard.ProbeAnswer(deps.Table, streams.getenv))
		return err
	}
	if len(args) != 2 {
		if _, err := live.Deps(); err != nil {
			return cli.Exit("hookwarden: hook: "+err.Error(), 2)
		}
		io.WriteString(streams.ErrOut, hook.Usage)
		return cli.Exit("", 2)
	}
	if code := runHookCall(streams, args[0], args[1]); code != 0 {
		return cli.Exit("", code)
	}
	return nil
}

// hookIO returns the process's streams and environment for the hook
// call main serves before the CLI is built: systemIO without the terminal
// probe and the environment copy, which the hook path does not use.
func hookIO() *ioStreams {
	return &ioStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, LookupEnv: os.LookupEnv, Getwd: os.Getwd}
}

// runHookCall serves one hook call of client for event (engine/hook.Run,
// payload on streams.In) with SIGPIPE ignored, writes the answer
// (hook.Emit) to streams.Out and streams.ErrOut and returns the process
// exit code the client reads: hook.Emit's, or 2 when the embedded
// registration table is malformed.
func runHookCall(streams *ioStreams, client, event string) int {
	deps, err := live.DepsWith(os.Executable)
	if err != nil {
		io.WriteString(streams.ErrOut, "hookwarden: hook: "+err.Error()+"\n")
		return 2
	}
	// A client that closed a stream must not turn a deny into a death by
	// SIGPIPE (status -13, which the clients read as a non-blocking error):
	// writes then fail with EPIPE and hook.Emit keeps the deny's exit code.
	signal.Ignore(syscall.SIGPIPE)
	resp := hook.Run(context.Background(), deps, hook.Request{
		Client:    client,
		Event:     event,
		Stdin:     streams.In,
		LookupEnv: streams.LookupEnv,
		Getwd:     streams.Getwd,
	})
	return hook.Emit(resp, client, streams.Out, streams.ErrOut)
}

// isRefreshCall reports whether args are `hookwarden checkpoint-refresh DIR`,
// the background refresh a hook call starts when the checkpoint cache it
// answered from is about to expire (checkpoint.ProcessRefresher). It is
// served before the CLI is built and is not listed in the help.
func isRefreshCall(args []string) bool {
	return len(args) == 3 && args[1] == checkpoint.RefreshVerb
}

// runRefresh runs checkpoint.RunRefresh on dir and returns the exit code:
// 0 when the scan was stored, 1 when it failed (its error on stderr; the
// process that started it is gone, so nothing reads it but a person
// running the verb by hand).
func runRefresh(dir string) int {
	if err := checkpoint.RunRefresh(context.Background(), dir); err != nil {
		os.Stderr.WriteString("hookwarden: " + err.Error() + "\n")
		return 1
	}
	return 0
}
