package policy

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// seedRules are the built-in rules ordinary CI and build commands may still
// meet: privilege escalation (sudo apt-get install ... in CI steps) is
// outside what an agent may do here however ordinary it is in CI.
var seedRules = map[string]bool{RulePrivilegeEscalation: true}

// TestOrdinaryWork replays testdata/policy/ordinary.json: at least 1,000
// commands from public repositories' CI steps, Makefiles and scripts (each
// names its source), none of which may be denied except by a seed rule
// (seedRules).
func TestOrdinaryWork(t *testing.T) {
	b, err := os.ReadFile("../testdata/policy/ordinary.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Schema   int    `json:"schema"`
		Comment  string `json:"comment"`
		Commands []struct {
			Command string `json:"command"`
			Source  string `json:"source"`
		} `json:"commands"`
		KnownDenied []struct {
			Command string `json:"command"`
			Source  string `json:"source"`
			Rule    string `json:"rule"`
			Reason  string `json:"reason"`
		} `json:"known_denied"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("ordinary.json: %v", err)
	}
	if len(doc.Commands) < 1000 {
		t.Fatalf("ordinary.json holds %d commands, want at least 1000", len(doc.Commands))
	}
	p, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	// As the hook judges them: starting in a directory (an empty one, so
	// globs match nothing there).
	dir := t.TempDir()
	site := testSite(t, dir)
	seed := 0
	for i, c := range doc.Commands {
		if c.Source == "" {
			t.Errorf("command %d names no source", i)
		}
		d := p.JudgeAt(asRun(c.Command, c.Source, dir), site)
		switch {
		case d.Allowed:
		case seedRules[d.RuleID]:
			seed++
		default:
			t.Errorf("command %d (%s) denied by %s:\n%s", i, c.Source, d.RuleID, c.Command)
		}
	}
	// The ordinary commands still refused, each with its rule and why: they
	// stay listed (and fail here once allowed, to be moved up).
	for i, c := range doc.KnownDenied {
		if d := p.JudgeAt(asRun(c.Command, c.Source, dir), site); d.RuleID != c.Rule || c.Reason == "" {
			t.Errorf("known_denied %d (%s): got rule %q, want %q with a reason", i, c.Source, d.RuleID, c.Rule)
		}
	}
	t.Logf("%d ordinary commands, %d denied by seed rules, %d listed as still denied", len(doc.Commands), seed, len(doc.KnownDenied))
}

// asRun returns an ordinary command as its shell receives it. A Makefile
// recipe line was stored with make's variables written as shell variables;
// CURDIR is one make sets itself, to the directory it runs in (GNU make
// manual, "Other Special Variables"), and make expands it before the shell
// sees the line, so the replay puts the replay directory in its place. Other
// variables stay as written (the Makefile, not make, defines them).
func asRun(command, source, dir string) string {
	if !strings.Contains(source, "(recipe line; make variables as shell variables)") {
		return command
	}
	return strings.NewReplacer("${CURDIR}", dir, "$(CURDIR)", dir, "$CURDIR", dir).Replace(command)
}
