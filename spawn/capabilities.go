package spawn

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"

	"github.com/hookwarden/hookwarden/spawn/redact"
)

//go:embed capabilities/*.json
var embeddedTables embed.FS

// Tables returns the capability tables shipped with hookwarden, one JSON
// file per engine version named capabilities/<engine>-<version>.json.
func Tables() fs.FS {
	sub, _ := fs.Sub(embeddedTables, "capabilities")
	return sub
}

// TableEvent is how one spawn event is rendered for an engine: Native is
// the engine's own event name; Source names the observation.
type TableEvent struct {
	Native string `json:"native"`
	Source string `json:"source"`
}

// Table is the capability table of one engine at one exact version,
// holding only what the real-client suite observed there: Events (spawn
// event -> native event), Capabilities (name such as "pre_tool.deny" ->
// source of the observation), SettingsKeys (Claude settings keys a caller's
// settings file may carry), ProjectLayerKeys (Codex project config keys
// tolerated between cwd and project root), InertEvents (events a later
// layer may add to under a required baseline) and ExecForm (whether the
// engine takes an argv hook handler instead of a shell string), and
// PreHookRefusals (below). The three
// key sets map each key or event to the source of its observation.
// Conditions maps a capability to the posture it was shown under (a
// capability listed there holds only when spawn exec renders that
// posture; checkRedaction refuses one whose posture it does not render
// for the engine, postureRendered).
type Table struct {
	Engine           string                `json:"engine"`
	Version          string                `json:"version"`
	Source           string                `json:"source"`
	Events           map[string]TableEvent `json:"events"`
	Capabilities     map[string]string     `json:"capabilities"`
	SettingsKeys     map[string]string     `json:"settings_keys"`
	ProjectLayerKeys map[string]string     `json:"project_layer_keys"`
	InertEvents      map[string]string     `json:"inert_events"`
	Conditions       map[string]string     `json:"conditions,omitempty"`
	ExecForm         bool                  `json:"exec_form"`
	// PreHookRefusals are the forms in which this engine version refuses
	// a tool call before any hook runs, each as the real-client suite
	// recorded it (spawn/redact RefusalForm); agent_exit lets a call
	// without a pre-tool receipt pass only in one of them. They are part of
	// the evidence for all_tools_gated.
	PreHookRefusals []redact.RefusalForm `json:"pre_hook_refusals,omitempty"`
}

// LoadTable returns the table for engine at version from fsys (file
// "<engine>-<version>.json"). A version with no table returns an empty
// table (no events, no capabilities) and no error; a table that exists but
// does not parse, or names another engine or version, is an error.
func LoadTable(fsys fs.FS, engine, version string) (*Table, error) {
	name := engine + "-" + version + ".json"
	b, err := fs.ReadFile(fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return &Table{Engine: engine, Version: version}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("capability table %s: %w", name, err)
	}
	var t Table
	if err := decodeStrict(b, &t); err != nil {
		return nil, fmt.Errorf("capability table %s: %w", name, err)
	}
	if t.Engine != engine || t.Version != version {
		return nil, fmt.Errorf("capability table %s names %s %s", name, t.Engine, t.Version)
	}
	if err := redact.CheckRefusalForms(t.PreHookRefusals); err != nil {
		return nil, fmt.Errorf("capability table %s: %w", name, err)
	}
	return &t, nil
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}
