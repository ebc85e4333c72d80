package hook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/policy"
	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/templates"
)

// The file crossLoaded reads is the one adopt renders, and the rendered
// rows end the way crossLoaded looks for.
func TestCrossLoadReadsTheRenderedFile(t *testing.T) {
	files, err := templates.Render([]string{"copilot"})
	if err != nil {
		t.Fatal(err)
	}
	tab, _ := registration.Default()
	for _, f := range files {
		if f.Path != CopilotHooksFile {
			continue
		}
		for _, r := range tab.ForClient("copilot") {
			if !strings.Contains(string(f.Body), ".hookwarden/hook.sh copilot "+r.Event+`"`) {
				t.Errorf("rendered %s lacks the %s row's command end", f.Path, r.Event)
			}
		}
		return
	}
	t.Fatalf("Render(copilot) has no %s", CopilotHooksFile)
}

// The Cursor file crossLoaded reads is the one adopt merges into, and the
// rows adopt writes hold the mark crossLoaded looks for.
func TestCrossLoadReadsCursorsFile(t *testing.T) {
	if p, ok := adoptSettingsPath("cursor"); !ok || p != ".cursor/hooks.json" {
		t.Fatalf("cursor's settings file %q, want .cursor/hooks.json (cursor.com/docs/reference/third-party-hooks)", p)
	}
	cursorRow, ok := ownRows("cursor")
	if !ok {
		t.Fatal("ownRows has no cursor entry")
	}
	tab, _ := registration.Default()
	for _, r := range tab.ForClient("cursor") {
		cmd, err := templates.RegistrationCommand("cursor", r.Event)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(cmd, cursorRow.mark("cursor", r.Event)) {
			t.Errorf("cursor %s: %q lacks the mark crossLoaded looks for", r.Event, cmd)
		}
	}
}

// Cursor: a Claude row leaves a call to Cursor's own row only with
// CURSOR_PROJECT_DIR set and our row for the event in .cursor/hooks.json.
func TestCrossLoadedCursor(t *testing.T) {
	tab, _ := registration.Default()
	claudePre, _ := tab.Lookup("claude", "pre-tool")
	claudeEdit, _ := tab.Lookup("claude", "pre-edit")
	claudeStop, _ := tab.Lookup("claude", "stop")
	pre, _ := templates.RegistrationCommand("cursor", "pre-tool")
	b, _ := json.Marshal(map[string]any{"version": 1, "hooks": map[string]any{"beforeShellExecution": []any{map[string]any{"command": pre, "timeout": 15}}}})
	withRow := string(b)
	edit, _ := templates.RegistrationCommand("cursor", "pre-edit")
	b, _ = json.Marshal(map[string]any{"version": 1, "hooks": map[string]any{"beforeShellExecution": []any{map[string]any{"command": pre, "timeout": 15}},
		"preToolUse": []any{map[string]any{"command": edit, "timeout": 15, "matcher": "^(Write|StrReplace|Edit|MultiEdit|Delete|EditNotebook|ApplyPatch)$"}}}})
	withEditRow := string(b)
	runCrossCases(t, tab, CursorHooksFile, "CURSOR_PROJECT_DIR", []crossCase{
		// Which Cursor file tool reaches a Claude row under which name is not
		// documented, so the Claude pre-edit row judges even beside ours.
		{"cursor pre-edit row present: the Claude pre-edit row still judges", claudeEdit, "cursor", withEditRow, "/r", false},
		{"cursor pre-tool row beside the pre-edit row", claudePre, "cursor", withEditRow, "/r", true},
		{"cursor with its own row", claudePre, "cursor", withRow, "/r", true},
		{"no CURSOR_PROJECT_DIR", claudePre, "cursor", withRow, "", false},
		{"no .cursor/hooks.json", claudePre, "cursor", "", "/r", false},
		{"the file lacks the stop row", claudeStop, "cursor", withRow, "/r", false},
		{"no cursor pre-edit row", claudeEdit, "cursor", withRow, "/r", false},
		{"a foreign row only", claudePre, "cursor", `{"version":1,"hooks":{"beforeShellExecution":[{"command":"./audit.sh cursor pre-tool"}]}}`, "/r", false},
		{"Claude Code itself", claudePre, "", withRow, "/r", false},
		{"Copilot's mark with Cursor's file", claudePre, "copilot", withRow, "/r", false},
	})
}

// oneVar is an environment lookup holding only name=v (nothing when v is
// "").
func oneVar(name, v string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		if k == name && v != "" {
			return v, true
		}
		return "", false
	}
}

// crossCase is one crossLoaded case: the row called, the caller, the
// content of the caller's hook file ("" = no file), the value of the
// caller's variable and whether the row must leave the call.
type crossCase struct {
	name   string
	row    registration.Row
	caller string
	file   string
	env    string
	skip   bool
}

// runCrossCases writes each case's hook file at rel in a fresh root and
// checks crossLoaded with envVar set to the case's value.
func runCrossCases(t *testing.T, tab *registration.Table, rel, envVar string, cases []crossCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if tc.file != "" {
				p := filepath.Join(root, filepath.FromSlash(rel))
				must(t, os.MkdirAll(filepath.Dir(p), 0o755))
				must(t, os.WriteFile(p, []byte(tc.file), 0o644))
			}
			got := crossLoaded(tab, tc.row, tc.caller, root, oneVar(envVar, tc.env))
			if (got != "") != tc.skip {
				t.Fatalf("crossLoaded = %q, want skip %v", got, tc.skip)
			}
		})
	}
}

// adoptSettingsPath is adopt.SettingsFile without importing adopt: the
// client hook file of policy.GuardPaths.
func adoptSettingsPath(client string) (string, bool) {
	for _, g := range policy.GuardPaths() {
		if g.ClientHooks && g.Client == client {
			return g.Path, true
		}
	}
	return "", false
}

// A Claude row leaves a call to Copilot's own row only on every positive
// sign; any one missing and the call is judged here.
func TestCrossLoaded(t *testing.T) {
	tab, _ := registration.Default()
	claudePre, _ := tab.Lookup("claude", "pre-tool")
	claudeEdit, _ := tab.Lookup("claude", "pre-edit")
	claudePost, _ := tab.Lookup("claude", "post-tool")
	withRows := `{"hooks":{"preToolUse":[{"bash":"sh .hookwarden/hook.sh copilot pre-tool"}]}}`
	runCrossCases(t, tab, CopilotHooksFile, "COPILOT_CLI", []crossCase{
		{"copilot with its own row", claudePre, "copilot", withRows, "1", true},
		{"Claude Code itself", claudePre, "", withRows, "1", false},
		{"Cursor with a Copilot file and COPILOT_CLI", claudePre, "cursor", withRows, "1", false},
		{"no COPILOT_CLI in the environment", claudePre, "copilot", withRows, "", false},
		{"COPILOT_CLI of another value", claudePre, "copilot", withRows, "true", false},
		{"no Copilot hook file", claudePre, "copilot", "", "1", false},
		{"the file lacks this event's row", claudeEdit, "copilot", withRows, "1", false},
		{"no Copilot row for the event", claudePost, "copilot", withRows, "1", false},
		{"a look-alike command without the closing quote", claudePre, "copilot", `{"x":"sh .hookwarden/hook.sh copilot pre-tool-x"}`, "1", false},
	})
}
