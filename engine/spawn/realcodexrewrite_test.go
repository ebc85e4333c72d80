package spawn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
	if testing.Short() {
		t.Skip("real clients take seconds; -short")
	}
	bin := clientsBin()
	if _, err := os.Stat(filepath.Join(bin, "codex")); err != nil {
		unavailable(t, "the pinned codex is not installed in "+bin)
	}
	w := newRealWorld(t)
	hook := filepath.Join(w.home, "bin", "rewrite.sh")
	os.WriteFile(hook, []byte(`#!/bin/sh
cat > `+shq(filepath.Join(w.out, "rewrite.json"))+`
printf '%s\n' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo REWRITTEN-BY-HOOK"}}}'
`), 0o755)
	d, _ := fileDigest(hook)
	writeJSONFile(t, filepath.Join(w.home, LibraryFile), library{Version: 1, Entries: map[string]Entry{
		"rewrite": {Argv: []string{hook}, Pin: map[string]string{hook: d}, Timeout: json.RawMessage("15")}}})
	writeJSONFile(t, filepath.Join(w.home, RegistryFile), Layer{Version: 1, Attachments: []Attachment{
		{Hook: "rewrite", Event: "pre_tool", Matcher: "Bash", Required: true}}})
	if err := Approve(w.home, [][]string{{hook}}); err != nil {
		t.Fatal(err)
	}
	port, log := startMock(t, "responses", w.work)
	env := []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + w.clientHome, "PWD=" + w.repo, "CODEX_HOME=" + w.clientHome, "MOCK_API_KEY=sk-dummy"}
	args := []string{"codex", "exec", "--json", "--skip-git-repo-check", "-c", "model=mock-model", "-c", "model_provider=mock", "-c",
		fmt.Sprintf(`model_providers.mock={name="mock",base_url="http://127.0.0.1:%d/v1",wire_api="responses",env_key="MOCK_API_KEY"}`, port), "run it"}
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
	t.Logf("codex 0.169.0: original command ran %v, the model received the rewritten output %v", originalRan, rewrittenSeen)
	table, err := LoadTable(Tables(), "codex", "0.169.0")
	if err != nil {
		t.Fatal(err)
	}
	if _, granted := table.Capabilities["pre_tool.rewrite"]; granted != rewrote {
		t.Errorf("codex-0.169.0 lists pre_tool.rewrite = %v, observed rewrite = %v; engine output:\n%.2000s", granted, rewrote, out.String())
	}
}
