package policy

import (
	"encoding/json"
	"os"
	"strings"
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

// TestJudgeOperators: a command one Policy judged (built-in rules, no
// operator pattern) meets another Policy's operator patterns without being
// judged again: on its text, and on the simple commands the judgement saw
// run when the command asked to keep them (Command.KeepRan); a command
// past the scan bounds is denied as JudgeCommand denies it.
func TestJudgeOperators(t *testing.T) {
	base, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	ops, err := New([]settings.Pattern{{Layer: "repository", Pattern: "terraform destroy", Name: "repository", Line: 27}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		command string
		keep    bool
		want    string
	}{
		{"terraform destroy", false, "operator:repository:27"},
		{"t=terraform; $t destroy", true, "operator:repository:27"},
		{"t=terraform; $t destroy", false, ""},
		{"terraform plan", true, ""},
	} {
		cmd := NewCommand(c.command)
		if c.keep {
			cmd.KeepRan()
		}
		if d := base.JudgeCommand(cmd, Site{Dir: t.TempDir()}); !d.Allowed {
			t.Fatalf("%q: the built-in rules refused it (%s)", c.command, d.RuleID)
		}
		if d := ops.JudgeOperators(cmd); d.RuleID != c.want {
			t.Errorf("%q (keep %v): JudgeOperators = %q, want %q", c.command, c.keep, d.RuleID, c.want)
		}
	}
	long := NewCommand(strings.Repeat("x", MaxCommandBytes+1))
	if d := ops.JudgeOperators(long); d.Allowed {
		t.Errorf("a command past the scan bounds was allowed")
	}
}
