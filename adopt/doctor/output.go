package doctor

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteJSON writes the report as one indented JSON document (the Report
// type's fields).
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the human report: the engine the launcher would use,
// one block per client and event (fired, how the canaries were spawned when
// that spawn was not observed on the real client, the deny and allow canaries (at stop the
// block and pass canaries; the prompt or post-tool canary) with
// verdict, rule, what answered and the time, and the problem when the row
// does not guard), the rows without a canary, and a closing line.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	eng := r.Engine
	if eng == "" {
		eng = "none found ($HOOKWARDEN_BIN unset, no hookwarden on PATH)"
	}
	fmt.Fprintf(&b, "%s: engine %s\n", r.Root, eng)
	bad := 0
	for _, row := range r.Rows {
		state := "guards"
		if !row.Guards {
			state = "DOES NOT GUARD"
			bad++
		}
		fmt.Fprintf(&b, "  %s %s: %s\n", row.Client, row.Event, state)
		if row.Fired {
			if row.Line > 0 {
				fmt.Fprintf(&b, "    fired: %s:%d\n", row.File, row.Line)
			} else {
				// A rendered plugin file: its rows have no line of their own.
				fmt.Fprintf(&b, "    fired: %s\n", row.File)
			}
		} else {
			b.WriteString("    fired: no\n")
		}
		if row.SpawnUnverified {
			fmt.Fprintf(&b, "    spawn unverified: %s\n", row.Spawn)
		}
		deny, allow := "deny canary", "allow canary"
		switch row.Event {
		case "stop":
			deny, allow = "block canary", "pass canary"
		case "subagent-start":
			deny, allow = "read-only canary", "other canary"
		}
		for _, p := range []struct {
			name string
			p    *Probe
		}{{deny, row.Deny}, {allow, row.Allow}, {"prompt canary", row.Prompt}, {"post-tool canary", row.Post}} {
			if p.p == nil {
				continue
			}
			v := p.p.Verdict
			if p.p.Rule != "" {
				v += " (" + p.p.Rule + ")"
			}
			if row.WantClock {
				if p.p.Clock {
					v += ", clock line carried"
				} else {
					v += ", no clock line"
				}
			}
			fmt.Fprintf(&b, "    %s: %s by %s in %.1f ms\n", p.name, v, p.p.AnsweredBy, p.p.Millis)
		}
		if l := row.Load; l != nil {
			switch {
			case l.Skipped != "":
				fmt.Fprintf(&b, "    plugin load: not checked: %s\n", l.Skipped)
			case l.Problem == "":
				fmt.Fprintf(&b, "    plugin load: opencode %s loaded it (%s API, `%s`, %.0f ms); its hook refused the deny canary (%s) and let the allow canary through\n",
					l.Opencode, l.API, l.Command, l.Millis, l.Deny.Rule)
			default:
				fmt.Fprintf(&b, "    plugin load: NOT PROVEN on opencode %s (`%s`)\n", l.Opencode, l.Command)
			}
		}
		if row.Problem != "" {
			fmt.Fprintf(&b, "    problem: %s\n", row.Problem)
		}
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(&b, "  not probed: %s\n", s)
	}
	if r.OK {
		fmt.Fprintf(&b, "doctor: %d rows guard\n", len(r.Rows))
	} else {
		fmt.Fprintf(&b, "doctor: %d of %d rows do not guard\n", bad, len(r.Rows))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
