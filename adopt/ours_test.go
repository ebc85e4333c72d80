package adopt

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/templates"
)

// TestOwnerClaims replays testdata/adopt/ownership/claims.json against
// the Owner built from this build's templates: which handler commands are
// ours (current, stale), near misses, or foreign (issue 15: ownership was
// a substring test).
func TestOwnerClaims(t *testing.T) {
	data, err := os.ReadFile("../testdata/adopt/ownership/claims.json")
	if err != nil {
		t.Fatal(err)
	}
	var corpus struct {
		Note  string `json:"note"`
		Cases []struct {
			Why        string   `json:"why"`
			Client     string   `json:"client"`
			Event      string   `json:"event"`
			Command    string   `json:"command"`
			Args       []string `json:"args"`
			Claim      string   `json:"claim"`
			ClaimEvent string   `json:"claim_event"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &corpus); err != nil {
		t.Fatal(err)
	}
	table, err := registration.Default()
	if err != nil {
		t.Fatal(err)
	}
	if len(corpus.Cases) < 20 {
		t.Fatalf("only %d cases", len(corpus.Cases))
	}
	for _, c := range corpus.Cases {
		cur, err := templates.RegistrationCommand(c.Client, c.Event)
		if err != nil {
			t.Fatalf("%s: %v", c.Why, err)
		}
		eng, _ := templates.EngineCommand(c.Client, c.Event)
		legacy, _ := templates.LegacyRegistrationCommands(c.Client, c.Event)
		if len(legacy) == 0 && strings.Contains(c.Command, "$LEGACY") {
			t.Fatalf("%s: no legacy form for %s %s", c.Why, c.Client, c.Event)
		}
		cmd := strings.NewReplacer("$CURRENT", cur, "$ENGINE", eng, "$LEGACY", strings.Join(legacy[:min(1, len(legacy))], "")).Replace(c.Command)
		o, err := templates.Owner(c.Client, table)
		if err != nil {
			t.Fatal(err)
		}
		got := o.Claim(cmd, c.Args, c.Args != nil)
		if got.Kind.String() != c.Claim || got.Event != c.ClaimEvent {
			t.Errorf("%s: %s handler %q %q: claim %s %q, want %s %q", c.Why, c.Client, cmd, c.Args, got.Kind, got.Event, c.Claim, c.ClaimEvent)
		}
	}
}
