package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// RefusalForm is one form in which an engine version refuses a tool call
// before any hook runs, as the capability table of that version records
// it (spawn capabilities/<engine>-<version>.json,
// pre_hook_refusals): ToolResult is an RE2 expression the whole content
// of the tool_result the model received must match, ToolUseResult one
// the whole toolUseResult string of the transcript line carrying it must
// match. In either, every group named "tool" must capture the called
// tool's name (ToolResult must have one), and a group named "zod_issues" must capture a JSON list of
// input-validation issues (validIssues). Source names the measurement.
type RefusalForm struct {
	Name          string `json:"name"`
	ToolResult    string `json:"tool_result"`
	ToolUseResult string `json:"tool_use_result"`
	// Tools, when set, are the only tools the form applies to (for a
	// text that does not name its tool).
	Tools []string `json:"tools,omitempty"`
	// PermissionDecision is "" when the refusal's transcript line carries
	// no permissionDecision (the call never reached the permission step),
	// else "<decision> <source>" that it must carry exactly (Claude Code
	// 2.1.328 writes {"decision":"reject","source":"config",…} beside a
	// Read its deny rule refused before any hook).
	PermissionDecision string `json:"permission_decision,omitempty"`
	Source             string `json:"source,omitempty"`
}

// refusalForm is a RefusalForm with its expressions compiled, anchored at
// both ends.
type refusalForm struct {
	name            string
	result, useRslt *regexp.Regexp
	tools           []string
	decision        string
}

// CheckRefusalForms returns the error compileRefusalForms would: a
// capability table's pre_hook_refusals are checked when it is loaded.
func CheckRefusalForms(forms []RefusalForm) error {
	_, err := compileRefusalForms(forms)
	return err
}

// compileRefusalForms compiles forms, each expression anchored to the
// whole text; an empty expression, one that does not compile or a
// ToolResult with no group named "tool" is an error naming the form.
func compileRefusalForms(forms []RefusalForm) ([]refusalForm, error) {
	out := make([]refusalForm, 0, len(forms))
	for _, f := range forms {
		var res [2]*regexp.Regexp
		for i, x := range []string{f.ToolResult, f.ToolUseResult} {
			if x == "" {
				return nil, fmt.Errorf("pre-hook refusal form %q: an empty expression", f.Name)
			}
			re, err := regexp.Compile(`^(?:` + x + `)$`)
			if err != nil {
				return nil, fmt.Errorf("pre-hook refusal form %q: %w", f.Name, err)
			}
			if i == 0 && len(f.Tools) == 0 && !slices.Contains(re.SubexpNames(), "tool") {
				return nil, fmt.Errorf("pre-hook refusal form %q: its tool_result expression has no group named tool and the form names no tools", f.Name)
			}
			res[i] = re
		}
		out = append(out, refusalForm{name: f.Name, result: res[0], useRslt: res[1], tools: f.Tools, decision: f.PermissionDecision})
	}
	return out, nil
}

// formMatch reports whether s matches re whole, every "tool" group holding
// tool and every "zod_issues" group a valid issue list.
func formMatch(re *regexp.Regexp, s, tool string) bool {
	m := re.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	for i, n := range re.SubexpNames() {
		switch n {
		case "tool":
			if m[i] != tool {
				return false
			}
		case "zod_issues":
			if !validIssues(m[i]) {
				return false
			}
		}
	}
	return true
}

// Bounds of an input-validation issue list (validIssues): Claude Code
// 2.1.328 writes zod's issues as a JSON list of objects such as
// {"expected":"string","code":"invalid_type","path":["command"],
// "message":"Invalid input: expected string, received undefined"}
// (recorded in testdata/redact/pre-hook-refusals.json).
const (
	maxIssues      = 20
	maxIssueString = 256
	maxIssuePath   = 16
)

// issueKeys and issueCodes are the members and codes of the recorded
// issues; anything else is not a recorded form.
var (
	issueKeys  = []string{"expected", "code", "path", "message", "keys"}
	issueCodes = []string{"invalid_type", "unrecognized_keys"}
)

// validIssues reports whether s is a JSON list of 1 to maxIssues
// input-validation issues, each an object with only issueKeys, a code in
// issueCodes, single-line strings of at most maxIssueString bytes, and
// path and keys lists of at most maxIssuePath such strings or numbers: the
// shape of an issue built from the call's input and the tool's schema,
// with no room for the text of a file.
func validIssues(s string) bool {
	var issues []map[string]json.RawMessage
	d := json.NewDecoder(strings.NewReader(s))
	if d.Decode(&issues) != nil || d.More() || len(issues) == 0 || len(issues) > maxIssues {
		return false
	}
	short := func(raw json.RawMessage) bool {
		var v string
		return json.Unmarshal(raw, &v) == nil && len(v) <= maxIssueString && !strings.ContainsAny(v, "\n\r")
	}
	for _, is := range issues {
		for k, raw := range is {
			if !slices.Contains(issueKeys, k) {
				return false
			}
			switch k {
			case "path", "keys":
				var list []json.RawMessage
				if json.Unmarshal(raw, &list) != nil || len(list) > maxIssuePath {
					return false
				}
				for _, x := range list {
					var n float64
					if !short(x) && json.Unmarshal(x, &n) != nil {
						return false
					}
				}
			default:
				if !short(raw) {
					return false
				}
			}
		}
		var code string
		if json.Unmarshal(is["code"], &code) != nil || !slices.Contains(issueCodes, code) {
			return false
		}
	}
	return true
}

// claudeResult is one tool_result of a Claude Code transcript with the
// members of the line that carries it that the pre-hook refusal check
// reads.
type claudeResult struct {
	content       json.RawMessage
	isError       bool
	toolUseResult json.RawMessage
	// decision is the line's permissionDecision as "<decision> <source>"
	// ("" when it carries none; "?" when it is not that shape), the
	// engine's record that the call reached a permission check (Claude
	// Code 2.1.328 writes {"decision":…,"source":"hook",…} on a call a
	// PreToolUse hook allowed or denied, recorded in
	// testdata/redact/pre-hook-refusals.json); denial: the line carries a
	// toolDenialKind
	decision string
	denial   bool
}

// claudeTranscriptCalls indexes a Claude Code JSONL transcript: the name
// of every tool_use by id (wherever it is nested) and every tool_result
// of a top-level user line by tool_use_id. Lines that are not JSON are
// skipped (toolCallIDs reports them).
func claudeTranscriptCalls(transcript []byte) (names map[string]string, results map[string][]claudeResult) {
	names, results = map[string]string{}, map[string][]claudeResult{}
	walk := func(v any) {
		eachObject(v, func(x map[string]any) {
			if t, _ := x["type"].(string); t != "tool_use" {
				return
			}
			id, _ := x["id"].(string)
			n, _ := x["name"].(string)
			if id == "" {
				return
			}
			if old, ok := names[id]; ok && old != n {
				n = "\x00conflicting names"
			}
			names[id] = n
		})
	}
	for _, ln := range bytes.Split(transcript, []byte("\n")) {
		var v any
		if len(bytes.TrimSpace(ln)) == 0 || json.Unmarshal(ln, &v) != nil {
			continue
		}
		walk(v)
		var line struct {
			Type          string          `json:"type"`
			ToolUseResult json.RawMessage `json:"toolUseResult"`
			Permission    json.RawMessage `json:"permissionDecision"`
			Denial        json.RawMessage `json:"toolDenialKind"`
			Message       struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(ln, &line) != nil || line.Type != "user" {
			continue
		}
		var items []struct {
			Type      string          `json:"type"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
			IsError   bool            `json:"is_error"`
		}
		if json.Unmarshal(line.Message.Content, &items) != nil {
			continue
		}
		for _, it := range items {
			if it.Type != "tool_result" || it.ToolUseID == "" {
				continue
			}
			results[it.ToolUseID] = append(results[it.ToolUseID], claudeResult{content: it.Content, isError: it.IsError,
				toolUseResult: line.ToolUseResult, decision: decisionOf(line.Permission), denial: len(line.Denial) > 0})
		}
	}
	return names, results
}

// decisionOf returns a permissionDecision member as "<decision> <source>",
// "" when absent and "?" when it is not an object with those two strings.
func decisionOf(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var d struct{ Decision, Source string }
	if json.Unmarshal(raw, &d) != nil || d.Decision == "" || d.Source == "" {
		return "?"
	}
	return d.Decision + " " + d.Source
}

// refusedBeforeHooks returns the name of the form in which the engine
// refused tool call id before any hook ran, or "" when the evidence is not
// exact. It is exact only when the call has no receipt of any event (a
// post_tool or MCP proxy receipt means it ran), its tool_use names a tool,
// the transcript holds exactly one tool_result for it, that result is an
// error whose line carries no denial kind and exactly the permission
// decision the form records (none, for most), its content and the line's
// toolUseResult are strings matching the same recorded form for that tool
// name (and one of the form's tools, when it names them), and neither
// holds a table value.
func refusedBeforeHooks(id string, forms []refusalForm, names map[string]string, results map[string][]claudeResult, anyReceipt map[string]bool, m *Matcher) string {
	name, ok := names[id]
	rs := results[id]
	if !ok || name == "" || anyReceipt[id] || len(rs) != 1 {
		return ""
	}
	r := rs[0]
	var content, use string
	if !r.isError || r.denial || json.Unmarshal(r.content, &content) != nil || json.Unmarshal(r.toolUseResult, &use) != nil {
		return ""
	}
	if m == nil || m.Contains([]byte(content)) || m.Contains([]byte(use)) {
		return ""
	}
	for _, f := range forms {
		if f.decision != r.decision || (len(f.tools) > 0 && !slices.Contains(f.tools, name)) {
			continue
		}
		if formMatch(f.result, content, name) && formMatch(f.useRslt, use, name) {
			return f.name
		}
	}
	return ""
}
