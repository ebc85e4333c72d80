package spawn

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeRedactClaude is a fake claude for runs under a redaction entry:
// `--version` prints 2.1.328's; otherwise it logs its argv, its
// HOOKWARDEN_HOOK_* variables and its stdin to started.log, runs
// $FAKE_BEFORE, writes $FAKE_TRANSCRIPT (default: one clean user line) as
// the transcript of its --session-id where Claude Code 2.1.328 keeps it,
// runs $FAKE_AFTER and exits $FAKE_EXIT (default 0). It runs no hook.
const fakeRedactClaude = `#!/bin/sh
if [ "$1" = "--version" ]; then echo '2.1.328 (Claude Code)'; exit 0; fi
log=%s
printf 'start %%s\n' "$*" >> "$log"
env | grep '^HOOKWARDEN_HOOK_' >> "$log"
printf 'stdin=%%s\n' "$(cat)" >> "$log"
sid=; prev=
for a in "$@"; do [ "$prev" = --session-id ] && sid=$a; prev=$a; done
eval "$FAKE_BEFORE"
dir="$CLAUDE_CONFIG_DIR/projects/$(pwd -P | sed 's/[^a-zA-Z0-9]/-/g')"
mkdir -p "$dir"
t=${FAKE_TRANSCRIPT-}
[ -n "$t" ] || t='{"type":"user","message":{"content":"hello"}}'
printf '%%s\n' "$t" > "$dir/$sid.jsonl"
eval "$FAKE_AFTER"
exit ${FAKE_EXIT:-0}
`

// fakeRun is one spawn exec of the fake claude under a redaction entry.
type fakeRun struct {
	w                 *redactWorld
	code              int
	err               error
	out, started, log string
}

// runFakeRedact runs `spawn exec -- claude -p PROMPT extra…` with the fake
// claude, the redaction entry of w, the test table granting every
// capability, CLAUDE_CONFIG_DIR in the client home, and env added.
func runFakeRedact(t *testing.T, w *redactWorld, prompt string, extra []string, env ...string) fakeRun {
	t.Helper()
	dir := filepath.Join(w.work, "engine")
	os.MkdirAll(dir, 0o755)
	startLog := filepath.Join(w.work, "started.log")
	os.WriteFile(filepath.Join(dir, "claude"), []byte(fmt.Sprintf(fakeRedactClaude, shq(startLog))), 0o755)
	argv := append([]string{"claude", "-p", prompt}, extra...)
	e := append([]string{"PATH=" + dir + ":/usr/bin:/bin", "HOME=" + w.clientHome, "CLAUDE_CONFIG_DIR=" + w.clientHome}, env...)
	var out bytes.Buffer
	code, err := Exec(context.Background(), ExecOptions{Argv: argv, Home: w.home, Cwd: w.repo, Env: e,
		Stdin: strings.NewReader("stdin text " + realRaw), Stdout: &out, Stderr: &out, Tables: redactTestTable(t)})
	b, _ := os.ReadFile(startLog)
	return fakeRun{w: w, code: code, err: err, out: out.String(), started: string(b)}
}

// noRunFiles fails when run/hooks holds a file.
func noRunFiles(t *testing.T, w *redactWorld) {
	t.Helper()
	if es, _ := os.ReadDir(filepath.Join(w.home, RunHooksDir)); len(es) != 0 {
		t.Errorf("run/hooks not empty: %v", es)
	}
}

// TestRedactionRefusedBeforeSpawn is ADR-0134 A2's agent_prompt half and
// the argv refusals under a redaction entry: each case refuses with its
// reason, starts no engine and leaves nothing in run/hooks.
func TestRedactionRefusedBeforeSpawn(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/hookwarden; -short")
	}
	writeTable := `umask 077; printf '{"version":1,"values":{"[GH_TOKEN]":"` + realRaw + `"}}' > "$HOOKWARDEN_HOOK_TABLE.t" && mv "$HOOKWARDEN_HOOK_TABLE.t" "$HOOKWARDEN_HOOK_TABLE"`
	cases := []struct {
		name, promptSh, timeout, prompt string
		extra, env                      []string
		want                            Reason
	}{
		{name: "prompt hook fails", promptSh: "echo broken >&2; exit 1", want: ReasonRedactionPromptHook},
		{name: "prompt hook times out", promptSh: "sleep 30", timeout: "1", want: ReasonRedactionPromptHook},
		{name: "prompt hook answers another shape", promptSh: writeTable + `; echo '{"text":"hello"}'`, want: ReasonRedactionPromptHook},
		{name: "prompt hook answers other channels", promptSh: writeTable + `; echo '{"texts":[{"channel":"system_prompt","text":"hello"}]}'`, want: ReasonRedactionPromptHook},
		{name: "prompt hook returns a raw value", promptSh: writeTable + `; echo '{"texts":[{"channel":"prompt","text":"leak ` + realRaw + `"}]}'`, want: ReasonRedactionPromptRaw},
		{name: "prompt hook writes no table", promptSh: `echo '{"texts":[{"channel":"prompt","text":"hello"}]}'`, want: ReasonRedactionTable},
		{name: "table readable by others", promptSh: `printf '{"version":1,"values":{}}' > "$HOOKWARDEN_HOOK_TABLE.t"; chmod 644 "$HOOKWARDEN_HOOK_TABLE.t"; mv "$HOOKWARDEN_HOOK_TABLE.t" "$HOOKWARDEN_HOOK_TABLE"; echo '{"texts":[{"channel":"prompt","text":"hello"}]}'`, want: ReasonRedactionTable},
		{name: "table invalid", promptSh: `umask 077; echo '{"values":' > "$HOOKWARDEN_HOOK_TABLE.t"; mv "$HOOKWARDEN_HOOK_TABLE.t" "$HOOKWARDEN_HOOK_TABLE"; echo '{"texts":[{"channel":"prompt","text":"hello"}]}'`, want: ReasonRedactionTable},
		{name: "output schema holds a configured value", extra: []string{"--json-schema", `{"const":"` + realRaw + `"}`}, want: ReasonRedactionSchema},
		{name: "a named variable's value in the prompt", prompt: "the method is password", env: []string{"AUTH_METHOD=password"}, want: ReasonRedactionPromptRaw},
		{name: "resume", extra: []string{"--resume", "0f8fad5b-d9cb-469f-a165-70867728950e"}, want: ReasonRedactionResume},
		{name: "continue", extra: []string{"-c"}, want: ReasonRedactionResume},
		{name: "mcp config", extra: []string{"--mcp-config", "/dev/null"}, want: ReasonRedactionMCP},
		{name: "an option spawn exec cannot place", extra: []string{"--debug"}, want: ReasonRedactionArgv},
		{name: "system prompt file", extra: []string{"--system-prompt-file", "/etc/hostname"}, want: ReasonRedactionPromptFile},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newRedactWorld(t, map[string]string{"[GH_TOKEN]": realRaw}, c.promptSh, "", c.timeout)
			p := c.prompt
			if p == "" {
				p = "hello"
			}
			r := runFakeRedact(t, w, p, c.extra, c.env...)
			if rf := AsRefusal(r.err); rf == nil || rf.Reason != c.want || r.code != RefusedExit {
				t.Fatalf("want %s (exit %d), got %d %v\n%s", c.want, RefusedExit, r.code, r.err, r.out)
			}
			if r.started != "" {
				t.Errorf("the engine started: %s", r.started)
			}
			if strings.Contains(r.err.Error(), realRaw) || strings.Contains(r.out, realRaw) {
				t.Errorf("the refusal or the output names the raw value")
			}
			noRunFiles(t, w)
		})
	}
}

// TestRedactionRunFails is ADR-0134 A2's after-the-spawn half on a fake
// engine: each case fails the run (RunFailedExit, a *RunFailure naming the
// problem), after agent_exit ran, and leaves nothing in run/hooks; the
// clean case passes with the prompt redacted, a chosen --session-id, the
// run files' paths in the engine's environment and an empty stdin.
func TestRedactionRunFails(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/hookwarden; -short")
	}
	cases := []struct {
		name, exitSh, timeout string
		env                   []string
		want                  string // "" = the run passes
	}{
		{name: "clean"},
		{name: "table emptied during the run", env: []string{`FAKE_AFTER=: > "$HOOKWARDEN_HOOK_TABLE"`}, want: "changed during the run"},
		{name: "table mode widened during the run", env: []string{`FAKE_AFTER=chmod 644 "$HOOKWARDEN_HOOK_TABLE"`}, want: "no longer this account's 0600 file"},
		{name: "read policy widened during the run", env: []string{`FAKE_AFTER=printf '{"version":1,"allow":["/"],"deny":[]}' > "$HOOKWARDEN_HOOK_POLICY"`}, want: "read policy"},
		{name: "a value in the transcript", env: []string{`FAKE_TRANSCRIPT={"type":"user","message":{"content":"` + realRaw + `"}}`}, want: "value occurrence"},
		{name: "killed mid-run with a value in the transcript", env: []string{`FAKE_TRANSCRIPT={"type":"user","message":{"content":"` + realRaw + `"}}`, `FAKE_AFTER=kill -9 $$`}, want: "value occurrence"},
		{name: "killed before its first event", env: []string{`FAKE_BEFORE=kill -9 $$`}, want: "transcript"},
		{name: "a tool call without a pre-tool receipt", env: []string{`FAKE_TRANSCRIPT={"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_99","name":"Bash","input":{}}]}}`}, want: "no pre_tool receipt"},
		{name: "a stop count above zero", env: []string{`FAKE_AFTER=echo '{"event":"stop","engine":"claude","count":2}' >> "$HOOKWARDEN_HOOK_RECEIPTS"`}, want: "stop scan counted 2"},
		{name: "a hook names another transcript", env: []string{`FAKE_AFTER=echo '{"event":"pre_tool","engine":"claude","transcript_path":"/tmp/elsewhere.jsonl"}' >> "$HOOKWARDEN_HOOK_RECEIPTS"`}, want: "not the session's"},
		{name: "exit hook times out", exitSh: "sleep 30", timeout: "2", want: "timed out"},
		{name: "exit hook fails", exitSh: "exit 3", want: "agent_exit"},
		{name: "table emptied before the exit hook reads it", exitSh: `umask 077; printf '{"version":1,"values":{}}\n' > "$HOOKWARDEN_HOOK_TABLE"; exec "$HW" redact "$@"`, want: "digest"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newRedactWorld(t, map[string]string{"[GH_TOKEN]": realRaw}, "", c.exitSh, c.timeout)
			r := runFakeRedact(t, w, "use "+realRaw, nil, c.env...)
			if AsRefusal(r.err) != nil || r.started == "" {
				t.Fatalf("refused or not started: %d %v\n%s", r.code, r.err, r.out)
			}
			if !strings.Contains(r.started, "start -p use [GH_TOKEN] --setting-sources  --strict-mcp-config --settings ") ||
				!strings.Contains(r.started, "--session-id ") || !strings.Contains(r.started, "\nstdin=\n") ||
				!strings.Contains(r.started, "HOOKWARDEN_HOOK_TABLE="+filepath.Join(w.home, RunHooksDir)) {
				t.Errorf("the engine's argv, environment or stdin:\n%s", r.started)
			}
			if strings.Contains(r.started, realRaw) || strings.Contains(r.out, realRaw) {
				t.Errorf("the raw value reached the engine's argv, stdin or spawn exec's output")
			}
			f := AsRunFailure(r.err)
			t.Logf("exit %d: %v", r.code, r.err)
			switch {
			case c.want == "" && (r.err != nil || r.code != 0):
				t.Errorf("want a passing run, got %d %v", r.code, r.err)
			case c.want != "" && (f == nil || r.code != RunFailedExit || !strings.Contains(f.Error(), c.want)):
				t.Errorf("want a failed run naming %q (exit %d), got %d %v", c.want, RunFailedExit, r.code, r.err)
			}
			if f != nil && strings.Contains(f.Error(), realRaw) {
				t.Errorf("the failure names the raw value")
			}
			filepath.WalkDir(w.clientHome, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(realRaw)) {
						t.Errorf("%s still holds the raw value after agent_exit", p)
					}
				}
				return nil
			})
			noRunFiles(t, w)
		})
	}
}

// TestRedactionCodexUnsupported: a Codex spawn under a complete redaction
// entry whose table lists every capability is refused
// (redaction-unsupported) before any hook or engine runs.
func TestRedactionCodexUnsupported(t *testing.T) {
	w := materialise(t, filepath.Join("..", "..", "testdata", "spawn", "refusals", "redaction-capabilities-missing"))
	var reg Layer
	readJSON(t, filepath.Join(w.home, RegistryFile), &reg)
	for i := range reg.Attachments {
		reg.Attachments[i].Engines = []string{"codex"}
		if reg.Attachments[i].Event == "claude:Stop" {
			reg.Attachments[i].Event = "codex:Stop"
		}
	}
	writeJSONFile(t, filepath.Join(w.home, RegistryFile), reg)
	fakeEngine(t, w.engineDir, "codex", defaultVersion("codex"), w.startLog)
	w.approveAll(t, "", "")
	code, err := Exec(context.Background(), ExecOptions{Argv: []string{"codex", "exec", "hi"}, Home: w.home, Cwd: w.repo, Env: w.env(),
		Tables: fullRedactionTable("codex", "0.169.0")})
	if r := AsRefusal(err); r == nil || r.Reason != ReasonRedaction || code != RefusedExit {
		t.Fatalf("want %s, got %d %v", ReasonRedaction, code, err)
	}
	if s := w.started(t); s != "" {
		t.Fatalf("engine started: %s", s)
	}
}
