package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/hookwarden/hookwarden/spawn"
)

// trustOptions is what trust list, approve and revoke run with: the hash
// prefixes named on the command line, the layer files, --json (list) and
// --all (approve).
type trustOptions struct {
	IO       *ioStreams
	Prefixes []string
	JSON     bool
	All      bool
	spawnLayers
}

// trustCommand is `hookwarden trust list|approve|revoke` (issue 8): the
// approvals of the concrete argvs the registry and layers attach, kept in
// $HOOKWARDEN_HOME/approvals.json.
func trustCommand(streams *ioStreams) *cli.Command {
	o := &trustOptions{IO: streams}
	action := func(run func(*trustOptions) error) cli.ActionFunc {
		return func(_ context.Context, c *cli.Command) error {
			o.Prefixes = c.Args().Slice()
			return run(o)
		}
	}
	return &cli.Command{
		Name:  "trust",
		Usage: "list, approve or revoke the argvs the spawn registry attaches",
		Commands: []*cli.Command{
			{
				Name:   "list",
				Usage:  "every concrete argv the registry and layers attach, with its approval state",
				Flags:  append(o.spawnLayers.flags(), &cli.BoolFlag{Name: "json", Destination: &o.JSON, Usage: "print JSON"}),
				Action: action(runTrustList),
			},
			{
				Name:      "approve",
				Usage:     "approve listed argvs by hash prefix (or --all): records the resolved executable and its digest",
				ArgsUsage: "[HASH-PREFIX...]",
				Flags:     append(o.spawnLayers.flags(), &cli.BoolFlag{Name: "all", Destination: &o.All, Usage: "approve every listed argv that has no approval (a stale one only by its hash)"}),
				Action:    action(runTrustApprove),
			},
			{
				Name:      "revoke",
				Usage:     "remove approvals by argv hash prefix (at least 8 hex characters)",
				ArgsUsage: "HASH-PREFIX...",
				Action:    action(runTrustRevoke),
			},
		},
	}
}

// trustRows returns HOOKWARDEN_HOME and the argvs its registry and o's
// layers attach, or a usage error (exit 2).
func trustRows(o *trustOptions) (string, []spawn.TrustRow, error) {
	home, err := spawn.Home(o.IO.getenv)
	if err != nil {
		return "", nil, cli.Exit("hookwarden: trust: "+err.Error(), 2)
	}
	rows, err := spawn.TrustList(home, o.Profile, o.Operator)
	if err != nil {
		return "", nil, cli.Exit("hookwarden: trust: "+err.Error(), 2)
	}
	return home, rows, nil
}

// runTrustList writes every attached argv with its approval state to
// o.IO.Out (a line each, or a JSON array with --json). Exit 0, 2 on an
// unusable HOOKWARDEN_HOME, layer or output.
func runTrustList(o *trustOptions) error {
	_, rows, err := trustRows(o)
	if err != nil {
		return err
	}
	if o.JSON {
		out, _ := json.MarshalIndent(rows, "", "  ")
		_, err = fmt.Fprintln(o.IO.Out, string(out))
	} else {
		err = spawn.WriteTrustList(o.IO.Out, rows)
	}
	if err != nil {
		return cli.Exit("hookwarden: trust: "+err.Error(), 2)
	}
	return nil
}

// runTrustApprove approves the listed argvs o's prefixes (or --all) select,
// writing a line per approval and per skipped stale argv to o.IO.Out. Exit
// 0 (also when --all finds nothing left to approve), 1 when no listed argv
// matches or the approvals cannot be written, 2 usage.
func runTrustApprove(o *trustOptions) error {
	home, rows, err := trustRows(o)
	if err != nil {
		return err
	}
	if !o.All && len(o.Prefixes) == 0 {
		return cli.Exit("hookwarden: trust approve: name hash prefixes or pass --all", 2)
	}
	chosen, skipped := spawn.SelectForApproval(rows, o.All, o.Prefixes)
	w := o.IO.Out
	for _, r := range skipped {
		fmt.Fprintf(w, "skip    %s %s: %s; approve it by its hash to accept the change\n", r.ArgvHash[:16], spawn.ShellQuote(r.Argv), r.State)
	}
	var argvs [][]string
	for _, r := range chosen {
		argvs = append(argvs, r.Argv)
		fmt.Fprintf(w, "approve %s %s\n", r.ArgvHash[:16], spawn.ShellQuote(r.Argv))
	}
	if len(argvs) == 0 && o.All && len(skipped) == 0 {
		// --all with every listed argv approved already: nothing to do.
		fmt.Fprintln(w, "nothing to approve: every argv the layers attach is approved (hookwarden trust list)")
		return nil
	}
	if len(argvs) == 0 {
		return cli.Exit("hookwarden: trust approve: no listed argv matches", 1)
	}
	if err := spawn.Approve(home, argvs); err != nil {
		return cli.Exit("hookwarden: trust approve: "+err.Error(), 1)
	}
	return nil
}

// runTrustRevoke removes the approvals o's prefixes name and says how many
// on o.IO.Out. Exit 0, 1 when none was removed, 2 usage or an unreadable
// approvals file.
func runTrustRevoke(o *trustOptions) error {
	home, err := spawn.Home(o.IO.getenv)
	if err != nil {
		return cli.Exit("hookwarden: trust: "+err.Error(), 2)
	}
	if len(o.Prefixes) == 0 {
		return cli.Exit("hookwarden: trust revoke: name hash prefixes", 2)
	}
	n, err := spawn.Revoke(home, o.Prefixes)
	if err != nil {
		return cli.Exit("hookwarden: trust revoke: "+err.Error(), 2)
	}
	fmt.Fprintf(o.IO.Out, "revoked %d approval(s)\n", n)
	if n == 0 {
		return cli.Exit("", 1)
	}
	return nil
}
