package spawn

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// schemaInput builds an input for a tool from its JSON input schema: each
// required property gets a value of its type (the first enum value; a
// path-like name gets a file in dir; a command touches ran.<tool> in dir).
func schemaInput(tool string, schema json.RawMessage, dir string) map[string]any {
	var s struct {
		Required   []string `json:"required"`
		Properties map[string]struct {
			Type any   `json:"type"`
			Enum []any `json:"enum"`
		} `json:"properties"`
	}
	json.Unmarshal(schema, &s)
	in := map[string]any{}
	for _, name := range s.Required {
		p := s.Properties[name]
		if len(p.Enum) > 0 {
			in[name] = p.Enum[0]
			continue
		}
		typ, _ := p.Type.(string)
		switch {
		case typ == "integer" || typ == "number":
			in[name] = 1
		case typ == "boolean":
			in[name] = false
		case typ == "array":
			in[name] = []any{}
		case typ == "object":
			in[name] = map[string]any{}
		case strings.Contains(name, "path"):
			in[name] = filepath.Join(dir, "probe-"+strings.ToLower(tool)+".txt")
		case name == "command":
			in[name] = "touch " + filepath.Join(dir, "ran."+tool)
		case name == "url":
			in[name] = "http://127.0.0.1:9/"
		case name == "old_string":
			in[name] = "a"
		default:
			in[name] = "x"
		}
	}
	return in
}

// TestRealClaudeAllToolsGated measures all_tools_gated on the pinned
// Claude Code: under the redaction entry (pre_tool attached with matcher
// "*"), the scripted model calls every tool the engine offers it, once,
// with an input built from the tool's schema. The test reads the receipts
// (copied by the exit hook before spawn exec removes them) and the tool
// results the model received, and logs per tool whether the pre-tool hook
// saw the call (a receipt with its id) and whether the engine refused the
// input before any hook.
// The capability means every call has a receipt; the test fails when that
// observation and the claude-2.1.328 table disagree. Observed 2026-12-01
// (12 tools offered with --agents): every call the engine accepted (Agent,
// Bash, ListAgents, Read, ReportFindings, ScheduleWakeup, ToolSearch,
// Write) had a receipt; four the engine refused before any hook (a
// DeferredToolPlaceholder "No such tool available", an Edit of a missing
// file, an unknown Skill, a Workflow failing input validation) had none.
// Those did not run, but they are tool calls in the transcript with no
// receipt, so agent_exit fails the run on them, and the capability is not
// granted on this evidence.
func TestRealClaudeAllToolsGated(t *testing.T) {
	bin := needClient(t, "claude")
	shipped, err := LoadTable(Tables(), "claude", "2.1.328")
	if err != nil {
		t.Fatal(err)
	}
	copyTo := filepath.Join(t.TempDir(), "receipts.jsonl")
	w := newRedactWorld(t, map[string]string{"[GH_TOKEN]": realRaw}, "", "cp \"$HOOKWARDEN_HOOK_RECEIPTS\" "+shq(copyTo)+`; exec "$HW" redact "$@"`, "")
	var offered []string
	model := startScriptedModel(t, nil, nil)
	model.plan = func(tools map[string]json.RawMessage) []scriptedCall {
		var calls []scriptedCall
		for name, schema := range tools {
			offered = append(offered, name)
			calls = append(calls, scriptedCall{name, schemaInput(name, schema, w.repo)})
		}
		slices.SortFunc(calls, func(a, b scriptedCall) int { return strings.Compare(a.Tool, b.Tool) })
		slices.Sort(offered)
		return calls
	}
	_, env := w.mockClient("claude", bin, model.port)
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	code, err := Exec(ctx, ExecOptions{Argv: []string{"claude", "-p", "run it", "--allowedTools", "Bash",
		"--agents", `{"helper":{"description":"a helper","prompt":"help"}}`},
		Home: w.home, Cwd: w.repo, Env: env, Stdout: &out, Stderr: &out, Tables: redactTestTable(t)})
	t.Logf("spawn exec: exit %d %v", code, err)
	if len(offered) == 0 {
		t.Fatalf("the model was offered no tool:\n%s", out.String())
	}
	receipted := map[string]string{}
	rb, _ := os.ReadFile(copyTo)
	sc := bufio.NewScanner(bytes.NewReader(rb))
	for sc.Scan() {
		var r struct {
			Event, Tool, Route string
			ID                 string `json:"tool_use_id"`
		}
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Event == "pre_tool" {
			receipted[r.ID] = r.Tool + " " + r.Route
		}
	}
	// the tool_use ids and results as the model received them
	results := map[string]string{}
	calls := map[string]string{}
	for _, c := range modelCalls(model.log()) {
		calls[c.ID], results[c.ID] = c.Tool, c.Result
	}
	seenAll := true
	ids := make([]string, 0, len(calls))
	for id := range calls {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		r, ok := receipted[id]
		res := results[id]
		if len(res) > 120 {
			res = res[:120]
		}
		t.Logf("%-6s %-18s receipt: %-22q result: %s", id, calls[id], r, res)
		seenAll = seenAll && ok
	}
	if len(calls) < len(offered) {
		t.Logf("the model made %d of %d calls (offered: %v)", len(calls), len(offered), offered)
		seenAll = false
	}
	_, granted := shipped.Capabilities["all_tools_gated"]
	if granted != seenAll {
		t.Errorf("claude-2.1.328 lists all_tools_gated = %v, but every offered tool's call had a pre-tool receipt = %v", granted, seenAll)
	}
}
