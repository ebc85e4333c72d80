// Command hookwarden governs the hooks of AI coding-agent clients across a
// fleet of repositories. This file only wires verbs; each verb lives in its own
// file and calls into the packages that hold the logic.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/hookwarden/hookwarden/internal/buildinfo"
	// Grows the main goroutine stack once, before the deep initialisations
	// (see the package doc; measured on the hook path).
	_ "github.com/hookwarden/hookwarden/internal/stackwarm"
)

func main() {
	if isHookCall(os.Args) {
		os.Exit(runHookCall(hookIO(), os.Args[2], os.Args[3]))
	}
	if isRefreshCall(os.Args) {
		os.Exit(runRefresh(os.Args[2]))
	}
	os.Exit(run(os.Args))
}

// run builds the app and runs it on args, returning the process exit code:
// 0 success, 1 findings or a failed run, 2 usage or unreadable input.
func run(args []string) int {
	streams := systemIO()
	return exitStatus(streams.ErrOut, newApp(streams).Run(context.Background(), args))
}

// exitStatus returns the process exit code of the app's error err (0 for
// nil; a cli.ExitCoder's own code; 2 for any other error, a usage error of
// the CLI) and writes its message, when it has one, as a line to errOut.
func exitStatus(errOut io.Writer, err error) int {
	if err == nil {
		return 0
	}
	if ec, ok := err.(cli.ExitCoder); ok {
		if msg := ec.Error(); msg != "" {
			fmt.Fprintln(errOut, msg)
		}
		return ec.ExitCode()
	}
	fmt.Fprintf(errOut, "hookwarden: %v\n", err)
	return 2
}

// newApp returns the command tree. Every verb uses urfave/cli v3's own
// parsing, which reads the whole command line before any action runs:
// flags are accepted before or after positional arguments, and every word
// after "--" is positional (so `adopt ./repo --dry-run` is a dry run and
// `adopt -- --dry-run` names a directory "--dry-run"). The one exception,
// `spawn exec`, stops at its first argument (cli.Command.StopOnNthArg):
// what follows is another program's command line, like env(1)'s.
//
// Each verb's command binds its flags to an options value and hands it,
// with streams, to the verb's run function (runFleet, runAudit, …), which
// tests call directly with buffers.
func newApp(streams *ioStreams) *cli.Command {
	app := &cli.Command{
		Name:                   "hookwarden",
		Usage:                  "govern the hooks of AI coding-agent clients across a fleet of repositories",
		Version:                buildinfo.Current(),
		HideHelpCommand:        true,
		UseShortOptionHandling: true,
		ExitErrHandler:         func(context.Context, *cli.Command, error) {},
		Reader:                 streams.In,
		Writer:                 streams.Out,
		ErrWriter:              streams.ErrOut,
		// A word that names no verb is a usage error (exit 2), not
		// urfave/cli's help lookup ("No help topic", exit 3).
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.NArg() > 0 {
				return cli.Exit(fmt.Sprintf("hookwarden: unknown command %q; run hookwarden --help for the list", c.Args().First()), 2)
			}
			return cli.ShowRootCommandHelp(c)
		},
		Commands: []*cli.Command{
			hookCommand(streams),
			checkCommand(streams),
			adoptCommand(streams),
			conformCommand(streams),
			auditCommand(streams),
			doctorCommand(streams),
			compileContextCommand(streams),
			clientsCommand(streams),
			codexTrustCommand(streams),
			spawnCommand(streams),
			redactCommand(streams),
			trustCommand(streams),
			admitCommand(streams),
		},
	}
	onUsageError(app, "hookwarden")
	return app
}

// onUsageError makes a usage error of cmd and of every command below it
// (an unknown flag, a flag without its value) one line on stderr and exit
// 2: "hookwarden VERB: unknown flag --bogus; run hookwarden VERB --help for
// usage", instead of urfave/cli's "Incorrect Usage" line followed by the
// whole help text and then the error again. path is cmd's full name.
func onUsageError(cmd *cli.Command, path string) {
	cmd.OnUsageError = func(_ context.Context, _ *cli.Command, err error, _ bool) error {
		msg := err.Error()
		if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
			// The parser names a long flag with one dash.
			name = strings.TrimPrefix(name, "-")
			if len(name) > 1 {
				name = "-" + name
			}
			msg = "unknown flag -" + name
		}
		return cli.Exit(fmt.Sprintf("%s: %s; run %s --help for usage", path, msg, path), 2)
	}
	for _, sub := range cmd.Commands {
		onUsageError(sub, path+" "+sub.Name)
	}
}
