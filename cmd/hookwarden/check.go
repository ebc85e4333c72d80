package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/hookwarden/hookwarden/engine/hook"
	"github.com/hookwarden/hookwarden/engine/hook/live"
	"github.com/hookwarden/hookwarden/protocol/dialect"
	"github.com/hookwarden/hookwarden/protocol/verdict"
)

// checkCommand is `hookwarden check [--json] [--cwd DIR] [-- COMMAND...]`:
// judge one command text (the arguments after --, joined by single spaces,
// or stdin when there are none) with the settings layers of DIR's
// repository. Exit 0 allowed, 1 denied, 2 invalid input.
func checkCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "judge one command text (arguments after --, or stdin): exit 0 allowed, 1 denied, 2 invalid",
		ArgsUsage: "[-- COMMAND...]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: `print {"verdict","rule","reason"} as JSON`},
			&cli.StringFlag{Name: "cwd", Usage: "judge as if run in `DIR` (picks that repository's settings layers)"},
		},
		Action: runCheck,
	}
}

func runCheck(ctx context.Context, c *cli.Command) error {
	deps, err := live.Deps()
	if err != nil {
		return cli.Exit("hookwarden: check: "+err.Error(), 2)
	}
	command := strings.Join(c.Args().Slice(), " ")
	if c.Args().Len() == 0 {
		data, err := dialect.ReadInputUntil(os.Stdin, time.Time{})
		if err != nil {
			return cli.Exit("hookwarden: check: "+err.Error(), 2)
		}
		command = strings.TrimSuffix(strings.TrimSuffix(string(data), "\n"), "\r")
	}
	dir := c.String("cwd")
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return cli.Exit("hookwarden: check: working directory: "+err.Error(), 2)
		}
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return cli.Exit("hookwarden: check: --cwd: "+err.Error(), 2)
	}
	v, err := hook.Check(deps, dir, command, os.Getenv)
	if err != nil {
		// Every Check error is an invalid input (hook.ErrInvalid): exit 2.
		return cli.Exit("hookwarden: check: "+err.Error(), 2)
	}
	name := "allow"
	if v.Kind != verdict.Allow {
		name = "deny"
	}
	if c.Bool("json") {
		out, _ := json.Marshal(struct {
			Verdict string `json:"verdict"`
			Rule    string `json:"rule"`
			Reason  string `json:"reason"`
		}{name, v.RuleID, v.Reason})
		fmt.Fprintln(os.Stdout, string(out))
	} else {
		fmt.Fprintf(os.Stdout, "verdict: %s\n", name)
		if v.RuleID != "" {
			fmt.Fprintf(os.Stdout, "rule: %s\n", v.RuleID)
		}
		if v.Reason != "" {
			fmt.Fprintf(os.Stdout, "reason: %s\n", v.Reason)
		}
	}
	if v.Kind != verdict.Allow {
		return cli.Exit("", 1)
	}
	return nil
}
