package clientjson_test

import (
	"testing"

	"github.com/hookwarden/hookwarden/clientjson"
	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/templates"
)

// TestVerbatimClaimsMatchParsing: every command this build renders or has
// rendered for a row (current, bare engine, legacy forms) is claimed the
// same whether Claim answers it from the verbatim map or parses it, so the
// fast path adopt, conform and audit take for their own rows changes no
// verdict.
func TestVerbatimClaimsMatchParsing(t *testing.T) {
	table, err := registration.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, client := range []string{"claude", "codex", "gemini", "agy", "copilot", "kiro", "cline", "lefthook"} {
		if len(table.ForClient(client)) == 0 {
			continue
		}
		o, err := templates.Owner(client, table)
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range table.ForClient(client) {
			cmds := []string{}
			if c, err := templates.RegistrationCommand(client, row.Event); err == nil {
				cmds = append(cmds, c)
			}
			if c, err := templates.EngineCommand(client, row.Event); err == nil {
				cmds = append(cmds, c)
			}
			legacy, _ := templates.LegacyRegistrationCommands(client, row.Event)
			cmds = append(cmds, legacy...)
			for _, c := range cmds {
				got, want := o.Claim(c, nil, false), o.ClaimShell(c)
				if got != want {
					t.Errorf("%s %s: %q claimed %+v verbatim, %+v parsed", client, row.Event, c, got, want)
				}
				if got.Kind != clientjson.Current && got.Kind != clientjson.Stale {
					t.Errorf("%s %s: our own form %q claimed %+v", client, row.Event, c, got)
				}
			}
		}
	}
}
