package dialect

import (
	"fmt"
	"strings"

	"github.com/hookwarden/hookwarden/protocol/registration"
)

// Devin CLI facts (documented, not observed: Devin Desktop, the editor that
// followed Windsurf, runs the Devin CLI agent, and no Devin package is in
// the npm registry list here, so no real Devin ran these rows; `hookwarden
// clients` shows them unverified). Sources, read 2026-12-05 (the pages
// state no version):
//
//   - docs.devin.ai/cli/extensibility/hooks/overview: hooks live in the
//     project's .devin/hooks.v1.json, Claude Code's hook format with the
//     events at the top level ({"PreToolUse": [{"matcher": REGEX on
//     tool_name, "hooks": [{"type": "command", "command": C, "timeout":
//     SECONDS}]}]}); hooks in .claude/ are read too. A command hook gets the
//     event as JSON on stdin; exit 0 goes on, exit 2 blocks (the action is
//     denied), any other code is an error that is logged; stdout may carry
//     {"decision": "approve"|"block"|"deny", "reason"}. DEVIN_PROJECT_DIR is
//     set to the project root.
//   - docs.devin.ai/cli/extensibility/hooks/lifecycle-hooks: PreToolUse
//     stdin names tool_name (exec, edit, mcp__…) and tool_input (exec:
//     {"command", "shell_id"}). The page names no hook_event_name and no
//     cwd, and no field of the edit tool's input, so there is a pre-tool row
//     only.
//
// decodeDevin reads what the pages document and nothing more: tool_name
// (the matcher's subject), tool_input.command for the shell tool; a
// hook_event_name or cwd, when present (Claude's format carries both), must
// be a string, and the event must then be the row's. The answer is the
// claude column of Encode: exit 2 with the reason on stderr.
func decodeDevin(row registration.Row, o object) (Payload, error) {
	var p Payload
	var err error
	var present bool
	if p.EventName, present, err = o.str("hook_event_name", "hook_event_name"); err != nil {
		return p, err
	}
	if present && !row.HasNative(p.EventName) {
		return p, fmt.Errorf("member hook_event_name: not %s, which the registration %s %s expects", strings.Join(row.NativeEvents(), " or "), row.Client, row.Event)
	}
	if p.Cwd, _, err = o.str("cwd", "cwd"); err != nil {
		return p, err
	}
	var judged bool
	if p.ToolName, judged, err = judgedTool(row, o, "tool_name", "tool_name"); err != nil || !judged {
		return unjudged(row, p, err)
	}
	in, err := o.reqObj("tool_input", "tool_input")
	if err != nil {
		return p, err
	}
	if p.Command, err = in.reqStr("command", "tool_input.command"); err != nil {
		return p, err
	}
	return p, nil
}
