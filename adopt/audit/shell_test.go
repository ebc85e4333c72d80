package audit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandPathCorpus replays testdata/audit/commands.json: each hook
// command gets the problem the corpus names (a substring of the answer), or
// none; the answer never contains the command.
func TestCommandPathCorpus(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "audit", "commands.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []struct {
			Command string `json:"command"`
			Problem string `json:"problem"`
			Why     string `json:"why"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || len(doc.Cases) == 0 {
		t.Fatalf("corpus: %v", err)
	}
	for _, c := range doc.Cases {
		got := commandPathProblem(c.Command)
		switch {
		case c.Problem == "" && got != "":
			t.Errorf("%s: %q: got %q, want no problem", c.Why, c.Command, got)
		case c.Problem != "" && !strings.Contains(got, c.Problem):
			t.Errorf("%s: %q: got %q, want %q", c.Why, c.Command, got, c.Problem)
		case got != "" && strings.Contains(got, c.Command):
			t.Errorf("%s: the answer echoes the command", c.Why)
		}
	}
}

// FuzzCommandPathProblem feeds arbitrary hook commands (seeded with the
// corpus) to commandPathProblem: it never panics, and its answer is one of
// its fixed texts, so it never carries the command.
func FuzzCommandPathProblem(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "audit", "commands.json"))
	if err != nil {
		f.Fatal(err)
	}
	var doc struct {
		Cases []struct {
			Command string `json:"command"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		f.Fatal(err)
	}
	for _, c := range doc.Cases {
		f.Add(c.Command)
	}
	fixed := map[string]bool{
		"":                               true,
		"is not valid shell syntax":      true,
		"writes a path with backslashes": true,
		"writes a path with a space and no quotes":                                                     true,
		"uses an unquoted variable in a path (a directory name with a space splits it into two words)": true,
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		if got := commandPathProblem(cmd); !fixed[got] {
			t.Fatalf("answer %q is not one of the fixed texts", got)
		}
	})
}
