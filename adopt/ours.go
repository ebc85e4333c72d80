package adopt

import (
	"fmt"
	"strings"
	"sync"

	"github.com/hookwarden/hookwarden/clientjson"
	"github.com/hookwarden/hookwarden/engine/registration"
	"github.com/hookwarden/hookwarden/templates"
)

// Owner returns the one definition of our rows in client's hook file,
// shared by adopt, conform, audit and codex-trust (clientjson.Owner): for
// every row of client in the registration table t, the command adopt
// renders (templates.RegistrationCommand) and the bare engine call
// (templates.EngineCommand) are current forms, and the commands earlier
// versions wrote (templates.LegacyRegistrationCommands) are stale forms.
// A handler matching none of them exactly is foreign or, when it starts
// like one, a near miss. It returns an error when templates cannot give a
// form (a defect of this build).
func Owner(client string, t *registration.Table) (*clientjson.Owner, error) {
	var forms []clientjson.Form
	for _, row := range t.ForClient(client) {
		cur, err := templates.RegistrationCommand(client, row.Event)
		if err != nil {
			return nil, err
		}
		eng, err := templates.EngineCommand(client, row.Event)
		if err != nil {
			return nil, err
		}
		legacy, err := templates.LegacyRegistrationCommands(client, row.Event)
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

// runShared holds what one run computes once for all its repositories
// (repositories are planned in parallel): the Owner of each client's hook
// file and templates.Render per list of clients. Measured: building the
// three Owners takes 0.74 ms (BenchmarkOwner), a render about as much.
type runShared struct {
	table  *registration.Table
	owners map[string]*clientjson.Owner

	mu      sync.Mutex
	renders map[string]renderResult
}

type renderResult struct {
	files []templates.File
	err   error
}

// newRunShared builds the Owners of the clients adopt merges rows into.
func newRunShared(table *registration.Table) (*runShared, error) {
	s := &runShared{table: table, owners: map[string]*clientjson.Owner{}, renders: map[string]renderResult{}}
	for c := range settingsFile {
		o, err := Owner(c, table)
		if err != nil {
			return nil, err
		}
		s.owners[c] = o
	}
	return s, nil
}

// owner returns client's Owner, built once per run (nil s: built now).
func (s *runShared) owner(client string, table *registration.Table) (*clientjson.Owner, error) {
	if s != nil && s.owners[client] != nil {
		return s.owners[client], nil
	}
	return Owner(client, table)
}

// render returns templates.Render(clients), rendered once per run and
// list of clients (nil s: rendered now). The files are shared: callers
// only read them.
func (s *runShared) render(clients []string) ([]templates.File, error) {
	if s == nil {
		return templates.Render(clients)
	}
	key := strings.Join(clients, ",")
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.renders[key]; ok {
		return r.files, r.err
	}
	files, err := templates.Render(clients)
	s.renders[key] = renderResult{files, err}
	return files, err
}

// ServingCommand returns a test for codextrust.Entries: a Codex handler
// command is ours to trust when it runs a current or stale form of one of
// our rows (never a near miss, which conform will rewrite, nor a foreign
// row).
func ServingCommand(o *clientjson.Owner) func(command string) bool {
	return func(command string) bool {
		k := o.Claim(command, nil, false).Kind
		return k == clientjson.Current || k == clientjson.Stale
	}
}
