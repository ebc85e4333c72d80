package spawn

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// childArgvs collects the argv of every child spawn exec starts, and
// checks at each start that the run directory is 0700 and every file in
// it 0600 (when it exists).
type childArgvs struct {
	t    *testing.T
	home string
	mu   sync.Mutex
	argv [][]string
}

func (c *childArgvs) started(_ *Render, a []string) {
	c.mu.Lock()
	c.argv = append(c.argv, a)
	c.mu.Unlock()
	dir := filepath.Join(c.home, RunHooksDir)
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		c.t.Errorf("run directory %s: %v", dir, err)
	}
	es, _ := os.ReadDir(dir)
	for _, e := range es {
		if fi, _ := e.Info(); fi.Mode().Perm() != 0o600 {
			c.t.Errorf("%s mode %v, want 0600", e.Name(), fi.Mode())
		}
	}
}

// results returns the result objects in a child's stdout (json output:
// one per line).
func results(out []byte) []claudeResult {
	var rs []claudeResult
	for _, ln := range bytes.Split(out, []byte("\n")) {
		var r claudeResult
		if json.Unmarshal(ln, &r) == nil && r.Type == "result" {
			rs = append(rs, r)
		}
	}
	return rs
}

// jsonLines decodes every JSON object in b (a log of payloads).
func jsonLines(b []byte) []map[string]any {
	var out []map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		var p map[string]any
		if dec.Decode(&p) != nil {
			return out
		}
		out = append(out, p)
	}
}

// TestRealClaudeRedactionContinuation is ADR-0134 A2's auto_finish
// continuation on the pinned Claude Code under the redaction entry and the
// shipped capability table: `spawn exec --auto-finish
// "finish with <raw>" -- claude -p "use <raw>" --output-format json
// --max-turns 1`, whose scripted model reads the secret file. Child 1
// stops after the Read on the turn limit (its result error_max_turns);
// child 2 resumes that session (--resume, no --session-id, no --continue,
// the same render file) with the continuation prompt, which reaches the
// model as its token, and finishes. agent_prompt and agent_exit each run
// twice (child 1 and 2) on one session and transcript; the run passes with
// child 2's exit code; no request the model received, no client file
// (checked at every request and after), no output and nothing in run/hooks
// holds a raw value; the run directory is 0700 and its files 0600 at each
// child's start; the run record holds child 1's receipted Read.
func TestRealClaudeRedactionContinuation(t *testing.T) {
	bin := needClient(t, "claude")
	logDir := t.TempDir()
	exitLog, promptLog := filepath.Join(logDir, "exit.log"), filepath.Join(logDir, "prompt.log")
	w := newRedactWorld(t, map[string]string{"[GH_TOKEN]": realRaw},
		"tee -a "+shq(promptLog)+` | "$HW" redact "$@"`, "tee -a "+shq(exitLog)+` | "$HW" redact "$@"`, "")
	secret := filepath.Join(w.repo, "secret.txt")
	os.WriteFile(secret, []byte("token="+realRaw+"\n"), 0o644)
	raws := []string{realRaw}
	during := &duringRun{w: w, raws: raws}
	model := startScriptedModel(t, []scriptedCall{{"Read", map[string]any{"file_path": secret}}}, during.inspect)
	_, env := w.mockClient("claude", bin, model.port)
	var out, errb bytes.Buffer
	kids := &childArgvs{t: t, home: w.home}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	code, err := Exec(ctx, ExecOptions{Argv: []string{"claude", "-p", "use " + realRaw, "--output-format", "json", "--max-turns", "1"},
		Home: w.home, Gateway: mcpProxyBin(t), Cwd: w.repo, Env: env, Stdout: &out, Stderr: &errb,
		AutoFinish: "finish with " + realRaw, Started: kids.started})
	t.Logf("exit %d: %v\nstdout: %s\nstderr: %s", code, err, out.String(), errb.String())
	if code != 0 || err != nil {
		t.Fatalf("the run: %d %v", code, err)
	}
	if len(kids.argv) != 2 {
		t.Fatalf("%d children started, want 2", len(kids.argv))
	}
	one, two := kids.argv[0], kids.argv[1]
	sid := sessionOf(one)
	if i := slices.Index(two, "--resume"); sid == "" || i < 0 || two[i+1] != sid || slices.Contains(two, "--session-id") || slices.Contains(two, "--continue") {
		t.Errorf("child 2's argv does not resume child 1's session %s by --resume alone: %q", sid, two)
	}
	settings := func(a []string) string {
		if i := slices.Index(a, "--settings"); i >= 0 {
			return a[i+1]
		}
		return ""
	}
	if settings(one) == "" || settings(one) != settings(two) {
		t.Errorf("the children's render files: %q and %q", settings(one), settings(two))
	}
	if rs := results(out.Bytes()); len(rs) != 2 || rs[0].Subtype != "error_max_turns" || rs[1].Subtype != "success" || rs[0].SessionID != sid || rs[1].SessionID != sid {
		t.Errorf("the children's results: %+v, want error_max_turns then success on session %s", rs, sid)
	}
	log := model.log()
	for _, want := range []string{"use [GH_TOKEN]", "token=[GH_TOKEN]", "finish with [GH_TOKEN]"} {
		if !strings.Contains(log, want) {
			t.Errorf("the model never received %q", want)
		}
	}
	noRawValues(t, w, log, during.found(), append(out.Bytes(), errb.Bytes()...), raws)
	pb, _ := os.ReadFile(promptLog)
	eb, _ := os.ReadFile(exitLog)
	prompts, exits := jsonLines(pb), jsonLines(eb)
	tp := claudeTranscript(env, w.repo, sid)
	if len(prompts) != 2 || prompts[0]["child"] != 1.0 || prompts[1]["child"] != 2.0 {
		t.Errorf("agent_prompt payloads: %d, want child 1 then child 2", len(prompts))
	}
	if len(exits) != 2 || exits[0]["child"] != 1.0 || exits[1]["child"] != 2.0 || exits[0]["session_id"] != sid || exits[1]["session_id"] != sid || exits[1]["transcript"] != tp {
		t.Errorf("agent_exit payloads: %v, want child 1 then child 2 on session %s's transcript %s", exits, sid, tp)
	}
	if tb, err := os.ReadFile(tp); err != nil || !bytes.Contains(tb, []byte("finish with [GH_TOKEN]")) || bytes.Contains(tb, []byte(realRaw)) {
		t.Errorf("the session's transcript does not hold both children with tokens only: %v", err)
	}
	noRunFiles(t, w)
	if rec, err := readRunRecord(w.home, sid); err != nil || len(rec.Receipted) != 1 {
		t.Errorf("the run record: %+v %v, want child 1's Read receipted", rec, err)
	}
}

// TestRealClaudeContinuation is the continuation without the redaction
// entry on the pinned Claude Code: the registry's guard (pre_tool on
// Bash, deny) and `spawn exec --auto-finish "finish the task" -- claude
// -p … --output-format json --max-turns 1`, whose scripted model calls
// Bash in each child. Child 1 runs the session spawn exec chose for it
// (--session-id) and stops on the turn limit after the guard denied its
// call; child 2 resumes the session (--resume alone, the same
// render), the guard runs in it too (its parent process carries the
// rendered flags and --resume), child 2 stops on the turn limit as well
// and no third child starts: the run's exit code is child 2's (1). The
// model's second request carries the first child's denial and the
// continuation's prompt.
func TestRealClaudeContinuation(t *testing.T) {
	bin := needClient(t, "claude")
	w := newRealWorld(t)
	model := startScriptedModel(t, []scriptedCall{
		{"Bash", map[string]any{"command": "touch one.txt", "description": "one"}},
		{"Bash", map[string]any{"command": "touch two.txt", "description": "two"}},
	}, nil)
	_, env := w.mockClient("claude", bin, model.port)
	var out, errb bytes.Buffer
	kids := &childArgvs{t: t, home: w.home}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	code, err := Exec(ctx, ExecOptions{Argv: []string{"claude", "-p", "run it", "--output-format", "json", "--max-turns", "1", "--allowedTools", "Bash"},
		Home: w.home, Gateway: mcpProxyBin(t), Cwd: w.repo, Env: env, Stdout: &out, Stderr: &errb, AutoFinish: "finish the task", Started: kids.started})
	t.Logf("exit %d: %v\nstderr: %s", code, err, errb.String())
	if err != nil || code != 1 {
		t.Fatalf("want child 2's exit code 1 (its turn limit), got %d %v", code, err)
	}
	if len(kids.argv) != 2 {
		t.Fatalf("%d children started, want 2", len(kids.argv))
	}
	rs := results(out.Bytes())
	if len(rs) != 2 || rs[0].Subtype != "error_max_turns" || rs[1].Subtype != "error_max_turns" || rs[0].SessionID == "" || rs[1].SessionID != rs[0].SessionID {
		t.Fatalf("the children's results: %+v", rs)
	}
	sid := rs[0].SessionID
	if sessionOf(kids.argv[0]) != sid {
		t.Errorf("child 1 did not run the session spawn exec chose for it (--session-id %q, result %s)", sessionOf(kids.argv[0]), sid)
	}
	two := kids.argv[1]
	if i := slices.Index(two, "--resume"); i < 0 || two[i+1] != sid || slices.Contains(two, "--session-id") || slices.Contains(two, "--continue") {
		t.Errorf("child 2's argv: %q", two)
	}
	if i, j := slices.Index(kids.argv[0], "--settings"), slices.Index(two, "--settings"); i < 0 || j < 0 || kids.argv[0][i+1] != two[j+1] {
		t.Errorf("the children's render files differ")
	}
	anc, _ := os.ReadFile(filepath.Join(w.out, "ancestors.claude.txt"))
	if !strings.Contains(string(anc), "--resume "+sid) || !strings.Contains(string(anc), "--settings "+two[slices.Index(two, "--settings")+1]) {
		t.Errorf("the guard did not run in child 2 under the render: %s", anc)
	}
	for _, f := range []string{"one.txt", "two.txt"} {
		if _, err := os.Stat(filepath.Join(w.repo, f)); err == nil {
			t.Errorf("%s exists: the guard's deny did not hold", f)
		}
	}
	model.mu.Lock()
	bodies := slices.Clone(model.bodies)
	model.mu.Unlock()
	var cont string
	for _, b := range bodies {
		if strings.Contains(b, "finish the task") {
			cont = b
			break
		}
	}
	if cont == "" || !strings.Contains(cont, "blocked by the registry guard") || !strings.Contains(cont, "run it") {
		t.Errorf("no request carried child 1's history and the continuation's prompt")
	}
	if es, _ := os.ReadDir(filepath.Join(w.home, RunHooksDir)); len(es) != 0 {
		t.Errorf("run/hooks not empty: %v", es)
	}
}
