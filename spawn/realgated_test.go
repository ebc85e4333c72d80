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

	"github.com/hookwarden/hookwarden/spawn/redact"
)

// claudeDeferredStub is the tool Claude Code 2.1.328 may list beside the
// gated ones, a stub for deferred tool loading (its bundle: name
// "DeferredToolPlaceholder", "Reserved placeholder that keeps deferred tool
// loading active; never call this tool."); a call to it is refused before
// any hook ("No such tool available").
const claudeDeferredStub = "DeferredToolPlaceholder"

// gatedCall is one call of TestRealClaudeAllToolsGated and where it was
// measured to end: "hook" (the pre-tool hook saw it: a receipt) or
// "engine" (Claude Code refused it before any hook).
type gatedCall struct {
	scriptedCall
	Want string
}

// gatedScript is the every-tool probe under the gated tool list, in dir:
// valid and invalid inputs for the offered tools (schema violations, a
// Read of a missing file, of a directory, of a relative path, with a huge
// or negative offset, of a file a caller's deny rule covers, of a .bin
// file, of a device, of a file with NUL bytes) and calls to tools not
// offered.
func gatedScript(dir string) []gatedCall {
	f := filepath.Join(dir, "a.txt")
	c := func(tool string, in map[string]any, want string) gatedCall {
		return gatedCall{scriptedCall{tool, in}, want}
	}
	return []gatedCall{
		c("Bash", map[string]any{"command": "echo hi"}, "hook"),
		c("Bash", map[string]any{}, "engine"),
		c("Bash", map[string]any{"command": 5}, "engine"),
		c("Bash", map[string]any{"command": "echo x", "timeout": "abc"}, "engine"),
		c("Bash", map[string]any{"command": "echo t", "timeout": 99999999}, "hook"),
		c("Bash", map[string]any{"command": "echo u", "zzextra": 1}, "engine"),
		c("Bash", map[string]any{"command": []any{"a"}, "description": 3}, "engine"),
		c("Read", map[string]any{"file_path": f}, "hook"),
		c("Read", map[string]any{"file_path": filepath.Join(dir, "missing.txt")}, "hook"),
		c("Read", map[string]any{"file_path": filepath.Join(dir, "sub")}, "hook"),
		c("Read", map[string]any{"file_path": f, "offset": 999999999}, "hook"),
		c("Read", map[string]any{"file_path": f, "offset": -5}, "hook"),
		c("Read", map[string]any{"file_path": f, "offset": -5, "limit": "x"}, "engine"),
		c("Read", map[string]any{"file_path": f, "pages": 5}, "engine"),
		c("Read", map[string]any{}, "engine"),
		c("Read", map[string]any{"file_path": "relative.txt"}, "hook"),
		c("Read", map[string]any{"file_path": filepath.Join(dir, "a.png")}, "hook"),
		c("ToolSearch", map[string]any{"query": "select:Edit"}, "hook"),
		c("Edit", map[string]any{"file_path": f, "old_string": "hello", "new_string": "bye"}, "engine"),
		c("Edit", map[string]any{"file_path": filepath.Join(dir, "missing.txt"), "old_string": "a", "new_string": "b"}, "engine"),
		c("Write", map[string]any{"file_path": filepath.Join(dir, "w.txt"), "content": "x"}, "engine"),
		c("Glob", map[string]any{"pattern": "*"}, "engine"),
		c("Grep", map[string]any{"pattern": "hello"}, "engine"),
		c("Agent", map[string]any{"description": "d", "prompt": "p", "subagent_type": "helper"}, "engine"),
		c("Task", map[string]any{"description": "d", "prompt": "p"}, "engine"),
		c("WebFetch", map[string]any{"url": "http://127.0.0.1:9/", "prompt": "x"}, "engine"),
		c("Skill", map[string]any{"skill": "x"}, "engine"),
		c("TodoWrite", map[string]any{"todos": []any{}}, "engine"),
		c("NotebookEdit", map[string]any{"notebook_path": "x", "new_source": "y"}, "engine"),
		c("ListMcpResourcesTool", map[string]any{}, "engine"),
		c("ReadMcpResourceTool", map[string]any{"server": "vault", "uri": "x://y"}, "engine"),
		c("ReadMcpResourceDirTool", map[string]any{"server": "vault", "uri": "x://y"}, "engine"),
		c("mcp__foo__bar", map[string]any{}, "engine"),
		c(claudeDeferredStub, map[string]any{}, "engine"),
		c("Read", map[string]any{"file_path": filepath.Join(dir, "denied", "d.txt")}, "engine"),
		c("Read", map[string]any{"file_path": filepath.Join(dir, "data.bin")}, "engine"),
		c("Read", map[string]any{"file_path": "/dev/zero"}, "engine"),
		c("Read", map[string]any{"file_path": filepath.Join(dir, "img.png")}, "hook"),
		c("Read", map[string]any{"file_path": filepath.Join(dir, "nul.txt")}, "hook"),
		c("Bash", map[string]any{"command": "echo bg", "run_in_background": true}, "hook"),
		c("Bash", map[string]any{"command": ""}, "hook"),
		c("GetTask", map[string]any{"task_id": "x"}, "engine"),
		c("TaskOutput", map[string]any{"task_id": "x"}, "engine"),
		c("BashOutput", map[string]any{"bash_id": "x"}, "engine"),
		c("KillShell", map[string]any{"shell_id": "x"}, "engine"),
	}
}

// TestRealClaudeAllToolsGated measures all_tools_gated on the pinned
// Claude Code: under the redaction entry (pre_tool attached with matcher
// "*", the render's --tools claudeGatedTools), the scripted model makes
// every call of gatedScript (each offered tool with valid and invalid
// inputs, and tools not offered). The test reads the receipts and
// agent_exit's report (copied by the exit hook before spawn exec removes
// them) and the transcript, and logs per call whether the pre-tool hook
// saw it (a receipt), whether the engine refused it before any hook (the
// report's refused_before_hooks: a transcript result in one of the table's
// pre_hook_refusals forms), and the result the engine wrote.
// The capability means: every tool the model is offered is a gated one,
// every call either has a pre-tool receipt or was refused before any hook
// in a recorded form, and the run passes agent_exit; the test fails when
// that observation and the claude-2.1.328 table disagree, and when a call
// ends elsewhere than gatedScript says.
// Observed 2026-12-02 (load ~2 on the shared 2-core machine): offered Bash
// and Read (and at times DeferredToolPlaceholder); of 45 calls 14 reached
// the hook: every valid Bash and Read call, a Read of a missing file, of
// a directory, of a relative path, with a huge or negative offset, of a
// .png and of a .txt with NUL bytes, an empty and a background command.
// 31 were refused before any hook, each in a recorded form with no
// permission decision on the line (a caller deny rule's Read refusal
// excepted, which carries the rule's reject): schema violations (a
// missing, mistyped or unexpected parameter), Read's path-only checks (a
// deny rule, a .bin extension, a device path), and every tool outside the
// list (an Edit of a missing file included, whose old_string check would
// read the file, and GetTask, TaskOutput, BashOutput and KillShell after
// the background command). With
// HW_RECORD_GATED set to a directory, the transcript and the receipts are
// kept there (the source of testdata/redact/pre-hook-refusals.json).
func TestRealClaudeAllToolsGated(t *testing.T) {
	bin := needClient(t, "claude")
	version, shipped := installedTable(t, bin, "claude")
	keep := t.TempDir()
	receiptsCopy, reportCopy := filepath.Join(keep, "receipts.jsonl"), filepath.Join(keep, "report.json")
	exitSh := "cp \"$HOOKWARDEN_HOOK_RECEIPTS\" " + shq(receiptsCopy) + `; "$HW" redact "$@" > ` + shq(reportCopy) + `; rc=$?; cat ` + shq(reportCopy) + `; exit $rc`
	w := newRedactWorld(t, map[string]string{"[GH_TOKEN]": realRaw}, "", exitSh, "")
	os.WriteFile(filepath.Join(w.repo, "a.txt"), []byte("hello a\n"), 0o644)
	os.MkdirAll(filepath.Join(w.repo, "sub"), 0o755)
	os.MkdirAll(filepath.Join(w.repo, "denied"), 0o755)
	os.WriteFile(filepath.Join(w.repo, "denied", "d.txt"), []byte("denied text\n"), 0o644)
	os.WriteFile(filepath.Join(w.repo, "data.bin"), []byte("plain text in a .bin file\n"), 0o644)
	os.WriteFile(filepath.Join(w.repo, "img.png"), []byte("\x89PNG\r\n\x1a\nxxxx"), 0o644)
	os.WriteFile(filepath.Join(w.repo, "nul.txt"), []byte("a\x00b\x00c"), 0o644)
	script := gatedScript(w.repo)
	var calls []scriptedCall
	for _, c := range script {
		calls = append(calls, c.scriptedCall)
	}
	var offered []string
	model := startScriptedModel(t, calls, func(body string) {
		var req struct {
			Tools []struct{ Name string } `json:"tools"`
		}
		json.Unmarshal([]byte(body), &req)
		for _, x := range req.Tools {
			if !slices.Contains(offered, x.Name) {
				offered = append(offered, x.Name)
			}
		}
	})
	_, env := w.mockClient("claude", bin, model.port)
	var out bytes.Buffer
	var childArgv []string
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	code, err := Exec(ctx, ExecOptions{Argv: []string{"claude", "-p", "run it",
		"--settings", `{"permissions":{"deny":["Read(./denied/**)"]}}`},
		Home: w.home, Gateway: mcpProxyBin(t), Cwd: w.repo, Env: env, Stdout: &out, Stderr: &out,
		Started: func(_ *Render, a []string) { childArgv = a }})
	t.Logf("spawn exec: exit %d %v", code, err)
	gated := err == nil && code == 0
	if !gated {
		t.Logf("the run failed:\n%s", out.String())
	}
	slices.Sort(offered)
	t.Logf("offered: %v", offered)
	for _, o := range offered {
		if !slices.Contains(claudeGatedTools, o) && o != claudeDeferredStub {
			t.Logf("offered a tool outside the gated list: %s", o)
			gated = false
		}
	}
	receipted := map[string]string{}
	rb, _ := os.ReadFile(receiptsCopy)
	sc := bufio.NewScanner(bytes.NewReader(rb))
	for sc.Scan() {
		var r redact.Receipt
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Event == "pre_tool" {
			receipted[r.ToolUseID] = r.Tool + " " + r.Route
		}
	}
	var rep redact.ExitReport
	repb, _ := os.ReadFile(reportCopy)
	if json.Unmarshal(repb, &rep) != nil {
		t.Logf("no agent_exit report: %s", repb)
		gated = false
	}
	refused := map[string]string{}
	for _, r := range rep.RefusedBeforeHooks {
		id, form, _ := strings.Cut(r, " ")
		refused[id] = form
	}
	mc := modelCalls(model.log())
	if len(mc) != len(script) {
		t.Errorf("the model made %d of the %d scripted calls", len(mc), len(script))
		gated = false
	}
	for i, c := range mc {
		where := "UNGATED"
		if r, ok := receipted[c.ID]; ok {
			where = "hook (" + r + ")"
		} else if f, ok := refused[c.ID]; ok {
			where = "engine (" + f + ")"
		} else {
			gated = false
		}
		res := c.Result
		if len(res) > 160 {
			res = res[:160]
		}
		t.Logf("%s %-22s %-26s %s", c.ID, c.Tool, where, res)
		if i < len(script) && !strings.HasPrefix(where, script[i].Want) {
			t.Errorf("call %s %s %v ended at %s, measured at %s", c.ID, c.Tool, script[i].Input, where, script[i].Want)
		}
	}
	if dir := os.Getenv("HW_RECORD_GATED"); dir != "" {
		tb, _ := os.ReadFile(claudeTranscript(env, w.repo, sessionOf(childArgv)))
		os.WriteFile(filepath.Join(dir, "transcript.jsonl"), tb, 0o644)
		os.WriteFile(filepath.Join(dir, "receipts.jsonl"), rb, 0o644)
		os.WriteFile(filepath.Join(dir, "repo"), []byte(w.repo), 0o644)
	}
	_, granted := shipped.Capabilities["all_tools_gated"]
	if granted != gated {
		t.Errorf("claude-%s lists all_tools_gated = %v, but every offered tool gated, every call receipted or refused before any hook in a recorded form, and the run passing = %v", version, granted, gated)
	}
}
