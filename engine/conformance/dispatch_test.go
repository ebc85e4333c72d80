package conformance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The agent-traffic cases (issue 19) run the real Claude Code with the
// rows `hookwarden adopt` registers for a manifest with a dispatch:
// section, the scripted model calling the Agent tool once. The model
// server's request log is the oracle: the subagent's own requests are the
// ones whose first user message holds the brief's marker.

const (
	// agentsMD is the repository's AGENTS.md: a read rule the projection
	// keeps and a change rule it drops.
	agentsMD = "# Project\n\nRun `go test ./...` before you report.\n\nCommit with `git commit -s` when done.\n"
	// briefMarker is a sentence of every scripted brief, so the
	// subagent's requests can be told from the parent's.
	briefMarker = "Find where the parser lives and report it."
	// dispatchBanner is the start of engine/dispatch.Banner.
	dispatchBanner = "[hookwarden: read-only dispatch]"
)

// dispatchCase is one agent-traffic run.
type dispatchCase struct {
	name       string
	rows       []string
	check      string
	dispatch   string // the dispatch: section's body lines
	projection bool   // run compile-context before the session
	input      map[string]any
	finalText  string // the scripted model's text answers ("" = "done")
	legacy     bool   // call the tool by its legacy name Task (not offered)
	verify     func(t *testing.T, r *caseRun)
}

// subagentRequests returns the logged requests of the subagent: those whose
// first message carries the brief marker (the parent's first message is the
// -p prompt).
func subagentRequests(srv *Server) []Request {
	var out []Request
	for _, r := range srv.Requests() {
		var doc struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if json.Unmarshal(r.Body, &doc) != nil || len(doc.Messages) == 0 {
			continue
		}
		if strings.Contains(string(doc.Messages[0]), strings.ReplaceAll(briefMarker, "`", "")) {
			out = append(out, r)
		}
	}
	return out
}

// count returns how many JSON strings of the request hold text.
func count(r Request, text string) int {
	n := 0
	for _, s := range r.Strings() {
		n += strings.Count(s, text)
	}
	return n
}

// wantRefused checks a refused dispatch: the client ended cleanly, no
// subagent asked the model, and the parent's next request carries each of
// texts.
func wantRefused(t *testing.T, r *caseRun, texts ...string) {
	t.Helper()
	r.wantExit(t, 0)
	if n := len(subagentRequests(r.srv)); n != 0 {
		t.Errorf("%d subagent requests although the dispatch was refused", n)
	}
	for _, text := range texts {
		r.wantCarried(t, text)
	}
}

func dispatchCases() []dispatchCase {
	return []dispatchCase{
		{name: "readonly-delivered", rows: []string{"pre-dispatch"}, projection: true,
			check:    "a readonly: true Agent dispatch reached the subagent rewritten: its first request carries the banner and the projection inside <read-only-context> before the brief, and the rewritten brief holds no change rule",
			dispatch: "  tasks: [review]\n",
			input:    map[string]any{"description": "find the parser", "prompt": "task: review\nreadonly: true\n" + briefMarker, "subagent_type": "general-purpose", "run_in_background": false},
			verify: func(t *testing.T, r *caseRun) {
				r.wantExit(t, 0)
				subs := subagentRequests(r.srv)
				if len(subs) == 0 {
					t.Fatalf("no request of the subagent in the model log (%d requests)", len(r.srv.Requests()))
				}
				first := subs[0]
				if !first.Carries(dispatchBanner) || !first.Carries("<read-only-context>") || !first.Carries("Run `go test ./...` before you report.") {
					t.Errorf("the subagent's first request lacks the banner or the projection")
				}
				// The rewritten brief holds the projection, not the change
				// rule. (A general-purpose subagent still loads CLAUDE.md,
				// so the full AGENTS.md is elsewhere in the same request:
				// README, "Unenforceable".)
				found := false
				for _, s := range first.Strings() {
					if i, j := strings.Index(s, "</read-only-context>"), strings.Index(s, briefMarker); i >= 0 && j > i {
						found = true
						if strings.Contains(s, "git commit -s") {
							t.Errorf("the rewritten brief carries the change rule the projection drops")
						}
					}
				}
				if !found {
					t.Errorf("the brief does not follow the read-only context in the subagent's first request")
				}
			}},
		{name: "readonly-refused", rows: []string{"pre-dispatch"}, projection: false,
			check:    "a readonly: true Agent dispatch without AGENTS.readonly.md was refused: no subagent request, the refusal (run hookwarden compile-context) reached the model",
			dispatch: "  tasks: [review]\n",
			input:    map[string]any{"description": "find the parser", "prompt": "task: review\nreadonly: true\n" + briefMarker, "run_in_background": false},
			verify: func(t *testing.T, r *caseRun) {
				wantRefused(t, r, "[BLOCKED BY hookwarden:readonly-projection]", "run hookwarden compile-context")
			}},
		{name: "task-undeclared-refused", rows: []string{"pre-dispatch"}, projection: true,
			check:    "an Agent dispatch whose brief names no declared task label was refused: no subagent request, the refusal with the declared labels reached the model",
			dispatch: "  tasks: [review, docs]\n",
			input:    map[string]any{"description": "find the parser", "prompt": briefMarker, "run_in_background": false},
			verify: func(t *testing.T, r *caseRun) {
				wantRefused(t, r, "[BLOCKED BY hookwarden:dispatch-task]", "review, docs")
			}},
		{name: "return-denied-once", rows: []string{"dispatch-receipt", "post-return"}, projection: true,
			check:     "a background Agent dispatch was bound by its receipt; its report matching dispatch.return_deny was refused once (the subagent's next request carries the refusal) and the repeated stop released it",
			dispatch:  "  return_deny: ['(?i)secret']\n",
			input:     map[string]any{"description": "find the parser", "prompt": briefMarker},
			finalText: "The secret parser is in parse.go.",
			verify: func(t *testing.T, r *caseRun) {
				r.wantExit(t, 0)
				subs := subagentRequests(r.srv)
				if len(subs) < 2 {
					t.Fatalf("%d subagent requests, want 2 (the report, then the report again after the refusal)", len(subs))
				}
				if !subs[1].Carries("[BLOCKED BY hookwarden:dispatch-return]") {
					t.Errorf("the subagent's second request does not carry the return refusal")
				}
				stops := calls(t, r.user, "SubagentStop")
				if len(stops) != 2 || stops[0]["stop_hook_active"] != false || stops[1]["stop_hook_active"] != true {
					t.Errorf("SubagentStop calls %d, want 2 (the second with stop_hook_active)", len(stops))
				}
			}},
		{name: "legacy-task-name", rows: []string{"pre-dispatch"}, projection: true, legacy: true,
			check:    "the model calling the agent tool by its legacy name Task with an undeclared label: no subagent ran unjudged",
			dispatch: "  tasks: [review]\n",
			input:    map[string]any{"description": "find the parser", "prompt": briefMarker, "run_in_background": false},
			verify: func(t *testing.T, r *caseRun) {
				wantRefused(t, r, "[BLOCKED BY hookwarden:dispatch-task]")
			}},
		{name: "explore-start", rows: []string{"subagent-start", "pre-dispatch"}, projection: true,
			check:    "an Explore agent received the projection through SubagentStart: its first request carries the banner and the projection twice (the rewritten brief and the added context)",
			dispatch: "  tasks: [review]\n",
			input:    map[string]any{"description": "find the parser", "prompt": "task: review\n" + briefMarker, "subagent_type": "Explore", "run_in_background": false},
			verify: func(t *testing.T, r *caseRun) {
				r.wantExit(t, 0)
				subs := subagentRequests(r.srv)
				if len(subs) == 0 {
					t.Fatalf("no request of the Explore subagent in the model log (%d requests)", len(r.srv.Requests()))
				}
				// The closing tag: the banner itself names the opening one.
				if n := count(subs[0], "</read-only-context>"); n != 2 {
					t.Errorf("the Explore agent's first request carries </read-only-context> %d times, want 2 (brief and SubagentStart)", n)
				}
				// Explore omits CLAUDE.md (its agent definition sets
				// omitClaudeMd), so nothing but the projection reaches it.
				if subs[0].Carries("git commit -s") {
					t.Errorf("the Explore agent's first request carries the change rule")
				}
				if len(calls(t, r.user, "SubagentStart")) == 0 {
					t.Errorf("SubagentStart never fired")
				}
			}},
	}
}

// TestRealClaudeDispatch runs each dispatch case against the real Claude
// Code with the rows adopt registers (launcher, hookwarden on PATH) and a
// user-level recorder on the Agent tool and the subagent events, whose
// payloads are recorded as fixtures under HOOKWARDEN_E2E_RECORD=1.
func TestRealClaudeDispatch(t *testing.T) {
	for _, dc := range dispatchCases() {
		t.Run(dc.name, func(t *testing.T) {
			t.Parallel()
			s := theSuite
			c, version := s.client(t, "claude")
			bin := s.hookwarden(t)
			if ok, why := s.adoptWorks(t, bin); !ok {
				s.unavailable(t, "the dispatch cases need a working `hookwarden adopt`: "+why)
			}
			for _, row := range dc.rows {
				s.observe(t, "claude", version, row, dc.name+": "+dc.check)
			}
			sb := s.sandbox(t)
			call := &ToolCall{Name: "Agent", Input: dc.input}
			if dc.legacy {
				call = &ToolCall{Name: "Task", Input: dc.input, Unoffered: true}
			}
			srv, err := NewServer(Anthropic, Script{Call: call, FinalText: dc.finalText})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(srv.Close)
			inv, err := c.Setup(sb, s.clientsDir, srv.URL(), "--allowedTools", "Bash,Write,Agent")
			if err != nil {
				t.Fatal(err)
			}
			r := &caseRun{c: c, version: version, sb: sb, srv: srv, foreign: filepath.Join(sb.Out, "repo"),
				user: filepath.Join(sb.Out, "user"), settings: map[string]string{}, adopted: true}
			man := "version: 1\nclients: [claude]\nhooks:\n  events: [pre-tool]\ndispatch:\n" + dc.dispatch
			if err := sb.WriteFile("repo/.hookwarden.yaml", []byte(man)); err != nil {
				t.Fatal(err)
			}
			if err := sb.WriteFile("repo/AGENTS.md", []byte(agentsMD)); err != nil {
				t.Fatal(err)
			}
			rec := s.testHookCommand(r.user, "record")
			if err := sb.WriteFile("home/settings.json", hooksDoc(nil, []hookRow{
				{Native: "PreToolUse", Matcher: "Agent", Command: rec, Timeout: 15},
				{Native: "PostToolUse", Matcher: "Agent", Command: rec, Timeout: 15},
				{Native: "SubagentStart", Command: rec, Timeout: 15},
				{Native: "SubagentStop", Command: rec, Timeout: 15},
			})); err != nil {
				t.Fatal(err)
			}
			path := filepath.Dir(bin) + string(os.PathListSeparator) + pathWithout("hookwarden")
			inv.Env = append(inv.Env, "PATH="+path)
			if out, err := s.hookwardenCmd(t, bin, sb, path, "adopt", sb.Repo); err != nil {
				t.Fatalf("hookwarden adopt: %v\n%s", err, out)
			}
			if dc.projection {
				if out, err := s.hookwardenCmd(t, bin, sb, path, "compile-context"); err != nil {
					t.Fatalf("hookwarden compile-context: %v\n%s", err, out)
				}
			} else {
				_ = os.Remove(filepath.Join(sb.Repo, "AGENTS.readonly.md"))
			}
			if b, err := os.ReadFile(filepath.Join(sb.Repo, ".claude/settings.json")); err == nil {
				r.settings["repo/.claude/settings.json"] = string(b)
			}
			if err := sb.Commit(t.Context(), "governed"); err != nil {
				t.Fatal(err)
			}
			r.res = s.run(t, inv)
			dc.verify(t, r)
			if t.Failed() {
				t.Logf("client output:\n%s", r.res.Tail(3000))
				for k, v := range r.settings {
					t.Logf("%s:\n%s", k, v)
				}
				for i, q := range srv.Requests() {
					t.Logf("request %d %s %s reply %s tool %s: %.600s", i, q.Method, q.Path, q.Reply, q.Tool, q.Body)
				}
			} else {
				s.recordPayloads(t, sb, r.user, "claude", version, dc.name)
			}
		})
	}
}

// geminiAgentRun runs Gemini CLI 0.61.0 once with the rows adopt registers
// for manifest (a dispatch: section), AGENTS.md and, with compile, its
// projection, a user-level BeforeTool recorder on invoke_agent, and the
// scripted model calling invoke_agent (codebase_investigator) with brief.
func (s *suite) geminiAgentRun(t *testing.T, manifest string, compile bool, brief string) *caseRun {
	t.Helper()
	c, version := s.client(t, "gemini")
	bin := s.hookwarden(t)
	if ok, why := s.adoptWorks(t, bin); !ok {
		s.unavailable(t, "the dispatch case needs a working `hookwarden adopt`: "+why)
	}
	sb := s.sandbox(t)
	srv, err := NewServer(Gemini, Script{Call: &ToolCall{Name: "invoke_agent", Input: map[string]any{"agent_name": "codebase_investigator", "prompt": brief}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	inv, err := c.Setup(sb, s.clientsDir, srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	user := filepath.Join(sb.Out, "user")
	for rel, body := range map[string]string{"repo/.hookwarden.yaml": manifest, "repo/AGENTS.md": agentsMD} {
		if err := sb.WriteFile(rel, []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := sb.WriteFile("home/.gemini/settings.json", hooksDoc(geminiUserBase(), []hookRow{
		{Native: "BeforeTool", Matcher: "invoke_agent", Command: s.testHookCommand(user, "record"), Timeout: 15000}})); err != nil {
		t.Fatal(err)
	}
	path := filepath.Dir(bin) + string(os.PathListSeparator) + pathWithout("hookwarden")
	inv.Env = append(inv.Env, "PATH="+path)
	steps := [][]string{{"adopt", sb.Repo}}
	if compile {
		steps = append(steps, []string{"compile-context"})
	}
	for _, args := range steps {
		if out, err := s.hookwardenCmd(t, bin, sb, path, args...); err != nil {
			t.Fatalf("hookwarden %v: %v\n%s", args, err, out)
		}
	}
	if !compile {
		_ = os.Remove(filepath.Join(sb.Repo, "AGENTS.readonly.md"))
	}
	if err := sb.Commit(t.Context(), "governed"); err != nil {
		t.Fatal(err)
	}
	r := &caseRun{c: c, version: version, sb: sb, srv: srv, user: user}
	r.res = s.run(t, inv)
	offered := false
	for _, q := range srv.Requests() {
		if q.Reply == "tool" && q.Tool == "invoke_agent" {
			offered = true
		}
	}
	if !offered {
		s.unavailable(t, "Gemini CLI "+version+" did not offer invoke_agent to the model (no tool call was made), so the row could not be exercised")
	}
	return r
}

// TestRealGeminiDispatch: an invoke_agent call whose brief names no
// declared task label is refused by BeforeTool and the refusal reaches the
// model's next request.
func TestRealGeminiDispatch(t *testing.T) {
	s := theSuite
	r := s.geminiAgentRun(t, "version: 1\nclients: [gemini]\nhooks:\n  events: [pre-tool]\ndispatch:\n  tasks: [review, docs]\n", true, briefMarker)
	s.observe(t, "gemini", r.version, "pre-dispatch", "task-undeclared-refused: an invoke_agent call whose brief names no declared task label was refused and the refusal with the declared labels reached the model")
	r.wantExit(t, 0)
	r.wantCarried(t, "[BLOCKED BY hookwarden:dispatch-task]")
	if len(calls(t, r.user, "BeforeTool")) == 0 {
		t.Errorf("the user-level BeforeTool recorder never saw invoke_agent")
	}
	if t.Failed() {
		t.Logf("client output:\n%s", r.res.Tail(3000))
	} else {
		s.recordPayloads(t, r.sb, r.user, "gemini", r.version, "task-undeclared-refused")
	}
}

// TestRealGeminiReadonly: a readonly: true invoke_agent brief reaches the
// subagent rewritten through BeforeTool's tool_input (a model request
// carries the banner and the projection before the brief), and without a
// projection it is refused.
func TestRealGeminiReadonly(t *testing.T) {
	s := theSuite
	man := "version: 1\nclients: [gemini]\nhooks:\n  events: [pre-tool]\ndispatch:\n"
	t.Run("delivered", func(t *testing.T) {
		r := s.geminiAgentRun(t, man, true, "readonly: true\n"+briefMarker)
		s.observe(t, "gemini", r.version, "pre-dispatch", "readonly-delivered: a readonly: true invoke_agent brief reached the subagent rewritten through BeforeTool's tool_input: a model request carries the banner and the projection before the brief")
		found := false
		for _, q := range r.srv.Requests() {
			for _, str := range q.Strings() {
				if i, j := strings.Index(str, "</read-only-context>"), strings.Index(str, briefMarker); i >= 0 && j > i && strings.Contains(str, dispatchBanner) {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("no model request carries the rewritten brief (banner, projection, then the brief)")
			t.Logf("client output:\n%s", r.res.Tail(3000))
			for i, q := range r.srv.Requests() {
				t.Logf("request %d %s reply %s tool %s carries brief %v banner %v: %.300s", i, q.Path, q.Reply, q.Tool, q.Carries(briefMarker), q.Carries(dispatchBanner), q.Body)
			}
		}
	})
	t.Run("refused", func(t *testing.T) {
		r := s.geminiAgentRun(t, man, false, "readonly: true\n"+briefMarker)
		s.observe(t, "gemini", r.version, "pre-dispatch", "readonly-refused: a readonly: true invoke_agent brief without AGENTS.readonly.md was refused and the refusal reached the model")
		r.wantCarried(t, "[BLOCKED BY hookwarden:readonly-projection]")
	})
}

// codexSpawnRun runs Codex 0.169.0 (features.multi_agent on: spawn_agent
// is offered only then) once in a sandbox governed with manifest and
// AGENTS.md, the rows adopt registers trusted with codex-trust, a
// user-level recorder (trusted by the harness) on each native event of
// recorders, and the scripted model calling spawn_agent with the brief
// marker. With compile, compile-context writes the projection first.
func (s *suite) codexSpawnRun(t *testing.T, manifest string, compile bool, recorders []hookRow) *caseRun {
	t.Helper()
	return s.codexSpawnRunBrief(t, manifest, compile, recorders, briefMarker)
}

// codexSpawnRunBrief is codexSpawnRun with the spawn_agent message brief.
func (s *suite) codexSpawnRunBrief(t *testing.T, manifest string, compile bool, recorders []hookRow, brief string) *caseRun {
	t.Helper()
	return s.codexGovernedRun(t, manifest, compile, recorders,
		Script{Call: &ToolCall{Name: "spawn_agent", Input: map[string]any{"message": brief}}}, "-c", "features.multi_agent=true")
}

// codexGovernedRun runs Codex 0.169.0 once (extraArgs after `codex exec
// --json --skip-git-repo-check`) in a sandbox governed with manifest and
// AGENTS.md by the real `hookwarden adopt`, the rows trusted with
// codex-trust, a user-level recorder (trusted by the harness) on each
// native event of recorders, and the scripted model following script. With
// compile, compile-context writes the projection first.
func (s *suite) codexGovernedRun(t *testing.T, manifest string, compile bool, recorders []hookRow, script Script, extraArgs ...string) *caseRun {
	t.Helper()
	c, version := s.client(t, "codex")
	bin := s.hookwarden(t)
	if ok, why := s.adoptWorks(t, bin); !ok {
		s.unavailable(t, "the governed Codex case needs a working `hookwarden adopt`: "+why)
	}
	sb := s.sandbox(t)
	srv, err := NewServer(Responses, script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	inv, err := c.Setup(sb, s.clientsDir, srv.URL(), extraArgs...)
	if err != nil {
		t.Fatal(err)
	}
	for rel, body := range map[string]string{"repo/.hookwarden.yaml": manifest, "repo/AGENTS.md": agentsMD} {
		if err := sb.WriteFile(rel, []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	user := filepath.Join(sb.Out, "user")
	for i := range recorders {
		recorders[i].Command, recorders[i].Timeout = s.testHookCommand(user, "record"), 15
	}
	if err := sb.WriteFile("home/hooks.json", hooksDoc(nil, recorders)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Dir(bin) + string(os.PathListSeparator) + pathWithout("hookwarden")
	inv.Env = append(inv.Env, "PATH="+path)
	steps := [][]string{{"adopt", sb.Repo}, {"codex-trust", "--trust-project", sb.Repo}}
	if compile {
		steps = append(steps, []string{"compile-context"})
	}
	for _, args := range steps {
		if out, err := s.hookwardenCmd(t, bin, sb, path, args...); err != nil {
			t.Fatalf("hookwarden %v: %v\n%s", args, err, out)
		}
	}
	// codex-trust never trusts a row that is not ours: the recorders'
	// trust records are the harness's own.
	trustCodex(t, sb, "home/hooks.json")
	if err := sb.Commit(t.Context(), "governed"); err != nil {
		t.Fatal(err)
	}
	r := &caseRun{c: c, version: version, sb: sb, srv: srv, user: user}
	r.res = s.run(t, inv)
	return r
}

// TestRealCodexDispatch: the scripted model calls spawn_agent with a brief
// that names no declared task label. When Codex offers spawn_agent and runs
// PreToolUse on it, the dispatch-task refusal must reach the model's next
// request; when it does not offer the tool, or the refusal does not arrive,
// the case says so (a stated skip; a failure under HOOKWARDEN_E2E=require).
func TestRealCodexDispatch(t *testing.T) {
	s := theSuite
	r := s.codexSpawnRun(t, "version: 1\nclients: [codex]\nhooks:\n  events: [pre-tool]\ndispatch:\n  tasks: [review, docs]\n", false,
		[]hookRow{{Native: "PreToolUse", Matcher: "spawn_agent"}})
	called := false
	for _, q := range r.srv.Requests() {
		if q.Reply == "tool" && q.Tool == "spawn_agent" {
			called = true
		}
	}
	if !called {
		s.unavailable(t, "Codex "+r.version+" did not offer spawn_agent to the model, so the row could not be exercised")
	}
	turns := r.srv.MainTurns()
	if len(turns) < 2 || !turns[1].Carries("[BLOCKED BY hookwarden:dispatch-task]") {
		t.Logf("client output:\n%s", r.res.Tail(3000))
		s.unavailable(t, "Codex "+r.version+" ran spawn_agent without the dispatch-task refusal reaching the model: PreToolUse did not block spawn_agent (its hook may not fire for that tool)")
	}
	s.observe(t, "codex", r.version, "pre-dispatch", "task-undeclared-refused: a spawn_agent call (multi_agent feature on) whose brief names no declared task label was refused by PreToolUse and the refusal reached the model")
	ps := calls(t, r.user, "PreToolUse")
	if len(ps) == 0 || str(ps[0]["tool_name"]) != "spawn_agent" || str(obj(ps[0]["tool_input"])["message"]) != briefMarker {
		t.Errorf("the user-level recorder saw %d PreToolUse calls, want spawn_agent with the brief as tool_input.message: %v", len(ps), ps)
	}
	if !t.Failed() {
		s.recordPayloads(t, r.sb, r.user, "codex", r.version, "task-undeclared-refused")
	}
}

// TestRealCodexSubagentStart: an agent type the operator lists in
// dispatch.readonly_agents and a compiled projection; the scripted model
// spawns an agent, and the projection subagent-start returns as
// additionalContext must reach the subagent's model request.
func TestRealCodexSubagentStart(t *testing.T) {
	s := theSuite
	r := s.codexSpawnRun(t, "version: 1\nclients: [codex]\nhooks:\n  events: [pre-tool]\ndispatch:\n  readonly_agents: [default]\n", true,
		[]hookRow{{Native: "SubagentStart"}, {Native: "SubagentStop"}})
	starts := calls(t, r.user, "SubagentStart")
	if len(starts) > 0 {
		s.recordPayloads(t, r.sb, r.user, "codex", r.version, "readonly-agent-type")
	}
	if len(starts) == 0 {
		t.Logf("client output:\n%s", r.res.Tail(3000))
		s.unavailable(t, "Codex "+r.version+" spawned no agent or ran no SubagentStart hook, so the row could not be exercised")
	}
	// The subagent's requests hold the brief as a user message; the
	// parent's hold it only inside its spawn_agent call's arguments.
	sub := 0
	for _, q := range r.srv.Requests() {
		var doc struct {
			Input []struct {
				Type    string          `json:"type"`
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"input"`
		}
		_ = json.Unmarshal(q.Body, &doc)
		for _, it := range doc.Input {
			if it.Type == "message" && it.Role == "user" && strings.Contains(string(it.Content), briefMarker) {
				sub++
				break
			}
		}
	}
	if sub == 0 {
		// Observed 2026-12-01 on 0.169.0: codex exec ends its turn with the
		// spawned agent still pending_init, so the agent never asks the
		// model. A client behaviour, not a hookwarden failure, so a plain
		// stated skip (also under HOOKWARDEN_E2E=require); a Codex that
		// runs the agent makes the case judge the delivery.
		t.Skipf("stated skip: Codex %s fired SubagentStart (payload recorded) but the spawned agent made no model request before codex exec ended, so the delivery of additionalContext could not be seen", r.version)
	}
	carrying := 0
	for _, q := range r.srv.Requests() {
		if q.Carries("</read-only-context>") {
			carrying++
			if !q.Carries(dispatchBanner) || !q.Carries("Run `go test ./...` before you report.") {
				t.Errorf("a request carries the read-only context without the banner or the projection")
			}
		}
	}
	if carrying == 0 {
		t.Errorf("no model request carries the projection SubagentStart returned (%d requests; SubagentStart payload %v)", len(r.srv.Requests()), starts[0])
	}
	s.observe(t, "codex", r.version, "subagent-start", "readonly-agent-type: an agent of a type listed in dispatch.readonly_agents received the projection through SubagentStart's additionalContext (its model request carries the banner and the projection)")
	if t.Failed() {
		t.Logf("client output:\n%s", r.res.Tail(3000))
	}
}

// TestRealCodexReadonly: a readonly: true spawn_agent brief is rewritten
// through PreToolUse updatedInput; codex exec's own JSON event for the
// spawn (collab_tool_call) shows the prompt the agent was started with.
func TestRealCodexReadonly(t *testing.T) {
	s := theSuite
	r := s.codexSpawnRunBrief(t, "version: 1\nclients: [codex]\nhooks:\n  events: [pre-tool]\ndispatch:\n", true, nil, "readonly: true\n"+briefMarker)
	s.observe(t, "codex", r.version, "pre-dispatch", "readonly-delivered: a readonly: true spawn_agent brief was rewritten through PreToolUse updatedInput: codex exec's collab_tool_call event shows the agent started with the banner and the projection")
	if !strings.Contains(string(r.res.Stdout), `"collab_tool_call"`) {
		s.unavailable(t, "Codex "+r.version+" started no agent (no collab_tool_call event)")
	}
	if !strings.Contains(string(r.res.Stdout), "</read-only-context>") {
		t.Errorf("the spawned agent's prompt in codex exec's collab_tool_call event carries no read-only context:\n%s", r.res.Tail(3000))
	}
}
