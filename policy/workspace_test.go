package policy

import (
	"testing"

	"github.com/hookwarden/hookwarden/policy/policycases"
)

// TestWorkspaceCorpus replays testdata/policy/workspace.json: its files are
// planted in an empty repository and each case is judged starting there
// (JudgeAt with an environment of its own, testSite), and the text parity
// cases through JudgeText too.
func TestWorkspaceCorpus(t *testing.T) {
	ws, err := policycases.LoadWorkspace("../testdata/policy/workspace.json")
	if err != nil {
		t.Fatal(err)
	}
	repo := emptyRepo(t)
	if err := ws.Plant(repo); err != nil {
		t.Fatal(err)
	}
	p, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	site := testSite(t, repo)
	for _, c := range ws.Cases {
		checkDecision(t, c, c.Command(), p.JudgeAt(c.Command(), site), "JudgeAt")
		if c.Text {
			checkDecision(t, c, c.Command(), p.JudgeText(c.Command()), "JudgeText")
		}
	}
}
