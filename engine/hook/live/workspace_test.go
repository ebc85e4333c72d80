package live

import (
	"context"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/engine/hook"
	"github.com/hookwarden/hookwarden/policy/policycases"
	"github.com/hookwarden/hookwarden/protocol/verdict"
)

// TestWorkspaceCorpusThroughHook replays testdata/policy/workspace.json
// through the real hook path in every client dialect, the payload's cwd
// being a governed repository holding the corpus's files (a planted
// ./--no-verify, scripts, client hook files, git aliases), and through
// `hookwarden check` with that --cwd: both judge the command where the
// client runs it.
func TestWorkspaceCorpusThroughHook(t *testing.T) {
	ws, err := policycases.LoadWorkspace("../../../testdata/policy/workspace.json")
	if err != nil {
		t.Fatal(err)
	}
	deps, err := Deps()
	if err != nil {
		t.Fatal(err)
	}
	repo, lookup := governedRepo(t)
	if err := ws.Plant(repo); err != nil {
		t.Fatal(err)
	}
	for _, client := range acceptanceClients {
		t.Run(client, func(t *testing.T) {
			for _, pc := range ws.Cases {
				resp := hook.Run(context.Background(), deps, hook.Request{
					Client: client, Event: "pre-tool", Stdin: strings.NewReader(string(payloadFor(t, client, pc.Command(), repo))),
					LookupEnv: lookup,
				})
				if msg := checkAnswer(client, pc, resp); msg != "" {
					t.Errorf("%s: %s", pc.ID, msg)
				}
			}
		})
	}
	t.Run("check", func(t *testing.T) {
		getenv := func(k string) string { v, _ := lookup(k); return v }
		for _, pc := range ws.Cases {
			v, err := hook.Check(deps, repo, pc.Command(), getenv)
			if err != nil {
				t.Errorf("%s: %v", pc.ID, err)
				continue
			}
			if got := map[bool]string{true: "allow", false: "deny"}[v.Kind == verdict.Allow]; got != pc.Verdict || v.RuleID != pc.Rule {
				t.Errorf("%s: check answered %s %q, want %s %q", pc.ID, got, v.RuleID, pc.Verdict, pc.Rule)
			}
		}
	})
}
