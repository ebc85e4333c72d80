package policycases

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadRefusals: a malformed corpus is an error naming the file and the
// problem, never a silently shorter corpus.
func TestLoadRefusals(t *testing.T) {
	for name, c := range map[string]struct{ doc, want string }{
		"schema 2":        {`{"schema":2,"cases":[{"id":"a","command":"x","verdict":"allow"}]}`, "schema 2"},
		"unknown member":  {`{"schema":1,"cases":[{"id":"a","command":"x","verdict":"allow","verdit":"deny"}]}`, "unknown field"},
		"no cases":        {`{"schema":1,"cases":[]}`, "no cases"},
		"both forms":      {`{"schema":1,"cases":[{"id":"a","command":"x","repeat":[{"text":"a","count":2}],"verdict":"allow"}]}`, "exactly one"},
		"neither form":    {`{"schema":1,"cases":[{"id":"a","verdict":"allow"}]}`, "exactly one"},
		"bad verdict":     {`{"schema":1,"cases":[{"id":"a","command":"x","verdict":"ask"}]}`, "not allow or deny"},
		"deny, no rule":   {`{"schema":1,"cases":[{"id":"a","command":"x","verdict":"deny"}]}`, "names its rule"},
		"duplicate id":    {`{"schema":1,"cases":[{"id":"a","command":"x","verdict":"allow"},{"id":"a","command":"y","verdict":"allow"}]}`, "repeated"},
		"trailing garbag": {`{"schema":1,"cases":[{"id":"a","command":"x","verdict":"allow"}]`, "cases.json"},
	} {
		p := filepath.Join(t.TempDir(), "cases.json")
		os.WriteFile(p, []byte(c.doc), 0o644)
		_, err := Load(p)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v, want one naming %s and containing %q", name, err, p, c.want)
		}
	}
}

// TestCommand: a repeat case is its pieces concatenated; a literal is kept.
func TestCommand(t *testing.T) {
	lit := "git status"
	if got := (Case{Literal: &lit}).Command(); got != lit {
		t.Errorf("literal: %q", got)
	}
	got := (Case{Repeat: []Piece{{"ab", 3}, {"c", 2}}}).Command()
	if got != "abababcc" {
		t.Errorf("repeat: %q", got)
	}
}

// TestTheCorpusLoads: the project corpus itself is well formed.
func TestTheCorpusLoads(t *testing.T) {
	cases, err := Load("../../testdata/policy/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 300 {
		t.Fatalf("%d cases, issue 2 asks for at least 300", len(cases))
	}
}
