package observed

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/protocol/registration"
)

// TestEmbeddedCopyMatchesCanonical asserts the embedded observed.json is
// byte-identical to the canonical testdata/clients/observed.json the
// conformance suite writes.
func TestEmbeddedCopyMatchesCanonical(t *testing.T) {
	canon, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "clients", "observed.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(canon, observedJSON) {
		t.Fatal("engine/conformance/observed/observed.json differs from testdata/clients/observed.json; rerun the suite with HOOKWARDEN_E2E_RECORD=1 (it writes both)")
	}
	f, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, canon) {
		t.Error("observed.json is not in the canonical form Marshal writes (sorted, indented); was it edited by hand?")
	}
}

// TestParse replays testdata/parse_cases.json.
func TestParse(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "parse_cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var corpus struct {
		Cases []struct {
			Name  string          `json:"name"`
			Doc   json.RawMessage `json:"doc"`
			Raw   string          `json:"raw"`
			OK    bool            `json:"ok"`
			Error string          `json:"error"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &corpus); err != nil {
		t.Fatal(err)
	}
	for _, tc := range corpus.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			in := []byte(tc.Doc)
			if tc.Raw != "" {
				in = []byte(tc.Raw)
			}
			_, err := Parse(in)
			if tc.OK && err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !tc.OK && (err == nil || !strings.Contains(err.Error(), tc.Error)) {
				t.Fatalf("err = %v, want one containing %q", err, tc.Error)
			}
		})
	}
}

// TestCapabilities checks that every registration row appears once, in
// table order, that an observation is joined to its row by the highest
// client version, and that rows without one say "unverified".
func TestCapabilities(t *testing.T) {
	tbl, err := registration.Default()
	if err != nil {
		t.Fatal(err)
	}
	obs := &File{Version: 1, Entries: []Entry{
		{Client: "claude", ClientVersion: "2.1.99", Event: "pre-tool", Status: Failed, Date: "2026-01-01"},
		{Client: "claude", ClientVersion: "2.1.328", Event: "pre-tool", Status: Observed, Date: "2026-11-29"},
		{Client: "claude", ClientVersion: "2.1.3", Event: "pre-tool", Status: Failed, Date: "2026-01-02"},
	}}
	caps := Capabilities(tbl, obs)
	if len(caps) != len(tbl.Rows) {
		t.Fatalf("%d capabilities for %d rows", len(caps), len(tbl.Rows))
	}
	for i, c := range caps {
		r := tbl.Rows[i]
		if c.Client != r.Client || c.Event != r.Event || c.NativeEvent != r.NativeEvent || c.Matcher != r.Matcher || c.Timeout != r.Timeout || c.TimeoutUnit != r.TimeoutUnit {
			t.Errorf("row %d: %+v does not mirror %+v", i, c, r)
		}
		if c.Client == "claude" && c.Event == "pre-tool" {
			if c.Observed != "observed on claude 2.1.328 (2026-11-29)" || c.Status != Observed {
				t.Errorf("claude pre-tool: %q (%s), want the 2.1.328 observation", c.Observed, c.Status)
			}
		} else if c.Observed != "unverified" || c.Version != "" {
			t.Errorf("%s %s: %q, want unverified", c.Client, c.Event, c.Observed)
		}
	}
	rendered := map[string]bool{}
	for _, c := range caps {
		rendered[c.Client+" "+c.Event] = c.Rendered
	}
	// adopt's defaults (issues 3 and 14): pre-tool, pre-edit and stop of
	// every default client that has the row; post-tool only on request;
	// lefthook is not a default client.
	for pair, want := range map[string]bool{"claude pre-tool": true, "codex stop": true, "opencode pre-tool": true,
		"claude pre-edit": true, "gemini pre-edit": true, "gemini post-tool": false, "lefthook pre-tool": false} {
		if rendered[pair] != want {
			t.Errorf("%s: rendered %v, want %v", pair, rendered[pair], want)
		}
	}
	if got := Capabilities(tbl, nil); got[0].Observed != "unverified" {
		t.Errorf("nil observations: %q", got[0].Observed)
	}
}
