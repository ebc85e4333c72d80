package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/engine/conformance/observed"
	"github.com/hookwarden/hookwarden/protocol/registration"
)

// clientsOutput calls the clients verb's run function with o and returns
// what it wrote to stdout and the exit code the process would give.
func clientsOutput(t *testing.T, o clientsOptions) (string, int) {
	t.Helper()
	streams, out, _ := testIO("", nil, t.TempDir())
	o.IO = streams
	code, _ := runExit(runClients(context.Background(), &o))
	return out.String(), code
}

// TestClientsJSONListsEveryRow: `hookwarden clients --json` prints one
// object per registration row, with the timeout unit and an observed field
// that is either "unverified" or names a client version.
func TestClientsJSONListsEveryRow(t *testing.T) {
	out, code := clientsOutput(t, clientsOptions{JSON: true})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	var caps []observed.Capability
	if err := json.Unmarshal([]byte(out), &caps); err != nil {
		t.Fatalf("not a JSON array: %v\n%s", err, out)
	}
	tbl, err := registration.Default()
	if err != nil {
		t.Fatal(err)
	}
	if len(caps) != len(tbl.Rows) {
		t.Fatalf("%d rows printed, table has %d", len(caps), len(tbl.Rows))
	}
	for i, c := range caps {
		if c.Client != tbl.Rows[i].Client || c.Event != tbl.Rows[i].Event {
			t.Errorf("row %d is %s %s, want %s %s", i, c.Client, c.Event, tbl.Rows[i].Client, tbl.Rows[i].Event)
		}
		if c.TimeoutUnit != "s" && c.TimeoutUnit != "ms" {
			t.Errorf("%s %s: timeout unit %q", c.Client, c.Event, c.TimeoutUnit)
		}
		if c.Observed != "unverified" && !strings.Contains(c.Observed, " "+c.Client+" "+c.Version+" (") {
			t.Errorf("%s %s: observed %q names no client version", c.Client, c.Event, c.Observed)
		}
	}
}

// TestClientsText: the text table has a header and one line per row, with
// the timeout and its unit and yes/no for rendered; after a blank line, the
// note that Windows is unverified.
func TestClientsText(t *testing.T) {
	out, code := clientsOutput(t, clientsOptions{})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	table, rest, ok := strings.Cut(out, "\n\n")
	note, _, _ := strings.Cut(rest, "\n\n") // the versions observed and the unverified follow
	if !ok || note != observed.WindowsNote || !strings.Contains(note, "windows: unverified") {
		t.Errorf("after the table %q, want a blank line and %q", note, observed.WindowsNote)
	}
	lines := strings.Split(strings.TrimRight(table, "\n"), "\n")
	tbl, _ := registration.Default()
	if len(lines) != len(tbl.Rows)+1 {
		t.Fatalf("%d lines for %d rows:\n%s", len(lines), len(tbl.Rows), out)
	}
	if !strings.HasPrefix(lines[0], "CLIENT") || !strings.Contains(lines[0], "OBSERVED") {
		t.Errorf("header %q", lines[0])
	}
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "gemini ") && !strings.Contains(l, " ms ") {
			t.Errorf("gemini row without a millisecond timeout: %q", l)
		}
		if !strings.Contains(l, " yes ") && !strings.Contains(l, " no ") {
			t.Errorf("row without rendered yes/no: %q", l)
		}
	}
	if _, code := clientsOutput(t, clientsOptions{Args: []string{"extra"}}); code != 2 {
		t.Errorf("an argument gave exit %d, want 2", code)
	}
}

// TestClientsAgentTraffic: --agent-traffic reports every client's brief
// capture, return capture and return rules; Claude's rest on rows the
// real client was observed with, Codex's return rules and Gemini's and
// agy's returns are unenforceable, a client without dispatch rows is
// unenforceable throughout, and nothing is "observed" without an
// observation of its row.
func TestClientsAgentTraffic(t *testing.T) {
	out, code := clientsOutput(t, clientsOptions{AgentTraffic: true, JSON: true})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	var tc []observed.TrafficCapability
	if err := json.Unmarshal([]byte(out), &tc); err != nil {
		t.Fatalf("not a JSON array: %v\n%s", err, out)
	}
	obs, err := observed.Default()
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]observed.TrafficCapability{}
	for _, c := range tc {
		by[c.Client] = c
		for _, st := range []observed.TrafficState{c.BriefCapture, c.ReturnCapture, c.ReturnRules} {
			switch st.State {
			case observed.Observed:
				f := strings.Fields(st.Row)
				if e, ok := obs.Latest(f[0], f[1]); !ok || e.Status != observed.Observed {
					t.Errorf("%s: %q is observed without an observation of %s", c.Client, st.Why, st.Row)
				}
			case observed.AdapterDefined:
				if st.Row == "" {
					t.Errorf("%s: adapter-defined without a row", c.Client)
				}
			case observed.Unenforceable:
			default:
				t.Errorf("%s: state %q", c.Client, st.State)
			}
			if st.Why == "" {
				t.Errorf("%s: a state without its reason", c.Client)
			}
		}
	}
	if c := by["claude"]; c.BriefCapture.State != observed.Observed || c.ReturnRules.State != observed.Observed {
		t.Errorf("claude: %+v, want brief capture and return rules observed (TestRealClaudeDispatch)", c)
	}
	if c := by["codex"]; c.BriefCapture.State != observed.Observed || c.ReturnCapture.State != observed.AdapterDefined || c.ReturnRules.State != observed.Unenforceable {
		t.Errorf("codex: %+v", c)
	}
	if c := by["gemini"]; c.BriefCapture.State != observed.Observed || c.ReturnCapture.State != observed.Unenforceable {
		t.Errorf("gemini: %+v, want brief capture observed (TestRealGeminiDispatch), return capture unenforceable", c)
	}
	if c := by["agy"]; c.BriefCapture.State != observed.AdapterDefined || c.ReturnCapture.State != observed.Unenforceable {
		t.Errorf("agy: %+v", c)
	}
	if c := by["opencode"]; c.BriefCapture.State != observed.Unenforceable || c.ReturnRules.State != observed.Unenforceable {
		t.Errorf("opencode: %+v", c)
	}
	text, code := clientsOutput(t, clientsOptions{AgentTraffic: true})
	if code != 0 || !strings.HasPrefix(text, "CLIENT") || !strings.Contains(text, "claude return rules: observed:") {
		t.Errorf("text report (exit %d):\n%s", code, text)
	}
}

// TestClientsVersionsAndUnverified: after the table, `hookwarden clients`
// names the client versions the real-client suite ran (Claude Code
// 2.1.332, Codex 0.171.0 and lefthook 2.2.2 among them) and states OpenCode
// 2, Kiro CLI 3 and Devin Desktop unverified, OpenCode 2 because npm serves
// no 2.x.
func TestClientsVersionsAndUnverified(t *testing.T) {
	out, code := clientsOutput(t, clientsOptions{})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	_, rest, ok := strings.Cut(out, "\nVERSIONS OBSERVED")
	if !ok {
		t.Fatalf("no VERSIONS OBSERVED section:\n%s", out)
	}
	versions, unverified, ok := strings.Cut(rest, "\nUNVERIFIED")
	if !ok {
		t.Fatalf("no UNVERIFIED section:\n%s", out)
	}
	for _, want := range []string{"claude 2.1.332 (", "codex 0.171.0 (", "lefthook 2.2.2 (", "opencode 1.18.33 ("} {
		if !strings.Contains(versions, want) {
			t.Errorf("the observed versions do not name %q:\n%s", want, versions)
		}
	}
	for _, want := range []string{"OpenCode 2.x (opencode): unverified: npm serves no opencode-ai 2.x", "Kiro CLI 3 (kiro): unverified", "Devin Desktop", "(devin): unverified"} {
		if !strings.Contains(unverified, want) {
			t.Errorf("the unverified section does not say %q:\n%s", want, unverified)
		}
	}
}
