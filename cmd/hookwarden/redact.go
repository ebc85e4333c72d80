package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/urfave/cli/v3"

	"github.com/hookwarden/hookwarden/spawn/redact"
)

// redactCommand is `hookwarden redact --hook EVENT --engine ENGINE`, the
// reference redaction hook a deployment attaches as a library entry (issue
// 17 item 3); the logic is spawn/redact's. Exit 0 on success, 2 for a
// Codex pre-tool deny (Codex's blocking code), 1 on a failure that refuses
// the spawn or fails the run, with the reason on stderr.
func redactCommand(streams *ioStreams) *cli.Command {
	o := &redactOptions{IO: streams}
	return &cli.Command{
		Name:      "redact",
		Usage:     "the reference redaction hook: prompt, pre-tool, permission (Claude's PermissionRequest), post-tool, stop and exit events of a spawn under a redaction entry",
		ArgsUsage: "(with --hook run: -- COMMAND...)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "hook", Required: true, Destination: &o.Hook, Usage: "prompt | pre-tool | permission | post-tool | stop | exit | run"},
			&cli.StringFlag{Name: "engine", Required: true, Destination: &o.Engine, Usage: "claude or codex"},
			&cli.StringFlag{Name: "values", Destination: &o.Values, Usage: "the configured values file {\"version\":1,\"values\":{token: value}} (mode 0600, this account's; prompt only)"},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			o.Args = c.Args().Slice()
			return runRedact(ctx, o)
		},
	}
}

// redactOptions is what redact runs with: --hook, --engine, --values and,
// for --hook run, the command line after --.
type redactOptions struct {
	IO     *ioStreams
	Hook   string
	Engine string
	Values string
	Args   []string
}

// runRedact serves one redaction hook event with o.IO's streams and
// environment (spawn/redact). Exit codes are redactCommand's.
func runRedact(ctx context.Context, o *redactOptions) error {
	hook, engine := o.Hook, o.Engine
	if !slices.Contains([]string{"claude", "codex"}, engine) {
		return cli.Exit(redact.UsageEngine, 2)
	}
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		self = ""
	}
	e := redact.Env{Engine: engine, ValuesPath: o.Values, Self: self, Getenv: o.IO.getenv,
		Stdin: o.IO.In, Stdout: o.IO.Out, Stderr: o.IO.ErrOut}
	switch hook {
	case redact.HookPrompt:
		if !filepath.IsAbs(e.ValuesPath) {
			return cli.Exit(redact.UsagePromptValues, 2)
		}
		err = redact.Prompt(e)
	case redact.HookPreTool:
		err = redact.PreTool(e)
	case redact.HookPermission:
		err = redact.Permission(e)
	case redact.HookPostTool:
		err = redact.PostTool(e)
	case redact.HookStop:
		err = redact.Stop(e)
	case redact.HookExit:
		err = redact.Exit(e)
	case redact.HookRun:
		code, rerr := redact.Run(ctx, e, o.Args)
		if rerr != nil {
			fmt.Fprintln(o.IO.ErrOut, rerr)
		}
		if code != 0 {
			return cli.Exit("", code)
		}
		return nil
	default:
		return cli.Exit(redact.UsageHook, 2)
	}
	if errors.Is(err, redact.ErrBlock) {
		return cli.Exit("", 2)
	}
	if err != nil {
		var f *redact.Failure
		if errors.As(err, &f) {
			return cli.Exit(err.Error(), 1) // it names "hookwarden redact:" itself
		}
		return cli.Exit("hookwarden redact: "+err.Error(), 1)
	}
	return nil
}
