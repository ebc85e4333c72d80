package dialect

import (
	"encoding/json"

	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/protocol/verdict"
)

// Answer is what the hook process emits: Stdout and Stderr bytes and the
// process exit code.
type Answer struct {
	Stdout []byte
	Stderr []byte
	Exit   int
}

// LefthookAllowMarker is the one line `hookwarden hook lefthook pre-tool`
// prints on stdout when it allows a command, so a lefthook job log shows the
// command was judged (issue 2, item 3).
const LefthookAllowMarker = "hookwarden: allow\n"

// SkipPrefix starts the one stderr line of a stated skip:
// "hookwarden: skip: <reason>\n".
const SkipPrefix = "hookwarden: skip: "

// unknownVerdict is the deny reason of a verdict kind an encoder does not
// know: an unknown kind is never an allow.
const unknownVerdict = "[BLOCKED BY hookwarden:internal] unknown verdict"

// DenyExit returns the exit code that denies for client: 1 for lefthook (a
// failing job fails the lefthook run), 2 for every other client (Claude Code,
// Codex and Gemini block on exit 2 with stderr as the reason: e2e README
// sections 1-3; opencode's rendered plugin throws on 2; Copilot CLI 1.0.102
// denies a preToolUse on exit 2, observed). agy never denies by exit code: it
// reads the JSON decision on stdout.
func DenyExit(client string) int {
	if client == "lefthook" {
		return 1
	}
	return 2
}

func agyJSON(decision, reason string) []byte {
	v := struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason,omitempty"`
	}{decision, reason}
	b, _ := json.Marshal(v)
	return append(b, '\n')
}

// agyBlock is the decision that blocks row's call in agy's answer. For
// PreToolUse it is "deny". For Stop it is "continue": the Stop answer's
// decision "continue" blocks the stop and re-enters the agent loop, and any
// other value lets the agent stop, so a "deny" there would let it stop.
// Sources: the "Lifecycle Hooks (hooks.json)" contract embedded in the agy
// 1.2.7 binary as the design record quotes it
// (../../../shared/reference/003_3611979b20cb26d8.txt, "The agy
// (Antigravity) dialect", Stop); entireio/cli
// cmd/entire/cli/agent/antigravity/types.go, StopOutput ("continue" to
// re-enter the loop; any other value allows stop), wire format checked
// against agy 1.0.14/1.0.15.
func agyBlock(row registration.Row) string {
	if row.Event == "stop" {
		return "continue"
	}
	return "deny"
}

// haltJSON is the documented "stop the session" form shared by Claude Code
// (hooks reference, common JSON fields continue/stopReason), Codex 0.169.0
// (embedded schema stop.command.output: continue, stopReason) and Gemini CLI
// 0.61.0 (HookOutput.shouldStopExecution reads continue === false).
func haltJSON(reason string) []byte {
	v := struct {
		Continue   bool   `json:"continue"`
		StopReason string `json:"stopReason"`
	}{false, reason}
	b, _ := json.Marshal(v)
	return append(b, '\n')
}

// contextJSON is the documented post-tool context form:
// {"hookSpecificOutput":{"hookEventName":E,"additionalContext":R}} with E =
// PostToolUse (Claude Code hooks reference; Codex 0.169.0 schema
// PostToolUseHookSpecificOutputWire) or AfterTool (Gemini CLI 0.61.0
// HookOutput.getAdditionalContext).
func contextJSON(event, reason string) []byte {
	type hso struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	}
	v := struct {
		HookSpecificOutput hso `json:"hookSpecificOutput"`
	}{hso{event, reason}}
	b, _ := json.Marshal(v)
	return append(b, '\n')
}

func line(s string) []byte { return []byte(s + "\n") }

// rewriteJSON is Claude Code's PreToolUse answer that allows the call with
// its whole input replaced: {"hookSpecificOutput":{"hookEventName":
// "PreToolUse","permissionDecision":"allow","permissionDecisionReason":R,
// "updatedInput":I}} (Claude Code 2.1.328 bundle, the PreToolUse branch of
// the hookSpecificOutput reader; hooks reference "PreToolUse decision
// control": updatedInput replaces the whole tool_input). input must be a
// JSON object.
func rewriteJSON(reason string, input []byte) []byte {
	type hso struct {
		HookEventName            string          `json:"hookEventName"`
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
	}
	v := struct {
		HookSpecificOutput hso `json:"hookSpecificOutput"`
	}{hso{"PreToolUse", "allow", reason, input}}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return append(b, '\n')
}

// geminiToolInputJSON is Gemini CLI's BeforeTool answer that lets the call
// run with parameters merged from input: {"hookSpecificOutput":
// {"hookEventName":"BeforeTool","tool_input":I}} (Gemini CLI 0.61.0 bundle:
// BeforeToolHookOutput.getModifiedToolInput reads hookSpecificOutput.
// tool_input, an object, and Object.assign's it into the invocation's
// params before the tool is built again).
func geminiToolInputJSON(input []byte) []byte {
	type hso struct {
		HookEventName string          `json:"hookEventName"`
		ToolInput     json.RawMessage `json:"tool_input"`
	}
	v := struct {
		HookSpecificOutput hso `json:"hookSpecificOutput"`
	}{hso{"BeforeTool", input}}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return append(b, '\n')
}

// agyOverwriteJSON is agy's allow with an overwrite object merged into the
// tool call's arguments: {"decision":"allow","reason":R,"overwrite":O}
// (the agy contract as the design record quotes it, agy 1.3.3; not
// observed here).
func agyOverwriteJSON(reason string, overwrite []byte) []byte {
	v := struct {
		Decision  string          `json:"decision"`
		Reason    string          `json:"reason,omitempty"`
		Overwrite json.RawMessage `json:"overwrite"`
	}{"allow", reason, overwrite}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return append(b, '\n')
}

// Encode renders v for row in the client's dialect. Reasons are capped with
// verdict.Cap. The forms:
//
//	kind     claude/codex/gemini/opencode     agy (exit 0 always)            lefthook
//	allow    exit 0, empty streams            stdout {"decision":"allow"}    exit 0; pre-tool prints LefthookAllowMarker
//	skip     exit 0, stderr skip line         allow JSON + stderr skip line  exit 0, stderr skip line
//	deny     exit 2, stderr reason            {"decision":"deny","reason"}   exit 1, stderr reason
//	                                          (stop: "continue", agyBlock)
//	halt     stop: continue:false JSON, exit 0 (claude/codex/gemini); otherwise encoded as deny
//	context  post-tool: hookSpecificOutput.additionalContext JSON, exit 0 (claude/codex/gemini);
//	         otherwise an allow with the text on stderr as "hookwarden: note: …"
//
// The rows that add context (the clock line, v.Added; see carried): an
// allow, skip or context verdict of a prompt row (claude, codex, gemini,
// agy, opencode) or of a claude, codex or gemini post-tool row is encoded
// by encodeAdded, with v.Added (and a context verdict's reason) as the added
// context; a deny or halt there is encoded as above, without v.Added.
//
// A deny reason is never empty (Codex treats exit 2 without stderr as a hook
// failure): an empty one becomes "[BLOCKED BY hookwarden:<rule>] denied".
// agy halts (its stop is let through with the reason on stderr). Copilot
// CLI rows: encodeCopilot; Cursor rows: encodeCursor; Cline rows: encodeCline (exit 0, {"cancel":…} JSON). Windsurf and Kiro CLI rows take
// the claude column (a pre-hook blocks on exit 2; windsurf.go, kiro.go).
func Encode(row registration.Row, v verdict.Verdict) Answer {
	kind, reason := effectiveKind(row, v)
	if kind == verdict.Rewrite {
		if out := encodeRewrite(row, reason, v.Input); out != nil {
			return Answer{Stdout: out}
		}
		kind, reason = verdict.Deny, "[BLOCKED BY hookwarden:internal] this client has no channel for the rewritten input; the call is refused"
	}
	switch row.Client {
	case "copilot":
		return encodeCopilot(row, kind, reason)
	case "cursor":
		return encodeCursor(row, kind, reason)
	case "cline":
		return encodeCline(kind, reason)
	}
	if added, ok := carried(row, kind, reason, v.Added); ok {
		return encodeAdded(row, kind, reason, added)
	}
	if row.Client == "agy" {
		return encodeAgy(row, kind, reason)
	}
	return encodeExitCode(row, kind, reason, v.Input)
}

// structuredClient reports whether client answers in JSON on stdout for
// post-tool context and stop halts: claude, codex, gemini, qwen, droid.
func structuredClient(client string) bool {
	return client == "claude" || client == "codex" || client == "gemini" || client == "qwen" || client == "droid"
}

// effectiveKind returns the kind and capped reason Encode encodes for v on
// row: a deny always has a reason ("[BLOCKED BY hookwarden:<rule>] denied"
// when v has none), and a halt where the row has no halt channel (any
// event but stop, or a client that cannot halt) is a deny.
func effectiveKind(row registration.Row, v verdict.Verdict) (verdict.Kind, string) {
	reason := verdict.Cap(v.Reason)
	kind := v.Kind
	if kind == verdict.Deny && reason == "" {
		rule := v.RuleID
		if rule == "" {
			rule = "unspecified"
		}
		reason = verdict.Cap("[BLOCKED BY hookwarden:" + rule + "] denied")
	}
	canHalt := structuredClient(row.Client) || row.Client == "agy" || row.Client == "copilot" || row.Client == "cursor"
	if kind == verdict.Halt && (row.Event != "stop" || !canHalt) {
		kind = verdict.Deny
		if reason == "" {
			reason = "[BLOCKED BY hookwarden:halt] session halted"
		}
	}
	return kind, reason
}

// encodeRewrite returns a rewrite's answer on the rows that have a rewrite
// channel (the pre-dispatch rows of Claude and Codex, agy and Gemini), nil
// elsewhere or when input does not encode.
func encodeRewrite(row registration.Row, reason string, input []byte) []byte {
	if row.Event != "pre-dispatch" {
		return nil
	}
	switch row.Client {
	case "claude", "codex":
		return rewriteJSON(reason, input)
	case "agy":
		return agyOverwriteJSON(reason, input)
	case "gemini":
		return geminiToolInputJSON(input)
	}
	return nil
}

// encodeAgy answers an agy row: its JSON decision on stdout, the reason of
// a skip, halt or context on stderr; an unknown kind is never an allow.
func encodeAgy(row registration.Row, kind verdict.Kind, reason string) Answer {
	switch kind {
	case verdict.Deny:
		return Answer{Stdout: agyJSON(agyBlock(row), reason)}
	case verdict.Skip:
		return Answer{Stdout: agyJSON("allow", ""), Stderr: line(SkipPrefix + reason)}
	case verdict.Halt:
		return Answer{Stdout: agyJSON("allow", ""), Stderr: line("hookwarden: halt: " + reason)}
	case verdict.Context:
		return Answer{Stdout: agyJSON("allow", ""), Stderr: line("hookwarden: note: " + reason)}
	case verdict.Allow:
		return Answer{Stdout: agyJSON("allow", "")}
	}
	return Answer{Stdout: agyJSON(agyBlock(row), unknownVerdict)}
}

// encodeExitCode answers the rows that read an exit code and stderr (the
// claude column and the clients that share it), with JSON on stdout for a
// halt and for a structured client's post-tool or subagent-start context;
// an unknown kind is never an allow.
func encodeExitCode(row registration.Row, kind verdict.Kind, reason string, input []byte) Answer {
	switch kind {
	case verdict.Deny:
		return Answer{Stderr: line(reason), Exit: DenyExit(row.Client)}
	case verdict.Skip:
		return Answer{Stderr: line(SkipPrefix + reason)}
	case verdict.Halt:
		return Answer{Stdout: haltJSON(reason)}
	case verdict.Context:
		if structuredClient(row.Client) && row.Event == "post-tool" {
			return Answer{Stdout: contextJSON(row.NativeEvent, reason)}
		}
		if (row.Client == "claude" || row.Client == "codex") && row.Event == "subagent-start" && input != nil {
			// SubagentStart's additionalContext reaches the subagent before
			// its first prompt (Claude Code 2.1.328 bundle: SubagentStart
			// hookSpecificOutput {hookEventName, additionalContext}; Codex
			// 0.169.0's schema subagent-start.command.output has the same
			// shape); the reason goes to stderr for the transcript.
			return Answer{Stdout: contextJSON("SubagentStart", string(input)), Stderr: line("hookwarden: note: " + reason)}
		}
		return Answer{Stderr: line("hookwarden: note: " + reason)}
	case verdict.Allow:
		if row.Client == "lefthook" && row.Event == "pre-tool" {
			return Answer{Stdout: []byte(LefthookAllowMarker)}
		}
		return Answer{}
	}
	return Answer{Stderr: line(unknownVerdict), Exit: DenyExit(row.Client)}
}

// carried reports whether row's answer carries added context for a verdict
// of kind, and returns that context: the context verdict's reason followed
// by added (the clock line), or added alone. Only the rows whose client
// event accepts added context carry it (prompt rows of every client that has
// one; post-tool of claude, codex and gemini), and never a deny or halt.
func carried(row registration.Row, kind verdict.Kind, reason, added string) (string, bool) {
	if kind != verdict.Allow && kind != verdict.Skip && kind != verdict.Context {
		return "", false
	}
	switch {
	case row.Event == "prompt":
	case row.Event == "post-tool" && (row.Client == "claude" || row.Client == "codex" || row.Client == "gemini"):
	default:
		return "", false
	}
	text := added
	if kind == verdict.Context && reason != "" {
		text = reason
		if added != "" {
			text += "\n\n" + added
		}
	}
	return text, true
}

// encodeAdded is Encode for a row that carries added context (carried):
// stdout holds the context in the client's form, and a skip adds its stated
// line on stderr; exit 0. The forms, each from the client's own source:
//
//   - claude, codex, gemini: {"hookSpecificOutput":{"hookEventName":E,
//     "additionalContext":T}} with E the row's native event
//     (UserPromptSubmit, PostToolUse, BeforeAgent, AfterTool; the sources
//     are in protocol/registration/table.json and contextJSON).
//   - agy (PreInvocation): {"injectSteps":[{"ephemeralMessage":T}]}, the
//     step type that reached the model on agy 1.1.21 (plur-ai/plur issue
//     1033; akitaonrails/ai-memory pull 299 names injectSteps the official
//     PreInvocation output); "{}" when there is no text. Not run here.
//   - opencode (our rendered plugin's transform reads it):
//     {"additionalContext":T}; nothing when there is no text.
//
// With no text, claude, codex and gemini get empty stdout (the plain allow).
func encodeAdded(row registration.Row, kind verdict.Kind, reason, text string) Answer {
	var a Answer
	if kind == verdict.Skip {
		a.Stderr = line(SkipPrefix + reason)
	}
	switch row.Client {
	case "agy":
		if text == "" {
			a.Stdout = []byte("{}\n")
			break
		}
		type step struct {
			EphemeralMessage string `json:"ephemeralMessage"`
		}
		v := struct {
			InjectSteps []step `json:"injectSteps"`
		}{[]step{{text}}}
		b, _ := json.Marshal(v)
		a.Stdout = append(b, '\n')
	case "opencode":
		if text != "" {
			v := struct {
				AdditionalContext string `json:"additionalContext"`
			}{text}
			b, _ := json.Marshal(v)
			a.Stdout = append(b, '\n')
		}
	default:
		if text != "" {
			a.Stdout = contextJSON(row.NativeEvent, text)
		}
	}
	return a
}
