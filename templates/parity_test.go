package templates

import (
	"encoding/json"
	"github.com/hookwarden/hookwarden/internal/testbin"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/policy"
	"github.com/hookwarden/hookwarden/policy/policycases"
	"github.com/hookwarden/hookwarden/protocol/dialect"
	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/protocol/verdict"
)

const (
	policyCorpusDir = "../testdata/policy"
	seedCorpus      = "../testdata/templates/parity_seed.json"
)

type parityCase struct {
	id      string
	command string
	want    policy.Decision
}

// parityCases returns every text-rule case of the policy corpus and every
// seed case, with policy.Judge's decision. Seed cases also assert their
// recorded verdict and rule against Judge.
func parityCases(t *testing.T) []parityCase {
	p, err := policy.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []parityCase
	corpus, err := policycases.LoadCorpus(policyCorpusDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range corpus {
		if !c.Text {
			continue
		}
		cmd := c.Command()
		out = append(out, parityCase{c.ID, cmd, p.Judge(cmd)})
	}
	if len(out) == 0 {
		t.Fatalf("%s has no text-rule cases", policyCorpusDir)
	}
	for _, c := range loadCases(t, seedCorpus) {
		cmd := c.Command()
		d := p.Judge(cmd)
		if got := map[bool]string{true: "allow", false: "deny"}[d.Allowed]; got != c.Verdict || d.RuleID != c.Rule {
			t.Errorf("seed %s: policy.Judge = %s %q, the seed records %s %q", c.ID, got, d.RuleID, c.Verdict, c.Rule)
		}
		out = append(out, parityCase{c.ID, cmd, d})
	}
	for _, c := range out {
		if tx := p.JudgeText(c.command); tx != c.want {
			t.Errorf("case %s: policy.JudgeText %+v differs from policy.Judge %+v (a text case the interceptors cannot match)", c.id, tx, c.want)
		}
	}
	return out
}

func claudePayload(command string) string {
	b, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": command}})
	return string(b)
}

func agyPayload(command string) string {
	b, _ := json.Marshal(map[string]any{"conversationId": "c", "stepIdx": 1, "toolCall": map[string]any{"name": "run_command", "args": map[string]any{"CommandLine": command}}})
	return string(b)
}

// clientPayload builds one pre-tool payload of client carrying command (or,
// with tool set, a call of that tool): the client's recorded payload under
// testdata/clients/ where one exists (Copilot CLI 1.0.102, Qwen Code 0.24.4,
// Cursor's, Windsurf's and the Cline VS Code extension's documented ones
// ("cline-ext", the cline row), the Cline npm CLI 3.0.65's run_commands
// call) with its command member replaced, else the Claude shape with the tool the row matches (Kiro CLI
// execute_bash under the v2 event name preToolUse, Droid Execute).
func clientPayload(t *testing.T, client, command, tool string) string {
	t.Helper()
	recorded := map[string]string{"copilot": "copilot/1.0.102/pre-tool.json", "cursor": "cursor/documented/pre-tool.json", "windsurf": "windsurf/documented/pre-tool.json", "qwen": "qwen/0.24.4/pre-tool.json",
		"cline": "cline/3.0.65/pre-tool.commands-array.json", "cline-ext": "cline/documented/pre-tool.json"}
	var obj map[string]any
	if dir, ok := recorded[client]; ok {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "clients", dir))
		if err != nil {
			t.Fatal(err)
		}
		// Cline's recordings hold $REPO where the run's workspace root was.
		data = []byte(strings.ReplaceAll(string(data), "$REPO", "/w/repo"))
		if err := json.Unmarshal(data, &obj); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
	} else {
		obj = map[string]any{"hook_event_name": "PreToolUse", "cwd": "/w/repo", "tool_name": map[string]string{"kiro": "execute_bash", "droid": "Execute"}[client], "tool_input": map[string]any{}}
		if client == "kiro" {
			obj["hook_event_name"] = "preToolUse"
		}
	}
	switch client {
	case "copilot":
		obj["toolArgs"].(map[string]any)["command"] = command
		if tool != "" {
			obj["toolName"] = tool
		}
	case "cursor":
		obj["command"] = command
	case "windsurf":
		obj["tool_info"].(map[string]any)["command_line"] = command
	case "cline":
		// The CLI sends the array in tool_call.input and its JSON text in
		// preToolUse.parameters (recorded); the engine reads the former.
		obj["tool_call"].(map[string]any)["input"] = map[string]any{"commands": []string{command}}
		text, _ := json.Marshal([]string{command})
		obj["preToolUse"].(map[string]any)["parameters"] = map[string]any{"commands": string(text)}
		if tool != "" {
			obj["tool_call"].(map[string]any)["name"] = tool
			obj["preToolUse"].(map[string]any)["toolName"] = tool
		}
	case "cline-ext":
		pre := obj["preToolUse"].(map[string]any)
		pre["parameters"].(map[string]any)["command"] = command
		if tool != "" {
			pre["toolName"] = tool
		}
	default:
		obj["tool_input"].(map[string]any)["command"] = command
		if tool != "" {
			obj["tool_name"] = tool
		}
	}
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// interceptorClients are the clients whose pre-tool payloads the
// interceptor decodes beyond claude, agy and opencode: each answered in
// its own dialect's bytes.
// "cline-ext" is the cline row fed the VS Code extension's documented
// payload ("cline" the CLI's recorded one).
var interceptorClients = []string{"copilot", "cursor", "windsurf", "kiro", "qwen", "droid", "cline", "cline-ext"}

// rowClient is the registration client of an interceptorClients entry.
func rowClient(c string) string {
	if c == "cline-ext" {
		return "cline"
	}
	return c
}

// TestParityPythonNodeEngine replays every text-rule case of the policy
// corpus (and the seeds) through policy.Judge, the rendered
// .hookwarden/interceptor.py (python3) and the rendered
// .opencode/plugins/hookwarden.js (node, no engine installed, so its own
// rules judge) and requires the same verdict and the same refusal text, in
// the engine's dialect bytes for claude and agy.
func TestParityPythonNodeEngine(t *testing.T) {
	// Every case is checked against policy.JudgeText above; the
	// interpreters answer a sample of them (one in ten) unless -long,
	// HOOKWARDEN_TEST_LONG=1 or HOOKWARDEN_E2E=require (CI).
	cases := testbin.Sample(parityCases(t), 10)
	dir := renderRepo(t, "claude", "agy", "opencode")
	tbl, err := registration.Default()
	if err != nil {
		t.Fatal(err)
	}
	claudeRow, _ := tbl.Lookup("claude", "pre-tool")
	agyRow, _ := tbl.Lookup("agy", "pre-tool")
	encode := func(row registration.Row, d policy.Decision) dialect.Answer {
		if d.Allowed {
			return dialect.Encode(row, verdict.Verdict{Kind: verdict.Allow})
		}
		return dialect.Encode(row, verdict.Verdict{Kind: verdict.Deny, RuleID: d.RuleID, Reason: d.Reason})
	}

	t.Run("python", func(t *testing.T) {
		var calls []payloadCall
		for _, c := range cases {
			calls = append(calls, payloadCall{"claude", claudePayload(c.command)}, payloadCall{"agy", agyPayload(c.command)})
		}
		got := interceptorAnswers(t, dir, calls)
		for i, c := range cases {
			for k, row := range []registration.Row{claudeRow, agyRow} {
				want := encode(row, c.want)
				g := got[2*i+k]
				if g[0] != string(want.Stdout) || g[1] != string(want.Stderr) || int(g[2].(float64)) != want.Exit {
					t.Errorf("case %s (%s): python answered stdout %q stderr %q exit %v; the engine answers stdout %q stderr %q exit %d",
						c.id, row.Client, g[0], g[1], g[2], want.Stdout, want.Stderr, want.Exit)
				}
			}
		}
	})

	// Copilot CLI, Cursor, Windsurf, Kiro, Qwen Code, Droid and Cline: the payload
	// in each client's own shape (the engine must decode it to the same
	// command, else the parity is vacuous), the answer the engine's bytes.
	t.Run("python-clients", func(t *testing.T) {
		var calls []payloadCall
		var rows []registration.Row
		for _, client := range interceptorClients {
			row, ok := tbl.Lookup(rowClient(client), "pre-tool")
			if !ok {
				t.Fatalf("no %s pre-tool row", client)
			}
			rows = append(rows, row)
		}
		for _, c := range cases {
			for k, row := range rows {
				payload := clientPayload(t, interceptorClients[k], c.command, "")
				p, err := dialect.Decode(row, []byte(payload))
				if err != nil || p.Unjudged != "" || p.Command != c.command {
					t.Fatalf("case %s (%s): the engine decodes the test payload to %q unjudged %q err %v", c.id, row.Client, p.Command, p.Unjudged, err)
				}
				calls = append(calls, payloadCall{row.Client, payload})
			}
		}
		got := interceptorAnswers(t, dir, calls)
		for i, c := range cases {
			for k, row := range rows {
				want := encode(row, c.want)
				g := got[len(rows)*i+k]
				if g[0] != string(want.Stdout) || g[1] != string(want.Stderr) || int(g[2].(float64)) != want.Exit {
					t.Errorf("case %s (%s): python answered stdout %q stderr %q exit %v; the engine answers stdout %q stderr %q exit %d",
						c.id, row.Client, g[0], g[1], g[2], want.Stdout, want.Stderr, want.Exit)
				}
			}
		}
	})

	t.Run("node", func(t *testing.T) {
		mjs := filepath.Join(dir, "plugin.mjs")
		body, err := os.ReadFile(filepath.Join(dir, ".opencode", "plugins", "hookwarden.js"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(mjs, body, 0o644); err != nil {
			t.Fatal(err)
		}
		type hookCall struct {
			Input  map[string]any `json:"input"`
			Output map[string]any `json:"output"`
		}
		abs, _ := filepath.Abs("../testdata/templates/opencode_driver.mjs")
		// opencode 1.x names the shell tool bash and calls the default
		// export's server(); OpenCode 2.x names it shell and calls setup()
		// (unverified on a real 2.x); the row's matcher takes both names
		// on both APIs.
		for _, v := range []struct{ api, tool string }{{"v1", "bash"}, {"v1", "shell"}, {"v2", "shell"}, {"v2", "bash"}} {
			var calls []hookCall
			for _, c := range cases {
				calls = append(calls, hookCall{
					map[string]any{"tool": v.tool, "sessionID": "ses_1", "callID": "call_1"},
					map[string]any{"args": map[string]any{"command": c.command, "description": "d"}},
				})
			}
			var got []struct {
				Thrown  bool   `json:"thrown"`
				Message string `json:"message"`
			}
			runDriver(t, dir, noEngineEnv(t), &got, map[string]any{"mode": "hook", "api": v.api, "calls": calls}, need(t, "node"), abs, mjs)
			if len(got) != len(calls) {
				t.Fatalf("%s %s: driver answered %d calls, want %d", v.api, v.tool, len(got), len(calls))
			}
			for i, c := range cases {
				if got[i].Thrown == c.want.Allowed || (!c.want.Allowed && got[i].Message != c.want.Reason) {
					t.Errorf("%s tool %s, case %s: the plugin threw=%v %q; the engine decides allowed=%v %q", v.api, v.tool, c.id, got[i].Thrown, got[i].Message, c.want.Allowed, c.want.Reason)
				}
			}
		}
	})
}

// TestInterceptorPayloadValidity replays testdata/templates/payload_validity.json
// (Claude pre-tool payloads made malformed on the edges of RFC 8259: NaN,
// duplicate names after unescaping, trailing data, nesting past 64 levels,
// a byte order mark, control characters) through the engine's decoder and
// the rendered interceptor: the interceptor refuses exactly the payloads
// the engine refuses (a laxer interceptor would judge a payload the engine
// calls unjudgeable), and judges the others as the engine does ("ls":
// allow).
func TestInterceptorPayloadValidity(t *testing.T) {
	data, err := os.ReadFile("../testdata/templates/payload_validity.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name    string `json:"name"`
		Payload string `json:"payload"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	tbl, err := registration.Default()
	if err != nil {
		t.Fatal(err)
	}
	row, _ := tbl.Lookup("claude", "pre-tool")
	var calls []payloadCall
	for _, c := range cases {
		calls = append(calls, payloadCall{"claude", c.Payload})
	}
	got := interceptorAnswers(t, renderRepo(t, "claude"), calls)
	refused := 0
	for i, c := range cases {
		_, decErr := dialect.Decode(row, []byte(c.Payload))
		pyExit := int(got[i][2].(float64))
		switch {
		case decErr != nil:
			refused++
			if pyExit != 2 || !strings.Contains(got[i][1].(string), "[BLOCKED BY hookwarden:invalid-input]") {
				t.Errorf("%s: the engine refuses (%v); the interceptor answered exit %d stderr %q", c.Name, decErr, pyExit, got[i][1])
			}
		case pyExit != 0:
			t.Errorf("%s: the engine accepts the payload; the interceptor answered exit %d stderr %q", c.Name, pyExit, got[i][1])
		}
	}
	if refused < 10 || refused == len(cases) {
		t.Fatalf("%d of %d payloads refused by the engine: the corpus must hold both kinds", refused, len(cases))
	}
}

// payloadCall is one call of the interceptor driver's "payloads" mode.
type payloadCall struct {
	Client  string `json:"client"`
	Payload string `json:"payload"`
}

// interceptorAnswers judges calls with the rendered .hookwarden/interceptor.py
// in dir (one python3 process, testdata/templates/interceptor_driver.py) and
// returns one [stdout, stderr, exit] per call.
func interceptorAnswers(t *testing.T, dir string, calls []payloadCall) [][3]any {
	t.Helper()
	var got [][3]any
	drv, _ := filepath.Abs("../testdata/templates/interceptor_driver.py")
	runDriver(t, dir, os.Environ(), &got, map[string]any{"mode": "payloads", "calls": calls},
		realPython(t), drv, filepath.Join(dir, ".hookwarden", "interceptor.py"))
	if len(got) != len(calls) {
		t.Fatalf("driver answered %d calls, want %d", len(got), len(calls))
	}
	return got
}

// TestInterceptorClientPayloads covers the rest of the interceptor's
// answers for Copilot CLI, Cursor, Windsurf, Kiro, Qwen Code, Droid and
// Cline (the CLI's and the extension's forms; Cline's refusals: a
// tool_call.name other than preToolUse.toolName, the argv form): a
// call of a tool the row does not match is the engine's stated skip, byte
// for byte; a payload the engine cannot decode (command missing or not a
// string, another event, Copilot's Claude-format payload, Cursor naming no
// directory) is a deny in the client's deny form with the invalid-input
// refusal, never a judged allow.
func TestInterceptorClientPayloads(t *testing.T) {
	tbl, err := registration.Default()
	if err != nil {
		t.Fatal(err)
	}
	mutate := func(client string, f func(map[string]any)) string {
		var obj map[string]any
		if err := json.Unmarshal([]byte(clientPayload(t, client, "ls", "")), &obj); err != nil {
			t.Fatal(err)
		}
		f(obj)
		b, _ := json.Marshal(obj)
		return string(b)
	}
	type tc struct {
		client, name, payload string
	}
	skips := []tc{
		{"copilot", "create tool", clientPayload(t, "copilot", "ls", "create")},
		{"kiro", "fs_write tool", clientPayload(t, "kiro", "ls", "fs_write")},
		{"qwen", "edit tool", clientPayload(t, "qwen", "ls", "edit")},
		{"droid", "Read tool", clientPayload(t, "droid", "ls", "Read")},
		{"cline", "editor tool", clientPayload(t, "cline", "ls", "editor")},
		{"cline-ext", "write_to_file tool", clientPayload(t, "cline-ext", "ls", "write_to_file")},
	}
	refused := []tc{
		{"copilot", "command missing", mutate("copilot", func(o map[string]any) { delete(o["toolArgs"].(map[string]any), "command") })},
		{"copilot", "Claude-format payload", mutate("copilot", func(o map[string]any) { o["hook_event_name"] = "PreToolUse" })},
		{"copilot", "timestamp a string", mutate("copilot", func(o map[string]any) { o["timestamp"] = "2026-12-01T21:00:00Z" })},
		{"copilot", "toolArgs missing", mutate("copilot", func(o map[string]any) { delete(o, "toolArgs") })},
		{"cursor", "command a number", mutate("cursor", func(o map[string]any) { o["command"] = 1 })},
		{"cursor", "another event", mutate("cursor", func(o map[string]any) { o["hook_event_name"] = "beforeReadFile" })},
		{"cursor", "no directory", mutate("cursor", func(o map[string]any) { delete(o, "cwd"); delete(o, "workspace_roots") })},
		{"cursor", "workspace_roots holds a number", mutate("cursor", func(o map[string]any) { o["workspace_roots"] = []any{"/w", 2} })},
		{"windsurf", "command_line missing", mutate("windsurf", func(o map[string]any) { delete(o["tool_info"].(map[string]any), "command_line") })},
		{"windsurf", "another event", mutate("windsurf", func(o map[string]any) { o["agent_action_name"] = "pre_write_code" })},
		{"windsurf", "Claude shape", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`},
		{"kiro", "another event", mutate("kiro", func(o map[string]any) { o["hook_event_name"] = "postToolUse" })},
		{"qwen", "cwd a number", mutate("qwen", func(o map[string]any) { o["cwd"] = 1 })},
		{"droid", "command missing", mutate("droid", func(o map[string]any) { delete(o["tool_input"].(map[string]any), "command") })},
		// tool_call.name differing from preToolUse.toolName is refused before
		// the matcher, so naming an unjudged tool there is no skip.
		{"cline", "tool_call.name another tool", mutate("cline", func(o map[string]any) { o["tool_call"].(map[string]any)["name"] = "read_files" })},
		{"cline", "argv form", mutate("cline", func(o map[string]any) {
			o["tool_call"].(map[string]any)["input"] = map[string]any{"command": "git", "args": []any{"commit", "--no-verify"}}
		})},
		{"cline", "argv element", mutate("cline", func(o map[string]any) {
			o["tool_call"].(map[string]any)["input"] = map[string]any{"commands": []any{map[string]any{"command": "git", "args": []any{"commit", "--no-verify"}}}}
		})},
		{"cline", "commands holds a number", mutate("cline", func(o map[string]any) {
			o["tool_call"].(map[string]any)["input"] = map[string]any{"commands": []any{"ls", 1}}
		})},
		{"cline", "commands empty", mutate("cline", func(o map[string]any) { o["tool_call"].(map[string]any)["input"] = map[string]any{"commands": []any{}} })},
		{"cline", "tool_call.input missing", mutate("cline", func(o map[string]any) { delete(o["tool_call"].(map[string]any), "input") })},
		{"cline", "another event", mutate("cline", func(o map[string]any) { o["hookName"] = "tool_result" })},
		{"cline", "timestamp a boolean", mutate("cline", func(o map[string]any) { o["timestamp"] = true })},
		{"cline-ext", "command missing", mutate("cline-ext", func(o map[string]any) {
			delete(o["preToolUse"].(map[string]any)["parameters"].(map[string]any), "command")
		})},
		{"cline-ext", "parameters a string", mutate("cline-ext", func(o map[string]any) { o["preToolUse"].(map[string]any)["parameters"] = "{}" })},
	}
	var calls []payloadCall
	for _, c := range append(append([]tc{}, skips...), refused...) {
		calls = append(calls, payloadCall{rowClient(c.client), c.payload})
	}
	got := interceptorAnswers(t, renderRepo(t, "claude"), calls)
	for i, c := range skips {
		row, _ := tbl.Lookup(rowClient(c.client), "pre-tool")
		p, err := dialect.Decode(row, []byte(c.payload))
		if err != nil || p.Unjudged == "" {
			t.Fatalf("%s %s: the engine decodes it as unjudged %q err %v; the case wants a stated skip", c.client, c.name, p.Unjudged, err)
		}
		want := dialect.Encode(row, verdict.Verdict{Kind: verdict.Skip, Reason: p.Unjudged})
		if g := got[i]; g[0] != string(want.Stdout) || g[1] != string(want.Stderr) || int(g[2].(float64)) != want.Exit {
			t.Errorf("%s %s: python answered %q %q %v; the engine answers %q %q %d", c.client, c.name, g[0], g[1], g[2], want.Stdout, want.Stderr, want.Exit)
		}
	}
	for i, c := range refused {
		row, _ := tbl.Lookup(rowClient(c.client), "pre-tool")
		if _, err := dialect.Decode(row, []byte(c.payload)); err == nil {
			t.Fatalf("%s %s: the engine decodes the payload; the case wants one it refuses", c.client, c.name)
		}
		g := got[len(skips)+i]
		reason := strings.TrimSuffix(g[1].(string), "\n")
		if row.Client == "cline" { // Cline's deny is {"cancel":true,"errorMessage":R} on stdout
			var a struct {
				ErrorMessage string `json:"errorMessage"`
			}
			_ = json.Unmarshal([]byte(g[0].(string)), &a)
			reason = a.ErrorMessage
		}
		if !strings.HasPrefix(reason, "[BLOCKED BY hookwarden:invalid-input]") {
			t.Errorf("%s %s: python answered stdout %q stderr %q exit %v; want the invalid-input refusal", c.client, c.name, g[0], g[1], g[2])
			continue
		}
		want := dialect.Encode(row, verdict.Verdict{Kind: verdict.Deny, RuleID: "invalid-input", Reason: reason})
		if g[0] != string(want.Stdout) || g[1] != string(want.Stderr) || int(g[2].(float64)) != want.Exit {
			t.Errorf("%s %s: python answered %q %q %v; the engine's deny form is %q %q %d", c.client, c.name, g[0], g[1], g[2], want.Stdout, want.Stderr, want.Exit)
		}
	}
}
