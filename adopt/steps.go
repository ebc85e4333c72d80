// Package adopt plans and applies the adoption of repositories by hookwarden
// (`hookwarden adopt`) and their re-application (`hookwarden conform`), one
// repository or a fleet at a time, and reports what it did.
//
// A repository's run has two phases. Planning reads every file a step would
// touch (internal/safewrite.Preflight: symlinks, FIFOs and devices refused),
// computes each new content and decides every backup; any error there fails
// the repository before one byte is written. Applying then writes the planned
// files in a fixed order, each by compare-and-swap against the bytes its plan
// read, so a file changed in between is refused, not overwritten. In a fleet
// run, every repository is planned before any is written.
//
// Files adopt writes in a repository (DESIGN.md "Files in a governed
// repository"): .hookwarden.yaml (created once, never rewritten), the managed
// block of .gitignore, .hookwarden/hook.py and .hookwarden/interceptor.py,
// .agents/plugins/hookwarden/{plugin.json,hooks.json,hook.py} (agy),
// .opencode/plugins/hookwarden.js (opencode), our rows in
// .claude/settings.json, .codex/hooks.json and .gemini/settings.json,
// with lefthook selected .hookwarden/lefthook.yml and the managed extends:
// block of the repository's lefthook config (lefthook.go), and copies of
// replaced files under .hookwarden/backups/<UTC stamp>/.
//
// When AGENTS.md exists at the root, the context step also writes the files
// compile-context generates from it (CLAUDE.md, GEMINI.md, AGENTS.readonly.md;
// templates/agentcontext), never over a file hookwarden did not generate.
//
// Write order: git-ignore (so backups are ignored before any file is
// replaced), the backups, the rendered files (launcher, interceptor,
// agy-plugin, opencode-plugin), the context files, the client settings files (agent-hooks:
// claude, codex, gemini), and last the manifest `.hookwarden.yaml`, which is
// what marks a repository governed: an interrupted adopt therefore leaves a
// repository that conform does not treat as governed, and rerunning adopt
// converges.
package adopt

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hookwarden/hookwarden/settings"
	"github.com/hookwarden/hookwarden/templates"

	"github.com/hookwarden/hookwarden/internal/clientfiles"
)

// Adopt step names (issue 3 item 2 and issue 4). Every step but the manifest
// may be declined.
const (
	StepManifest   = "manifest"
	StepGitIgnore  = "git-ignore"
	StepAgentHooks = "agent-hooks"
	// StepContext compiles AGENTS.md at the repository root into each
	// selected client's context file (CLAUDE.md, GEMINI.md, the read-only
	// projection AGENTS.readonly.md; templates/agentcontext, issue 7). It runs only
	// when AGENTS.md exists.
	StepContext = "context"
)

// Steps returns, as a new slice, every step name in write order, the
// manifest named first as in the issue (it is written last), then the
// --decline words of the plan's steps (planSteps).
func Steps() []string {
	out := []string{StepManifest}
	for _, st := range planSteps() {
		out = append(out, st.names...)
	}
	return out
}

// RegisteredEvents returns the neutral events adopt, conform and audit
// register for a manifest's hooks.events (nil: templates.DefaultEvents()): the list as
// written, plus pre-edit right after pre-tool and pre-skill-shell at the
// end when the list has pre-tool but not them. Both are parts of the pre-tool gate:
// pre-edit covers the clients' file-edit tools, pre-skill-shell the shell
// commands a Claude Code (2.1.332+) skill or slash command runs inline,
// which no tool row sees. So a manifest written before they existed
// (`events: [pre-tool, stop]`) gets them on the next conform, and audit
// reports them missing until then (pre-skill-shell only where the client
// version accepts it: templates.RowAccepted). It returns a new slice.
func RegisteredEvents(events []string) []string {
	if events == nil {
		events = templates.DefaultEvents()
	}
	out := make([]string, 0, len(events)+2)
	for _, e := range events {
		out = append(out, e)
		if e == "pre-tool" && !slices.Contains(events, "pre-edit") {
			out = append(out, "pre-edit")
		}
	}
	if slices.Contains(events, "pre-tool") && !slices.Contains(events, "pre-skill-shell") {
		// Last, so the rows adopt wrote before it existed keep their
		// places (and lines) in the client files.
		out = append(out, "pre-skill-shell")
	}
	return out
}

// AgentEvents returns, as a new slice, the agent-traffic events (issue 19)
// in registration order: registered only for a manifest with a `dispatch:`
// section (FileEvents).
func AgentEvents() []string {
	return []string{"pre-dispatch", "dispatch-receipt", "dispatch-abort", "subagent-start", "post-return", "pre-handback",
		"handback-receipt", "handback-abort"}
}

// WithDispatch returns events (RegisteredEvents' result) without the
// agent-traffic events when dispatch is false, and with every one of them
// appended (those not already listed) when it is true: the dispatch rows
// follow the manifest's `dispatch:` section, not hooks.events. It returns a
// new slice.
func WithDispatch(events []string, dispatch bool) []string {
	out := make([]string, 0, len(events)+len(AgentEvents()))
	for _, e := range events {
		if !slices.Contains(AgentEvents(), e) {
			out = append(out, e)
		}
	}
	if dispatch {
		out = append(out, AgentEvents()...)
	}
	return out
}

// FileEvents returns the neutral events adopt, conform, audit and doctor
// register for the manifest f: RegisteredEvents(f.Hooks.Events) through
// WithDispatch(…, f.Dispatch != nil).
func FileEvents(f settings.File) []string {
	return WithDispatch(RegisteredEvents(f.Hooks.Events), f.Dispatch != nil)
}

// SettingsFile returns the repository-relative settings file adopt merges
// client's rows into, and whether the client has one (claude
// .claude/settings.json, codex .codex/hooks.json, gemini
// .gemini/settings.json, …): internal/clientfiles.SettingsFile, the one
// table of the clients' repository hook files, with their sources.
func SettingsFile(client string) (string, bool) {
	return clientfiles.SettingsFile(client)
}

// SettingsClients returns, as a new slice, the clients that have a settings
// file (SettingsFile), in internal/clientfiles order: claude, codex,
// gemini, then the opt-in cursor, windsurf, qwen, droid and devin.
// These are the clients of the agent-hooks step.
func SettingsClients() []string {
	var out []string
	for _, f := range clientfiles.HookFiles() {
		if f.Written {
			out = append(out, f.Client)
		}
	}
	return out
}

// launcherCallers are the steps whose files call the launcher: the client
// rows (every registration form runs it; templates.RegistrationCommand) and
// the opencode plugin (which runs it itself; templates' launcherPrefix).
var launcherCallers = []string{StepAgentHooks, templates.StepOpencodePlugin}

// ValidateDecline checks every name in decline is a step name other than the
// manifest (which cannot be declined: it is what marks a repository
// governed), and that declining the launcher leaves nothing calling it: the
// launcher may be declined only together with every step whose files call
// it (launcherCallers), since a row calling a missing launcher fails every
// call it guards (issue 15). It returns an error naming the first bad entry
// and the valid names, or the steps still calling the launcher.
func ValidateDecline(decline []string) error {
	for _, d := range decline {
		if d == StepManifest {
			return fmt.Errorf("decline %q: the manifest cannot be declined (it marks the repository governed)", d)
		}
		if steps := Steps(); !slices.Contains(steps, d) {
			return fmt.Errorf("decline %q: unknown step (steps: %s)", d, strings.Join(steps[1:], ", "))
		}
	}
	if slices.Contains(decline, templates.StepLauncher) {
		var calling []string
		for _, c := range launcherCallers {
			if !slices.Contains(decline, c) {
				calling = append(calling, c)
			}
		}
		if len(calling) > 0 {
			return fmt.Errorf("decline %q: the files of %s call the launcher and would call a missing file on every hook; decline %s too, or keep the launcher", templates.StepLauncher, strings.Join(calling, " and "), strings.Join(calling, " and "))
		}
	}
	return nil
}

// ValidateClients checks every name is a client adopt can govern (one of
// templates.GovernableClients) and that none repeats. It returns an error naming the
// first bad entry.
func ValidateClients(clients []string) error {
	seen := map[string]bool{}
	all := templates.GovernableClients()
	for _, c := range clients {
		if !slices.Contains(all, c) {
			return fmt.Errorf("client %q: not one adopt governs (clients: %s)", c, strings.Join(all, ", "))
		}
		if seen[c] {
			return fmt.Errorf("client %q: named twice", c)
		}
		seen[c] = true
	}
	return nil
}
