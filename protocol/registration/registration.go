// Package registration holds the registration table: the one source of which
// (client, event) pairs hookwarden serves, under which native client event and
// matcher, with which client timeout and which engine budget.
//
// The table is data (table.json); every row names the client fact it encodes
// and where that fact comes from. The binary carries it as the Go literal that
// `go generate ./protocol/registration` writes to table_gen.go, so the hook does
// not decode JSON on every call; a test fails when the two drift.
package registration

//go:generate go run ./gen

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"
)

// Row is one registration: a (Client, Event) pair the engine serves.
//
// Client is one of claude, codex, gemini, agy, lefthook, opencode, copilot, cursor,
// windsurf, qwen, droid, kiro, cline, devin. Event is the
// neutral event name (pre-tool, pre-edit, post-tool, stop, environment).
// NativeEvent is the client's own event name (PreToolUse, BeforeTool, …).
// Matcher is the tool matcher written into the client's settings ("" = none).
// Timeout is the client timeout in TimeoutUnit ("s" seconds or "ms"
// milliseconds), as the client's settings file carries it. BudgetMillis is the
// engine's own budget for the event in milliseconds; it is always below the
// client timeout. AlsoNative lists further native events the same neutral
// event is registered under, with the same matcher and timeout (Claude's
// dispatch-abort and handback-abort: PostToolUseFailure and
// PermissionDenied); nil for most
// rows. Source names the client fact behind the row.
type Row struct {
	Client       string   `json:"client"`
	Event        string   `json:"event"`
	NativeEvent  string   `json:"native_event"`
	AlsoNative   []string `json:"also_native,omitempty"`
	Matcher      string   `json:"matcher"`
	Timeout      float64  `json:"timeout"`
	TimeoutUnit  string   `json:"timeout_unit"`
	BudgetMillis int      `json:"budget_ms"`
	Source       string   `json:"source"`
}

// NativeEvents returns every native event the row is registered under:
// NativeEvent first, then AlsoNative, as a new slice.
func (r Row) NativeEvents() []string {
	return append([]string{r.NativeEvent}, r.AlsoNative...)
}

// HasNative reports whether name is one of the row's native events.
func (r Row) HasNative(name string) bool {
	if name == r.NativeEvent {
		return true
	}
	for _, n := range r.AlsoNative {
		if n == name {
			return true
		}
	}
	return false
}

// ClientTimeout returns the row's client timeout as a duration.
func (r Row) ClientTimeout() time.Duration {
	if r.TimeoutUnit == "ms" {
		return time.Duration(r.Timeout * float64(time.Millisecond))
	}
	return time.Duration(r.Timeout * float64(time.Second))
}

// Budget returns the engine's budget for the row's event as a duration.
func (r Row) Budget() time.Duration { return time.Duration(r.BudgetMillis) * time.Millisecond }

// Table is the parsed registration table, rows in file order.
type Table struct {
	Rows []Row
}

// ValidName reports whether s is a well-formed client or event argument:
// it must match ^[a-z-]+$ (checked without a regular expression, to keep
// package initialisation off the hook's start-up path).
func ValidName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 'a' || c > 'z') && c != '-' {
			return false
		}
	}
	return true
}

// Default returns the table compiled into this binary (table.json, validated
// by Parse when table_gen.go was generated; rows in file order). The error is
// always nil; it stays in the signature so callers keep failing closed should
// the table ever be loaded from elsewhere. The rows are a fresh copy callers
// may modify.
func Default() (*Table, error) {
	return &Table{Rows: append([]Row(nil), compiled...)}, nil
}

// Served reports whether (client, event) is a row of the compiled table
// (Default), without copying the table as Default does: the check adopt and
// audit make for every handler of every repository.
func Served(client, event string) bool {
	for i := range compiled {
		if compiled[i].Client == client && compiled[i].Event == event {
			return true
		}
	}
	return false
}

// Parse decodes a registration table from its JSON form
// ({"version":1,"rows":[Row…]}). It returns an error for malformed JSON,
// an unknown version, a row with an invalid client or event name, a
// duplicate (client, event) pair, an unknown timeout unit, or a budget that is
// not strictly below the client timeout.
func Parse(data []byte) (*Table, error) {
	var doc struct {
		Version int   `json:"version"`
		Rows    []Row `json:"rows"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("registration table: %w", err)
	}
	if doc.Version != 1 {
		return nil, fmt.Errorf("registration table: unknown version %d", doc.Version)
	}
	seen := map[string]bool{}
	for i, r := range doc.Rows {
		if !ValidName(r.Client) || !ValidName(r.Event) {
			return nil, fmt.Errorf("registration table: row %d: client %q or event %q is not ^[a-z-]+$", i, r.Client, r.Event)
		}
		k := r.Client + " " + r.Event
		if seen[k] {
			return nil, fmt.Errorf("registration table: row %d: duplicate pair %s", i, k)
		}
		seen[k] = true
		if r.TimeoutUnit != "s" && r.TimeoutUnit != "ms" {
			return nil, fmt.Errorf("registration table: row %d (%s): timeout unit %q is not s or ms", i, k, r.TimeoutUnit)
		}
		for _, n := range r.AlsoNative {
			if n == "" || n == r.NativeEvent {
				return nil, fmt.Errorf("registration table: row %d (%s): also_native %q is empty or repeats native_event", i, k, n)
			}
		}
		if r.BudgetMillis <= 0 || r.Budget() >= r.ClientTimeout() {
			return nil, fmt.Errorf("registration table: row %d (%s): budget %d ms is not below the client timeout", i, k, r.BudgetMillis)
		}
	}
	return &Table{Rows: doc.Rows}, nil
}

// Lookup returns the row for (client, event) and whether it exists.
func (t *Table) Lookup(client, event string) (Row, bool) {
	for _, r := range t.Rows {
		if r.Client == client && r.Event == event {
			return r, true
		}
	}
	return Row{}, false
}

// HasClient reports whether any row names client.
func (t *Table) HasClient(client string) bool {
	for _, r := range t.Rows {
		if r.Client == client {
			return true
		}
	}
	return false
}

// ForClient returns the client's rows in table order (nil if none).
func (t *Table) ForClient(client string) []Row {
	var out []Row
	for _, r := range t.Rows {
		if r.Client == client {
			out = append(out, r)
		}
	}
	return out
}

// Listing returns the served pairs in the stable listing format that
// `hookwarden hook` with no arguments prints and the launcher parses: one line
// per pair, "<client> <event>\n", sorted by client then event.
func (t *Table) Listing() string {
	lines := make([]string, 0, len(t.Rows))
	for _, r := range t.Rows {
		lines = append(lines, r.Client+" "+r.Event)
	}
	sort.Strings(lines)
	out := make([]byte, 0, 16*len(lines))
	for _, l := range lines {
		out = append(out, l...)
		out = append(out, '\n')
	}
	return string(out)
}
