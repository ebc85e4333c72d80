package hook

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/hookwarden/hookwarden/internal/clientfiles"
	"github.com/hookwarden/hookwarden/protocol/registration"
)

// CopilotHooksFile is the file adopt renders for GitHub Copilot CLI in a
// governed repository (internal/clientfiles.CopilotHooks): Copilot CLI
// 1.0.102 runs every *.json of .github/hooks at the git root
// (protocol/dialect, copilot.go).
const CopilotHooksFile = clientfiles.CopilotHooks

// CursorHooksFile is Cursor's project hook file, into which adopt merges
// the cursor rows (internal/clientfiles.CursorHooks): Cursor runs every
// matching hook of .cursor/hooks.json and of the Claude settings files
// alike (protocol/dialect, cursor.go).
const CursorHooksFile = clientfiles.CursorHooks

// maxOwnRowFile bounds how much of the caller's hook file crossLoaded reads.
const maxOwnRowFile = 1 << 20

// ownRow is how crossLoaded knows that a caller also runs hookwarden's own
// row for the call: the variable the caller sets for every hook it runs
// and the value it must hold ("" for any non-empty value), the file holding
// the caller's rows, and the text that ends the caller's row command for
// event in that file. events, when not nil, are the only events whose own
// row is known to judge every call this row would (any other event is
// judged here).
type ownRow struct {
	envVar, envValue string
	file             string
	title            string
	mark             func(caller, event string) string
	events           []string
}

// ownRows are the callers whose own rows crossLoaded looks for.
//
//   - copilot: COPILOT_CLI=1, which Copilot CLI 1.0.102 sets for every hook
//     it runs, Claude-format ones included (observed); its rows end
//     `.hookwarden/hook.sh copilot EVENT"` in .github/hooks/hookwarden.json
//     (templates launcherPrefix), which Copilot runs before the .claude
//     files, each for every call (observed).
//   - cursor: CURSOR_PROJECT_DIR, which Cursor sets for the hooks it runs
//     (radiusmethod/crow issue 417 quoting the Cursor hooks docs; not
//     observed); its rows hold `set -- cursor EVENT;` (templates
//     sourcedForm) in .cursor/hooks.json, and Cursor runs every matching
//     hook of every source, .cursor/hooks.json and .claude/settings.json
//     alike (cursor.com/docs/reference/third-party-hooks, "Priority Order").
//     The cursor pre-tool row is beforeShellExecution, which runs for every
//     shell command, so a shell call reaching the Claude pre-tool row is one
//     that row judges; the stop rows are both Cursor's stop. The cursor
//     pre-edit row (preToolUse) matches Cursor's own file tool names, and
//     which of them Cursor hands a Claude row under which name is not
//     documented, so a Claude pre-edit row called by Cursor judges the call
//     itself (judged twice rather than perhaps not at all).
//
// A switch rather than a map: a map literal is built at start-up, in every
// hook process, whether or not a caller is cross-loaded.
func ownRows(caller string) (ownRow, bool) {
	switch caller {
	case "copilot":
		return ownRow{envVar: "COPILOT_CLI", envValue: "1", file: CopilotHooksFile, title: "Copilot CLI",
			mark: func(caller, event string) string { return ".hookwarden/hook.sh " + caller + " " + event + `"` }}, true
	case "cursor":
		return ownRow{envVar: "CURSOR_PROJECT_DIR", file: CursorHooksFile, title: "Cursor",
			mark:   func(caller, event string) string { return "set -- " + caller + " " + event + ";" },
			events: []string{"pre-tool", "stop"}}, true
	}
	return ownRow{}, false
}

// crossLoaded returns why a call of row by caller (a client other than the
// row's own, dialect.Payload.Caller) is left to the caller's own hookwarden
// row, or "" when it is judged here. It is left only when all hold, each a
// positive sign that the caller's own row runs for this call:
//
//   - the caller is one of ownRows (Copilot CLI, Cursor), and the event is
//     one of its events;
//   - the registration table has the caller's row for the same event;
//   - the environment carries the caller's variable (ownRows);
//   - the governed root's hook file of the caller holds that row's command
//     (its mark).
//
// Anything else is judged here, in the caller's dialect: judging twice costs
// time, skipping a call no row judges would be an allow.
func crossLoaded(t *registration.Table, row registration.Row, caller, root string, lookup func(string) (string, bool)) string {
	own, known := ownRows(caller)
	if !known || caller == row.Client || t == nil {
		return ""
	}
	if own.events != nil && !slices.Contains(own.events, row.Event) {
		return ""
	}
	if _, ok := t.Lookup(caller, row.Event); !ok {
		return ""
	}
	if v, _ := lookup(own.envVar); v == "" || (own.envValue != "" && v != own.envValue) {
		return ""
	}
	f, err := os.Open(filepath.Join(root, filepath.FromSlash(own.file)))
	if err != nil {
		return ""
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxOwnRowFile))
	if err != nil || !bytes.Contains(data, []byte(own.mark(caller, row.Event))) {
		return ""
	}
	return own.title + " called this " + row.Client + " " + row.Event + " row and also runs hookwarden's own " + caller + " " + row.Event + " row (" + own.file + "), which judges the call; this row leaves it to that one so it is judged once"
}
