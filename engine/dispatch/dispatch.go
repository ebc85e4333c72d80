// Package dispatch judges agent traffic (issue 19): the dispatch gate on a
// parent agent's call of its agent tool (pre-dispatch), the read-only
// projection's delivery to the subagent (the rewritten brief, or
// SubagentStart's added context), and its refusal when no projection
// exists.
//
// A brief is the text a parent hands its subagent: Claude Code's Agent
// tool_input.prompt, Codex's spawn_agent message (or its items' text),
// Gemini CLI's invoke_agent prompt, agy's invoke_subagent Subagents[].Prompt.
// The gate reads two kinds of line from it (ParseBrief): `task: <label>`,
// which must name a label of the merged `dispatch.tasks` when any settings
// layer sets it, and `readonly: true` / `read-only: true`, which marks the
// dispatch read-only (any other value of those keys is refused). An agent
// type in `dispatch.readonly_agents`, or one of the client's own read-only
// types (ReadOnlyTypes), marks it read-only too, compared as the client
// resolves agent type names (AgentTypeKey: Claude's `explore` is Explore).
//
// A read-only dispatch receives AGENTS.readonly.md, the projection
// `hookwarden compile-context` writes at the repository root, through the
// one channel per client that reaches the subagent itself:
//
//	claude  PreToolUse updatedInput: the whole tool_input, prompt replaced by
//	        Banner, the projection inside <read-only-context> and the brief
//	gemini  BeforeTool hookSpecificOutput.tool_input, the whole input with
//	        prompt rewritten: Gemini CLI 0.61.0 merges it into the call's
//	        parameters (BeforeToolHookOutput.getModifiedToolInput,
//	        Object.assign) and builds the tool again
//	agy     overwrite {"Subagents": [...]}: the whole array, each read-only
//	        entry's Prompt rewritten the same way (unverified: no agy binary)
//	codex   PreToolUse updatedInput on spawn_agent, as Claude's, with
//	        message rewritten (Codex 0.169.0 reads updatedInput with
//	        permissionDecision allow; observed: the agent starts with the
//	        rewritten message)
//
// Claude's SubagentStart (subagent-start) adds the projection for a
// read-only agent type, or Banner and the projection's path when it is over
// the added-context cap (MaxStartContext). A read-only dispatch without a
// readable projection holding the projection's banner is refused on claude
// and agy ("run hookwarden compile-context"); at SubagentStart, which cannot
// block, the agent receives Banner and that reason instead.
package dispatch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/hookwarden/hookwarden/internal/regread"
	"github.com/hookwarden/hookwarden/protocol/verdict"
	"github.com/hookwarden/hookwarden/settings"
)

// Rule ids of the gate's denies.
const (
	// RuleBrief: the brief is malformed (two task labels, a read-only key
	// with a value other than true) or the call carries no brief.
	RuleBrief = "dispatch-brief"
	// RuleTask: dispatch.tasks is set and the brief names no declared label.
	RuleTask = "dispatch-task"
	// RuleProjection: a read-only dispatch without a readable projection.
	RuleProjection = "readonly-projection"
)

// ProjectionFile is the read-only projection compile-context writes at the
// repository root (templates/agentcontext ReadonlyPath).
const ProjectionFile = "AGENTS.readonly.md"

// ProjectionMarker is the text every projection compile-context writes
// carries in its banner (templates/agentcontext readonlyBanner); a file without
// it is not a projection.
const ProjectionMarker = "**Read-only agent.**"

// MaxProjectionBytes bounds the projection read (a larger file is refused,
// never cut).
const MaxProjectionBytes = 1 << 20

// MaxStartContext is the most bytes of added context subagent-start hands
// Claude Code at once, and MaxStartLines the most lines: Claude Code
// 2.1.328's hook output reader cuts additionalContext at 8,000 UTF-16 code
// units and 200 lines (bundle: the per-field limits table
// {additionalContext: 8000} and line limits {additionalContext: 200} of its
// hook-output sanitiser); the hooks reference names 10,000 characters. A
// UTF-8 byte count is never below the UTF-16 count, so a context within
// these bounds is never cut. A longer projection is replaced by Banner and
// the projection's path.
const (
	MaxStartContext = 8000
	MaxStartLines   = 200
)

// Banner opens every rewritten brief and every subagent-start context.
const Banner = "[hookwarden: read-only dispatch] You are a read-only agent: you read, search and run checks that change nothing, and you report what you find. You do not change the repository (no edits, no new files, no installs, no commits, no pushes). The repository's instructions for read-only agents are inside <read-only-context>; your brief follows it."

// ReadOnlyTypes returns the client's own read-only agent types, as a new
// slice: Claude Code 2.1.328's built-in Explore and Plan agents (bundle:
// their agent definitions {agentType:"Explore"} and {agentType:"Plan"} carry
// disallowedTools listing the edit and write tools, and Plan's prompt says
// it cannot modify files). Other clients: none known.
func ReadOnlyTypes(client string) []string {
	if client == "claude" {
		return []string{"Explore", "Plan"}
	}
	return nil
}

// Brief is what the gate reads from one brief: Task is the `task:` label
// ("" when none), ReadOnly whether `readonly: true` or `read-only: true`
// is set.
type Brief struct {
	Task     string
	ReadOnly bool
}

// ParseBrief reads the gate's lines from text: every line whose first
// non-blank word is `task:`, `readonly:` or `read-only:` (keys are
// case-sensitive; the value is the rest of the line, blanks trimmed). It
// returns an error for two `task:` lines naming different labels, an empty
// label, or a read-only key whose value is not `true`.
func ParseBrief(text string) (Brief, error) {
	var b Brief
	for _, ln := range strings.Split(text, "\n") {
		ln = strings.Trim(ln, " \t\r")
		key, val, ok := strings.Cut(ln, ":")
		if !ok {
			continue
		}
		val = strings.Trim(val, " \t")
		switch key {
		case "task":
			if val == "" {
				return Brief{}, errors.New("a `task:` line names no label")
			}
			if b.Task != "" && b.Task != val {
				return Brief{}, errors.New("the brief names two different task labels")
			}
			b.Task = val
		case "readonly", "read-only":
			if val != "true" {
				return Brief{}, fmt.Errorf("`%s:` must be `true` when present (another value is refused, so a typo never passes as a full-context dispatch)", key)
			}
			b.ReadOnly = true
		}
	}
	return b, nil
}

// Input is one agent-traffic call. Client and Event name the row; ToolInput
// is the raw tool_input (agy: toolCall.args); AgentType is subagent-start's
// agent_type; RepoRoot the governed repository's root; Dispatch the merged
// dispatch settings.
type Input struct {
	Client    string
	Event     string
	ToolInput []byte
	AgentType string
	RepoRoot  string
	Dispatch  settings.EffectiveDispatch
}

// target is one brief of a dispatch: its text, the agent type it names and,
// for agy, its index in Subagents.
type target struct {
	brief     string
	agentType string
}

// Judge decides a pre-dispatch call (see the package doc). It returns Allow
// for a dispatch that passes and is not read-only, Rewrite for a read-only
// one, and Deny with RuleBrief, RuleTask or RuleProjection otherwise. Reasons never quote the brief.
func Judge(in Input) verdict.Verdict {
	targets, err := briefs(in.Client, in.ToolInput)
	if err != nil {
		return deny(RuleBrief, "%s pre-dispatch: %v; the dispatch is refused because its brief cannot be judged", in.Client, err)
	}
	ro := make([]bool, len(targets))
	anyRO := false
	for i, t := range targets {
		b, err := ParseBrief(t.brief)
		if err != nil {
			return deny(RuleBrief, "dispatch refused: %v", err)
		}
		if tasks := in.Dispatch.Tasks; tasks != nil && !slices.Contains(tasks, b.Task) {
			why := "the brief carries no `task: <label>` line"
			if b.Task != "" {
				why = "the brief's task label is not declared"
			}
			declared := "none: no label is declared by every settings layer that sets dispatch.tasks, so every dispatch is refused"
			if len(tasks) > 0 {
				declared = strings.Join(tasks, ", ")
			}
			return deny(RuleTask, "dispatch refused: %s; add a line `task: <label>` naming one of the declared labels (dispatch.tasks: %s)", why, declared)
		}
		ro[i] = b.ReadOnly || readOnlyType(in, t.agentType)
		anyRO = anyRO || ro[i]
	}
	if !anyRO {
		return verdict.Verdict{Kind: verdict.Allow}
	}
	proj, err := Projection(in.RepoRoot)
	if err != nil {
		return deny(RuleProjection, "read-only dispatch refused: %v; run hookwarden compile-context (the full context is never sent in its place)", err)
	}
	out, err := rewrite(in.Client, in.ToolInput, ro, proj)
	if err != nil {
		return deny(RuleBrief, "%s pre-dispatch: %v; the dispatch is refused", in.Client, err)
	}
	n := 0
	for _, r := range ro {
		if r {
			n++
		}
	}
	return verdict.Verdict{Kind: verdict.Rewrite, Input: out, Reason: fmt.Sprintf(
		"hookwarden rewrote the brief of %d read-only dispatch(es): the read-only banner and %s were put before the original brief", n, ProjectionFile)}
}

// JudgeStart decides Claude's subagent-start call: for a read-only agent
// type it returns Context with Input the added context (Banner and the
// projection, or Banner and the projection's path when over MaxStartContext
// or MaxStartLines, or Banner and why there is no projection); for any
// other type Allow.
func JudgeStart(in Input) verdict.Verdict {
	if !readOnlyType(in, in.AgentType) {
		return verdict.Verdict{Kind: verdict.Allow}
	}
	proj, err := Projection(in.RepoRoot)
	if err != nil {
		ctx := Banner + "\n\nNo read-only projection could be read (" + err.Error() + "); hookwarden compile-context writes it. Work read-only all the same."
		return verdict.Verdict{Kind: verdict.Context, Input: []byte(ctx), Reason: "read-only projection not delivered: " + err.Error() + "; run hookwarden compile-context"}
	}
	ctx := wrap(proj)
	if len(ctx) > MaxStartContext || strings.Count(ctx, "\n")+1 > MaxStartLines {
		path := filepath.Join(in.RepoRoot, ProjectionFile)
		ctx = Banner + "\n\n<read-only-context>\nThe read-only instructions are longer than this channel carries: read " + path + " before anything else and follow it.\n</read-only-context>"
		return verdict.Verdict{Kind: verdict.Context, Input: []byte(ctx), Reason: fmt.Sprintf("read-only agent type: the banner and the path of %s were added (the projection is over the %d-byte, %d-line added-context cap)", ProjectionFile, MaxStartContext, MaxStartLines)}
	}
	return verdict.Verdict{Kind: verdict.Context, Input: []byte(ctx), Reason: "read-only agent type: the read-only banner and " + ProjectionFile + " were added to the subagent's context"}
}

// readOnlyType reports whether agentType names a read-only agent type of
// the client: one of dispatch.readonly_agents or of ReadOnlyTypes, compared
// as the client resolves agent type names (AgentTypeKey).
func readOnlyType(in Input, agentType string) bool {
	if agentType == "" {
		return false
	}
	want := AgentTypeKey(in.Client, agentType)
	for _, t := range slices.Concat(in.Dispatch.ReadonlyAgents, ReadOnlyTypes(in.Client)) {
		if t == agentType || AgentTypeKey(in.Client, t) == want {
			return true
		}
	}
	return false
}

// AgentTypeKey returns the form in which client compares agent type names,
// so two names with the same key start the same agent. Claude Code 2.1.328
// looks subagent_type up exactly first and, when no agent has that exact
// name, takes the one agent whose name has the same key: NFKC, lower case,
// Unicode white space, dash punctuation (\p{Pd}) and "_" removed (bundle
// bin/claude.exe of @anthropic-ai/claude-code 2.1.328 on linux-x64, the
// three quotes at byte offsets 316205445, 305711064 and 326227140:
// chunk-1v263ywb.js's `function Ome(e){return
// Eh(e).toLowerCase().replace(/[\p{White_Space}\p{Pd}_]+/gu,"")}`, Eh
// being chunk-8yrfrdpe.js's `function Eh(e){return z(e,"NFKC")}`, and the
// Agent tool's call()
// `ee=y.find((x)=>x.agentType===B);if(!ee){let x=Ome(B),...C=_e.filter((Y)=>
// Ome(Y.agentType)===x)` with event tengu_subagent_type_normalized, several
// matches being an "is ambiguous" error). So `explore`, `EXPLORE`,
// `ex-plore` and a full-width `Ｅｘｐｌｏｒｅ` start Explore. Other clients:
// the name itself (their resolution is not read here).
func AgentTypeKey(client, name string) string {
	if client != "claude" {
		return name
	}
	return strings.Map(func(r rune) rune {
		if r == '_' || unicode.Is(unicode.White_Space, r) || unicode.Is(unicode.Pd, r) {
			return -1
		}
		return r
	}, strings.ToLower(norm.NFKC.String(name)))
}

// Projection returns the text of the repository's read-only projection
// (root/AGENTS.readonly.md: a regular file of at most MaxProjectionBytes
// holding ProjectionMarker). The error says which of these failed.
func Projection(root string) (string, error) {
	if root == "" {
		return "", errors.New("the call is in no governed repository, so there is no " + ProjectionFile)
	}
	path := filepath.Join(root, ProjectionFile)
	b, err := regread.File(path, MaxProjectionBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("%s does not exist", path)
	case err != nil:
		return "", fmt.Errorf("%s cannot be read: %v", path, err)
	case !bytes.Contains(b, []byte(ProjectionMarker)):
		return "", fmt.Errorf("%s holds no read-only banner (it is not a projection compile-context wrote)", path)
	}
	return string(b), nil
}

// wrap returns the banner and the projection inside <read-only-context>.
func wrap(projection string) string {
	return Banner + "\n\n<read-only-context>\n" + strings.TrimRight(projection, "\n") + "\n</read-only-context>"
}

// Rewritten returns the brief a read-only subagent receives: the banner,
// the projection inside <read-only-context>, then the original brief.
func Rewritten(projection, brief string) string {
	return wrap(projection) + "\n\n" + brief
}

// briefs returns the briefs of one dispatch in the client's input shape.
func briefs(client string, raw []byte) ([]target, error) {
	var in map[string]json.RawMessage
	if err := json.Unmarshal(raw, &in); err != nil || in == nil {
		return nil, errors.New("the tool input is not a JSON object")
	}
	switch client {
	case "claude":
		return oneBrief(in, "prompt", "subagent_type")
	case "gemini":
		return oneBrief(in, "prompt", "agent_name")
	case "codex":
		return codexBrief(in)
	case "agy":
		return agyBriefs(in)
	}
	return nil, fmt.Errorf("no dispatch adapter for client %s", client)
}

// inputString returns the string member key of a tool input m: "" when it
// is absent or null (an error when required), an error when it is not a
// string.
func inputString(m map[string]json.RawMessage, key string, required bool) (string, error) {
	v, ok := m[key]
	if !ok || string(v) == "null" {
		if required {
			return "", fmt.Errorf("the tool input has no %s", key)
		}
		return "", nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", fmt.Errorf("the tool input's %s is not a string", key)
	}
	return s, nil
}

// oneBrief returns the one brief of a tool input whose prompt member
// (required) and agent-type member are named promptKey and typeKey
// (Claude's Agent tool, Gemini's agent tools).
func oneBrief(in map[string]json.RawMessage, promptKey, typeKey string) ([]target, error) {
	p, err := inputString(in, promptKey, true)
	if err != nil {
		return nil, err
	}
	ty, err := inputString(in, typeKey, false)
	if err != nil {
		return nil, err
	}
	return []target{{brief: p, agentType: ty}}, nil
}

// codexBrief returns the brief of Codex's spawn_agent input: message and
// the text of each of items, one of them not blank, and agent_type.
func codexBrief(in map[string]json.RawMessage) ([]target, error) {
	p, err := inputString(in, "message", false)
	if err != nil {
		return nil, err
	}
	if v, ok := in["items"]; ok && string(v) != "null" {
		var items []map[string]json.RawMessage
		if err := json.Unmarshal(v, &items); err != nil {
			return nil, errors.New("the tool input's items is not a list of objects")
		}
		for _, it := range items {
			t, err := inputString(it, "text", false)
			if err != nil {
				return nil, err
			}
			if t != "" {
				p += "\n" + t
			}
		}
	}
	if strings.TrimSpace(p) == "" {
		return nil, errors.New("the tool input has no message and no text item")
	}
	ty, err := inputString(in, "agent_type", false)
	if err != nil {
		return nil, err
	}
	return []target{{brief: p, agentType: ty}}, nil
}

// agyBriefs returns one brief per entry of agy's Subagents: Prompt
// (required), and TypeName, else Role, as the agent type.
func agyBriefs(in map[string]json.RawMessage) ([]target, error) {
	subs, err := agySubagents(in)
	if err != nil {
		return nil, err
	}
	var out []target
	for i, s := range subs {
		p, err := inputString(s, "Prompt", true)
		if err != nil {
			return nil, fmt.Errorf("Subagents[%d]: %w", i, err)
		}
		ty, err := inputString(s, "TypeName", false)
		if err != nil {
			return nil, fmt.Errorf("Subagents[%d]: %w", i, err)
		}
		role, err := inputString(s, "Role", false)
		if err != nil {
			return nil, fmt.Errorf("Subagents[%d]: %w", i, err)
		}
		if ty == "" {
			ty = role
		}
		out = append(out, target{brief: p, agentType: ty})
	}
	return out, nil
}

// MaxSubagents is the most entries of agy's Subagents accepted (the design
// record: one to 64).
const MaxSubagents = 64

func agySubagents(in map[string]json.RawMessage) ([]map[string]json.RawMessage, error) {
	v, ok := in["Subagents"]
	if !ok {
		return nil, errors.New("the tool input has no Subagents")
	}
	var subs []map[string]json.RawMessage
	if err := json.Unmarshal(v, &subs); err != nil {
		return nil, errors.New("the tool input's Subagents is not a list of objects")
	}
	if len(subs) == 0 || len(subs) > MaxSubagents {
		return nil, fmt.Errorf("Subagents holds %d entries (1 to %d accepted)", len(subs), MaxSubagents)
	}
	for i, s := range subs {
		if s == nil {
			return nil, fmt.Errorf("Subagents[%d] is not an object", i)
		}
	}
	return subs, nil
}

// rewrite returns the client's replacement: claude and gemini the whole
// tool_input with prompt rewritten, codex with message rewritten, agy the overwrite object {"Subagents": [...]} with
// each read-only entry's Prompt rewritten; every other member is kept as
// sent (its raw JSON).
func rewrite(client string, raw []byte, ro []bool, projection string) ([]byte, error) {
	var in map[string]json.RawMessage
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, errors.New("the tool input is not a JSON object")
	}
	set := func(m map[string]json.RawMessage, key string) error {
		var brief string
		if err := json.Unmarshal(m[key], &brief); err != nil {
			return err
		}
		b, err := json.Marshal(Rewritten(projection, brief))
		if err != nil {
			return err
		}
		m[key] = b
		return nil
	}
	switch client {
	case "codex":
		if _, ok := in["message"]; !ok {
			return nil, errors.New("a read-only spawn_agent brief must be its message (items are not rewritten, and Codex takes message or items, not both)")
		}
		if err := set(in, "message"); err != nil {
			return nil, err
		}
		return json.Marshal(in)
	case "claude":
		if err := set(in, "prompt"); err != nil {
			return nil, err
		}
		return json.Marshal(in)
	case "gemini":
		// BeforeTool's tool_input is merged into the invocation's params
		// and the tool is built again from them; invoke_agent's
		// invocation holds its mapped inputs there, not agent_name, so
		// the whole input comes back (observed: with the prompt alone,
		// 0.61.0 refused "params must have required property
		// 'agent_name'").
		if err := set(in, "prompt"); err != nil {
			return nil, err
		}
		return json.Marshal(in)
	case "agy":
		subs, err := agySubagents(in)
		if err != nil {
			return nil, err
		}
		for i := range subs {
			if ro[i] {
				if err := set(subs[i], "Prompt"); err != nil {
					return nil, err
				}
			}
		}
		return json.Marshal(map[string]any{"Subagents": subs})
	}
	return nil, fmt.Errorf("%s has no rewrite channel", client)
}

func deny(rule, format string, args ...any) verdict.Verdict {
	return verdict.Verdict{Kind: verdict.Deny, RuleID: rule, Reason: verdict.Cap(verdict.EscapeControls(
		"[BLOCKED BY hookwarden:"+rule+"] "+fmt.Sprintf(format, args...), false))}
}
