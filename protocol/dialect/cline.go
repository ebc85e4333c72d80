package dialect

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/protocol/verdict"
)

// Cline facts of the VS Code extension (documented and read from its
// source, not observed: the extension is not a registry package, so it never
// ran these rows). The npm CLI's facts, observed, follow below; `hookwarden
// clients` shows both rows observed on cline 3.0.65 (the CLI, recorded by
// engine/conformance TestRealCline).
// Sources: docs.cline.bot hook-reference (read 2026-12-01); cline/cline at
// 21cb8d2525, apps/vscode/src/core/hooks/hook-factory.ts; cline/cline at
// 0a3eba347c, src/shared/tools.ts (the ClineDefaultTool tool names).
//
//   - A project hook is an executable file .clinerules/hooks/PreToolUse
//     (named after the hook, no extension; macOS and Linux), beside the
//     global ~/Documents/Cline/Hooks/. Hooks run only after "Enable Hooks"
//     is checked in Cline's VS Code settings (Cline's hooks README,
//     .clinerules/hooks/README.md, 3.82.0), which no file in the
//     repository records.
//   - The input is one JSON object on stdin {clineVersion, hookName,
//     timestamp, taskId, workspaceRoots:[…], userId, preToolUse:{toolName,
//     parameters:{NAME: VALUE}}}; tool parameters are the model's tool call
//     arguments by name.
//   - Tool names (src/shared/tools.ts): execute_command (parameters.command),
//     write_to_file and replace_in_file (parameters.path), new_rule
//     (parameters.path, a rule file), apply_patch (a patch text in the
//     apply_patch envelope; the parameter name is not read: applypatch.go
//     finds the envelope in any string member).
//   - The answer is JSON {cancel, contextModification, errorMessage} on
//     stdout. Only cancel:true in valid JSON blocks, and it cancels the
//     whole task, not only the call. Every fault fails open: a non-zero
//     exit, no or bad JSON, and the 30 s bound all let the call through
//     (hook-factory.ts). So every answer of ours is exit 0 with JSON, and a
//     deny is {"cancel":true,"errorMessage":R}.
//
// The npm Cline CLI 3.0.65 (@cline/core and @cline/shared 0.0.86), run
// 2026-12-02 by engine/conformance TestRealCline and by hand against
// ../shared/e2e/mock_llm.py (payloads in testdata/clients/cline/3.0.65/,
// README "Clients beyond the first five"):
//
//   - It runs the same files (@cline/shared dist/storage/index.js, the hook
//     search paths: <workspace>/.clinerules/hooks, <workspace>/.cline/hooks,
//     ~/.cline/hooks, ~/Documents/Cline/Hooks), with no enable switch.
//   - hookName is "tool_call" (the CLI maps the file name PreToolUse to its
//     tool_call event, @cline/core dist/index.js), so both rows also answer
//     it (registration AlsoNative). preToolUse.parameters is the model's
//     tool input; workspaceRoots is as above; clineVersion was "".
//   - preToolUse.parameters holds a non-string value as its JSON text
//     (commands ["x"] arrived as "[\"x\"]"), so the payload's tool_call
//     {id, name, input}, also sent, is read instead when present: input is
//     the object the tool runs with.
//   - The shell tool is run_commands, parameters.commands an array in its
//     schema; the CLI's reader also takes a string there, or command, or
//     cmd, and argv objects {command, args} (clineRunCommands). The file
//     tool is editor, parameters.path absolute (its schema in the model
//     request).
//   - cancel:true aborts the whole run (finishReason aborted, exit 0); a
//     hook exiting 1 or printing no JSON let the call run (observed).
//
// The payload names no cwd; Cline runs commands and resolves relative paths
// in its first workspace root, so workspaceRoots[0] places the call (none,
// or a relative one, is refused by engine/hook baseDirs: a deny).

// decodeCline decodes a Cline PreToolUse (extension) or tool_call (CLI)
// payload for row (pre-tool: execute_command, run_commands; pre-edit: the
// file tools of the row's matcher). A tool
// the row does not match is a stated skip (Unjudged). Errors as Decode.
func decodeCline(row registration.Row, o object) (Payload, error) {
	var p Payload
	var err error
	if p.EventName, err = o.reqStr("hookName", "hookName"); err != nil {
		return p, err
	}
	if !row.HasNative(p.EventName) {
		return p, fmt.Errorf("member hookName: not %s, which the registration %s %s expects", row.NativeEvent, row.Client, row.Event)
	}
	if p.Cwd, err = clineEnvelope(o); err != nil {
		return p, err
	}
	pre, err := o.reqObj("preToolUse", "preToolUse")
	if err != nil {
		return p, err
	}
	// The CLI's preToolUse.parameters holds every non-string value as JSON
	// text (commands ["x"] arrives as the string "[\"x\"]", observed), so
	// when the CLI's tool_call is present its input, the object the tool
	// runs with, is read instead (below). Its name must be preToolUse's,
	// checked before the matcher so a mismatch is never a skip.
	tc, isCLI, err := o.obj("tool_call", "tool_call")
	if err != nil {
		return p, err
	}
	if isCLI {
		name, err := tc.reqStr("name", "tool_call.name")
		if err != nil {
			return p, err
		}
		if tn, _, _ := pre.str("toolName", "preToolUse.toolName"); name != tn {
			return p, fmt.Errorf("member tool_call.name: names another tool than preToolUse.toolName")
		}
	}
	var judged bool
	if p.ToolName, judged, err = judgedTool(row, pre, "toolName", "preToolUse.toolName"); err != nil || !judged {
		return unjudged(row, p, err)
	}
	params, err := pre.reqObj("parameters", "preToolUse.parameters")
	if err != nil {
		return p, err
	}
	raw, _ := pre.get("parameters")
	base := "preToolUse.parameters"
	if isCLI {
		if params, err = tc.reqObj("input", "tool_call.input"); err != nil {
			return p, err
		}
		raw, _ = tc.get("input")
		base = "tool_call.input"
	}
	if row.Event == "pre-tool" {
		if p.ToolName == "run_commands" {
			p.Command, err = clineRunCommands(params, base+".")
			return p, err
		}
		p.Command, err = params.reqStr("command", base+".command")
		return p, err
	}
	if p.ToolName == "apply_patch" {
		return p, decodePatch(raw, &p)
	}
	if p.FilePath, err = params.reqStr("path", base+".path"); err != nil {
		return p, err
	}
	if p.Cwd == "" && filepath.IsAbs(p.FilePath) {
		p.Cwd = filepath.Dir(p.FilePath)
	}
	p.ToolInput = raw
	return p, nil
}

// clineEnvelope checks the members every Cline payload carries
// (clineVersion, taskId, userId, timestamp, workspaceRoots: at most
// MaxWorkspacePaths) and returns the first workspace root, "" for none.
func clineEnvelope(o object) (string, error) {
	for _, k := range []string{"clineVersion", "taskId", "userId"} {
		if _, _, err := o.str(k, k); err != nil {
			return "", err
		}
	}
	if raw, ok := o.get("timestamp"); ok && jsonType(raw) != "a string" && jsonType(raw) != "a number" {
		return "", fmt.Errorf("member timestamp: want a string or a number, got %s", jsonType(raw))
	}
	roots, _, err := o.strArray("workspaceRoots", "workspaceRoots")
	if err != nil {
		return "", err
	}
	if len(roots) > MaxWorkspacePaths {
		return "", fmt.Errorf("member workspaceRoots: %d entries, at most %d", len(roots), MaxWorkspacePaths)
	}
	if len(roots) > 0 {
		return roots[0], nil
	}
	return "", nil
}

// clineRunCommands returns the commands of a Cline CLI run_commands call
// as one script, one command a line, so a deny of any one refuses the call.
// params is preToolUse.parameters. The forms follow the CLI's own reader
// (@cline/core 0.0.86 dist/index.js, the run_commands input normaliser):
// commands (a string or an array), else command, else cmd. A command in
// the argv form {command, args} (an object element, or command beside
// args) is refused: the CLI rebuilds its text with its own quoting, which
// we would have to guess. base prefixes member paths in errors.
func clineRunCommands(params object, base string) (string, error) {
	if raw, ok := params.get("commands"); ok {
		if jsonType(raw) == "a string" {
			return unquote(raw), nil
		}
		cmds, _, err := params.strArray("commands", base+"commands")
		if err != nil {
			return "", err
		}
		if len(cmds) == 0 {
			return "", fmt.Errorf("member %scommands: empty (no command to judge)", base)
		}
		return strings.Join(cmds, "\n"), nil
	}
	if _, ok := params.get("command"); ok {
		if _, ok := params.get("args"); ok {
			return "", fmt.Errorf("member %sargs: the argv form {command, args} is not judged", base)
		}
		return params.reqStr("command", base+"command")
	}
	if _, ok := params.get("cmd"); ok {
		return params.reqStr("cmd", base+"cmd")
	}
	return "", fmt.Errorf("member %scommands: missing", base)
}

// clineJSON is Cline's hook answer {"cancel":C} or, when cancelling,
// {"cancel":true,"errorMessage":R} (docs.cline.bot hook-reference).
func clineJSON(cancel bool, reason string) []byte {
	v := struct {
		Cancel       bool   `json:"cancel"`
		ErrorMessage string `json:"errorMessage,omitempty"`
	}{cancel, reason}
	b, _ := json.Marshal(v)
	return append(b, '\n')
}

// encodeCline renders a verdict for a Cline row, always exit 0 with JSON on
// stdout (Cline reads nothing else as a block): a deny, and an unknown
// kind, is {"cancel":true,"errorMessage":R} (Cline cancels the task); an
// allow is {"cancel":false}; a skip, halt or note is {"cancel":false} with
// its line on stderr.
func encodeCline(kind verdict.Kind, reason string) Answer {
	a, reason, quiet := quietAnswer(kind, reason)
	if quiet {
		a.Stdout = clineJSON(false, "")
		return a
	}
	return Answer{Stdout: clineJSON(true, reason)}
}
