package spawn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRealClaudeRedactShellRoute measures pre_tool.rewrite on the pinned
// Claude Code: `hookwarden redact --hook pre-tool` attached on pre_tool
// (Bash) answers the model's `cat secret.txt` with permissionDecision allow
// and an updatedInput that runs the command under `hookwarden redact --hook
// run`. Claude runs the rewritten command: the tool result the model
// receives (the loopback model server's request log) holds the token and
// no spelling of the raw value, and neither does anything under the
// client's config directory (its transcript), spawn exec's stdout and
// stderr, or the run directory's receipts. The run files are made by the
// test here: spawn exec does not yet run the redaction entry.
func TestRealClaudeRedactShellRoute(t *testing.T) {
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
	args := []string{"--hook", "pre-tool", "--engine", "{engine}"}
	writeJSONFile(t, filepath.Join(w.home, RegistryFile), Layer{Version: 1, Attachments: []Attachment{
		{Hook: "redact", Event: "pre_tool", Matcher: "Bash", Args: args}}})
	if err := Approve(w.home, [][]string{{hw, "redact", "--hook", "pre-tool", "--engine", "claude"}}); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(w.work, "run")
	os.Mkdir(run, 0o700)
	table, receipts, policy := filepath.Join(run, "table.json"), filepath.Join(run, "receipts.jsonl"), filepath.Join(run, "policy.json")
	os.WriteFile(table, []byte(`{"version":1,"values":{"[GH_TOKEN]":"`+raw+`"}}`), 0o600)
	os.WriteFile(receipts, nil, 0o600)
	os.WriteFile(policy, []byte(`{"version":1,"allow":["`+w.repo+`"],"deny":["`+run+`"]}`), 0o600)
	os.WriteFile(filepath.Join(w.repo, "secret.txt"), []byte(raw+"\n"), 0o644)

	port, log := startMockCommand(t, "anthropic", w.work, "cat secret.txt; cat secret.txt >&2")
	env := []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + w.clientHome, "PWD=" + w.repo, "CLAUDE_CONFIG_DIR=" + w.clientHome,
		fmt.Sprintf("ANTHROPIC_BASE_URL=http://127.0.0.1:%d", port), "ANTHROPIC_API_KEY=sk-test-dummy", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"HOOKWARDEN_HOOK_TABLE=" + table, "HOOKWARDEN_HOOK_RECEIPTS=" + receipts, "HOOKWARDEN_HOOK_POLICY=" + policy}
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	code, err := Exec(ctx, ExecOptions{Argv: []string{"claude", "-p", "run it", "--output-format", "json", "--allowedTools", "Bash"},
		Home: w.home, Cwd: w.repo, Env: env, Stdout: &out, Stderr: &out})
	if err != nil || code != 0 {
		t.Fatalf("spawn exec: code %d err %v\n%s", code, err, out.String())
	}
	spellings := []string{raw}
	mock := mockTurns(t, log)
	if !strings.Contains(mock, "[GH_TOKEN]") {
		t.Fatalf("the model never received the token; request log:\n%.3000s", mock)
	}
	for _, s := range spellings {
		if strings.Contains(mock, s) {
			t.Errorf("the model received the raw value")
		}
		if strings.Contains(out.String(), s) {
			t.Errorf("spawn exec's output holds the raw value")
		}
	}
	filepath.WalkDir(w.clientHome, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(raw)) {
			t.Errorf("%s (the client's files, transcript included) holds the raw value", p)
		}
		return nil
	})
	rb, _ := os.ReadFile(receipts)
	if !strings.Contains(string(rb), `"route":"shell"`) || !strings.Contains(string(rb), `"tool_use_id":"toolu_`) {
		t.Errorf("receipts %s", rb)
	}
	if bytes.Contains(rb, []byte(raw)) {
		t.Errorf("receipts hold the raw value")
	}
	var transcripts []string
	filepath.WalkDir(filepath.Join(w.clientHome, "projects"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".jsonl") {
			transcripts = append(transcripts, p)
		}
		return nil
	})
	if len(transcripts) == 0 {
		t.Errorf("no transcript under %s/projects: the raw-value scan of the client's files proved nothing", w.clientHome)
	}
	for _, p := range transcripts {
		if b, _ := os.ReadFile(p); !bytes.Contains(b, []byte("[GH_TOKEN]")) {
			t.Errorf("transcript %s lacks the token: the tool result did not pass through", p)
		}
	}
}
