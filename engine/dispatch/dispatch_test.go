package dispatch

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	agentcontext "github.com/hookwarden/hookwarden/templates/agentcontext"
)

// TestParseBrief: the gate's lines and the refusals of malformed ones.
func TestParseBrief(t *testing.T) {
	for _, c := range []struct {
		text    string
		want    Brief
		wantErr bool
	}{
		{"Find the parser.", Brief{}, false},
		{"task: review\nFind it.", Brief{Task: "review"}, false},
		{"\t task:   review \r\nreadonly: true", Brief{Task: "review", ReadOnly: true}, false},
		{"read-only: true\ntask: review\ntask: review", Brief{Task: "review", ReadOnly: true}, false},
		{"Task: review", Brief{}, false}, // keys are case-sensitive
		{"the task: review is a sentence", Brief{}, false},
		{"task:", Brief{}, true},
		{"task: a\ntask: b", Brief{}, true},
		{"readonly: false", Brief{}, true},
		{"read-only: TRUE", Brief{}, true},
		{"readonly:", Brief{}, true},
	} {
		got, err := ParseBrief(c.text)
		if (err != nil) != c.wantErr || err == nil && got != c.want {
			t.Errorf("ParseBrief(%q) = %+v, %v; want %+v, error %v", c.text, got, err, c.want, c.wantErr)
		}
	}
}

// TestProjectionMarkerIsCompileContexts: the marker Projection looks for is
// in the banner compile-context writes, so a projection it wrote is
// accepted and a hand-written file is not.
func TestProjectionMarkerIsCompileContexts(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("# P\n\nRun the tests.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, err := agentcontext.Compile(context.Background(), agentcontext.Options{TargetDir: dir, Clients: []string{"claude"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := agentcontext.Apply(context.Background(), plan); err != nil {
		t.Fatal(err)
	}
	if _, err := Projection(dir); err != nil {
		t.Fatalf("the projection compile-context wrote is refused: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ProjectionFile), []byte("# P\n\nRun the tests.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Projection(dir); err == nil {
		t.Fatal("a file without the banner passed as a projection")
	}
	if err := os.Remove(filepath.Join(dir, ProjectionFile)); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, ProjectionFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Projection(dir); err == nil {
		t.Fatal("a directory passed as a projection")
	}
}

// TestAgentTypeKey: the names Claude Code 2.1.328 resolves to one agent
// share a key (so a lower-case `explore` is read-only like Explore), names
// it keeps apart do not, and other clients compare names exactly.
func TestAgentTypeKey(t *testing.T) {
	for _, c := range []struct {
		client, a, b string
		same         bool
	}{
		{"claude", "explore", "Explore", true},
		{"claude", "EX_PLORE", "Explore", true},
		{"claude", "ex\u2013plore", "Explore", true}, // en dash is \p{Pd}
		{"claude", "\uff25\uff58\uff50\uff4c\uff4f\uff52\uff45", "Explore", true},
		{"claude", "ex\u00a0plore", "Explore", true}, // no-break space is White_Space
		{"claude", "explorer", "Explore", false},
		{"claude", "ex.plore", "Explore", false},
		{"codex", "Explorer", "explorer", false},
	} {
		if got := AgentTypeKey(c.client, c.a) == AgentTypeKey(c.client, c.b); got != c.same {
			t.Errorf("%s: %q and %q share a key: %v, want %v", c.client, c.a, c.b, got, c.same)
		}
	}
}
