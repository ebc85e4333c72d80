package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/hookwarden/hookwarden/spawn"
)

// trustCommand is `hookwarden trust list|approve|revoke` (issue 8): the
// approvals of the concrete argvs the registry and layers attach, kept in
// $HOOKWARDEN_HOME/approvals.json.
func trustCommand() *cli.Command {
	layerFlags := func() []cli.Flag {
		return []cli.Flag{
			&cli.StringFlag{Name: "profile", Usage: "profile layer file to include"},
			&cli.StringFlag{Name: "operator", Usage: "operator layer file to include"},
		}
	}
	return &cli.Command{
		Name:  "trust",
		Usage: "list, approve or revoke the argvs the spawn registry attaches",
		Commands: []*cli.Command{
			{
				Name:   "list",
				Usage:  "every concrete argv the registry and layers attach, with its approval state",
				Flags:  append(layerFlags(), &cli.BoolFlag{Name: "json", Usage: "print JSON"}),
				Action: trustList,
			},
			{
				Name:      "approve",
				Usage:     "approve listed argvs by hash prefix (or --all): records the resolved executable and its digest",
				ArgsUsage: "[HASH-PREFIX...]",
				Flags:     append(layerFlags(), &cli.BoolFlag{Name: "all", Usage: "approve every listed argv that has no approval (a stale one only by its hash)"}),
				Action:    trustApprove,
			},
			{
				Name:      "revoke",
				Usage:     "remove approvals by argv hash prefix (at least 8 hex characters)",
				ArgsUsage: "HASH-PREFIX...",
				Action:    trustRevoke,
			},
		},
	}
}

func trustHome() (string, error) {
	h, err := spawn.Home(os.Getenv)
	if err != nil {
		return "", cli.Exit("hookwarden: trust: "+err.Error(), 2)
	}
	return h, nil
}

func trustList(ctx context.Context, c *cli.Command) error {
	home, err := trustHome()
	if err != nil {
		return err
	}
	rows, err := spawn.TrustList(home, c.String("profile"), c.String("operator"))
	if err != nil {
		return cli.Exit("hookwarden: trust: "+err.Error(), 2)
	}
	if c.Bool("json") {
		b, _ := json.MarshalIndent(rows, "", "  ")
		fmt.Println(string(b))
		return nil
	}
	if len(rows) == 0 {
		fmt.Println("no attachments")
	}
	for _, r := range rows {
		h := r.ArgvHash
		if len(h) > 16 {
			h = h[:16]
		}
		fmt.Printf("%-16s %-10s %s  [%s; %s]\n", h, stateWord(r.State), spawn.ShellQuote(r.Argv), strings.Join(r.Attachments, ", "), strings.Join(r.Engines, ","))
	}
	return nil
}

func stateWord(s string) string {
	switch s {
	case spawn.StateApproved, spawn.StateMissing:
		return s
	case "no argv":
		return "no-argv"
	}
	return "stale"
}

func trustApprove(ctx context.Context, c *cli.Command) error {
	home, err := trustHome()
	if err != nil {
		return err
	}
	rows, err := spawn.TrustList(home, c.String("profile"), c.String("operator"))
	if err != nil {
		return cli.Exit("hookwarden: trust: "+err.Error(), 2)
	}
	prefixes := c.Args().Slice()
	if !c.Bool("all") && len(prefixes) == 0 {
		return cli.Exit("hookwarden: trust approve: name hash prefixes or pass --all", 2)
	}
	chosen, skipped := spawn.SelectForApproval(rows, c.Bool("all"), prefixes)
	for _, r := range skipped {
		fmt.Printf("skip    %s %s: %s; approve it by its hash to accept the change\n", r.ArgvHash[:16], spawn.ShellQuote(r.Argv), r.State)
	}
	var argvs [][]string
	for _, r := range chosen {
		argvs = append(argvs, r.Argv)
		fmt.Printf("approve %s %s\n", r.ArgvHash[:16], spawn.ShellQuote(r.Argv))
	}
	if len(argvs) == 0 && c.Bool("all") && len(skipped) == 0 {
		// --all with every listed argv approved already: nothing to do.
		fmt.Println("nothing to approve: every argv the layers attach is approved (hookwarden trust list)")
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

func trustRevoke(ctx context.Context, c *cli.Command) error {
	home, err := trustHome()
	if err != nil {
		return err
	}
	if c.NArg() == 0 {
		return cli.Exit("hookwarden: trust revoke: name hash prefixes", 2)
	}
	n, err := spawn.Revoke(home, c.Args().Slice())
	if err != nil {
		return cli.Exit("hookwarden: trust revoke: "+err.Error(), 2)
	}
	fmt.Printf("revoked %d approval(s)\n", n)
	if n == 0 {
		return cli.Exit("", 1)
	}
	return nil
}
