package spawn

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRealClaudePostToolBlock measures post_tool.block on the pinned
// Claude Code: `hookwarden redact --hook post-tool` attached on PostToolUse
// answers a Bash result holding a table value with {"decision":"block"}
// and hookSpecificOutput.updatedToolOutput (the result with the value
// replaced by its token). The capability means the model does not see the
// raw result; the test reads the loopback model server's request log for
// the raw value and the token, and fails when that observation and the
// installed version's table disagree. It also logs whether the transcript held
// the raw value (a post-tool block protects the model's view; the exit scan
// handles what the engine wrote). It is the source of the table's
// post_tool event (the hook ran).
func TestRealClaudePostToolBlock(t *testing.T) {
	version, shipped := installedTable(t, needClient(t, "claude"), "claude")
	r := runRealRedact(t, "claude", "post-tool", "post_tool", "cat secret.txt")
	rb, mock, raw := r.receipts, r.mock, realRaw
	if !strings.Contains(string(rb), `"route":"block"`) {
		t.Fatalf("the post-tool hook did not block (receipts %q); the measurement proves nothing", rb)
	}
	seen := strings.Contains(mock, raw)
	_, granted := shipped.Capabilities["post_tool.block"]
	t.Logf("after a PostToolUse block the model received the raw tool result: %v; the token: %v", seen, strings.Contains(mock, "[GH_TOKEN]"))
	inTranscript := false
	filepath.WalkDir(filepath.Join(r.w.clientHome, "projects"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".jsonl") {
			b, _ := os.ReadFile(p)
			inTranscript = inTranscript || bytes.Contains(b, []byte(raw))
		}
		return nil
	})
	t.Logf("the transcript held the raw value: %v", inTranscript)
	if granted == seen {
		t.Errorf("claude-%s lists post_tool.block = %v, but the model received the blocked result = %v", version, granted, seen)
	}
	if granted && !strings.Contains(mock, "[GH_TOKEN]") {
		t.Errorf("the model received neither the raw value nor its token: the replacement did not reach it")
	}
}
