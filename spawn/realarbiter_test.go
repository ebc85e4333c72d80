package spawn

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// arbiterPreTool is a PreToolUse hook that allows `echo route` rewritten to
// `/usr/bin/env echo rewritten-ok` (as the redaction hook's shell route
// answers: allow with updatedInput) and prints garbage with exit 0 for
// every other call (a hook that gives no decision).
const arbiterPreTool = `#!/usr/bin/env python3
import json, sys
p = json.load(sys.stdin)
if p.get("tool_name") == "Bash" and p.get("tool_input", {}).get("command", "").startswith("echo route"):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                      "updatedInput": {"command": "/usr/bin/env echo rewritten-ok"}}}))
else:
    print("{garbage")
`

// arbiterPermission is a PermissionRequest hook that records each payload
// in $1/permission.jsonl and allows only the rewritten command; any other
// call it denies, or with argv[2] "garbage" answers garbage with exit 0,
// "crash" kills itself with SIGSEGV, "exit1" exits 1, "timeout" sleeps
// past its handler's timeout.
const arbiterPermission = `#!/usr/bin/env python3
import json, sys
p = json.load(sys.stdin)
open(sys.argv[1] + "/permission.jsonl", "a").write(json.dumps(p) + "\n")
if p.get("tool_input", {}).get("command", "").startswith("/usr/bin/env echo rewritten"):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}))
elif sys.argv[2] == "garbage":
    print("{garbage")
elif sys.argv[2] == "crash":
    import os, signal
    os.kill(os.getpid(), signal.SIGSEGV)
elif sys.argv[2] == "exit1":
    sys.exit(1)
elif sys.argv[2] == "timeout":
    import time
    time.sleep(30)
else:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "not a mediated route"}}}))
`

// TestRealClaudePermissionRequestArbiter measures, on the pinned Claude Code
// run directly with --setting-sources "" and one settings file, the
// arbiter that TestRealClaudePreToolFailClosed shows a permission posture
// alone lacks. With ask rules ("*" matches every tool; Bash and Read alone
// in the last row), a call whose PreToolUse hook (onFailure block) gives
// no decision, and the hook-allowed rewrite of a call (whose rule check
// meets the ask rule), both go to Claude's permission check, which in
// default mode fires PermissionRequest with {tool_name, tool_input,
// permission_mode, …} (no tool_use_id). An arbiter that allows only the
// rewritten command lets it run and refuses cat, Read, git log, pwd, touch,
// an Agent call and a ToolSearch call; one that prints garbage for them
// leaves -p refusing them, and one that crashes, exits 1 or times out is
// blocked by its handler's onFailure "block" ("…: failed; blocking because
// onFailure is \"block\""), which refuses them as well; in dontAsk mode it
// is not asked and the rewrite
// is refused too; with ask rules on Bash and Read only, the Agent call
// (an async subagent launched) and ToolSearch run without a decision.
// This records the client behaviour the redaction entry's posture rests
// on (render.go renderPosture, spawn/redact Permission;
// testdata/clients/FACTS.md); TestRealClaudePreToolFailClosed measures
// the posture as rendered.
func TestRealClaudePermissionRequestArbiter(t *testing.T) {
	bin := needClient(t, "claude")
	for _, tc := range []struct {
		name, mode, arbiter string
		ask                 []string
		rewriteRuns, asked  bool
		runs                []string // calls after the first that run
		timeout             int      // the PermissionRequest handler's (default 15)
	}{
		{"default mode, ask *, arbiter denies", "default", "deny", []string{"*"}, true, true, nil, 0},
		{"default mode, ask *, arbiter prints garbage", "default", "garbage", []string{"*"}, true, true, nil, 0},
		{"dontAsk mode, ask *", "dontAsk", "deny", []string{"*"}, false, false, nil, 0},
		{"default mode, ask Bash and Read, arbiter denies", "default", "deny", []string{"Bash", "Read"}, true, true, []string{"Agent", "ToolSearch"}, 0},
		{"default mode, ask *, arbiter crashes", "default", "crash", []string{"*"}, true, true, nil, 0},
		{"default mode, ask *, arbiter exits 1", "default", "exit1", []string{"*"}, true, true, nil, 0},
		{"default mode, ask *, arbiter times out", "default", "timeout", []string{"*"}, true, true, nil, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newRealWorld(t)
			fixtureRepo(t, w.repo, true)
			pre, perm := filepath.Join(w.home, "bin", "pre.py"), filepath.Join(w.home, "bin", "permission.py")
			os.WriteFile(pre, []byte(arbiterPreTool), 0o755)
			os.WriteFile(perm, []byte(arbiterPermission), 0o755)
			handler := func(cmd string, timeout int) []any {
				if timeout == 0 {
					timeout = 15
				}
				return []any{map[string]any{"matcher": "*", "hooks": []any{map[string]any{"type": "command", "command": cmd, "timeout": timeout, "onFailure": "block"}}}}
			}
			settings := filepath.Join(w.work, "settings.json")
			writeJSONFile(t, settings, map[string]any{
				"permissions": map[string]any{"ask": tc.ask},
				"hooks": map[string]any{"PreToolUse": handler(ShellQuote([]string{pre}), 0),
					"PermissionRequest": handler(ShellQuote([]string{perm, w.out, tc.arbiter}), tc.timeout)}})
			calls := []scriptedCall{
				{"Bash", map[string]any{"command": "echo route", "description": "route"}},
				{"Bash", map[string]any{"command": "cat secret.txt", "description": "cat"}},
				{"Read", map[string]any{"file_path": filepath.Join(w.repo, "secret.txt")}},
				{"Bash", map[string]any{"command": "git log", "description": "log"}},
				{"Bash", map[string]any{"command": "pwd", "description": "pwd"}},
				{"Bash", map[string]any{"command": "touch ran.bash", "description": "touch"}},
				{"ToolSearch", map[string]any{"query": "select:Edit"}},
				// last: a subagent that runs would take the script's turns
				{"Agent", map[string]any{"description": "help", "prompt": "help", "subagent_type": "helper"}},
			}
			model := startScriptedModel(t, calls, nil)
			_, env := w.mockClient("claude", bin, model.port)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, filepath.Join(bin, "claude"), "-p", "run it", "--output-format", "json",
				"--setting-sources", "", "--strict-mcp-config", "--settings", settings, "--permission-mode", tc.mode,
				"--agents", `{"helper":{"description":"a helper","prompt":"help"}}`)
			var out bytes.Buffer
			cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = w.repo, env, &out, &out
			if err := cmd.Run(); err != nil {
				t.Fatalf("claude: %v\n%s", err, out.String())
			}
			made := modelCalls(model.log())
			if len(made) < len(calls) {
				t.Fatalf("the model made %d of %d calls", len(made), len(calls))
			}
			for i, c := range made[:len(calls)] {
				t.Logf("%s %.400q", c.Tool, c.Result)
				if i == 0 {
					if ran := strings.TrimSpace(c.Result) == "rewritten-ok"; ran != tc.rewriteRuns {
						t.Errorf("the rewritten command ran: %v, want %v", ran, tc.rewriteRuns)
					}
					continue
				}
				refused := false
				for _, m := range []string{"not a mediated route", "haven't granted it yet", "needs approval", "don't ask mode", `blocking because onFailure is "block"`} {
					refused = refused || strings.Contains(c.Result, m)
				}
				if want := !slices.Contains(tc.runs, c.Tool); refused != want {
					t.Errorf("call %d (%s) refused: %v, want %v", i, c.Tool, refused, want)
				}
				if strings.Contains(c.Result, realRaw) || strings.TrimSpace(c.Result) == w.repo {
					t.Errorf("call %d (%s) ran without a decision", i, c.Tool)
				}
			}
			if _, err := os.Stat(filepath.Join(w.repo, "ran.bash")); err == nil {
				t.Errorf("the touch ran")
			}
			asked, _ := os.ReadFile(filepath.Join(w.out, "permission.jsonl"))
			if (len(asked) > 0) != tc.asked {
				t.Errorf("PermissionRequest asked: %q, want asked %v", asked, tc.asked)
			}
			if tc.asked && !bytes.Contains(asked, []byte(`"command": "/usr/bin/env echo rewritten-ok"`)) {
				t.Errorf("the arbiter never saw the rewritten input:\n%s", asked)
			}
		})
	}
}
