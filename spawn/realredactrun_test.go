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
	"sync"
	"testing"
	"time"
)

// redactWorld is a real-client world whose registry attaches the entry
// "redact" as a redaction entry on all five events for claude (pre_tool
// and post_tool for every tool). Its argv is a wrapper script that runs
// this binary's `hookwarden redact` with the attachment's args (--hook X
// --engine claude [--values F]), or, for the prompt or exit hook, the
// injected shell text instead (promptSh, exitSh; "" = no injection).
type redactWorld struct {
	*realWorld
	hw, values string
	noProxy    bool // runFakeRedact: no hookwarden-mcp-proxy beside hookwarden
}

func newRedactWorld(t *testing.T, values map[string]string, promptSh, exitSh, timeout string) *redactWorld {
	t.Helper()
	w := &redactWorld{realWorld: newRealWorld(t), hw: hookwardenBin(t)}
	w.values = filepath.Join(w.work, "values.json")
	vb, _ := json.Marshal(map[string]any{"version": 1, "values": values})
	if err := os.WriteFile(w.values, vb, 0o600); err != nil {
		t.Fatal(err)
	}
	// with $HW_RECORD set, each payload is also kept there (real payloads
	// recorded as fixtures)
	pass := `[ -n "$HW_RECORD" ] && { f=$(mktemp "$HW_RECORD/$2.XXXXXX") && cat > "$f" && exec < "$f"; }; exec ` + shq(w.hw) + ` redact "$@"`
	if promptSh == "" {
		promptSh = pass
	}
	if exitSh == "" {
		exitSh = pass
	}
	wrapper := filepath.Join(w.home, "bin", "redact.sh")
	script := "#!/bin/sh\nHW=" + shq(w.hw) + "\ncase \"$2\" in\nprompt)\n" + promptSh + "\n;;\nexit)\n" + exitSh + "\n;;\n*)\n" + pass + "\n;;\nesac\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if timeout == "" {
		timeout = "20"
	}
	writeJSONFile(t, filepath.Join(w.home, LibraryFile), library{Version: 1, Entries: map[string]Entry{
		"redact": {Argv: []string{wrapper}, Timeout: json.RawMessage(timeout)}}})
	writeJSONFile(t, filepath.Join(w.home, RegistryFile), Layer{Version: 1, Attachments: []Attachment{
		{Hook: "redact", Event: "agent_prompt", Args: []string{"--hook", "prompt", "--engine", "{engine}", "--values", w.values}},
		{Hook: "redact", Event: "pre_tool", Matcher: "*", Args: []string{"--hook", "pre-tool", "--engine", "{engine}"}},
		{Hook: "redact", Event: "post_tool", Matcher: "*", Args: []string{"--hook", "post-tool", "--engine", "{engine}"}},
		{Hook: "redact", Event: "claude:Stop", Args: []string{"--hook", "stop", "--engine", "{engine}"}},
		{Hook: "redact", Event: "agent_exit", Args: []string{"--hook", "exit", "--engine", "{engine}"}},
	}})
	w.approveAllAttached(t)
	return w
}

// approveAllAttached approves every concrete argv the registry attaches.
func (w *redactWorld) approveAllAttached(t *testing.T) {
	t.Helper()
	rows, err := TrustList(w.home, "", "")
	if err != nil {
		t.Fatal(err)
	}
	var argvs [][]string
	for _, r := range rows {
		if r.Argv != nil {
			argvs = append(argvs, r.Argv)
		}
	}
	if err := Approve(w.home, argvs); err != nil {
		t.Fatal(err)
	}
}

// sessionOf returns the value of --session-id in argv ("" when absent).
func sessionOf(argv []string) string {
	for i, a := range argv {
		if a == "--session-id" && i+1 < len(argv) {
			return argv[i+1]
		}
	}
	return ""
}

// rawIn returns the raw values of raws that s holds.
func rawIn(s []byte, raws []string) []string {
	var out []string
	for _, r := range raws {
		if bytes.Contains(s, []byte(r)) {
			out = append(out, r)
		}
	}
	return out
}

// duringRun collects, at every model request (inspect, the scripted
// model's hook), the raw values in the request and in the client's files,
// and each run file under run/hooks whose mode is not 0600 (or the
// directory, when not 0700): the modes after every write the run made
// before that request.
type duringRun struct {
	w    *redactWorld
	raws []string
	mu   sync.Mutex
	seen []string
}

func (d *duringRun) inspect(body string) {
	f := append(rawIn([]byte(body), d.raws), scanTree(d.w.clientHome, d.raws)...)
	f = append(f, runFileModes(filepath.Join(d.w.home, RunHooksDir))...)
	d.mu.Lock()
	d.seen = append(d.seen, f...)
	d.mu.Unlock()
}

// runFileModes returns a problem for dir when its mode is not 0700 and for
// each entry of it that is not a regular 0600 file (an entry removed
// while it is read is skipped).
func runFileModes(dir string) []string {
	var p []string
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		p = append(p, fmt.Sprintf("run directory %s: %v", dir, err))
		if err == nil {
			p[len(p)-1] = fmt.Sprintf("run directory %s mode %v, want 0700", dir, fi.Mode())
		}
	}
	es, _ := os.ReadDir(dir)
	for _, e := range es {
		if fi, err := e.Info(); err == nil && (!fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600) {
			p = append(p, fmt.Sprintf("run file %s mode %v, want 0600", e.Name(), fi.Mode()))
		}
	}
	return p
}

// found returns what inspect collected.
func (d *duringRun) found() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.seen
}

// noRawValues fails t when a raw value of raws is in the model's request
// log, was found during the run (during), is in a file under the client's
// home, or in spawn exec's output.
func noRawValues(t *testing.T, w *redactWorld, log string, during []string, out []byte, raws []string) {
	t.Helper()
	if f := rawIn([]byte(log), raws); len(f) > 0 {
		t.Errorf("the model received %d raw value(s)", len(f))
	}
	if len(during) > 0 {
		t.Errorf("during the run, raw values or run file modes were found: %v", during)
	}
	if f := scanTree(w.clientHome, raws); len(f) > 0 {
		t.Errorf("the client's files hold raw values: %v", f)
	}
	if f := rawIn(out, raws); len(f) > 0 {
		t.Errorf("spawn exec's output holds %d raw value(s)", len(f))
	}
}

// scanTree returns "path: value" for every file under dir holding a raw
// value.
func scanTree(dir string, raws []string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(p)
		for _, r := range rawIn(b, raws) {
			out = append(out, p+": "+r[:4]+"…")
		}
		return nil
	})
	return out
}

// TestRealClaudeRedactionRun is ADR-0134 A1 on the pinned Claude Code,
// under spawn exec with this binary's `hookwarden redact` attached as the
// redaction entry under the shipped capability table (the default
// Tables(): claude-2.1.328 grants every capability the entry requires):
// a configured secret given in every prompt channel (prompt, system prompt, its appendix, an agent's
// description and prompt, which reach the engine's argv as tokens and no
// model request, the Agent tool not being offered) and read by the model through a file read
// (Read) and a shell command (Bash, stdout and stderr), and two named
// values (a credential-named variable and a --secret-name variable)
// printed by a shell command, come back as tokens. Zero raw values in
// every request the loopback model received, in the client's files (its
// transcript) — both checked at every model request during the run and
// after it — in spawn exec's stdout and stderr, and in run/hooks, which is
// empty after the run. The run directory is 0700 and every run file (the
// run's lock included) 0600 while the engine runs; the transcript lies
// where spawn exec derives it from the session id it chose.
func TestRealClaudeRedactionRun(t *testing.T) {
	bin := needClient(t, "claude")
	const svc, dbURL = "svc-token-value-12345", "postgres://u:pw-9876@h/db"
	w := newRedactWorld(t, map[string]string{"[GH_TOKEN]": realRaw}, "", "", "")
	raws := []string{realRaw, svc, dbURL, "sk-test-dummy"}
	secret := filepath.Join(w.repo, "secret.txt")
	os.WriteFile(secret, []byte("token="+realRaw+"\n"), 0o644)
	dur := &duringRun{w: w, raws: raws}
	model := startScriptedModel(t, []scriptedCall{
		{"Read", map[string]any{"file_path": secret}},
		{"Bash", map[string]any{"command": "cat secret.txt; cat secret.txt >&2", "description": "show"}},
		{"Bash", map[string]any{"command": "printenv SERVICE_TOKEN DB_URL", "description": "env"}},
	}, dur.inspect)
	argv := []string{"claude", "-p", "use " + realRaw + " to run it", "--output-format", "json",
		"--system-prompt", "system " + realRaw, "--append-system-prompt", "appendix " + realRaw,
		"--agents", `{"helper":{"description":"desc ` + realRaw + `","prompt":"agent ` + realRaw + `"}}`}
	_, env := w.mockClient("claude", bin, model.port)
	env = append(env, "SERVICE_TOKEN="+svc, "DB_URL="+dbURL)
	var out bytes.Buffer
	var childArgv []string
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	code, err := Exec(ctx, ExecOptions{Argv: argv, Home: w.home, Gateway: mcpProxyBin(t), Cwd: w.repo, Env: env, Stdout: &out, Stderr: &out,
		SecretNames: []string{"DB_URL"},
		Started: func(r *Render, a []string) {
			childArgv = a
			dir := filepath.Join(w.home, RunHooksDir)
			if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
				t.Errorf("run directory %s: %v %v", dir, fi.Mode(), err)
			}
			es, _ := os.ReadDir(dir)
			if reports := reapReports(es); len(es)-reports != 5 || reports > 1 {
				t.Errorf("run files while the engine runs: %v, want the render, table, receipts, read policy and the run's lock (and the reaper's report, once it has started)", es)
			}
			for _, e := range es {
				if fi, _ := e.Info(); fi.Mode().Perm() != 0o600 {
					t.Errorf("%s mode %v, want 0600", e.Name(), fi.Mode())
				}
			}
		}})
	if err != nil || code != 0 {
		t.Fatalf("spawn exec: code %d err %v\n%s", code, err, out.String())
	}
	log := model.log()
	// the agents' texts reach no request: under the render's --tools the
	// Agent tool, which lists them, is not offered; the engine's argv
	// carries them redacted (checked below)
	for _, want := range []string{"use [GH_TOKEN] to run it", "system [GH_TOKEN]", "appendix [GH_TOKEN]",
		"hookwarden read", "token=[GH_TOKEN]", "[SERVICE_TOKEN]", "[DB_URL]"} {
		if !strings.Contains(log, want) {
			t.Errorf("the model never received %q", want)
		}
	}
	noRawValues(t, w, log, dur.found(), out.Bytes(), raws)
	if es, _ := os.ReadDir(filepath.Join(w.home, RunHooksDir)); len(es) != 0 {
		t.Errorf("run/hooks not empty after the run: %v", es)
	}
	if f := rawIn([]byte(strings.Join(childArgv, "\x00")), []string{realRaw}); len(f) > 0 {
		t.Errorf("the engine's argv holds the configured value")
	}
	if a := strings.Join(childArgv, "\x00"); !strings.Contains(a, "desc [GH_TOKEN]") || !strings.Contains(a, "agent [GH_TOKEN]") {
		t.Errorf("the engine's --agents does not carry the agent's description and prompt as tokens")
	}
	sid := sessionOf(childArgv)
	tp := claudeTranscript(env, w.repo, sid)
	b, err := os.ReadFile(tp)
	if sid == "" || err != nil || !bytes.Contains(b, []byte("[GH_TOKEN]")) {
		t.Errorf("the transcript of session %q is not at the derived %s holding the token: %v", sid, tp, err)
	}
}

// TestRealClaudeRedactionRecorded records ADR-0134 A1's cases that the
// redaction entry does not prevent, on the pinned Claude Code under the
// same entry as TestRealClaudeRedactionRun: a shell command copying the
// secret file into the work tree (the copy holds the raw value; a later
// Read of it comes back as the token, which the test requires), a shell
// command printing the file base64-encoded (the redactor knows a value
// only by its exact text, so the hooks pass the encoded form; the
// model-traffic tripwire stops the request carrying it, which never
// reaches the model, and the run fails 123 naming the token and the
// form, which the test requires), and the value in the
// repository's CLAUDE.md (the test logs whether the engine loaded it under
// --setting-sources "", whether the model and the transcript received it,
// and what the run's scans reported; the transcript holds no raw value
// after agent_exit, which the test requires).
func TestRealClaudeRedactionRecorded(t *testing.T) {
	bin := needClient(t, "claude")
	w := newRedactWorld(t, map[string]string{"[GH_TOKEN]": realRaw}, "", "", "")
	os.WriteFile(filepath.Join(w.repo, "secret.txt"), []byte("token="+realRaw+"\n"), 0o644)
	os.WriteFile(filepath.Join(w.repo, "CLAUDE.md"), []byte("# Notes\nThe deploy token is "+realRaw+".\n"), 0o644)
	copyPath := filepath.Join(w.repo, "copy.txt")
	model := startScriptedModel(t, []scriptedCall{
		{"Bash", map[string]any{"command": "cp secret.txt copy.txt", "description": "copy"}},
		{"Read", map[string]any{"file_path": copyPath}},
		{"Bash", map[string]any{"command": "base64 secret.txt", "description": "encode"}},
	}, nil)
	_, env := w.mockClient("claude", bin, model.port)
	var out bytes.Buffer
	var childArgv []string
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	code, err := Exec(ctx, ExecOptions{Argv: []string{"claude", "-p", "run it", "--output-format", "json"},
		Home: w.home, Gateway: mcpProxyBin(t), Cwd: w.repo, Env: env, Stdout: &out, Stderr: &out,
		Started: func(_ *Render, a []string) { childArgv = a }})
	if AsRefusal(err) != nil {
		t.Fatalf("refused: %v", err)
	}
	log := model.log()
	cb, _ := os.ReadFile(copyPath)
	t.Logf("copy: the work-tree copy holds the raw value: %v", bytes.Contains(cb, []byte(realRaw)))
	if !strings.Contains(log, "copy.txt for you (redacted):\\ntoken=[GH_TOKEN]") {
		t.Errorf("the Read of the copy did not come back as the token")
	}
	b64 := "dG9rZW49Z2hwX2FiY2RlZmdoMTIzNDU2NzgK" // base64 of "token=" + realRaw + "\n"
	if strings.Contains(log, b64) {
		t.Errorf("the base64 output reached the model past the tripwire")
	}
	if f := AsRunFailure(err); code != RunFailedExit || f == nil || !strings.Contains(f.Error(), "held the value of [GH_TOKEN] (base64") {
		t.Errorf("want the run failed by the tripwire on [GH_TOKEN] in base64, got %d %v", code, err)
	}
	sid := sessionOf(childArgv)
	tb, _ := os.ReadFile(claudeTranscript(env, w.repo, sid))
	t.Logf("CLAUDE.md: the model received its raw value: %v; exit %d; run outcome: %v", strings.Contains(log, realRaw), code, err)
	if bytes.Contains(tb, []byte(realRaw)) {
		t.Errorf("the transcript holds the raw value after agent_exit")
	}
	if strings.Contains(log, realRaw) && AsRunFailure(err) == nil {
		t.Logf("the model received the raw value and the run passed: the engine did not write it into its transcript")
	}
	if f := rawIn(out.Bytes(), []string{realRaw}); len(f) > 0 {
		t.Errorf("spawn exec's output holds the raw value")
	}
	noRunFiles(t, w)

	// control: the same engine without spawn exec (setting sources as
	// default) sends CLAUDE.md to the model, so the row above tells the
	// render's --setting-sources "" apart from a CLAUDE.md never loaded
	control := startScriptedModel(t, nil, nil)
	_, cenv := w.mockClient("claude", bin, control.port)
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "claude"), "-p", "hello", "--output-format", "json")
	cmd.Dir, cmd.Env = w.repo, cenv
	if o, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("control run: %v\n%s", err, o)
	}
	loaded := strings.Contains(control.log(), realRaw)
	t.Logf("CLAUDE.md: without spawn exec the model received its raw value: %v; under spawn exec: %v", loaded, strings.Contains(log, realRaw))
	if !loaded {
		t.Errorf("control: the engine did not send CLAUDE.md to the model, so the spawn row proves nothing")
	}
}

// TestRealClaudeRedactionKilled is ADR-0134 A2's engine-killed cases on the
// pinned Claude Code under the redaction entry: spawn exec's context ends
// (SIGTERM to the engine) once the model has received the Read's result,
// and, in the second case, as soon as the engine has started. agent_exit
// runs in both (the exit hook logs its call); mid-run it scans the
// transcript it derived, and the run fails on the model's pending Bash
// call, which is in the transcript with no pre-tool receipt (2026-12-01:
// this outcome), or, had the signal landed before Claude wrote that call,
// ends with the engine's signal code after a clean scan; killed before its first event
// the engine wrote no transcript, and the run fails on it. Nothing is left
// in run/hooks and no raw value reaches the model or the client's files.
func TestRealClaudeRedactionKilled(t *testing.T) {
	bin := needClient(t, "claude")
	for _, early := range []bool{false, true} {
		t.Run(map[bool]string{false: "mid-run", true: "before its first event"}[early], func(t *testing.T) {
			exitLog := filepath.Join(t.TempDir(), "exit.log")
			w := newRedactWorld(t, map[string]string{"[GH_TOKEN]": realRaw}, "", "echo called >> "+shq(exitLog)+`; exec "$HW" redact "$@"`, "")
			secret := filepath.Join(w.repo, "secret.txt")
			os.WriteFile(secret, []byte("token="+realRaw+"\n"), 0o644)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			model := startScriptedModel(t, []scriptedCall{
				{"Read", map[string]any{"file_path": secret}},
				{"Bash", map[string]any{"command": "sleep 60", "description": "wait"}},
			}, func(body string) {
				if strings.Contains(body, "for you (redacted)") {
					cancel()
				}
			})
			_, env := w.mockClient("claude", bin, model.port)
			var out bytes.Buffer
			code, err := Exec(ctx, ExecOptions{Argv: []string{"claude", "-p", "run it"},
				Home: w.home, Gateway: mcpProxyBin(t), Cwd: w.repo, Env: env, Stdout: &out, Stderr: &out,
				Started: func(*Render, []string) {
					if early {
						cancel()
					}
				}})
			t.Logf("exit %d: %v", code, err)
			if AsRefusal(err) != nil {
				t.Fatalf("refused: %v", err)
			}
			if b, _ := os.ReadFile(exitLog); !strings.Contains(string(b), "called") {
				t.Errorf("agent_exit did not run after the engine was killed")
			}
			if early {
				if f := AsRunFailure(err); f == nil || code != RunFailedExit || !strings.Contains(f.Error(), "transcript") {
					t.Errorf("want the run failed on the missing transcript, got %d %v", code, err)
				}
			} else if f := AsRunFailure(err); !(code == 128+15 && err == nil) && !(f != nil && code == RunFailedExit && strings.Contains(f.Error(), "no pre_tool receipt")) {
				// the signal lands while the model's next call (Bash) is
				// pending: in the transcript with no receipt, which fails
				// the run; or before Claude wrote it, a clean scan
				t.Errorf("want the engine's SIGTERM code %d after a clean scan, or the run failed on the pending call's missing receipt; got %d %v", 128+15, code, err)
			}
			if strings.Contains(model.log(), realRaw) || len(scanTree(w.clientHome, []string{realRaw})) > 0 {
				t.Errorf("a raw value reached the model or the client's files")
			}
			noRunFiles(t, w)
		})
	}
}
