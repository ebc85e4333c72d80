package live

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/engine/dispatch"
	"github.com/hookwarden/hookwarden/engine/hook"
	agentcontext "github.com/hookwarden/hookwarden/templates/agentcontext"
)

// dispatchCase is one entry of testdata/dispatch/cases.json (its "about"
// member describes the fields).
type dispatchCase struct {
	ID         string          `json:"id"`
	Client     string          `json:"client"`
	Event      string          `json:"event"`
	Dispatch   string          `json:"dispatch"`
	Projection string          `json:"projection"`
	Input      json.RawMessage `json:"input"`
	AgentType  string          `json:"agent_type"`
	Want       string          `json:"want"`
	Rule       string          `json:"rule"`
	Stderr     []string        `json:"stderr"`
	Stdout     []string        `json:"stdout"`
	StdoutNot  []string        `json:"stdout_not"`
	Rewritten  []int           `json:"rewritten"`
}

// agentsSource is the AGENTS.md compile-context turns into the projection
// of the "banner" cases: one read rule that stays, one change rule the
// projection drops.
const agentsSource = "# Project\n\nRun `go test ./...` before you report.\n\nCommit with `git commit -s` when done.\n"

// dispatchRepo makes a governed repository with the case's dispatch
// section and projection; it returns the repo root and the environment.
func dispatchRepo(t *testing.T, dc dispatchCase) (string, func(string) (string, bool)) {
	t.Helper()
	repo, lookup := governedRepo(t)
	man := "version: 1\n"
	if dc.Dispatch != "" {
		man += "dispatch:\n  " + dc.Dispatch + "\n"
	}
	if err := os.WriteFile(filepath.Join(repo, ".hookwarden.yaml"), []byte(man), 0o644); err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(repo, dispatch.ProjectionFile)
	switch dc.Projection {
	case "banner", "long":
		src := agentsSource
		if dc.Projection == "long" {
			for i := 0; i < 400; i++ {
				src += "\nfiller line " + strings.Repeat("x", 30) + " read this.\n"
			}
		}
		if err := os.WriteFile(filepath.Join(repo, "AGENTS.md"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		plan, err := agentcontext.Compile(context.Background(), agentcontext.Options{TargetDir: repo, Clients: []string{"claude"}, LineBudget: -1})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := agentcontext.Apply(context.Background(), plan); err != nil {
			t.Fatal(err)
		}
	case "nobanner":
		if err := os.WriteFile(proj, []byte("# Project\n\nRun the tests.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	case "none":
	default:
		t.Fatalf("unknown projection %q", dc.Projection)
	}
	return repo, lookup
}

// dispatchPayload builds the client's payload for the case.
func dispatchPayload(t *testing.T, dc dispatchCase, repo string) []byte {
	t.Helper()
	var in any
	if len(dc.Input) > 0 {
		if err := json.Unmarshal(dc.Input, &in); err != nil {
			t.Fatal(err)
		}
	}
	var m map[string]any
	switch {
	case dc.Client == "agy":
		m = map[string]any{"conversationId": "c0ffee", "stepIdx": 3, "transcriptPath": "/t.jsonl",
			"toolCall": map[string]any{"name": "invoke_subagent", "args": in}, "workspacePaths": []any{repo}}
	case dc.Event == "subagent-start":
		m = map[string]any{"session_id": "s1", "transcript_path": "/t.jsonl", "cwd": repo,
			"hook_event_name": "SubagentStart", "agent_id": "a1", "agent_type": dc.AgentType}
	default:
		native, tool := map[string]string{"claude": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool"}[dc.Client],
			map[string]string{"claude": "Agent", "codex": "spawn_agent", "gemini": "invoke_agent"}[dc.Client]
		m = map[string]any{"session_id": "s1", "transcript_path": "/t.jsonl", "cwd": repo, "permission_mode": "default",
			"hook_event_name": native, "tool_name": tool, "tool_input": in, "tool_use_id": "toolu_01"}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDispatchCorpus replays testdata/dispatch/cases.json through the hook
// path (hook.Run with the production wiring) and checks each answer in the
// client's own form: a deny blocks (exit 2, agy its JSON deny) with the
// rule, a rewrite returns the whole input with exactly the read-only briefs
// rewritten (banner, projection inside <read-only-context>, original
// brief) and every other member unchanged, a context adds the projection
// or names the missing channel.
func TestDispatchCorpus(t *testing.T) {
	data, err := os.ReadFile("../../../testdata/dispatch/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []dispatchCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Cases) < 30 {
		t.Fatalf("%d dispatch cases, want at least 30", len(doc.Cases))
	}
	deps, err := Deps()
	if err != nil {
		t.Fatal(err)
	}
	for _, dc := range doc.Cases {
		t.Run(dc.ID, func(t *testing.T) {
			repo, lookup := dispatchRepo(t, dc)
			resp := hook.Run(context.Background(), deps, hook.Request{Client: dc.Client, Event: dc.Event,
				Stdin: strings.NewReader(string(dispatchPayload(t, dc, repo))), LookupEnv: lookup})
			out, errs := string(resp.Stdout), string(resp.Stderr)
			if got := resp.Verdict.Kind.String(); got != dc.Want {
				t.Fatalf("verdict %s, want %s (rule %q)\nstdout: %s\nstderr: %s", got, dc.Want, resp.Verdict.RuleID, out, errs)
			}
			if dc.Rule != "" && resp.Verdict.RuleID != dc.Rule {
				t.Errorf("rule %q, want %q", resp.Verdict.RuleID, dc.Rule)
			}
			switch {
			case dc.Want == "deny" && dc.Client == "agy":
				if resp.Exit != 0 || !strings.Contains(out, `"decision":"deny"`) {
					t.Errorf("agy deny answered exit %d, stdout %q", resp.Exit, out)
				}
			case dc.Want == "deny":
				if resp.Exit != 2 || !strings.Contains(errs, "[BLOCKED BY hookwarden:"+dc.Rule+"]") {
					t.Errorf("deny answered exit %d, stderr %q", resp.Exit, errs)
				}
			default:
				if resp.Exit != 0 {
					t.Errorf("%s answered exit %d (stderr %q)", dc.Want, resp.Exit, errs)
				}
			}
			for _, s := range dc.Stderr {
				if !strings.Contains(errs, s) && !(dc.Client == "agy" && strings.Contains(out, s)) {
					t.Errorf("stderr %q lacks %q", errs, s)
				}
			}
			for _, s := range dc.Stdout {
				if !strings.Contains(out, s) {
					t.Errorf("stdout %q lacks %q", out, s)
				}
			}
			for _, s := range dc.StdoutNot {
				if strings.Contains(out, s) {
					t.Errorf("stdout holds %q", s)
				}
			}
			if dc.Want == "rewrite" {
				checkRewrite(t, dc, repo, resp.Stdout)
			}
		})
	}
}

// checkRewrite checks a rewrite answer: the replaced input holds every
// member of the original, the briefs listed in dc.Rewritten are the banner,
// the projection inside <read-only-context> and the original brief, and
// every other brief and member is as sent.
func checkRewrite(t *testing.T, dc dispatchCase, repo string, stdout []byte) {
	t.Helper()
	proj, err := os.ReadFile(filepath.Join(repo, dispatch.ProjectionFile))
	if err != nil {
		t.Fatal(err)
	}
	var orig map[string]any
	if err := json.Unmarshal(dc.Input, &orig); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	var origBriefs, gotBriefs []map[string]any
	key := "prompt"
	if dc.Client == "agy" {
		var ans struct {
			Decision  string         `json:"decision"`
			Overwrite map[string]any `json:"overwrite"`
		}
		if err := json.Unmarshal(stdout, &ans); err != nil || ans.Decision != "allow" {
			t.Fatalf("agy answer %q: %v", stdout, err)
		}
		got, key = ans.Overwrite, "Prompt"
		if len(got) != 1 {
			t.Errorf("overwrite holds %d keys, want Subagents only", len(got))
		}
		for _, s := range orig["Subagents"].([]any) {
			origBriefs = append(origBriefs, s.(map[string]any))
		}
		for _, s := range got["Subagents"].([]any) {
			gotBriefs = append(gotBriefs, s.(map[string]any))
		}
	} else if dc.Client == "gemini" {
		// BeforeTool's tool_input: the whole input, prompt rewritten.
		var ans struct {
			HSO struct {
				HookEventName string         `json:"hookEventName"`
				ToolInput     map[string]any `json:"tool_input"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal(stdout, &ans); err != nil || ans.HSO.HookEventName != "BeforeTool" {
			t.Fatalf("gemini answer %q: %v", stdout, err)
		}
		origBriefs, gotBriefs = []map[string]any{orig}, []map[string]any{ans.HSO.ToolInput}
	} else {
		var ans struct {
			HSO struct {
				HookEventName string         `json:"hookEventName"`
				Decision      string         `json:"permissionDecision"`
				Reason        string         `json:"permissionDecisionReason"`
				UpdatedInput  map[string]any `json:"updatedInput"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal(stdout, &ans); err != nil || ans.HSO.HookEventName != "PreToolUse" || ans.HSO.Decision != "allow" || ans.HSO.Reason == "" {
			t.Fatalf("%s answer %q: %v", dc.Client, stdout, err)
		}
		got = ans.HSO.UpdatedInput
		origBriefs, gotBriefs = []map[string]any{orig}, []map[string]any{got}
		if dc.Client == "codex" {
			key = "message"
		}
	}
	if len(gotBriefs) != len(origBriefs) {
		t.Fatalf("%d briefs came back for %d sent", len(gotBriefs), len(origBriefs))
	}
	for i := range origBriefs {
		o, g := origBriefs[i], gotBriefs[i]
		if len(o) != len(g) {
			t.Errorf("brief %d: %d members came back for %d sent", i, len(g), len(o))
		}
		for k, v := range o {
			if k == key {
				continue
			}
			if gb, _ := json.Marshal(g[k]); string(gb) != string(mustJSON(t, v)) {
				t.Errorf("brief %d: member %s changed: %s", i, k, gb)
			}
		}
		brief, _ := o[key].(string)
		gotBrief, _ := g[key].(string)
		if !slices.Contains(dc.Rewritten, i) {
			if gotBrief != brief {
				t.Errorf("brief %d was rewritten although it is not read-only", i)
			}
			continue
		}
		want := dispatch.Banner + "\n\n<read-only-context>\n" + strings.TrimRight(string(proj), "\n") + "\n</read-only-context>\n\n" + brief
		if gotBrief != want {
			t.Errorf("brief %d rewritten as\n%s\nwant\n%s", i, gotBrief, want)
		}
		if strings.Contains(gotBrief, "git commit -s") {
			t.Errorf("brief %d: the projection still holds the change rule", i)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// dispatchStep is one step of a sequence in testdata/dispatch/sequences.json
// (its "about" member describes the fields).
type dispatchStep struct {
	Event       string   `json:"event"`
	Client      string   `json:"client"`
	Native      string   `json:"native"`
	Tool        string   `json:"tool"`
	Agent       string   `json:"agent"`
	Session     string   `json:"session"`
	Type        string   `json:"type"`
	Prompt      string   `json:"prompt"`
	Background  *bool    `json:"background"`
	Status      string   `json:"status"`
	Message     string   `json:"message"`
	NullMessage bool     `json:"null_message"`
	StopActive  bool     `json:"stop_hook_active"`
	Want        string   `json:"want"`
	Rule        string   `json:"rule"`
	Stderr      []string `json:"stderr"`
}

// stepPayload builds the Claude (or Codex) payload of one step; rewritten
// is the prompt the last rewrite answer returned.
func stepPayload(t *testing.T, st dispatchStep, repo, rewritten string) []byte {
	t.Helper()
	session := st.Session
	if session == "" {
		session = "s1"
	}
	prompt := st.Prompt
	if prompt == "$REWRITTEN" {
		prompt = rewritten
	}
	input := map[string]any{"description": "d", "prompt": prompt}
	if st.Type != "" {
		input["subagent_type"] = st.Type
	}
	if st.Background != nil {
		input["run_in_background"] = *st.Background
	}
	m := map[string]any{"session_id": session, "transcript_path": "/t.jsonl", "cwd": repo, "permission_mode": "default"}
	switch st.Event {
	case "pre-dispatch":
		m["hook_event_name"], m["tool_name"], m["tool_input"], m["tool_use_id"] = "PreToolUse", "Agent", input, st.Tool
	case "dispatch-receipt":
		m["hook_event_name"], m["tool_name"], m["tool_input"], m["tool_use_id"] = "PostToolUse", "Agent", input, st.Tool
		m["tool_response"] = map[string]any{"status": st.Status, "agentId": st.Agent, "prompt": prompt}
	case "dispatch-abort":
		m["hook_event_name"], m["tool_name"], m["tool_input"], m["tool_use_id"] = st.Native, "Agent", input, st.Tool
		if st.Native == "PermissionDenied" {
			m["reason"] = "denied"
		} else {
			m["error"] = "failed"
		}
	case "pre-handback", "handback-receipt", "handback-abort":
		in := map[string]any{"message": st.Message}
		if st.NullMessage {
			in = map[string]any{}
		}
		tool := st.Tool
		if tool == "" {
			tool = "toolu_hb"
		}
		native := map[string]string{"pre-handback": "PreToolUse", "handback-receipt": "PostToolUse", "handback-abort": st.Native}[st.Event]
		m["hook_event_name"], m["tool_name"], m["tool_input"], m["tool_use_id"] = native, "SubagentHandback", in, tool
		if st.Agent != "" {
			m["agent_id"], m["agent_type"] = st.Agent, "general-purpose"
		}
		switch native {
		case "PostToolUse": // tool_response: the shape is not read by handback-receipt
			m["tool_response"] = map[string]any{"delivered": true}
		case "PermissionDenied":
			m["reason"] = "denied"
		case "PostToolUseFailure":
			m["error"] = "failed"
		}
	case "post-return":
		m["hook_event_name"], m["agent_id"], m["agent_type"], m["stop_hook_active"] = "SubagentStop", st.Agent, "general-purpose", st.StopActive
		m["agent_transcript_path"] = "/a.jsonl"
		if st.NullMessage {
			m["last_assistant_message"] = nil
		} else {
			m["last_assistant_message"] = st.Message
		}
	default:
		t.Fatalf("unknown step event %q", st.Event)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDispatchSequences replays testdata/dispatch/sequences.json: pending
// rows, receipts binding agents (or reporting a refused rewrite), aborts
// clearing only their own row, the return gate judging bound agents once,
// through the hook path with the production wiring and the real store
// under the repository's git directory.
func TestDispatchSequences(t *testing.T) {
	data, err := os.ReadFile("../../../testdata/dispatch/sequences.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Sequences []struct {
			ID       string         `json:"id"`
			Dispatch string         `json:"dispatch"`
			Steps    []dispatchStep `json:"steps"`
		} `json:"sequences"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Sequences) < 10 {
		t.Fatalf("%d sequences, want at least 10", len(doc.Sequences))
	}
	deps, err := Deps()
	if err != nil {
		t.Fatal(err)
	}
	for _, seq := range doc.Sequences {
		t.Run(seq.ID, func(t *testing.T) {
			repo, lookup := dispatchRepo(t, dispatchCase{Dispatch: seq.Dispatch, Projection: "banner"})
			rewritten := ""
			for i, st := range seq.Steps {
				client := st.Client
				if client == "" {
					client = "claude"
				}
				resp := hook.Run(context.Background(), deps, hook.Request{Client: client, Event: st.Event,
					Stdin: strings.NewReader(string(stepPayload(t, st, repo, rewritten))), LookupEnv: lookup})
				errs := string(resp.Stderr)
				if got := resp.Verdict.Kind.String(); got != st.Want || st.Rule != "" && resp.Verdict.RuleID != st.Rule {
					t.Fatalf("step %d (%s): verdict %s %q, want %s %q\nstdout %s\nstderr %s", i, st.Event, got, resp.Verdict.RuleID, st.Want, st.Rule, resp.Stdout, errs)
				}
				if st.Want == "deny" && resp.Exit != 2 || st.Want != "deny" && resp.Exit != 0 {
					t.Errorf("step %d (%s): exit %d for %s", i, st.Event, resp.Exit, st.Want)
				}
				if st.Want == "skip" && !strings.HasPrefix(errs, "hookwarden: skip: ") {
					t.Errorf("step %d (%s): a skip without its stated reason: %q", i, st.Event, errs)
				}
				for _, s := range st.Stderr {
					if !strings.Contains(errs, s) {
						t.Errorf("step %d (%s): stderr %q lacks %q", i, st.Event, errs, s)
					}
				}
				if st.Want == "rewrite" {
					var ans struct {
						HSO struct {
							UpdatedInput struct {
								Prompt string `json:"prompt"`
							} `json:"updatedInput"`
						} `json:"hookSpecificOutput"`
					}
					if err := json.Unmarshal(resp.Stdout, &ans); err != nil || ans.HSO.UpdatedInput.Prompt == "" {
						t.Fatalf("step %d: rewrite answer %q: %v", i, resp.Stdout, err)
					}
					rewritten = ans.HSO.UpdatedInput.Prompt
				}
			}
		})
	}
}
