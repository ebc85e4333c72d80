package dialect

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/protocol/verdict"
)

// Cursor facts (documented, not observed: Cursor does not install from a
// package registry, so no real Cursor ran these rows; `hookwarden clients`
// shows them unverified). Sources, read 2026-12-01:
//
//   - Hook files: <project>/.cursor/hooks.json, ~/.cursor/hooks.json and an
//     enterprise file; every matching hook of every file runs (Cursor docs,
//     https://cursor.com/docs/reference/third-party-hooks, "Priority Order":
//     "All matching hooks from every source run"; blog.gitbutler.com,
//     "Deep Dive into the new Cursor Hooks"). Shape {"version":1,"hooks":
//     {EVENT:[{"command":C,"timeout":SECONDS,"matcher":M}]}}: a flat list of
//     handlers per event, no matcher groups (https://cursor.com/docs/agent/hooks
//     as reproduced by cupcake.eqtylab.io/reference/harnesses/cursor and the
//     hook files of braintrustdata/braintrust-cursor-extension).
//   - Every input carries hook_event_name, conversation_id, generation_id and
//     workspace_roots, and optionally model, cursor_version and user_email
//     (cupcake.eqtylab.io/reference/harnesses/cursor, "Common Input Fields").
//   - beforeShellExecution input adds command and cwd; its answer is stdout
//     {"permission":"allow"|"deny"|"ask","user_message":…,"agent_message":…}
//     (same page, "Supported Events"). Exit codes follow Claude Code's: 0
//     success, 2 blocks (radiusmethod/crow issue 417 quoting the Cursor hooks
//     docs: "Exit code 0/2 convention matches Claude Code behavior for
//     compatibility").
//   - stop input adds status and loop_count; stdout {"followup_message":M}
//     submits M as the next user message, at most 5 automatic follow-ups
//     (eqtylab/cupcake pull 77, "Stop hook agent looping"), so loop_count
//     above 0 is a repeated pass.
//   - The hook environment carries CURSOR_PROJECT_DIR (the project root) and
//     CLAUDE_PROJECT_DIR as its alias (crow issue 417, quoting the docs).
//   - preToolUse runs before every agent tool ("Generic tool use hooks
//     (fires for all tools)", cursor.com/docs/hooks.md, read 2026-12-02),
//     with the common members, tool_name and tool_input; a handler's
//     "matcher" selects tools by name (hooks.json files matching "Write",
//     "StrReplace", "Edit" alone: the Kaden package's cursor hooks.json on
//     the PowerShell Gallery; "Shell|Read|Write|Grep": rohitg00/agentmemory
//     plugin/cursor/hooks.json), and its answer is the permission form of
//     beforeShellExecution (pivanov.github.io/agent-hooks-bridge, Cursor
//     adapter: "Permission events: preToolUse, beforeShellExecution, …").
//     The file tools and their arguments are not in the hooks docs; what
//     was found: Write {path, contents}, StrReplace {path, old_string,
//     new_string, replace_all}, Delete {path}, EditNotebook, ApplyPatch (a
//     patch text), from Cursor agent transcripts as read by hook tooling
//     (HPCPerfStats' Cursor hook helpers: EDIT_TOOL_NAMES and the target
//     keys path, file_path, target_file, target_notebook), and
//     beforeMCPExecution's tool_input sent as a JSON string
//     (cupcake.eqtylab.io/reference/harnesses/cursor). So the pre-edit row
//     (decodeCursorEdit) takes tool_input as an object or a string holding
//     one, and the target from path or file_path (both present and
//     different: refused; neither: refused, a deny). ApplyPatch carries a
//     patch text: every file its apply_patch envelope names is judged
//     (applypatch.go).
//   - beforeSubmitPrompt {prompt, attachments} answers {continue,
//     user_message} only: it "does NOT support context injection"
//     (cupcake.eqtylab.io/reference/harnesses/cursor, read 2026-12-02;
//     pivanov.github.io/agent-hooks-bridge drops additional_context there
//     with a warning). Our prompt rows judge nothing and exist to add the
//     clock line as context, so there is no cursor prompt row.

// cursorDenyJSON is Cursor's permission deny on stdout: user_message for
// the person, agent_message for the model.
func cursorDenyJSON(reason string) []byte {
	w := struct {
		Permission   string `json:"permission"`
		UserMessage  string `json:"user_message"`
		AgentMessage string `json:"agent_message"`
	}{"deny", reason, reason}
	b, _ := json.Marshal(w)
	return append(b, '\n')
}

// cursorFollowupJSON is the stop answer that continues the turn with
// reason as the next user message.
func cursorFollowupJSON(reason string) []byte {
	w := struct {
		FollowupMessage string `json:"followup_message"`
	}{reason}
	b, _ := json.Marshal(w)
	return append(b, '\n')
}

// decodeCursor decodes a payload of Cursor's own hooks.json rows. The event
// must be the row's native event; a member the Claude rows use to name
// another caller (Copilot's ISO "timestamp") is refused, and a payload in
// Claude's shape (tool_name, tool_input) is not Cursor's beforeShellExecution.
func decodeCursor(row registration.Row, o object) (Payload, error) {
	var p Payload
	var err error
	if p.EventName, err = o.reqStr("hook_event_name", "hook_event_name"); err != nil {
		return p, err
	}
	if p.EventName != row.NativeEvent {
		return p, fmt.Errorf("member hook_event_name: not %s, which the registration %s %s expects", row.NativeEvent, row.Client, row.Event)
	}
	for _, k := range []string{"conversation_id", "generation_id", "cursor_version", "model", "user_email"} {
		if _, _, err := o.str(k, k); err != nil {
			return p, err
		}
	}
	roots, _, err := o.strArray("workspace_roots", "workspace_roots")
	if err != nil {
		return p, err
	}
	if len(roots) > MaxWorkspacePaths {
		return p, fmt.Errorf("member workspace_roots: %d entries, at most %d", len(roots), MaxWorkspacePaths)
	}
	p.WorkspacePaths = roots
	if p.Cwd, _, err = o.str("cwd", "cwd"); err != nil {
		return p, err
	}
	switch row.Event {
	case "pre-tool":
		if p.Command, err = o.reqStr("command", "command"); err != nil {
			return p, err
		}
		p.ToolName = "Shell"
	case "pre-edit":
		var judged bool
		if p.ToolName, judged, err = judgedTool(row, o, "tool_name", "tool_name"); err != nil || !judged {
			return unjudged(row, p, err)
		}
		if p.ToolName == "ApplyPatch" {
			raw, ok := o.get("tool_input")
			if !ok {
				return p, fmt.Errorf("member tool_input: missing")
			}
			if err = decodePatch(raw, &p); err != nil {
				return p, err
			}
		} else if p.FilePath, p.ToolInput, err = decodeCursorEdit(o); err != nil {
			return p, err
		}
	case "stop":
		if _, _, err := o.str("status", "status"); err != nil {
			return p, err
		}
		if raw, ok := o.get("loop_count"); ok {
			n, err := strconv.ParseInt(string(raw), 10, 64)
			if jsonType(raw) != "a number" || err != nil || n < 0 {
				return p, fmt.Errorf("member loop_count: want an integer >= 0, got %s", jsonType(raw))
			}
			p.StopHookActive = n > 0
		}
	}
	if p.Cwd == "" && len(p.WorkspacePaths) == 0 {
		return p, fmt.Errorf("members cwd and workspace_roots: the payload names no directory")
	}
	return p, nil
}

// decodeCursorEdit reads a preToolUse file tool's tool_input (an object,
// or a string holding one JSON object) and returns its target (path or
// file_path; see the facts above) and the object's raw bytes for the edit
// guard. Every other shape is an error, so the call is denied.
func decodeCursorEdit(o object) (target string, raw []byte, err error) {
	raw, ok := o.get("tool_input")
	if !ok {
		return "", nil, fmt.Errorf("member tool_input: missing")
	}
	var in object
	switch jsonType(raw) {
	case "an object":
		in = members(raw)
	case "a string":
		raw = []byte(unquote(raw))
		if in, err = parseObject(raw); err != nil {
			return "", nil, fmt.Errorf("member tool_input: a string that is not one JSON object (%v)", err)
		}
	default:
		return "", nil, fmt.Errorf("member tool_input: want an object, got %s", jsonType(raw))
	}
	path, hasPath, err := in.str("path", "tool_input.path")
	if err != nil {
		return "", nil, err
	}
	filePath, hasFilePath, err := in.str("file_path", "tool_input.file_path")
	if err != nil {
		return "", nil, err
	}
	switch {
	case hasPath && hasFilePath && path != filePath:
		return "", nil, fmt.Errorf("members tool_input.path and tool_input.file_path name different files; the target is not clear")
	case hasPath:
		return path, raw, nil
	case hasFilePath:
		return filePath, raw, nil
	}
	return "", nil, fmt.Errorf("member tool_input.path: missing (nor tool_input.file_path)")
}

// encodeCursor renders v for a Cursor row (see the facts above): a
// pre-tool deny is the permission deny JSON on stdout with the reason on
// stderr and exit 2 (either alone blocks); a stop deny is the
// followup_message on exit 0 (the turn continues with the reason); a halt
// lets the agent stop with the reason on stderr; a skip or a note is exit 0
// with its line on stderr; an allow is exit 0 with nothing on stdout (an
// explicit "permission":"allow" would also skip Cursor's own approval).
func encodeCursor(row registration.Row, kind verdict.Kind, reason string) Answer {
	a, reason, quiet := quietAnswer(kind, reason)
	if quiet {
		return a
	}
	if row.Event == "stop" {
		return Answer{Stdout: cursorFollowupJSON(reason)}
	}
	return Answer{Stdout: cursorDenyJSON(reason), Stderr: line(reason), Exit: 2}
}
