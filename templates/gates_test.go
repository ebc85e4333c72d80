package templates

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gateFixture is one testdata/templates/gates/*.json: the gate it is for
// and, per client version, whether that version accepts the gated form
// ("" is an unknown version; a row gate accepts it, see RowAccepted).
type gateFixture struct {
	Gate     Gate            `json:"gate"`
	Why      string          `json:"why"`
	Accepted map[string]bool `json:"accepted"`
}

// TestGateFixtures: every gate of gates.json has a fixture, and every
// fixture's versions are accepted or not as it says (RowAccepted for a row
// gate, VersionLess against Since for the others).
func TestGateFixtures(t *testing.T) {
	gates, err := Gates()
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join("..", "testdata", "templates", "gates", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no gate fixtures: %v", err)
	}
	covered := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var fx gateFixture
		if err := json.Unmarshal(b, &fx); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var g *Gate
		for i := range gates {
			if gates[i].Client == fx.Gate.Client && gates[i].Form == fx.Gate.Form && gates[i].Event == fx.Gate.Event {
				g = &gates[i]
			}
		}
		if g == nil {
			t.Errorf("%s: no gate %s %s %s in gates.json", f, fx.Gate.Client, fx.Gate.Form, fx.Gate.Event)
			continue
		}
		covered[g.Client+" "+g.Form+" "+g.Event] = true
		for v, want := range fx.Accepted {
			got := !VersionLess(v, g.Since)
			if g.Form == "row" {
				got = RowAccepted(g.Client, g.Event, v)
			}
			if got != want {
				t.Errorf("%s: version %q accepted = %v, want %v (since %s)", filepath.Base(f), v, got, want, g.Since)
			}
		}
	}
	for _, g := range gates {
		if !covered[g.Client+" "+g.Form+" "+g.Event] {
			t.Errorf("gate %s %s %s has no fixture in testdata/templates/gates", g.Client, g.Form, g.Event)
		}
		if !strings.Contains(g.Source, " ") || len(g.Observed) == 0 && g.Rendered {
			t.Errorf("gate %s %s %s: a rendered gate needs a source and the versions it was observed on", g.Client, g.Form, g.Event)
		}
	}
}

// TestParseGatesRefuses: a malformed gate table is an error, never a
// table that gates nothing.
func TestParseGatesRefuses(t *testing.T) {
	for _, bad := range []string{
		`{"version":2,"gates":[]}`,
		`{"version":1,"gates":[{"client":"claude","form":"row","since":"2.1.332","source":"s"}]}`,
		`{"version":1,"gates":[{"client":"claude","form":"exec","event":"pre-tool","since":"2.1.332","source":"s"}]}`,
		`{"version":1,"gates":[{"client":"claude","form":"row","event":"x","since":"latest","source":"s"}]}`,
		`{"version":1,"gates":[{"client":"claude","form":"row","event":"x","since":"1.0","source":"s"},{"client":"claude","form":"row","event":"x","since":"1.1","source":"s"}]}`,
		`{"version":1,"gates":[{"client":"claude","form":"row","event":"x","since":"1.0"}]}`,
	} {
		if _, err := ParseGates([]byte(bad)); err == nil {
			t.Errorf("ParseGates(%s): no error", bad)
		}
	}
}

// TestRowGatesNameServedRows: every row gate names a row of the
// registration table, so a gate cannot silently guard nothing.
func TestRowGatesNameServedRows(t *testing.T) {
	gates, err := Gates()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gates {
		if g.Form != "row" {
			continue
		}
		if _, err := RegistrationCommand(g.Client, g.Event); err != nil {
			t.Errorf("gate %s %s: %v", g.Client, g.Event, err)
		}
	}
}

// TestFieldGate: the onFailure field of Claude Code's rows is gated at
// 2.1.295 (gates.json), and a field or client without a gate has none.
func TestFieldGate(t *testing.T) {
	if g, ok := FieldGate("claude", "onFailure"); !ok || g.Since != "2.1.295" || g.Older == "" || g.Source == "" {
		t.Fatalf("FieldGate(claude, onFailure) = %+v, %v", g, ok)
	}
	if _, ok := FieldGate("codex", "onFailure"); ok {
		t.Error("codex has an onFailure gate")
	}
	if _, ok := FieldGate("claude", "timeout"); ok {
		t.Error("claude's timeout field has a gate")
	}
}
