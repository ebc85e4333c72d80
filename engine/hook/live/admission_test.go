package live

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/engine/hook"
	"github.com/hookwarden/hookwarden/policy/policycases"
	"github.com/hookwarden/hookwarden/protocol/verdict"
)

// admissionRepo is governedRepo with a workstation layer that enforces
// heavy-step admission and adds the operator shape `just build`.
func admissionRepo(t *testing.T) (string, func(string) (string, bool)) {
	t.Helper()
	repo, lookup := governedRepo(t)
	cfg, _ := lookup("XDG_CONFIG_HOME")
	p := filepath.Join(cfg, "hookwarden", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("hooks:\n  admission:\n    enforce: true\n    commands: ['^just build( |$)']\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return repo, lookup
}

// TestAdmissionCorpus replays testdata/admission/cases.json through the
// hook path of every client's pre-tool row with admission enforced by the
// workstation layer, and checks each client's answer (checkAnswer).
func TestAdmissionCorpus(t *testing.T) {
	cases, err := policycases.Load("../../../testdata/admission/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	deps, err := Deps()
	if err != nil {
		t.Fatal(err)
	}
	repo, lookup := admissionRepo(t)
	for _, client := range acceptanceClients {
		t.Run(client, func(t *testing.T) {
			for _, pc := range cases {
				resp := hook.Run(context.Background(), deps, hook.Request{
					Client: client, Event: "pre-tool", Stdin: strings.NewReader(string(payloadFor(t, client, pc.Command(), repo))),
					LookupEnv: lookup,
				})
				if msg := checkAnswer(client, pc, resp); msg != "" {
					t.Errorf("%s: %s", pc.ID, msg)
				}
				if pc.Rule == "admission-required" && !strings.Contains(resp.Verdict.Reason, "hookwarden admit --label ") {
					t.Errorf("%s: the refusal does not name the admitted form: %s", pc.ID, resp.Verdict.Reason)
				}
			}
		})
	}
}

// TestAdmissionOffByDefault: without hooks.admission.enforce in any layer,
// the heavy steps of the corpus pass the pre-tool row (only the deny rules
// judge them).
func TestAdmissionOffByDefault(t *testing.T) {
	deps, err := Deps()
	if err != nil {
		t.Fatal(err)
	}
	repo, lookup := governedRepo(t)
	for _, command := range []string{"make -j2", "go test ./...", "$(echo make)", "git push origin main"} {
		resp := hook.Run(context.Background(), deps, hook.Request{Client: "claude", Event: "pre-tool",
			Stdin: strings.NewReader(string(payloadFor(t, "claude", command, repo))), LookupEnv: lookup})
		if resp.Verdict.Kind != verdict.Allow {
			t.Errorf("%q: %v %s, want allow with admission off", command, resp.Verdict.Kind, resp.Verdict.RuleID)
		}
	}
}
