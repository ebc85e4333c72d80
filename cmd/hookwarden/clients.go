package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

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
// (writeVersions). Exit 0; 2 when the embedded tables are malformed.
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
		return writeTraffic(w, tc)
	}
	caps := observed.Capabilities(t, obs)
	if o.JSON {
		return writeIndentedJSON(w, caps)
	}
	if err := writeCapabilities(w, caps); err != nil {
		return err
	}
	notes, err := observed.Unverified()
	if err != nil {
		return cli.Exit("hookwarden: clients: "+err.Error(), 2)
	}
	return writeVersions(w, observed.Versions(obs), notes)
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

// WindowsNote is the line `clients` prints under its table: what the rows
// are on Windows and that no client was run there (docs/clients.md,
// "Windows"; templates.CommandWindows).
const WindowsNote = "windows: unverified, no client was run on Windows here; codex rows carry commandWindows (cmd.exe runs hookwarden from PATH), claude rows run under Git Bash as on Linux (docs/clients.md, Windows)"

// writeCapabilities prints caps as an aligned text table with the columns
// CLIENT EVENT NATIVE MATCHER TIMEOUT RENDERED OBSERVED; RENDERED names the
// first client version of a version-gated row (templates/gates.json). A
// blank line and WindowsNote follow the table.
func writeCapabilities(w io.Writer, caps []observed.Capability) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLIENT\tEVENT\tNATIVE EVENT\tMATCHER\tTIMEOUT\tRENDERED\tOBSERVED")
	for _, c := range caps {
		matcher := c.Matcher
		if matcher == "" {
			matcher = "-"
		}
		rendered := "no"
		if c.Rendered {
			rendered = "yes"
		}
		if c.Since != "" {
			rendered += " (" + c.Client + " " + c.Since + "+)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s %s\t%s\t%s\n", c.Client, c.Event, c.NativeEvent, matcher,
			strconv.FormatFloat(c.Timeout, 'f', -1, 64), c.TimeoutUnit, rendered, c.Observed)
	}
	if err := tw.Flush(); err != nil {
		return cli.Exit("hookwarden: clients: "+err.Error(), 2)
	}
	fmt.Fprintf(w, "\n%s\n", WindowsNote)
	return nil
}

// writeVersions prints, after the table, the client versions the
// conformance suite ran (per client, newest first, with the newest day and
// the rows observed there, and the rows that failed), then the clients and
// client versions no real client here ran (observed.Unverified), each with
// why and the sources its rows follow.
func writeVersions(w io.Writer, vs []observed.ClientVersions, notes []observed.Note) error {
	var b strings.Builder
	b.WriteString("\nVERSIONS OBSERVED (the real-client suite; newest first)\n")
	for _, cv := range vs {
		for i, v := range cv.Versions {
			name := cv.Client
			if i > 0 {
				name = strings.Repeat(" ", len(cv.Client))
			}
			fmt.Fprintf(&b, "  %s %s (%s): %s", name, v.Version, v.Date, strings.Join(v.Events, ", "))
			if len(v.Failed) > 0 {
				fmt.Fprintf(&b, "; failed: %s", strings.Join(v.Failed, ", "))
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\nUNVERIFIED (no real client of these ran here)\n")
	for _, n := range notes {
		fmt.Fprintf(&b, "  %s (%s): unverified: %s. Sources: %s\n", n.What, n.Client, n.Why, strings.Join(n.Sources, "; "))
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return cli.Exit("hookwarden: clients: "+err.Error(), 2)
	}
	return nil
}

// writeTraffic prints the agent-traffic report as an aligned table with the
// columns CLIENT BRIEF CAPTURE RETURN CAPTURE RETURN RULES, then one line
// per client and capability giving why.
func writeTraffic(w io.Writer, tc []observed.TrafficCapability) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLIENT\tBRIEF CAPTURE\tRETURN CAPTURE\tRETURN RULES")
	for _, c := range tc {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Client, c.BriefCapture.State, c.ReturnCapture.State, c.ReturnRules.State)
	}
	if err := tw.Flush(); err != nil {
		return cli.Exit("hookwarden: clients: "+err.Error(), 2)
	}
	fmt.Fprintln(w)
	for _, c := range tc {
		for _, x := range []struct {
			what string
			st   observed.TrafficState
		}{{"brief capture", c.BriefCapture}, {"return capture", c.ReturnCapture}, {"return rules", c.ReturnRules}} {
			fmt.Fprintf(w, "%s %s: %s: %s\n", c.Client, x.what, x.st.State, x.st.Why)
		}
	}
	return nil
}
