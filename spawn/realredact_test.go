package spawn

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
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
	r := runRealRedact(t, "claude", "pre-tool", "pre_tool", "cat secret.txt; cat secret.txt >&2")
	mock, out, receipts, raw, w := r.mock, r.out, r.receipts, realRaw, r.w
	spellings := []string{raw}
	if !strings.Contains(mock, "[GH_TOKEN]") {
		t.Fatalf("the model never received the token; request log:\n%.3000s", mock)
	}
	for _, s := range spellings {
		if strings.Contains(mock, s) {
			t.Errorf("the model received the raw value")
		}
		if strings.Contains(out, s) {
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
	rb := []byte(receipts)
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

// realRaw is the secret value of the redact real-client tests.
const realRaw = "ghp_abcdefgh12345678"

// realRedactRun is what runRealRedact observed: the world, the model
// server's request log, spawn exec's stdout and stderr, and the receipts.
type realRedactRun struct {
	w                   *realWorld
	mock, out, receipts string
}

// runRealRedact builds this binary, attaches `hookwarden redact --hook
// hook` on event (matcher Bash, approved, not required), makes the run
// files a redaction run would have (table holding realRaw as [GH_TOKEN],
// receipts, a read policy over the repository), puts realRaw in the
// repository's secret.txt, and runs the pinned claude under spawn exec
// against the loopback model, whose model asks for command.
func runRealRedact(t *testing.T, engine, hook, event, command string) realRedactRun {
	t.Helper()
	bin := needClient(t, engine)
	w := newRealWorld(t)
	hw := hookwardenBin(t)
	writeJSONFile(t, filepath.Join(w.home, LibraryFile), library{Version: 1, Entries: map[string]Entry{
		"redact": {Argv: []string{hw, "redact"}, Timeout: json.RawMessage("20")}}})
	writeJSONFile(t, filepath.Join(w.home, RegistryFile), Layer{Version: 1, Attachments: []Attachment{
		{Hook: "redact", Event: event, Matcher: "Bash", Args: []string{"--hook", hook, "--engine", "{engine}"}}}})
	if err := Approve(w.home, [][]string{{hw, "redact", "--hook", hook, "--engine", engine}}); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(w.work, "run")
	os.Mkdir(run, 0o700)
	table, receipts, policy := filepath.Join(run, "table.json"), filepath.Join(run, "receipts.jsonl"), filepath.Join(run, "policy.json")
	os.WriteFile(table, []byte(`{"version":1,"values":{"[GH_TOKEN]":"`+realRaw+`"}}`), 0o600)
	os.WriteFile(receipts, nil, 0o600)
	os.WriteFile(policy, []byte(`{"version":1,"allow":["`+w.repo+`"],"deny":["`+run+`"]}`), 0o600)
	os.WriteFile(filepath.Join(w.repo, "secret.txt"), []byte(realRaw+"\n"), 0o644)
	runFiles := []string{"HOOKWARDEN_HOOK_TABLE=" + table, "HOOKWARDEN_HOOK_RECEIPTS=" + receipts, "HOOKWARDEN_HOOK_POLICY=" + policy}
	api := "anthropic"
	if engine == "codex" {
		api = "responses"
	}
	port, log := startMockCommand(t, api, w.work, command)
	argv, env := w.mockClient(engine, bin, port)
	env = append(env, runFiles...)
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	code, err := Exec(ctx, ExecOptions{Argv: argv, Home: w.home, Gateway: mcpProxyBin(t), Cwd: w.repo, Env: env, Stdout: &out, Stderr: &out})
	if err != nil || code != 0 {
		t.Fatalf("spawn exec: code %d err %v\n%s", code, err, out.String())
	}
	rb, _ := os.ReadFile(receipts)
	return realRedactRun{w: w, mock: mockTurns(t, log), out: out.String(), receipts: string(rb)}
}

// TestRealCodexRedactShellRoute is TestRealClaudeRedactShellRoute on the
// pinned codex-cli: the model's `cat secret.txt`, rewritten by `hookwarden
// redact --hook pre-tool --engine codex`, reaches the model as the token;
// no spelling of the raw value is in the model server's request log,
// spawn exec's output, the receipts, or anything under CODEX_HOME (its
// rollout included), which holds the token.
func TestRealCodexRedactShellRoute(t *testing.T) {
	r := runRealRedact(t, "codex", "pre-tool", "pre_tool", "cat secret.txt; cat secret.txt >&2")
	if !strings.Contains(r.mock, "[GH_TOKEN]") {
		t.Fatalf("the model never received the token; request log:\n%.3000s", r.mock)
	}
	for where, text := range map[string]string{"the model's requests": r.mock, "spawn exec's output": r.out, "the receipts": r.receipts} {
		if strings.Contains(text, realRaw) {
			t.Errorf("%s hold the raw value", where)
		}
	}
	if !strings.Contains(r.receipts, `"route":"shell"`) {
		t.Errorf("receipts %s", r.receipts)
	}
	tokenInRollout := false
	filepath.WalkDir(r.w.clientHome, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(p)
		if bytes.Contains(b, []byte(realRaw)) {
			t.Errorf("%s (under CODEX_HOME) holds the raw value", p)
		}
		if strings.HasSuffix(p, ".jsonl") && bytes.Contains(b, []byte("[GH_TOKEN]")) {
			tokenInRollout = true
		}
		return nil
	})
	if !tokenInRollout {
		t.Errorf("no rollout under %s holds the token: the raw-value scan proved nothing", r.w.clientHome)
	}
}
