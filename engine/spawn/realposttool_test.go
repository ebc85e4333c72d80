package spawn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRealClaudePostToolBlock measures post_tool.block on the pinned
// Claude Code: `hookwarden redact --hook post-tool` attached on PostToolUse
// answers a Bash result holding a table value with {"decision":"block"}.
// The capability means the model does not see the raw result; the test
// reads the loopback model server's request log for the raw value and
// fails when that observation and the claude-2.1.328 table disagree. It is
// also the source of the table's post_tool event (the hook ran).
func TestRealClaudePostToolBlock(t *testing.T) {
	if testing.Short() {
		t.Skip("real clients take seconds; -short")
	}
	bin := clientsBin()
	if _, err := os.Stat(filepath.Join(bin, "claude")); err != nil {
		unavailable(t, "the pinned claude is not installed in "+bin)
	}
	w := newRealWorld(t)
	hw := filepath.Join(w.work, "hookwarden")
	if out, err := exec.Command("go", "build", "-o", hw, "../../cmd/hookwarden").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	const raw = "ghp_abcdefgh12345678"
	writeJSONFile(t, filepath.Join(w.home, LibraryFile), library{Version: 1, Entries: map[string]Entry{
		"redact": {Argv: []string{hw, "redact"}, Timeout: json.RawMessage("20")}}})
	writeJSONFile(t, filepath.Join(w.home, RegistryFile), Layer{Version: 1, Attachments: []Attachment{
		{Hook: "redact", Event: "post_tool", Matcher: "Bash", Args: []string{"--hook", "post-tool", "--engine", "{engine}"}}}})
	if err := Approve(w.home, [][]string{{hw, "redact", "--hook", "post-tool", "--engine", "claude"}}); err != nil {
		t.Fatal(err)
	}
	shipped, err := LoadTable(Tables(), "claude", "2.1.328")
	if err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(w.work, "run")
	os.Mkdir(run, 0o700)
	table, receipts := filepath.Join(run, "table.json"), filepath.Join(run, "receipts.jsonl")
	os.WriteFile(table, []byte(`{"version":1,"values":{"[GH_TOKEN]":"`+raw+`"}}`), 0o600)
	os.WriteFile(receipts, nil, 0o600)
	os.WriteFile(filepath.Join(w.repo, "secret.txt"), []byte(raw+"\n"), 0o644)
	port, log := startMockCommand(t, "anthropic", w.work, "cat secret.txt")
	env := []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + w.clientHome, "PWD=" + w.repo, "CLAUDE_CONFIG_DIR=" + w.clientHome,
		fmt.Sprintf("ANTHROPIC_BASE_URL=http://127.0.0.1:%d", port), "ANTHROPIC_API_KEY=sk-test-dummy", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"HOOKWARDEN_HOOK_TABLE=" + table, "HOOKWARDEN_HOOK_RECEIPTS=" + receipts}
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	code, err := Exec(ctx, ExecOptions{Argv: []string{"claude", "-p", "run it", "--output-format", "json", "--allowedTools", "Bash"},
		Home: w.home, Cwd: w.repo, Env: env, Stdout: &out, Stderr: &out})
	if err != nil || code != 0 {
		t.Fatalf("spawn exec: code %d err %v\n%s", code, err, out.String())
	}
	rb, _ := os.ReadFile(receipts)
	if !strings.Contains(string(rb), `"route":"block"`) {
		t.Fatalf("the post-tool hook did not block (receipts %q); the measurement proves nothing", rb)
	}
	mock := mockTurns(t, log)
	seen := strings.Contains(mock, raw)
	_, granted := shipped.Capabilities["post_tool.block"]
	t.Logf("after a PostToolUse block the model received the raw tool result: %v", seen)
	if granted == seen {
		t.Errorf("claude-2.1.328 lists post_tool.block = %v, but the model received the blocked result = %v", granted, seen)
	}
}
