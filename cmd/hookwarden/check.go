package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/hookwarden/hookwarden/engine/hook"
	"github.com/hookwarden/hookwarden/engine/hook/live"
	"github.com/hookwarden/hookwarden/protocol/dialect"
	"github.com/hookwarden/hookwarden/protocol/verdict"
)

// checkOptions is what check runs with: the words after -- (Args; none
// means the command is read from IO.In), --json and --cwd.
type checkOptions struct {
	IO   *ioStreams
	Args []string
	JSON bool
	Cwd  string
}

// checkCommand is `hookwarden check [--json] [--cwd DIR] [-- COMMAND...]`:
// judge one command text (the arguments after --, joined by single spaces,
// or stdin when there are none) with the settings layers of DIR's
// repository. Exit codes are runCheck's.
func checkCommand(streams *ioStreams) *cli.Command {
	o := &checkOptions{IO: streams}
	return &cli.Command{
		Name:      "check",
		Usage:     "judge one command text (arguments after --, or stdin): exit 0 allowed, 1 denied, 2 invalid",
		ArgsUsage: "[-- COMMAND...]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Destination: &o.JSON, Usage: `print {"verdict","rule","reason"} as JSON`},
			&cli.StringFlag{Name: "cwd", Destination: &o.Cwd, Usage: "judge as if run in `DIR` (picks that repository's settings layers)"},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			o.Args = c.Args().Slice()
			return runCheck(ctx, o)
		},
	}
}

// runCheck judges the command o names and writes the verdict, rule and
// reason to o.IO.Out (lines "verdict: …", or one JSON object with --json).
// Exit 0 allowed, 1 denied, 2 invalid input.
func runCheck(_ context.Context, o *checkOptions) error {
	deps, err := live.Deps()
	if err != nil {
		return cli.Exit("hookwarden: check: "+err.Error(), 2)
	}
	command := strings.Join(o.Args, " ")
	if len(o.Args) == 0 {
		data, err := dialect.ReadInputUntil(o.IO.In, time.Time{})
		if err != nil {
			return cli.Exit("hookwarden: check: "+err.Error(), 2)
		}
		command = strings.TrimSuffix(strings.TrimSuffix(string(data), "\n"), "\r")
	}
	dir := o.Cwd
	if dir == "" {
		if dir, err = o.IO.Getwd(); err != nil {
			return cli.Exit("hookwarden: check: working directory: "+err.Error(), 2)
		}
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return cli.Exit("hookwarden: check: --cwd: "+err.Error(), 2)
	}
	v, err := hook.Check(deps, dir, command, o.IO.getenv)
	if err != nil {
		// Every Check error is an invalid input (hook.ErrInvalid): exit 2.
		return cli.Exit("hookwarden: check: "+err.Error(), 2)
	}
	name := "allow"
	if v.Kind != verdict.Allow {
		name = "deny"
	}
	var b strings.Builder
	if o.JSON {
		out, _ := json.Marshal(struct {
			Verdict string `json:"verdict"`
			Rule    string `json:"rule"`
			Reason  string `json:"reason"`
		}{name, v.RuleID, v.Reason})
		fmt.Fprintln(&b, string(out))
	} else {
		fmt.Fprintf(&b, "verdict: %s\n", name)
		if v.RuleID != "" {
			fmt.Fprintf(&b, "rule: %s\n", v.RuleID)
		}
		if v.Reason != "" {
			fmt.Fprintf(&b, "reason: %s\n", v.Reason)
		}
	}
	if _, err := fmt.Fprint(o.IO.Out, b.String()); err != nil {
		return cli.Exit("hookwarden: check: "+err.Error(), 2)
	}
	if v.Kind != verdict.Allow {
		return cli.Exit("", 1)
	}
	return nil
}
