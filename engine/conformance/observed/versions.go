package observed

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
)

//go:embed unverified.json
var unverifiedJSON []byte

// Note is one client or client version `hookwarden clients` states as
// unverified: What names it ("OpenCode 2.x"), Why says why no real client
// ran it here and what the rows follow instead, Sources the documents the
// rows' facts come from (each with the date it was read).
type Note struct {
	Client  string   `json:"client"`
	What    string   `json:"what"`
	Why     string   `json:"why"`
	Sources []string `json:"sources"`
}

// Unverified returns the notes compiled into this binary (unverified.json
// next to this file). It returns an error only when the embedded file is
// malformed (a build defect): not version 1, or a note without client,
// what, why or a source.
func Unverified() ([]Note, error) {
	var doc struct {
		Version int    `json:"version"`
		Notes   []Note `json:"notes"`
	}
	if err := json.Unmarshal(unverifiedJSON, &doc); err != nil {
		return nil, fmt.Errorf("hookwarden: unverified.json: %w", err)
	}
	if doc.Version != 1 {
		return nil, fmt.Errorf("hookwarden: unverified.json: unknown version %d", doc.Version)
	}
	for i, n := range doc.Notes {
		if n.Client == "" || n.What == "" || n.Why == "" || len(n.Sources) == 0 {
			return nil, fmt.Errorf("hookwarden: unverified.json: note %d: client, what, why and sources are required", i)
		}
	}
	return doc.Notes, nil
}

// ClientVersion is one client version the conformance suite ran: Version,
// Date the newest day of an observation on it (YYYY-MM-DD), Events the
// rows observed working there and Failed the rows that failed there.
type ClientVersion struct {
	Version string   `json:"version"`
	Date    string   `json:"date"`
	Events  []string `json:"events"`
	Failed  []string `json:"failed,omitempty"`
}

// ClientVersions is every version of one client the suite ran, newest
// first.
type ClientVersions struct {
	Client   string          `json:"client"`
	Versions []ClientVersion `json:"versions"`
}

// Versions returns, per client in the order its first entry has in obs,
// the versions obs holds observations for, newest version first.
func Versions(obs *File) []ClientVersions {
	var out []ClientVersions
	for _, e := range obs.Entries {
		c := slices.IndexFunc(out, func(cv ClientVersions) bool { return cv.Client == e.Client })
		if c < 0 {
			out = append(out, ClientVersions{Client: e.Client})
			c = len(out) - 1
		}
		cv := &out[c]
		i := slices.IndexFunc(cv.Versions, func(v ClientVersion) bool { return v.Version == e.ClientVersion })
		if i < 0 {
			cv.Versions = append(cv.Versions, ClientVersion{Version: e.ClientVersion})
			i = len(cv.Versions) - 1
		}
		v := &cv.Versions[i]
		v.Date = max(v.Date, e.Date)
		if e.Status == Observed {
			v.Events = append(v.Events, e.Event)
		} else {
			v.Failed = append(v.Failed, e.Event)
		}
	}
	for i := range out {
		slices.SortFunc(out[i].Versions, func(a, b ClientVersion) int { return compareVersions(b.Version, a.Version) })
	}
	return out
}
