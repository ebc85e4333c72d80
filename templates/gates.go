package templates

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// gatesJSON is the version-gate table (gates.json): every row form a client
// accepts only from some version on, each with the versions it was observed
// on and its source.
//
//go:embed gates.json
var gatesJSON []byte

// Gate is one version fact of a row form: Client accepts Form from client
// version Since on.
//
// Form is "row" (the (Client, Event) registration row itself: its native
// event exists from Since on), "field:NAME" (a handler field, e.g.
// field:onFailure, on every row of the client that writes it) or "exec"
// (Claude Code's exec form, command + args). Event names the row for form
// "row" and is "" otherwise. Observed lists the client versions the form
// was observed accepted on; Older says what a version before Since does with
// the form and OlderObserved the older versions that was observed on.
// Rendered reports whether adopt writes the form at all today. Source names
// where each fact comes from (bundle, release notes, issue thread, measured
// run).
type Gate struct {
	Client        string   `json:"client"`
	Event         string   `json:"event,omitempty"`
	Form          string   `json:"form"`
	Since         string   `json:"since"`
	Rendered      bool     `json:"rendered"`
	Observed      []string `json:"observed"`
	Older         string   `json:"older"`
	OlderObserved []string `json:"older_observed,omitempty"`
	Source        string   `json:"source"`
}

// parsedGates decodes gates.json once (not at package initialisation: the
// hook path never needs it).
var parsedGates = sync.OnceValues(func() ([]Gate, error) { return ParseGates(gatesJSON) })

// ParseGates decodes a version-gate table ({"version":1,"gates":[Gate…]}).
// It returns an error for malformed JSON, an unknown version, a gate without
// client, form, since or source, a "row" gate without an event (or another
// form with one), a since that is not a dotted number, or two gates for the
// same (client, event, form).
func ParseGates(data []byte) ([]Gate, error) {
	var doc struct {
		Version int    `json:"version"`
		Gates   []Gate `json:"gates"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("hookwarden: version gates: %w", err)
	}
	if doc.Version != 1 {
		return nil, fmt.Errorf("hookwarden: version gates: unknown version %d", doc.Version)
	}
	seen := map[string]bool{}
	for i, g := range doc.Gates {
		if g.Client == "" || g.Form == "" || g.Since == "" || g.Source == "" {
			return nil, fmt.Errorf("hookwarden: version gates: gate %d: client, form, since and source are required", i)
		}
		if (g.Form == "row") != (g.Event != "") {
			return nil, fmt.Errorf("hookwarden: version gates: gate %d (%s %s): a row gate names its event, no other form does", i, g.Client, g.Form)
		}
		if _, ok := versionFields(g.Since); !ok {
			return nil, fmt.Errorf("hookwarden: version gates: gate %d (%s %s): since %q is not a dotted version", i, g.Client, g.Form, g.Since)
		}
		k := g.Client + " " + g.Event + " " + g.Form
		if seen[k] {
			return nil, fmt.Errorf("hookwarden: version gates: gate %d: %s named twice", i, k)
		}
		seen[k] = true
	}
	return doc.Gates, nil
}

// Gates returns the compiled-in version-gate table, as a new slice. The
// error is the table's parse error (a test keeps it nil).
func Gates() ([]Gate, error) {
	g, err := parsedGates()
	return append([]Gate(nil), g...), err
}

// RowGate returns the gate of the (client, event) registration row (form
// "row") and whether the row has one; a row without a gate is accepted by
// every version of its client.
func RowGate(client, event string) (Gate, bool) {
	gates, err := parsedGates()
	if err != nil {
		return Gate{}, false
	}
	for _, g := range gates {
		if g.Form == "row" && g.Client == client && g.Event == event {
			return g, true
		}
	}
	return Gate{}, false
}

// FieldGate returns the gate of the handler field name on client's rows
// (form "field:NAME") and whether there is one: the first client version
// that reads the field, what an older one does with it, and the source.
func FieldGate(client, name string) (Gate, bool) {
	gates, err := parsedGates()
	if err != nil {
		return Gate{}, false
	}
	for _, g := range gates {
		if g.Form == "field:"+name && g.Client == client {
			return g, true
		}
	}
	return Gate{}, false
}

// RowAccepted reports whether a client at version accepts the (client,
// event) row: true for a row without a gate, and for an unknown version
// (""): the gated rows are measured to be ignored, not rejected, by the
// versions before their gate (Gate.Older), so a row rendered for a client
// whose version nobody declared guards the newer clients and costs the
// older ones nothing. Otherwise version must not be older than the gate's
// Since (VersionLess).
func RowAccepted(client, event, version string) bool {
	g, ok := RowGate(client, event)
	if !ok || version == "" {
		return true
	}
	return !VersionLess(version, g.Since)
}

// VersionLess reports whether the dotted version a ("2.1.328", "v0.171.0",
// "2.2.2-beta.1") is older than b: numeric fields compared in order, a
// missing field counting as 0; a pre-release suffix after '-' is ignored.
// A version that is not a dotted number compares as older than every
// version, so a malformed declaration never unlocks a gated form.
func VersionLess(a, b string) bool {
	as, aok := versionFields(a)
	bs, bok := versionFields(b)
	if !aok || !bok {
		return !aok && bok
	}
	for i := 0; i < len(as) || i < len(bs); i++ {
		var x, y int
		if i < len(as) {
			x = as[i]
		}
		if i < len(bs) {
			y = bs[i]
		}
		if x != y {
			return x < y
		}
	}
	return false
}

// ValidVersion reports whether v is a dotted version VersionLess compares
// ("2.1.332", an optional leading v and pre-release suffix).
func ValidVersion(v string) bool {
	_, ok := versionFields(v)
	return ok
}

func versionFields(v string) ([]int, bool) {
	v, _, _ = strings.Cut(strings.TrimPrefix(v, "v"), "-")
	if v == "" {
		return nil, false
	}
	var out []int
	for _, f := range strings.Split(v, ".") {
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}
