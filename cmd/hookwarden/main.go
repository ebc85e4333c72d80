// Command hookwarden governs the hooks of AI coding-agent clients across a
// fleet of repositories. This file only wires verbs; each verb lives in its own
// file and calls into the packages that hold the logic.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/urfave/cli/v3"

	"github.com/hookwarden/hookwarden/internal/buildinfo"
	// Grows the main goroutine stack once, before the deep initialisations
	// (see the package doc; measured on the hook path).
	_ "github.com/hookwarden/hookwarden/internal/stackwarm"
)

func main() {
	if isHookCall(os.Args) {
		os.Exit(runHookCall(os.Args[2], os.Args[3]))
	}
	if isRefreshCall(os.Args) {
		os.Exit(runRefresh(os.Args[2]))
	}
	os.Exit(run(os.Args))
}

// run builds the app and runs it on args, returning the process exit code:
// 0 success, 1 findings or a failed run, 2 usage or unreadable input.
func run(args []string) int {
	err := newApp().Run(context.Background(), args)
	if err == nil {
		return 0
	}
	if ec, ok := err.(cli.ExitCoder); ok {
		if msg := ec.Error(); msg != "" {
			fmt.Fprintln(os.Stderr, msg)
		}
		return ec.ExitCode()
	}
	fmt.Fprintf(os.Stderr, "hookwarden: %v\n", err)
	return 2
}

// newApp returns the command tree. Every verb uses urfave/cli v3's own
// parsing, which reads the whole command line before any action runs:
// flags are accepted before or after positional arguments, and every word
// after "--" is positional (so `adopt ./repo --dry-run` is a dry run and
// `adopt -- --dry-run` names a directory "--dry-run"). The one exception,
// `spawn exec`, stops at its first argument (cli.Command.StopOnNthArg):
// what follows is another program's command line, like env(1)'s.
func newApp() *cli.Command {
	return &cli.Command{
		Name:                   "hookwarden",
		Usage:                  "govern the hooks of AI coding-agent clients across a fleet of repositories",
		Version:                buildinfo.Current(),
		HideHelpCommand:        true,
		UseShortOptionHandling: true,
		ExitErrHandler:         func(context.Context, *cli.Command, error) {},
		Commands: []*cli.Command{
			hookCommand(),
			checkCommand(),
			adoptCommand(),
			conformCommand(),
			auditCommand(),
			doctorCommand(),
			compileContextCommand(),
			clientsCommand(),
			codexTrustCommand(),
			spawnCommand(),
			redactCommand(),
			trustCommand(),
			admitCommand(),
		},
	}
}
