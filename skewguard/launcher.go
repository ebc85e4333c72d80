package skewguard

import (
	_ "embed"

	"github.com/hookwarden/hookwarden/protocol/registration"
)

// The launcher's two sources. templates renders each into a governed
// repository (.hookwarden/hook.sh and .hookwarden/hook.py, its header line
// added) by filling in its placeholders; nothing else reads them.
var (
	//go:embed hook.sh
	shSource string
	//go:embed hook.py
	pySource string
)

// ShSource returns the source of the sh launcher (hook.sh beside this file),
// POSIX sh that implements the probe protocol of the package doc. It holds
// each of these placeholders once, for templates to fill in: the row table
// '__HOOKWARDEN_ROWS__' (";client/event=deadline_ms;" per row, DeadlineMillis),
// the stated-skip prefix '__HOOKWARDEN_SKIP_PREFIX__' (protocol/dialect.SkipPrefix,
// inside single quotes), __HOOKWARDEN_PROBE_MS__ (ProbeMillis),
// __HOOKWARDEN_MAX_INPUT__ (protocol/dialect.MaxInputBytes) and
// __HOOKWARDEN_GUARD_WORDS__ (sh case patterns of policy.GuardFileWords, by
// which a pre-edit with no engine installed is refused when its payload may
// name a guard file).
func ShSource() string { return shSource }

// PySource returns the source of the Python launcher (hook.py beside this
// file; Python 3.8+ standard library), the same protocol for rows of earlier
// versions. It holds the placeholder __HOOKWARDEN_TABLE__ once: a Python
// string literal holding the JSON of the rows, the probe cap and the bounds
// (templates renders it).
func PySource() string { return pySource }

// ProbeMillis caps one listing probe of an engine candidate, in
// milliseconds (the probe runs `hookwarden hook`, which prints a constant).
const ProbeMillis = 2000

// DeadlineMillis returns the launcher's deadline for a row, in milliseconds
// from the launcher's start: the row's client timeout less a margin of
// max(1000 ms, a tenth of the timeout), so the launcher's answer, fail-closed
// or not, reaches the client before the client gives up on the hook (Claude
// Code and Codex kill a hook at its timeout; Gemini CLI 0.61.0 sends SIGTERM
// at hookConfig.timeout, bundle executeCommandHook). It is always above the
// row's engine budget for the rows of registration.Default.
func DeadlineMillis(r registration.Row) int {
	t := int(r.ClientTimeout().Milliseconds())
	margin := t / 10
	if margin < 1000 {
		margin = 1000
	}
	return t - margin
}

// ProbeAnswer returns what the engine prints when asked for its listing
// (`hookwarden hook` with no arguments, empty stdin): t's served pairs
// (registration.Table.Listing, one "client event" line each), followed by
// the line BoundedMarker when getenv(ListingEnv) is ListingLauncher, the sh
// launcher's probe: this engine answers every call within the row's budget
// by itself (engine/hook.Run bounds stdin and the judges), so the launcher
// runs it without a watchdog.
func ProbeAnswer(t *registration.Table, getenv func(string) string) string {
	listing := t.Listing()
	if getenv(ListingEnv) == ListingLauncher {
		listing += BoundedMarker + "\n"
	}
	return listing
}
