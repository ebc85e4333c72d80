package hook

import (
	"context"
	"encoding/json"
	"github.com/hookwarden/hookwarden/protocol/clock"
	"github.com/hookwarden/hookwarden/protocol/verdict"
	"os"
	"strings"
	"testing"
)

// FuzzRun feeds arbitrary stdin to every served pair in a governed
// repository and checks the answer's form: exit code 0, 1 or 2 (1 only for
// lefthook); agy always gets exactly one JSON object with a decision (its
// prompt row: one object injecting the clock line); every prompt row
// answers exit 0 with the clock line; a
// non-zero exit always carries a reason on stderr; nothing panics.
func FuzzRun(f *testing.F) {
	data, err := os.ReadFile("testdata/dispatch.json")
	if err != nil {
		f.Fatal(err)
	}
	var cases []dispatchCase
	if err := json.Unmarshal(data, &cases); err != nil {
		f.Fatal(err)
	}
	for _, tc := range cases {
		if tc.StdinRaw != nil {
			f.Add([]byte(*tc.StdinRaw))
		} else {
			f.Add([]byte(tc.Stdin))
		}
	}
	fx := newFixture(f, "")
	deps := fakeDeps(f, true)
	f.Fuzz(func(t *testing.T, stdin []byte) {
		in := fx.substJSON(string(stdin))
		for _, row := range deps.Table.Rows {
			resp := Run(context.Background(), deps, Request{Client: row.Client, Event: row.Event,
				Stdin: strings.NewReader(in), LookupEnv: fx.env(nil)})
			switch {
			case resp.Exit == 1 && row.Client != "lefthook":
				t.Fatalf("%s %s: exit 1", row.Client, row.Event)
			case resp.Exit < 0 || resp.Exit > 2:
				t.Fatalf("%s %s: exit %d", row.Client, row.Event, resp.Exit)
			case resp.Exit != 0 && len(resp.Stderr) == 0:
				t.Fatalf("%s %s: exit %d without a reason", row.Client, row.Event, resp.Exit)
			}
			if row.Client == "agy" && row.Event == "prompt" {
				// PreInvocation takes injected steps, no decision (dialect
				// encodeAdded): one object, never a block.
				var v struct {
					InjectSteps []struct{ EphemeralMessage string } `json:"injectSteps"`
				}
				dec := json.NewDecoder(strings.NewReader(string(resp.Stdout)))
				if err := dec.Decode(&v); err != nil || dec.More() || len(v.InjectSteps) != 1 || !strings.HasPrefix(v.InjectSteps[0].EphemeralMessage, clock.Marker) {
					t.Fatalf("agy prompt: stdout %q is not one object with the clock line", resp.Stdout)
				}
				continue
			}
			if row.Event == "prompt" && (resp.Exit != 0 || !strings.Contains(string(resp.Stdout), clock.Marker)) {
				t.Fatalf("%s prompt: exit %d, stdout %q: a prompt row always answers with the clock line", row.Client, resp.Exit, resp.Stdout)
			}
			if row.Client == "agy" {
				var v struct{ Decision string }
				dec := json.NewDecoder(strings.NewReader(string(resp.Stdout)))
				if err := dec.Decode(&v); err != nil || dec.More() || (v.Decision != "allow" && v.Decision != "deny" && v.Decision != "continue") ||
					(v.Decision == "continue") != (row.Event == "stop" && resp.Verdict.Kind == verdict.Deny) {
					t.Fatalf("agy %s: stdout %q is not one decision object", row.Event, resp.Stdout)
				}
			}
		}
	})
}
