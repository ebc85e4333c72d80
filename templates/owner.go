package templates

import (
	"fmt"

	"github.com/hookwarden/hookwarden/clientjson"
	"github.com/hookwarden/hookwarden/protocol/registration"
)

// Owner returns the one definition of our rows in client's hook file,
// shared by adopt, conform, audit, codex-trust and the live edit guard
// (clientjson.Owner): for every row of client in the registration table t,
// the command adopt renders (RegistrationCommand) and the bare engine call
// (EngineCommand) are current forms, and the commands earlier versions
// wrote (LegacyRegistrationCommands) are stale forms. A handler matching
// none of them exactly is foreign or, when it starts like one, a near miss.
// It returns an error when a form cannot be given (a defect of this build).
// It lives here, beside the forms it is built from, so the engine can use it
// without importing adopt.
func Owner(client string, t *registration.Table) (*clientjson.Owner, error) {
	var forms []clientjson.Form
	for _, row := range t.ForClient(client) {
		cur, err := RegistrationCommand(client, row.Event)
		if err != nil {
			return nil, err
		}
		eng, err := EngineCommand(client, row.Event)
		if err != nil {
			return nil, err
		}
		legacy, err := LegacyRegistrationCommands(client, row.Event)
		if err != nil {
			return nil, err
		}
		forms = append(forms, clientjson.Form{Event: row.Event, Command: cur, Current: true}, clientjson.Form{Event: row.Event, Command: eng, Current: true})
		for _, l := range legacy {
			forms = append(forms, clientjson.Form{Event: row.Event, Command: l})
		}
	}
	o, err := clientjson.NewOwner(client, forms)
	if err != nil {
		return nil, fmt.Errorf("our registration forms of %s: %w", client, err)
	}
	return o, nil
}

// ServingCommand returns a test for codextrust.Entries: a Codex handler
// command is ours to trust when it runs a current or stale form of one of
// our rows in o (never a near miss, which conform will rewrite, nor a
// foreign row).
func ServingCommand(o *clientjson.Owner) func(command string) bool {
	return func(command string) bool {
		k := o.Claim(command, nil, false).Kind
		return k == clientjson.Current || k == clientjson.Stale
	}
}
