package spawn

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRealCodexPreToolRewrite measures pre_tool.rewrite on the pinned
// codex-cli: a registry pre_tool hook (Bash) answers the model's `touch
// e2e_tool_ran.txt` with {"hookSpecificOutput":{"hookEventName":
// "PreToolUse","permissionDecision":"allow","updatedInput":{"command":
// "echo REWRITTEN-BY-HOOK"}}} (the 0.169.0 binary names these fields and
// the messages "PreToolUse hook returned updatedInput without
// permissionDecision:allow" and "hook returned updatedInput without string
// field `command`"). The capability holds when the original command did not
// run and the model received the rewritten command's output; the test
// fails when that observation and the codex-0.169.0 table disagree.
func TestRealCodexPreToolRewrite(t *testing.T) {
	bin := needClient(t, "codex")
	w := newRealWorld(t)
	w.attachScript(t, "rewrite", "pre_tool", true, `#!/bin/sh
cat > `+shq(filepath.Join(w.out, "rewrite.json"))+`
printf '%s\n' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo REWRITTEN-BY-HOOK"}}}'
`)
	port, log := startMock(t, "responses", w.work)
	args, env := w.mockClient("codex", bin, port)
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	code, err := Exec(ctx, ExecOptions{Argv: args, Home: w.home, Cwd: w.repo, Env: env, Stdout: &out, Stderr: &out})
	if err != nil || code != 0 {
		t.Fatalf("spawn exec: code %d err %v\n%s", code, err, out.String())
	}
	if !w.marker("rewrite.json") {
		t.Fatalf("the rewrite hook did not run; the measurement proves nothing\n%s", out.String())
	}
	_, statErr := os.Stat(filepath.Join(w.repo, "e2e_tool_ran.txt"))
	originalRan := statErr == nil
	mock := mockTurns(t, log)
	rewrittenSeen := strings.Contains(mock, "REWRITTEN-BY-HOOK\\n") || strings.Contains(mock, "REWRITTEN-BY-HOOK\n")
	rewrote := !originalRan && rewrittenSeen
	version, table := installedTable(t, bin, "codex")
	t.Logf("codex %s: original command ran %v, the model received the rewritten output %v", version, originalRan, rewrittenSeen)
	if _, granted := table.Capabilities["pre_tool.rewrite"]; granted != rewrote {
		t.Errorf("codex-%s lists pre_tool.rewrite = %v, observed rewrite = %v; engine output:\n%.2000s", version, granted, rewrote, out.String())
	}
}

// TestRealCodexPostToolBlock measures post_tool.block on the pinned
// codex-cli: a registry post_tool hook answers every Bash result with
// {"decision":"block","reason":"WITHHELD-BY-HOOK"} while the model's
// command prints a marker. The capability holds when the model's next
// request lacks the marker; the test fails when that observation and the
// codex-0.169.0 table disagree. Observed 2026-12-01: Codex put the reason
// in place of the function_call_output the model received. It is also the
// source of the table's post_tool event (the hook ran).
func TestRealCodexPostToolBlock(t *testing.T) {
	bin := needClient(t, "codex")
	w := newRealWorld(t)
	w.attachScript(t, "block", "post_tool", false, `#!/bin/sh
cat > `+shq(filepath.Join(w.out, "posttool.json"))+`
printf '%s\n' '{"decision":"block","reason":"WITHHELD-BY-HOOK"}'
`)
	version, shipped := installedTable(t, bin, "codex")
	port, log := startMockCommand(t, "responses", w.work, "echo SECRET-MARKER-OUTPUT")
	args, env := w.mockClient("codex", bin, port)
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	code, err := Exec(ctx, ExecOptions{Argv: args, Home: w.home, Cwd: w.repo, Env: env, Stdout: &out, Stderr: &out})
	if err != nil || code != 0 {
		t.Fatalf("spawn exec: code %d err %v\n%s", code, err, out.String())
	}
	if !w.marker("posttool.json") {
		t.Fatalf("the post-tool hook did not run; the measurement proves nothing\n%s", out.String())
	}
	mock := mockTurns(t, log)
	// the marker appears in the first request's tool call arguments (the
	// command); the output line is what a block must withhold
	seen := strings.Count(mock, "SECRET-MARKER-OUTPUT\\n") > 0
	_, granted := shipped.Capabilities["post_tool.block"]
	t.Logf("codex %s: after a PostToolUse block the model received the output: %v; it received the reason: %v", version, seen, strings.Contains(mock, "WITHHELD-BY-HOOK"))
	if granted == seen {
		t.Errorf("codex-%s lists post_tool.block = %v, but the model received the blocked output = %v", version, granted, seen)
	}
}
