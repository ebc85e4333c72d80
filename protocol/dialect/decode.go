// Package dialect decodes each client's hook payload into one neutral
// Payload and encodes a verdict.Verdict in that client's own answer form.
//
// Client facts and their sources:
//
//   - claude (Claude Code 2.1.328): stdin is one JSON object with
//     hook_event_name, tool_name, tool_input.command (Bash), cwd; Stop adds
//     stop_hook_active and last_assistant_message. Exit 2 blocks and stderr is
//     the reason. Recorded in ../../../shared/e2e/README.md section 1 and
//     payloads/claude/. Edit tools carry tool_input.file_path (Edit,
//     MultiEdit, Write) or tool_input.notebook_path (NotebookEdit): the
//     FileEditInput, FileWriteInput and NotebookEditInput types of
//     sdk-tools.d.ts in @anthropic-ai/claude-code 2.1.328. Claude Code
//     2.1.332 adds PreSkillShellCommand (the pre-skill-shell row): a skill's
//     or slash command's inline shell command, before it runs, with
//     tool_name Bash or PowerShell and tool_input.command, decoded like a
//     Bash PreToolUse call; exit 2 keeps the command from running (2.1.332
//     bundle; recorded in testdata/clients/claude/2.1.332/pre-skill-shell.*).
//   - codex (Codex CLI 0.169.0): the same names as Claude; tool_name is "Bash"
//     for exec_command; Stop's last_assistant_message may be null (the
//     binary's embedded schema stop.command.input types it NullableString).
//     Exit 2 needs a non-empty stderr ("PreToolUse hook exited with code 2 but
//     did not write a blocking reason to stderr"). Section 2 of the e2e README.
//     Its apply_patch tool (a freeform custom tool for the models whose
//     catalog entry sets apply_patch_tool_type, gpt-5.5 among them) fires
//     PreToolUse with tool_name "apply_patch" and tool_input {"command":
//     PATCH}; exit 2 or the deny JSON stops the patch (measured 2026-12-02,
//     testdata/clients/codex/0.169.0/pre-edit.apply-patch.json); the codex
//     pre-edit row judges every file the patch names (applypatch.go).
//   - gemini (Gemini CLI 0.61.0): hook_event_name BeforeTool / AfterTool /
//     AfterAgent; run_shell_command's tool_input.command; write_file and
//     replace carry tool_input.file_path (PARAM_FILE_PATH = "file_path" in the
//     0.61.0 bundle); AfterAgent carries prompt_response and
//     stop_hook_active. Exit 2 blocks with stderr as the reason. Section 3.
//   - agy (Antigravity CLI): stdin {conversationId, stepIdx,
//     toolCall:{name, args}, transcriptPath, workspacePaths,
//     artifactDirectoryPath}, camelCase, tool names lower-case (run_command),
//     argument names PascalCase (CommandLine); the answer is one JSON object
//     {"decision":"allow"|"deny","reason":…} on stdout, and a missing or
//     malformed decision fails closed. Sources: websentry-ai/setup pull 104
//     ("Verified contract", agy 1.0.5) and the safe-chains crate's
//     targets/agy module docs (agy 1.1.2, live-verified deny).
//   - opencode (opencode 1.18.33): the rendered plugin pipes
//     JSON.stringify({input, output}) of tool.execute.before, i.e.
//     {"input":{"tool":"bash","sessionID":…,"callID":…},
//     "output":{"args":{"command":…,"description":…}}}, optionally with a
//     top-level "cwd" (the plugin context's directory). Recorded in
//     payloads/opencode/tool.execute.before.json, section 4.
//   - prompt rows (the clock line): Claude Code and Codex UserPromptSubmit
//     and Gemini CLI BeforeAgent carry hook_event_name, cwd and prompt (a
//     string when present); agy PreInvocation the common members and
//     invocationNum (an integer when present); the opencode plugin's
//     transform sends {"cwd"}. Sources per row in the registration table.
//   - lefthook: lefthook runs jobs, not agent tools, so its stdin is the
//     agent's own hook payload forwarded to a lefthook job (a client hook
//     calls `lefthook run <hook>` and the job sets `use_stdin: true`;
//     evilmartians/lefthook issue 1433 "Add LLM hooks management support"):
//     a Claude-family object whose tool_input.command is the command;
//     hook_event_name, when present, must be PreToolUse or BeforeTool. The
//     environment event reads no payload (stdin may be empty).
//
// Decoding is strict: exactly one JSON object of valid UTF-8, no duplicate
// member names, no trailing data; a known member of the wrong type is an
// error, never a default; a hook_event_name that contradicts the
// registration is an error. Unknown members are ignored (clients add fields
// in minor versions). Errors never quote the payload.
package dialect

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/hookwarden/hookwarden/protocol/registration"
)

// MaxWorkspacePaths is the most agy workspacePaths entries accepted (issue 2,
// item 3); more is an error rather than a silently ignored tail.
const MaxWorkspacePaths = 16

// Payload is the neutral content of one hook call.
//
// EventName is the client's hook_event_name as sent ("" for agy, opencode and
// a lefthook payload without it). ToolName is the tool the call is about
// (claude/codex/gemini tool_name, agy toolCall.name, opencode input.tool).
// Unjudged, when non-empty, says why this call is outside the registration
// (e.g. a tool the row does not match) and the engine answers a stated skip
// with it. Command is the shell command text (pre-tool). FilePath is the
// edited path (pre-edit; also post-tool when present). ToolInput is the raw
// JSON object of tool_input as sent (pre-edit only: the edit guard applies
// the edit it describes; nil otherwise). Cwd is the cwd member
// as sent ("" when absent). WorkspacePaths are agy's workspace roots in
// order. LastMessage is the agent's final text (stop: last_assistant_message,
// or Gemini's prompt_response). StopHookActive is true when the client says
// a stop hook already continued this turn (stop_hook_active; agy: an
// executionNum above 1). Caller is the client that sent a payload to
// another client's row ("" when the row's own client sent it): "copilot"
// or "cursor" on a Claude row (see Caller); the answer is then encoded
// for the caller (EncodeFor).
type Payload struct {
	Caller    string
	EventName string
	ToolName  string
	Unjudged  string
	Command   string
	FilePath  string
	ToolInput []byte
	Cwd       string
	// Targets is every file an ApplyPatch call names (FilePath is the
	// first; nil for the other tools, whose one target is FilePath):
	// Factory Droid's and Cursor's ApplyPatch (applypatch.go).
	Targets        []string
	WorkspacePaths []string
	LastMessage    string
	StopHookActive bool
	// Agent traffic (issue 19): SessionID is session_id; ToolUseID is
	// tool_use_id (Claude's dispatch rows); ToolResponse is the raw
	// tool_response object of dispatch-receipt (nil when absent); AgentID
	// and AgentType are the subagent's agent_id and agent_type
	// (subagent-start, post-return). ToolInput holds the raw tool_input of
	// pre-dispatch, dispatch-receipt and dispatch-abort too (agy: the raw
	// toolCall.args).
	SessionID    string
	ToolUseID    string
	ToolResponse []byte
	AgentID      string
	AgentType    string
}

// AgentEvent reports whether event is one of the agent-traffic events
// (pre-dispatch, dispatch-receipt, dispatch-abort, subagent-start,
// post-return, pre-handback, handback-receipt, handback-abort).
func AgentEvent(event string) bool {
	switch event {
	case "pre-dispatch", "dispatch-receipt", "dispatch-abort", "subagent-start", "post-return",
		"pre-handback", "handback-receipt", "handback-abort":
		return true
	}
	return false
}

// ShellEvent reports whether event judges a shell command with the shell
// policy: pre-tool (a shell tool call) and pre-skill-shell (Claude Code
// 2.1.332+ PreSkillShellCommand: a skill's or slash command's inline shell
// command, run before any tool call; its payload carries tool_name Bash or
// PowerShell and tool_input.command like a Bash PreToolUse call, per the
// 2.1.332 bundle's hook input schema). Both need a non-empty command.
func ShellEvent(event string) bool {
	return event == "pre-tool" || event == "pre-skill-shell"
}

// Decode decodes data, the raw stdin of one call, for row (which names the
// client and the event). It returns an error for every malformed input
// described in the package doc; the error text is safe to show (it never
// quotes the payload).
func Decode(row registration.Row, data []byte) (Payload, error) {
	switch row.Client {
	case "claude", "codex", "gemini", "qwen", "droid", "kiro":
		obj, err := parseObject(data)
		if err != nil {
			return Payload{}, err
		}
		return decodeClaudeFamily(row, obj)
	case "agy":
		obj, err := parseObject(data)
		if err != nil {
			return Payload{}, err
		}
		return decodeAgy(row, obj)
	case "opencode":
		obj, err := parseObject(data)
		if err != nil {
			return Payload{}, err
		}
		return decodeOpencode(row, obj)
	case "copilot":
		obj, err := parseObject(data)
		if err != nil {
			return Payload{}, err
		}
		return decodeCopilot(row, obj)
	case "cursor":
		obj, err := parseObject(data)
		if err != nil {
			return Payload{}, err
		}
		return decodeCursor(row, obj)
	case "windsurf":
		obj, err := parseObject(data)
		if err != nil {
			return Payload{}, err
		}
		return decodeWindsurf(row, obj)
	case "devin":
		obj, err := parseObject(data)
		if err != nil {
			return Payload{}, err
		}
		return decodeDevin(row, obj)
	case "cline":
		obj, err := parseObject(data)
		if err != nil {
			return Payload{}, err
		}
		return decodeCline(row, obj)
	case "lefthook":
		return decodeLefthook(row, data)
	}
	return Payload{}, fmt.Errorf("no dialect for client %s", row.Client)
}

// matches reports whether tool is selected by row's matcher (an RE2
// pattern; empty selects every tool). The table's matchers are anchored
// alternations of literal tool names (`^Bash$`, `^(Edit|Write)$`); those are
// compared as names, without compiling a regular expression on every hook
// call (a cold regexp compile is a measurable part of a hook process). Any
// other pattern is compiled; an invalid one is an error.
func matches(row registration.Row, tool string) (bool, error) {
	if row.Matcher == "" {
		return true, nil
	}
	if names, ok := literalAlternation(row.Matcher); ok {
		for _, n := range names {
			if n == tool {
				return true, nil
			}
		}
		return false, nil
	}
	re, err := regexp.Compile(row.Matcher)
	if err != nil {
		return false, fmt.Errorf("registration %s %s: matcher is not a regular expression: %w", row.Client, row.Event, err)
	}
	return re.MatchString(tool), nil
}

// literalAlternation splits a matcher of the form ^name$ or ^(a|b|c)$, where
// every name is made of ASCII letters, digits and underscores (no regexp
// metacharacter), into its names. ok is false for any other pattern,
// including ^a|b$ (RE2 reads it as ^a or b$).
func literalAlternation(m string) (names []string, ok bool) {
	if len(m) < 3 || m[0] != '^' || m[len(m)-1] != '$' {
		return nil, false
	}
	body := m[1 : len(m)-1]
	grouped := len(body) >= 2 && body[0] == '(' && body[len(body)-1] == ')'
	if grouped {
		body = body[1 : len(body)-1]
	}
	start := 0
	for i := 0; i <= len(body); i++ {
		if i == len(body) || body[i] == '|' {
			// Unparenthesised, ^a|b$ is (^a)|(b$) in RE2: not a name list.
			if i == start || (i < len(body) && !grouped) {
				return nil, false
			}
			names = append(names, body[start:i])
			start = i + 1
			continue
		}
		c := body[i]
		if !(c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
			return nil, false
		}
	}
	return names, true
}

// judgedTool reads o's required string member key (path names it in an
// error) as a tool name and reports whether row's matcher judges that tool
// (matches). A caller whose tool is not judged returns unjudged(row, p, err).
func judgedTool(row registration.Row, o object, key, path string) (name string, judged bool, err error) {
	if name, err = o.reqStr(key, path); err != nil {
		return name, false, err
	}
	judged, err = matches(row, name)
	return name, judged, err
}

// unjudged ends a decode after judgedTool: p with err, or, without an
// error, p as a stated skip for a tool row does not judge (Unjudged).
func unjudged(row registration.Row, p Payload, err error) (Payload, error) {
	if err == nil {
		p.Unjudged = unjudgedTool(row)
	}
	return p, err
}

func unjudgedTool(row registration.Row) string {
	return UnjudgedTool(row.Client, row.Event, row.Matcher)
}

// UnjudgedTool returns the stated-skip reason for a call of a tool the row
// of client's event does not judge (its matcher, matcher, does not match the
// tool): "<client> <event> judges only tools matching <matcher>; this call
// is for another tool". Payload.Unjudged holds it; templates renders it, with
// "%s" for client and matcher, into the standalone interceptor.
func UnjudgedTool(client, event, matcher string) string {
	return client + " " + event + " judges only tools matching " + matcher + "; this call is for another tool"
}

func decodeClaudeFamily(row registration.Row, o object) (Payload, error) {
	var p Payload
	var err error
	if p.EventName, err = o.reqStr("hook_event_name", "hook_event_name"); err != nil {
		return p, err
	}
	if !row.HasNative(p.EventName) {
		return p, fmt.Errorf("member hook_event_name: not %s, which the registration %s %s expects", strings.Join(row.NativeEvents(), " or "), row.Client, row.Event)
	}
	if p.Cwd, _, err = o.str("cwd", "cwd"); err != nil {
		return p, err
	}
	if row.Client == "claude" {
		if p.Caller, err = claudeRowCaller(o); err != nil {
			return p, err
		}
	}
	switch row.Event {
	case "pre-dispatch", "dispatch-receipt", "dispatch-abort", "pre-handback", "handback-receipt", "handback-abort":
		return decodeDispatch(row, o, p)
	case "subagent-start", "post-return":
		return decodeSubagent(row, o, p)
	case "pre-tool", "pre-skill-shell", "pre-edit", "post-tool":
		return decodeToolCall(row, o, p)
	case "prompt":
		// Claude Code and Codex send the prompt as prompt (Codex 0.169.0
		// schema user-prompt-submit.command.input; Claude Code 2.1.328
		// bundle), Gemini CLI 0.61.0's BeforeAgent too (docs/hooks/reference.md).
		// Nothing is judged; its type is still checked.
		if _, _, err = o.str("prompt", "prompt"); err != nil {
			return p, err
		}
	case "stop":
		if err = decodeStopTail(row, o, &p); err != nil {
			return p, err
		}
	}
	return p, nil
}

// decodeToolCall decodes the tool part of a pre-tool, pre-skill-shell,
// pre-edit or post-tool payload of the Claude family into p: tool_name
// (a tool the row does not judge is a stated skip, unjudged), Droid's and
// Codex's patch tools (decodePatch), and tool_input's command (required
// for a shell event) and target file (required for pre-edit: file_path,
// notebook_path for Claude's NotebookEdit and Qwen's notebook_edit, path
// for Kiro's fs_write).
func decodeToolCall(row registration.Row, o object, p Payload) (Payload, error) {
	var judged bool
	var err error
	if p.ToolName, judged, err = judgedTool(row, o, "tool_name", "tool_name"); err != nil || !judged {
		return unjudged(row, p, err)
	}
	if row.Event == "pre-edit" && (row.Client == "droid" && p.ToolName == "ApplyPatch" || row.Client == "codex" && p.ToolName == "apply_patch") {
		raw, ok := o.get("tool_input")
		if !ok {
			return p, fmt.Errorf("member tool_input: missing")
		}
		return p, decodePatch(raw, &p)
	}
	var in object
	if row.Event == "post-tool" {
		if in, _, err = o.obj("tool_input", "tool_input"); err != nil {
			return p, err
		}
	} else if in, err = o.reqObj("tool_input", "tool_input"); err != nil {
		return p, err
	}
	cmdRequired := ShellEvent(row.Event)
	if cmdRequired {
		if p.Command, err = in.reqStr("command", "tool_input.command"); err != nil {
			return p, err
		}
	} else if p.Command, _, err = in.str("command", "tool_input.command"); err != nil {
		return p, err
	}
	if row.Client == "kiro" && !cmdRequired {
		p.Command = "" // fs_write's command names its sub-command (create, str_replace, …), not a shell command
	}
	pathKey := "file_path"
	switch {
	case row.Client == "claude" && p.ToolName == "NotebookEdit" || row.Client == "qwen" && p.ToolName == "notebook_edit":
		pathKey = "notebook_path"
	case row.Client == "kiro":
		pathKey = "path" // fs_write's target (kiro.go)
	}
	if row.Event != "pre-edit" {
		p.FilePath, _, err = in.str(pathKey, "tool_input."+pathKey)
		return p, err
	}
	if p.FilePath, err = in.reqStr(pathKey, "tool_input."+pathKey); err != nil {
		return p, err
	}
	p.ToolInput, _ = o.get("tool_input")
	return p, nil
}

// decodeDispatch reads a Claude-family call on the agent tool: session_id,
// tool_name (another tool: Unjudged), tool_input (a required object, kept
// raw), tool_use_id and, at dispatch-receipt, tool_response (kept raw).
// Field names: Claude Code 2.1.328's hook input schemas (PreToolUse,
// PostToolUse, PostToolUseFailure, PermissionDenied all carry tool_name,
// tool_input, tool_use_id); Codex 0.169.0 and Gemini CLI 0.61.0 send
// tool_name and tool_input on their pre-tool events as well.
func decodeDispatch(row registration.Row, o object, p Payload) (Payload, error) {
	var err error
	if p.SessionID, _, err = o.str("session_id", "session_id"); err != nil {
		return p, err
	}
	var judged bool
	if p.ToolName, judged, err = judgedTool(row, o, "tool_name", "tool_name"); err != nil || !judged {
		return unjudged(row, p, err)
	}
	if _, err = o.reqObj("tool_input", "tool_input"); err != nil {
		return p, err
	}
	p.ToolInput, _ = o.get("tool_input")
	if p.ToolUseID, _, err = o.str("tool_use_id", "tool_use_id"); err != nil {
		return p, err
	}
	// agent_id: present when the call comes from inside a subagent (Claude
	// Code 2.1.328 hook input base schema: "Present only when the hook fires
	// from within a subagent"); pre-handback, handback-receipt and
	// handback-abort need it.
	if p.AgentID, _, err = o.str("agent_id", "agent_id"); err != nil {
		return p, err
	}
	if row.Event == "dispatch-receipt" {
		if _, _, err = o.obj("tool_response", "tool_response"); err != nil {
			return p, err
		}
		p.ToolResponse, _ = o.get("tool_response")
	}
	return p, nil
}

// decodeSubagent reads SubagentStart and SubagentStop: session_id, agent_id
// and agent_type (both required: Claude Code 2.1.328's schemas and Codex
// 0.169.0's subagent-stop.command.input require them), and at post-return
// stop_hook_active and last_assistant_message (Codex: nullable).
func decodeSubagent(row registration.Row, o object, p Payload) (Payload, error) {
	var err error
	if p.SessionID, _, err = o.str("session_id", "session_id"); err != nil {
		return p, err
	}
	if p.AgentID, err = o.reqStr("agent_id", "agent_id"); err != nil {
		return p, err
	}
	if p.AgentType, _, err = o.str("agent_type", "agent_type"); err != nil {
		return p, err
	}
	if row.Event != "post-return" {
		return p, nil
	}
	err = decodeStopTail(row, o, &p)
	return p, err
}

// decodeStopTail reads into p what a stop and a subagent's stop carry:
// stop_hook_active and the last message (Gemini CLI's AfterAgent
// prompt_response; Codex's last_assistant_message, which may be null;
// Claude Code's last_assistant_message).
func decodeStopTail(row registration.Row, o object, p *Payload) error {
	var err error
	if p.StopHookActive, _, err = o.boolean("stop_hook_active", "stop_hook_active"); err != nil {
		return err
	}
	switch row.Client {
	case "gemini":
		p.LastMessage, _, err = o.str("prompt_response", "prompt_response")
	case "codex":
		p.LastMessage, _, err = o.nullableStr("last_assistant_message", "last_assistant_message")
	default:
		p.LastMessage, _, err = o.str("last_assistant_message", "last_assistant_message")
	}
	return err
}

func decodeAgy(row registration.Row, o object) (Payload, error) {
	var p Payload
	var err error
	paths, _, err := o.strArray("workspacePaths", "workspacePaths")
	if err != nil {
		return p, err
	}
	if len(paths) > MaxWorkspacePaths {
		return p, fmt.Errorf("member workspacePaths: %d entries, at most %d", len(paths), MaxWorkspacePaths)
	}
	p.WorkspacePaths = paths
	switch row.Event {
	case "prompt":
		// PreInvocation counts model calls in invocationNum, zero-based
		// (akitaonrails/ai-memory pull 299); nothing is judged, the type
		// is checked.
		if raw, ok := o.get("invocationNum"); ok {
			if _, err := strconv.ParseInt(string(raw), 10, 64); jsonType(raw) != "a number" || err != nil {
				return p, fmt.Errorf("member invocationNum: want an integer, got %s", jsonType(raw))
			}
		}
	case "pre-tool", "pre-dispatch":
		tc, err := o.reqObj("toolCall", "toolCall")
		if err != nil {
			return p, err
		}
		var judged bool
		if p.ToolName, judged, err = judgedTool(row, tc, "name", "toolCall.name"); err != nil || !judged {
			return unjudged(row, p, err)
		}
		args, err := tc.reqObj("args", "toolCall.args")
		if err != nil {
			return p, err
		}
		if row.Event == "pre-dispatch" {
			p.ToolInput, _ = tc.get("args")
			break
		}
		if p.Command, err = args.reqStr("CommandLine", "toolCall.args.CommandLine"); err != nil {
			return p, err
		}
	case "stop":
		// Stop carries no tool call; toolCall may be absent or null.
		if raw, ok := o.get("toolCall"); ok && jsonType(raw) != "null" && jsonType(raw) != "an object" {
			return p, fmt.Errorf("member toolCall: want an object or null, got %s", jsonType(raw))
		}
		// executionNum counts stop passes; above 1 is a repeated pass
		// (issue 6, as engine/stopgate reads it).
		if raw, ok := o.get("executionNum"); ok {
			n, err := strconv.ParseInt(string(raw), 10, 64)
			if jsonType(raw) != "a number" || err != nil {
				return p, fmt.Errorf("member executionNum: want an integer, got %s", jsonType(raw))
			}
			p.StopHookActive = n > 1
		}
	}
	return p, nil
}

func decodeOpencode(row registration.Row, o object) (Payload, error) {
	var p Payload
	var err error
	if p.Cwd, _, err = o.str("cwd", "cwd"); err != nil {
		return p, err
	}
	if row.Event == "prompt" {
		// The rendered plugin's messages transform sends {"cwd": …} only
		// (templates/files/hookwarden.js).
		return p, nil
	}
	in, err := o.reqObj("input", "input")
	if err != nil {
		return p, err
	}
	if p.ToolName, err = in.reqStr("tool", "input.tool"); err != nil {
		return p, err
	}
	for _, k := range []string{"sessionID", "callID"} {
		if _, _, err := in.str(k, "input."+k); err != nil {
			return p, err
		}
	}
	ok, err := matches(row, p.ToolName)
	if err != nil {
		return p, err
	}
	if !ok {
		p.Unjudged = unjudgedTool(row)
		return p, nil
	}
	out, err := o.reqObj("output", "output")
	if err != nil {
		return p, err
	}
	args, err := out.reqObj("args", "output.args")
	if err != nil {
		return p, err
	}
	if p.Command, err = args.reqStr("command", "output.args.command"); err != nil {
		return p, err
	}
	if _, _, err := args.str("description", "output.args.description"); err != nil {
		return p, err
	}
	return p, nil
}

// lefthookShellTool reports the tool names of the shell tools whose payloads
// a lefthook job may receive (Claude/Codex "Bash", Gemini "run_shell_command").
func lefthookShellTool(name string) bool { return name == "Bash" || name == "run_shell_command" }

func decodeLefthook(row registration.Row, data []byte) (Payload, error) {
	var p Payload
	if row.Event == "environment" {
		if len(bytes.TrimSpace(data)) == 0 {
			return p, nil
		}
		_, err := parseObject(data)
		return p, err
	}
	o, err := parseObject(data)
	if err != nil {
		return p, err
	}
	if p.EventName, _, err = o.str("hook_event_name", "hook_event_name"); err != nil {
		return p, err
	}
	if p.EventName != "" && p.EventName != "PreToolUse" && p.EventName != "BeforeTool" {
		return p, errors.New("member hook_event_name: not PreToolUse or BeforeTool, which lefthook pre-tool expects")
	}
	if p.Cwd, _, err = o.str("cwd", "cwd"); err != nil {
		return p, err
	}
	tool, present, err := o.str("tool_name", "tool_name")
	if err != nil {
		return p, err
	}
	p.ToolName = tool
	if present && !lefthookShellTool(tool) {
		p.Unjudged = "lefthook pre-tool judges only shell tools (Bash, run_shell_command); this call is for another tool"
		return p, nil
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
