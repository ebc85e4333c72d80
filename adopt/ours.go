package adopt

import (
	"fmt"
	"strings"
	"sync"

	"github.com/hookwarden/hookwarden/clientjson"
	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/templates"
)

// Shared holds what one run computes once for all its repositories
// (repositories are planned in parallel): the Owner of each client's hook
// file and the render per list of clients. Adopt and Conform make one per
// run; audit makes one (NewShared) for its own checks and passes it to its
// conform dry run (Options.Shared), so a run builds each once. Measured:
// building the three Owners takes 0.74 ms (BenchmarkOwner), a render about
// as much. Safe for concurrent use.
type Shared struct {
	table    *registration.Table
	owners   map[string]*clientjson.Owner
	renderer RenderFunc

	mu      sync.Mutex
	renders map[string]renderResult
}

// RenderFunc renders the files of a list of clients, with the
// agent-traffic rows when dispatch is set (templates.RenderFor).
type RenderFunc func(clients []string, dispatch bool) ([]templates.File, error)

type renderResult struct {
	files []templates.File
	err   error
}

// NewShared builds the Owners of the clients adopt merges rows into
// (SettingsClients) from table. render renders (nil: templates.RenderFor;
// a test passes one that fails); its answer is kept per list of clients
// and dispatch flag, error included.
func NewShared(table *registration.Table, render RenderFunc) (*Shared, error) {
	if render == nil {
		render = templates.RenderFor
	}
	s := &Shared{table: table, owners: map[string]*clientjson.Owner{}, renderer: render, renders: map[string]renderResult{}}
	for _, c := range SettingsClients() {
		o, err := templates.Owner(c, table)
		if err != nil {
			return nil, err
		}
		s.owners[c] = o
	}
	return s, nil
}

// Owner returns client's Owner, built once per run (nil s, or a client
// whose file adopt does not merge: built now from table).
func (s *Shared) Owner(client string, table *registration.Table) (*clientjson.Owner, error) {
	if s != nil && s.owners[client] != nil {
		return s.owners[client], nil
	}
	return templates.Owner(client, table)
}

// Render returns the render of clients (with dispatch, the agent-traffic
// rows), rendered once per run, list of clients and dispatch flag (nil s:
// templates.RenderFor now). The files are shared: callers only read them.
func (s *Shared) Render(clients []string, dispatch bool) ([]templates.File, error) {
	if s == nil {
		return templates.RenderFor(clients, dispatch)
	}
	key := strings.Join(clients, ",") + fmt.Sprintf(";%v", dispatch)
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.renders[key]; ok {
		return r.files, r.err
	}
	files, err := s.renderer(clients, dispatch)
	s.renders[key] = renderResult{files, err}
	return files, err
}
