package spawn

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRealClaudeRedactionResume is ADR-0134 D7's native resume on the
// pinned Claude Code under the redaction entry and the shipped
// capability table: run 1 reads the secret file (the model gets
// the token) and passes agent_exit, which leaves its run record; run 2,
// `--resume <run 1's session>` with the raw value in its prompt, runs a
// shell command printing the file. Run 2's engine gets --resume and no
// --session-id; every request the model received in run 2 holds the
// earlier turn's token and no raw value (checked at each request, with the
// client's files); the continued transcript is the session's one file
// (Claude Code appends to <session id>.jsonl), which agent_exit scans (its
// payload names it; run 1's tool call there is receipted by the carried
// record, else the run would fail); no raw value is left in the transcript,
// the output or run/hooks.
func TestRealClaudeRedactionResume(t *testing.T) {
	bin := needClient(t, "claude")
	exitLog := filepath.Join(t.TempDir(), "exit.log")
	w := newRedactWorld(t, map[string]string{"[GH_TOKEN]": realRaw}, "", "tee -a "+shq(exitLog)+` | "$HW" redact "$@"`, "")
	secret := filepath.Join(w.repo, "secret.txt")
	os.WriteFile(secret, []byte("token="+realRaw+"\n"), 0o644)
	raws := []string{realRaw}
	during := &duringRun{w: w, raws: raws}
	model := startScriptedModel(t, []scriptedCall{{"Read", map[string]any{"file_path": secret}}}, during.inspect)
	_, env := w.mockClient("claude", bin, model.port)
	run := func(argv []string) (int, error, string, []string) {
		var out bytes.Buffer
		var child []string
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		code, err := Exec(ctx, ExecOptions{Argv: argv, Home: w.home, Gateway: mcpProxyBin(t), Cwd: w.repo, Env: env, Stdout: &out, Stderr: &out,
			Started: func(_ *Render, a []string) { child = a }})
		return code, err, out.String(), child
	}
	code, err, out, child1 := run([]string{"claude", "-p", "use " + realRaw, "--output-format", "json"})
	if code != 0 || err != nil {
		t.Fatalf("run 1: %d %v\n%s", code, err, out)
	}
	sid := sessionOf(child1)
	if _, err := readRunRecord(w.home, sid); err != nil {
		t.Fatalf("run 1 left no run record: %v", err)
	}
	model.mu.Lock()
	n1 := len(model.bodies)
	model.script = append(model.script, scriptedCall{"Bash", map[string]any{"command": "cat secret.txt", "description": "show"}})
	model.mu.Unlock()

	code, err, out, child2 := run([]string{"claude", "-p", "continue with " + realRaw, "--resume", sid, "--output-format", "json"})
	if code != 0 || err != nil {
		t.Fatalf("run 2 (the resume): %d %v\n%s", code, err, out)
	}
	if !slices.Contains(child2, "--resume") || sessionOf(child2) != "" {
		t.Errorf("the resumed engine's argv: %q", child2)
	}
	model.mu.Lock()
	second := model.bodies[n1:]
	model.mu.Unlock()
	if len(second) == 0 {
		t.Fatalf("run 2 sent the model nothing")
	}
	for i, b := range second {
		if f := rawIn([]byte(b), raws); len(f) > 0 {
			t.Errorf("run 2's request %d holds the raw value", i)
		}
	}
	joined := strings.Join(second, "\n")
	for _, want := range []string{"use [GH_TOKEN]", "token=[GH_TOKEN]", "continue with [GH_TOKEN]"} {
		if !strings.Contains(second[0], want) && !strings.Contains(joined, want) {
			t.Errorf("run 2's requests never held %q (the earlier turn's tokens, the new prompt's)", want)
		}
	}
	if !strings.Contains(second[0], "token=[GH_TOKEN]") {
		t.Errorf("run 2's first request does not carry run 1's Read result as a token: the history was not loaded")
	}
	if strings.Count(joined, "token=[GH_TOKEN]") < 2 {
		t.Errorf("run 2's Bash output did not come back as the token")
	}
	if f := during.found(); len(f) > 0 {
		t.Errorf("raw values found during the runs: %v", f)
	}
	tp := claudeTranscript(env, w.repo, sid)
	tb, err := os.ReadFile(tp)
	if err != nil || !bytes.Contains(tb, []byte("use [GH_TOKEN]")) || !bytes.Contains(tb, []byte("continue with [GH_TOKEN]")) || bytes.Contains(tb, []byte(realRaw)) {
		t.Errorf("the session's transcript %s does not hold both runs with tokens only: %v", tp, err)
	}
	eb, _ := os.ReadFile(exitLog)
	payloads := jsonLines(eb)
	if len(payloads) != 2 || payloads[1]["session_id"] != sid || payloads[1]["transcript"] != tp {
		t.Errorf("agent_exit payloads: %v, want two, the second on session %s's transcript %s", payloads, sid, tp)
	}
	if f := rawIn([]byte(out), raws); len(f) > 0 {
		t.Errorf("spawn exec's output holds the raw value")
	}
	if f := scanTree(w.clientHome, raws); len(f) > 0 {
		t.Errorf("the client's files hold raw values: %v", f)
	}
	noRunFiles(t, w)
	t.Logf("run 2: %d model request(s); transcript %d line(s); agent_exit payloads %d", len(second), bytes.Count(tb, []byte("\n")), len(payloads))
	rec, err := readRunRecord(w.home, sid)
	if err != nil || len(rec.Receipted) < 2 {
		t.Errorf("the run record after the resume: %+v %v, want both runs' tool calls", rec, err)
	}
}
