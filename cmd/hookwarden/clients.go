package main

import (
	"context"
	"encoding/json"
	"io"

	"github.com/urfave/cli/v3"

	"github.com/hookwarden/hookwarden/engine/conformance/observed"
	"github.com/hookwarden/hookwarden/protocol/registration"
)

// clientsCommand is `hookwarden clients [--json]`: the capability table, one
// line per registration row with its native event, matcher, client timeout
// with its unit, whether adopt renders it by default, and what the real-client
// conformance suite observed (testdata/clients/observed.json, embedded).
// With --agent-traffic it prints instead, per client, brief capture, return
// capture and return rules as unenforceable, adapter-defined or observed
// (observed.AgentTraffic). The text table is followed by the client
// versions observed and the clients and versions stated unverified
// (observed.WriteVersions). Exit 0; 2 when the embedded tables are malformed.
func clientsCommand(streams *ioStreams) *cli.Command {
	o := &clientsOptions{IO: streams}
	return &cli.Command{
		Name:  "clients",
		Usage: "print the capability table: per client and event, what is rendered and what was observed against which client version",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Destination: &o.JSON, Usage: "print a JSON array of rows"},
			&cli.BoolFlag{Name: "agent-traffic", Destination: &o.AgentTraffic, Usage: "per client: brief capture, return capture and return rules (unenforceable, adapter-defined, observed)"}},
		Action: func(ctx context.Context, c *cli.Command) error {
			o.Args = c.Args().Slice()
			return runClients(ctx, o)
		},
	}
}

// clientsOptions is what clients runs with: its arguments (there must be
// none), --json and --agent-traffic.
type clientsOptions struct {
	IO           *ioStreams
	Args         []string
	JSON         bool
	AgentTraffic bool
}

// runClients writes the capability table (or, with --agent-traffic, the
// agent-traffic report) to o.IO.Out, as text or JSON. Exit 0; 2 when an
// argument is given, the embedded tables are malformed or the output
// cannot be written.
func runClients(_ context.Context, o *clientsOptions) error {
	if len(o.Args) > 0 {
		return cli.Exit("hookwarden: clients: takes no arguments", 2)
	}
	t, err := registration.Default()
	if err != nil {
		return cli.Exit("hookwarden: clients: "+err.Error(), 2)
	}
	obs, err := observed.Default()
	if err != nil {
		return cli.Exit("hookwarden: clients: "+err.Error(), 2)
	}
	w := o.IO.Out
	if o.AgentTraffic {
		tc := observed.AgentTraffic(t, obs)
		if o.JSON {
			return writeIndentedJSON(w, tc)
		}
		if err := observed.WriteTraffic(w, tc); err != nil {
			return cli.Exit("hookwarden: clients: "+err.Error(), 2)
		}
		return nil
	}
	caps := observed.Capabilities(t, obs)
	if o.JSON {
		return writeIndentedJSON(w, caps)
	}
	notes, err := observed.Unverified()
	if err != nil {
		return cli.Exit("hookwarden: clients: "+err.Error(), 2)
	}
	if err := observed.WriteCapabilities(w, caps); err != nil {
		return cli.Exit("hookwarden: clients: "+err.Error(), 2)
	}
	if err := observed.WriteVersions(w, observed.Versions(obs), notes); err != nil {
		return cli.Exit("hookwarden: clients: "+err.Error(), 2)
	}
	return nil
}

// writeIndentedJSON writes v to w indented by two spaces, with a final
// newline; an encoding or write error is the clients verb's exit 2.
func writeIndentedJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return cli.Exit("hookwarden: clients: "+err.Error(), 2)
	}
	return nil
}
