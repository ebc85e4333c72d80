// Package observed holds what the real-client conformance suite saw: per
// (client, client version, event), whether the row was observed working or
// failed, when, and what was checked. The canonical file is
// testdata/clients/observed.json, written only by the suite
// (engine/conformance, HOOKWARDEN_E2E_RECORD=1); this package embeds a
// byte-identical copy (observed.json next to this file, written by the suite
// in the same step, and a test asserts the two are equal) because go:embed
// cannot reach outside the package directory.
//
// Capabilities joins the observations with the registration table for
// `hookwarden clients`.
package observed

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/templates"
)

//go:embed observed.json
var observedJSON []byte

// Status values of an Entry.
const (
	// Observed: the suite ran the client and every check of the row held.
	Observed = "observed"
	// Failed: the suite ran the client and a check of the row failed.
	Failed = "failed"
)

// Entry is one observation: Client and Event are a registration row's
// (neutral event, e.g. "pre-tool"); ClientVersion the exact client version
// run (e.g. "2.1.328"); NativeEvent the client's event name the hook was
// called under; Status Observed or Failed; Date the UTC day of the run
// (YYYY-MM-DD); Checked the checks made, one short sentence each.
type Entry struct {
	Client        string   `json:"client"`
	ClientVersion string   `json:"client_version"`
	Event         string   `json:"event"`
	NativeEvent   string   `json:"native_event"`
	Status        string   `json:"status"`
	Date          string   `json:"date"`
	Checked       []string `json:"checked"`
}

// File is the observed.json document: {"version":1,"entries":[Entry…]},
// entries sorted by client, event, client version.
type File struct {
	Version int     `json:"version"`
	Entries []Entry `json:"entries"`
}

// Default returns the observations compiled into this binary. It returns an
// error only when the embedded file is malformed (a build defect).
func Default() (*File, error) { return Parse(observedJSON) }

// Parse decodes an observed.json document. It returns an error for
// malformed JSON, a version other than 1, or an entry with an empty
// client, event or version, or a status other than observed/failed.
func Parse(data []byte) (*File, error) {
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("hookwarden: observed.json: %w", err)
	}
	if f.Version != 1 {
		return nil, fmt.Errorf("hookwarden: observed.json: unknown version %d", f.Version)
	}
	for i, e := range f.Entries {
		if e.Client == "" || e.Event == "" || e.ClientVersion == "" {
			return nil, fmt.Errorf("hookwarden: observed.json: entry %d: client, event and client_version are required", i)
		}
		if e.Status != Observed && e.Status != Failed {
			return nil, fmt.Errorf("hookwarden: observed.json: entry %d: status %q is not observed or failed", i, e.Status)
		}
	}
	return &f, nil
}

// Marshal returns the document as indented JSON with a trailing newline,
// entries sorted by client, event, then client version: the exact bytes
// the suite writes.
func (f *File) Marshal() ([]byte, error) {
	g := *f
	g.Entries = slices.Clone(f.Entries)
	slices.SortStableFunc(g.Entries, func(a, b Entry) int {
		return strings.Compare(a.Client+"\x00"+a.Event+"\x00"+a.ClientVersion, b.Client+"\x00"+b.Event+"\x00"+b.ClientVersion)
	})
	b, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("hookwarden: observed.json: %w", err)
	}
	return append(b, '\n'), nil
}

// Latest returns the entry for (client, event) with the highest client
// version (compared numerically dot by dot), and whether one exists.
func (f *File) Latest(client, event string) (Entry, bool) {
	var best Entry
	found := false
	for _, e := range f.Entries {
		if e.Client != client || e.Event != event {
			continue
		}
		if !found || compareVersions(e.ClientVersion, best.ClientVersion) > 0 {
			best, found = e, true
		}
	}
	return best, found
}

// compareVersions compares dotted numeric versions ("2.1.328"); a part that
// is not a number compares as text.
func compareVersions(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(pa), len(pb)); i++ {
		var x, y string
		if i < len(pa) {
			x = pa[i]
		}
		if i < len(pb) {
			y = pb[i]
		}
		if len(x) != len(y) && isDigits(x) && isDigits(y) {
			return len(x) - len(y)
		}
		if c := strings.Compare(x, y); c != 0 {
			return c
		}
	}
	return 0
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// Capability is one line of `hookwarden clients`: a registration row with
// its client timeout (Timeout in TimeoutUnit, "s" or "ms", as the client's
// settings carry it), whether adopt renders it by default (Rendered), and
// what the conformance suite saw (Observed: "observed on <client> <version>
// (<date>)", "failed on <client> <version> (<date>)", or "unverified").
// Status is "observed", "failed" or "unverified"; Version and Date are empty
// when unverified.
type Capability struct {
	Client      string  `json:"client"`
	Event       string  `json:"event"`
	NativeEvent string  `json:"native_event"`
	Matcher     string  `json:"matcher"`
	Timeout     float64 `json:"timeout"`
	TimeoutUnit string  `json:"timeout_unit"`
	Rendered    bool    `json:"rendered"`
	// Since is the first client version the row is rendered for
	// (templates.RowGate), "" for a row every version accepts.
	Since    string `json:"since,omitempty"`
	Observed string `json:"observed"`
	Status   string `json:"status"`
	Version  string `json:"client_version,omitempty"`
	Date     string `json:"date,omitempty"`
}

// RenderedByDefault reports whether `hookwarden adopt` writes the row
// (client, event) into a repository without the operator asking for more:
// the client is one of templates.DefaultClients() and the event one of
// templates.DefaultEvents() (pre-tool, pre-edit, stop and prompt) or
// pre-skill-shell, which follows pre-tool (adopt.RegisteredEvents), from the
// client version its gate names (Capability.Since). Other rows (post-tool,
// lefthook) are written only when the manifest's hooks.events or --clients
// name them.
func RenderedByDefault(client, event string) bool {
	if event == "pre-skill-shell" {
		event = "pre-tool"
	}
	return slices.Contains(templates.DefaultClients(), client) && slices.Contains(templates.DefaultEvents(), event)
}

// Capabilities returns one Capability per row of t, in table order, joined
// with the latest observation of obs for that row (nil obs: every row
// unverified).
func Capabilities(t *registration.Table, obs *File) []Capability {
	out := make([]Capability, 0, len(t.Rows))
	for _, r := range t.Rows {
		c := Capability{Client: r.Client, Event: r.Event, NativeEvent: r.NativeEvent, Matcher: r.Matcher,
			Timeout: r.Timeout, TimeoutUnit: r.TimeoutUnit, Rendered: RenderedByDefault(r.Client, r.Event),
			Observed: "unverified", Status: "unverified"}
		if g, ok := templates.RowGate(r.Client, r.Event); ok {
			c.Since = g.Since
		}
		if obs != nil {
			if e, ok := obs.Latest(r.Client, r.Event); ok {
				c.Status, c.Version, c.Date = e.Status, e.ClientVersion, e.Date
				c.Observed = fmt.Sprintf("%s on %s %s (%s)", e.Status, r.Client, e.ClientVersion, e.Date)
			}
		}
		out = append(out, c)
	}
	return out
}
