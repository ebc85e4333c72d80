package agentcontext

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestRuleCases replays testdata/context/rules_cases.json: each unit of prose
// or code must be judged a change (dropped from AGENTS.readonly.md) or not.
func TestRuleCases(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "context", "rules_cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var corpus struct {
		Cases []struct {
			Kind   string `json:"kind"`
			Text   string `json:"text"`
			Change bool   `json:"change"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &corpus); err != nil {
		t.Fatal(err)
	}
	if len(corpus.Cases) == 0 {
		t.Fatal("no rule cases")
	}
	rules, err := DefaultRules()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range corpus.Cases {
		var j Judgement
		switch c.Kind {
		case "prose":
			j = rules.JudgeProse(c.Text)
		case "shell":
			j = rules.JudgeCommandLine(c.Text, true)
		case "code":
			j = rules.JudgeCommandLine(c.Text, false)
		default:
			t.Fatalf("case %q: unknown kind %q", c.Text, c.Kind)
		}
		if j.Change != c.Change {
			t.Errorf("%s %q: change = %v (rule %q, prohibition %v), want %v", c.Kind, c.Text, j.Change, j.Rule, j.Prohibition, c.Change)
		}
	}
}

// TestRulesParseErrors: a bad pattern or scope fails loudly, naming the rule.
func TestRulesParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, data string }{
		{"bad regexp", `{"change": [{"id": "x", "match": "("}]}`},
		{"bad scope", `{"command": [{"id": "y", "scope": "everywhere", "match": "a"}]}`},
		{"no id", `{"change": [{"match": "a"}]}`},
		{"not json", `{`},
	} {
		if _, err := ParseRules([]byte(tc.data)); err == nil {
			t.Errorf("%s: ParseRules accepted %s", tc.name, tc.data)
		}
	}
}
