package observed

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WindowsNote is the line WriteCapabilities prints under its table: what the rows
// are on Windows and that no client was run there (docs/clients.md,
// "Windows"; templates.CommandWindows).
const WindowsNote = "windows: unverified, no client was run on Windows here; codex rows carry commandWindows (cmd.exe runs hookwarden from PATH), claude rows run under Git Bash as on Linux (docs/clients.md, Windows)"

// WriteCapabilities prints caps (the `hookwarden clients` table) as an
// aligned text table with the columns
// CLIENT EVENT NATIVE MATCHER TIMEOUT RENDERED OBSERVED; RENDERED names the
// first client version of a version-gated row (templates/gates.json). A
// blank line and WindowsNote follow the table.
func WriteCapabilities(w io.Writer, caps []Capability) error {
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
		return err
	}
	_, err := fmt.Fprintf(w, "\n%s\n", WindowsNote)
	return err
}

// WriteVersions prints, after the capability table, the client versions the
// conformance suite ran (per client, newest first, with the newest day and
// the rows observed there, and the rows that failed), then the clients and
// client versions no real client here ran (Unverified), each with why and
// the sources its rows follow. It returns the writer's error.
func WriteVersions(w io.Writer, vs []ClientVersions, notes []Note) error {
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
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteTraffic prints the agent-traffic report as an aligned table with the
// columns CLIENT BRIEF CAPTURE RETURN CAPTURE RETURN RULES, then one line
// per client and capability giving why. It returns the writer's error.
func WriteTraffic(w io.Writer, tc []TrafficCapability) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLIENT\tBRIEF CAPTURE\tRETURN CAPTURE\tRETURN RULES")
	for _, c := range tc {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Client, c.BriefCapture.State, c.ReturnCapture.State, c.ReturnRules.State)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("\n")
	for _, c := range tc {
		for _, x := range []struct {
			what string
			st   TrafficState
		}{{"brief capture", c.BriefCapture}, {"return capture", c.ReturnCapture}, {"return rules", c.ReturnRules}} {
			fmt.Fprintf(&b, "%s %s: %s: %s\n", c.Client, x.what, x.st.State, x.st.Why)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
