package spawn

import (
	"strings"
	"testing"
)

// TestRealClaudePostToolBlock measures post_tool.block on the pinned
// Claude Code: `hookwarden redact --hook post-tool` attached on PostToolUse
// answers a Bash result holding a table value with {"decision":"block"}.
// The capability means the model does not see the raw result; the test
// reads the loopback model server's request log for the raw value and
// fails when that observation and the claude-2.1.328 table disagree. It is
// also the source of the table's post_tool event (the hook ran).
func TestRealClaudePostToolBlock(t *testing.T) {
	shipped, err := LoadTable(Tables(), "claude", "2.1.328")
	if err != nil {
		t.Fatal(err)
	}
	r := runRealRedact(t, "claude", "post-tool", "post_tool", "cat secret.txt")
	rb, mock, raw := r.receipts, r.mock, realRaw
	if !strings.Contains(string(rb), `"route":"block"`) {
		t.Fatalf("the post-tool hook did not block (receipts %q); the measurement proves nothing", rb)
	}
	seen := strings.Contains(mock, raw)
	_, granted := shipped.Capabilities["post_tool.block"]
	t.Logf("after a PostToolUse block the model received the raw tool result: %v", seen)
	if granted == seen {
		t.Errorf("claude-2.1.328 lists post_tool.block = %v, but the model received the blocked result = %v", granted, seen)
	}
}
