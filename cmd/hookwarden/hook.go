package main

import (
	"context"
	"os"

	"github.com/urfave/cli/v3"

	"github.com/hookwarden/hookwarden/engine/hook"
	"github.com/hookwarden/hookwarden/engine/hook/live"
)

// hookCommand is `hookwarden hook [CLIENT EVENT]`: with no arguments it
// prints the served pairs (registration.Table.Listing: one "client event"
// line each, sorted); with two it serves one hook call (engine/hook.Run) and
// exits with the client's own exit code.
func hookCommand() *cli.Command {
	return &cli.Command{
		Name:            "hook",
		Usage:           "serve one hook call of an agent client (payload on stdin); no arguments: list the served pairs",
		ArgsUsage:       "[CLIENT EVENT]",
		SkipFlagParsing: true,
		Action:          runHook,
	}
}

func runHook(ctx context.Context, c *cli.Command) error {
	deps, err := live.Deps()
	if err != nil {
		return cli.Exit("hookwarden: hook: "+err.Error(), 2)
	}
	args := c.Args().Slice()
	if len(args) == 0 {
		_, err := os.Stdout.WriteString(deps.Table.Listing())
		return err
	}
	if len(args) != 2 {
		os.Stderr.WriteString(hook.Usage)
		return cli.Exit("", 2)
	}
	cwd, err := os.Getwd()
	if err != nil {
		cwd = ""
	}
	resp := hook.Run(context.Background(), deps, hook.Request{
		Client:    args[0],
		Event:     args[1],
		Stdin:     os.Stdin,
		LookupEnv: os.LookupEnv,
		Cwd:       cwd,
	})
	os.Stdout.Write(resp.Stdout)
	os.Stderr.Write(resp.Stderr)
	if resp.Exit != 0 {
		return cli.Exit("", resp.Exit)
	}
	return nil
}
