package policy

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/hookwarden/hookwarden/settings"
)

// TestOperatorPatternsOnWhatRuns replays testdata/operator-runs.json: an
// operator pattern denies a command whose simple commands, as the shell
// expands them, match it, however the text spells them. A case's own
// pattern replaces the corpus pattern.
func TestOperatorPatternsOnWhatRuns(t *testing.T) {
	data, err := os.ReadFile("testdata/operator-runs.json")
	if err != nil {
		t.Fatal(err)
	}
	var corpus struct {
		Pattern string `json:"pattern"`
		Cases   []struct {
			Command string `json:"command"`
			Verdict string `json:"verdict"`
			Pattern string `json:"pattern"`
			Note    string `json:"note"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &corpus); err != nil {
		t.Fatal(err)
	}
	policies := map[string]*Policy{}
	for _, c := range corpus.Cases {
		pattern := corpus.Pattern
		if c.Pattern != "" {
			pattern = c.Pattern
		}
		p := policies[pattern]
		if p == nil {
			if p, err = New([]settings.Pattern{{Layer: "repository", Pattern: pattern, Name: "repository", Line: 27}}); err != nil {
				t.Fatal(err)
			}
			policies[pattern] = p
		}
		d := p.JudgeAt(c.Command, Site{Dir: t.TempDir()})
		got := "allow"
		if !d.Allowed {
			got = "deny"
		}
		if got != c.Verdict || (!d.Allowed && d.RuleID != "operator:repository:27") {
			t.Errorf("%q (pattern %q): %s %s, want %s by the operator pattern", c.Command, pattern, got, d.RuleID, c.Verdict)
		}
	}
}
