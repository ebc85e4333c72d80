package dialect

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/protocol/verdict"
)

// GitHub Copilot CLI facts (all measured on @github/copilot 1.0.102 from the
// npm registry, pointed at a loopback model with COPILOT_PROVIDER_BASE_URL,
// COPILOT_PROVIDER_TYPE=openai and COPILOT_OFFLINE=true; the payloads are
// recorded in testdata/copilot/ and replayed by engine/conformance
// TestRealCopilot):
//
//   - Hook files: every *.json in .github/hooks/ of the git root (the
//     bundle's getHooksDir joins the git root with ".github/hooks"), in the
//     native schema {"version":1,"hooks":{EVENT:[{"type":"command",
//     "bash":CMD,"timeoutSec":N}]}}; an unknown top-level member
//     ("_generated_by") is accepted. Repository hooks load only in a
//     trusted folder (log: "Loading repo hooks in prompt mode (folder is
//     trusted or opt-in set)"; `copilot help environment`:
//     COPILOT_ALLOW_ALL=true trusts the working directory).
//   - The command runs through bash with cwd the git root even when the
//     session starts in a subdirectory (observed; the payload's cwd is the
//     session directory); the environment carries COPILOT_CLI=1,
//     COPILOT_PROJECT_DIR, CLAUDE_PROJECT_DIR (both the root) and, for a
//     .github/hooks file, COPILOT_HOOK_DIR.
//   - preToolUse stdin: {"sessionId","timestamp" (Unix milliseconds, a
//     number),"cwd","toolName","toolArgs":{…}} with no event name; the shell
//     tool is "bash" with toolArgs {command, description}; the edit tools are
//     "create" {path, file_text} and "edit" {path, old_str, new_str}.
//   - preToolUse answers: stdout {"permissionDecision":"deny",
//     "permissionDecisionReason":R} denies and R reaches the model, with
//     exit 0 or exit 2; exit 2 alone denies but the model sees only "hook
//     exited with code 2"; exit 1 denies ("hook errored"); non-JSON stdout
//     with exit 0 lets the call through; a hook that outlives timeoutSec lets
//     the call through (log: "timed out; allowing the tool call to proceed").
//   - agentStop stdin: {"sessionId","timestamp","cwd","transcriptPath",
//     "stopReason","stop_hook_active"}; stdout {"decision":"block",
//     "reason":R} continues the turn with R as the next user message and the
//     next call has stop_hook_active true; exit 2 does not continue.
//   - Claude-format files: the CLI also runs the hooks of
//     .claude/settings.json and .claude/settings.local.json, after the
//     .github/hooks ones, with a Claude-shaped payload that adds
//     "timestamp" as an ISO 8601 string: {"hook_event_name":"PreToolUse",
//     "session_id","timestamp","cwd","tool_name":"Bash","tool_input":{…}};
//     Stop adds "transcript_path","stop_reason","stop_hook_active". There
//     the Claude answer {"hookSpecificOutput":{"permissionDecision":"deny",
//     …}} denies with its reason, exit 2 denies without it, and a Stop exit 2
//     does not continue (only {"decision":"block"} does).

// copilotDeny is Copilot's preToolUse deny on stdout.
func copilotDeny(reason string) []byte {
	v := struct {
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
	}{"deny", reason}
	b, _ := json.Marshal(v)
	return append(b, '\n')
}

// blockJSON is the stop answer that continues the turn,
// {"decision":"block","reason":R}: Copilot CLI 1.0.102's agentStop (native
// and Claude-format files alike, observed) and Claude Code's Stop (hooks
// reference, "decision": "block" prevents Claude from stopping).
func blockJSON(reason string) []byte {
	v := struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}{"block", reason}
	b, _ := json.Marshal(v)
	return append(b, '\n')
}

// claudeDenyJSON is Claude's structured PreToolUse deny,
// {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":R}}:
// Claude Code reads it on exit 0 (hooks reference); Copilot CLI 1.0.102
// reads it from a Claude-format file (observed).
func claudeDenyJSON(reason string) []byte {
	type hso struct {
		HookEventName            string `json:"hookEventName"`
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
	}
	v := struct {
		HookSpecificOutput hso `json:"hookSpecificOutput"`
	}{hso{"PreToolUse", "deny", reason}}
	b, _ := json.Marshal(v)
	return append(b, '\n')
}

func decodeCopilot(row registration.Row, o object) (Payload, error) {
	var p Payload
	var err error
	// The native payload names no event; a member that does belongs to a
	// Claude-format payload, which this row never receives.
	if _, ok := o.get("hook_event_name"); ok {
		return p, errors.New("member hook_event_name: a Claude-format payload, not the Copilot CLI native form this row expects")
	}
	if p.Cwd, _, err = o.str("cwd", "cwd"); err != nil {
		return p, err
	}
	if _, _, err = o.str("sessionId", "sessionId"); err != nil {
		return p, err
	}
	if raw, ok := o.get("timestamp"); ok && jsonType(raw) != "a number" {
		return p, fmt.Errorf("member timestamp: want a number, got %s", jsonType(raw))
	}
	switch row.Event {
	case "pre-tool", "pre-edit":
		var judged bool
		if p.ToolName, judged, err = judgedTool(row, o, "toolName", "toolName"); err != nil || !judged {
			return unjudged(row, p, err)
		}
		args, err := o.reqObj("toolArgs", "toolArgs")
		if err != nil {
			return p, err
		}
		if row.Event == "pre-tool" {
			if p.Command, err = args.reqStr("command", "toolArgs.command"); err != nil {
				return p, err
			}
			return p, nil
		}
		if p.FilePath, err = args.reqStr("path", "toolArgs.path"); err != nil {
			return p, err
		}
		p.ToolInput, _ = o.get("toolArgs")
	case "stop":
		if p.StopHookActive, _, err = o.boolean("stop_hook_active", "stop_hook_active"); err != nil {
			return p, err
		}
		for _, k := range []string{"transcriptPath", "stopReason"} {
			if _, _, err := o.str(k, k); err != nil {
				return p, err
			}
		}
	}
	return p, nil
}

// encodeCopilot renders v for a Copilot CLI native row (see the facts
// above): a pre-tool or pre-edit deny is the JSON deny on stdout with the
// reason on stderr and exit 2 (the JSON carries the reason to the model;
// exit 2 alone still denies should the JSON not be read); a stop deny is
// {"decision":"block"} with exit 0 (exit 2 does not continue the turn); a
// halt lets the agent stop, with the reason on stderr; a skip or a note is
// exit 0 with its line on stderr.
func encodeCopilot(row registration.Row, kind verdict.Kind, reason string) Answer {
	a, reason, quiet := quietAnswer(kind, reason)
	if quiet {
		return a
	}
	if row.Event == "stop" {
		return Answer{Stdout: blockJSON(reason)}
	}
	return Answer{Stdout: copilotDeny(reason), Stderr: line(reason), Exit: 2}
}

// quietAnswer is the answer of a verdict that lets the call through for
// the clients whose stdout carries only a deny (Copilot CLI, Cursor,
// Cline): a skip, a halt (the agent may stop) or a note is exit 0 with its
// line on stderr, an allow is exit 0 with nothing. ok is false for a deny
// and an unknown kind, which the caller answers as a deny with the
// returned reason: the verdict's own, or unknownVerdict for a kind it does
// not know (never an allow).
func quietAnswer(kind verdict.Kind, reason string) (Answer, string, bool) {
	switch kind {
	case verdict.Skip:
		return Answer{Stderr: line(SkipPrefix + reason)}, "", true
	case verdict.Halt:
		return Answer{Stderr: line("hookwarden: halt: " + reason)}, "", true
	case verdict.Context:
		return Answer{Stderr: line("hookwarden: note: " + reason)}, "", true
	case verdict.Allow:
		return Answer{}, "", true
	case verdict.Deny:
		return Answer{}, reason, false
	}
	return Answer{}, unknownVerdict, false
}
