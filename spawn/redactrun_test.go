package spawn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeRedactClaude is a fake claude for runs under a redaction entry:
// `--version` prints 2.1.328's; otherwise it logs its argv, its
// HOOKWARDEN_HOOK_* variables, the mode of the run directory and of each
// file in it (lines "mode <octal> <path>") and its stdin to started.log,
// runs $FAKE_BEFORE, writes $FAKE_TRANSCRIPT (default: one clean user
// line) as the transcript of its --session-id or --resume (a fixed id
// when it has neither) where Claude Code 2.1.328 keeps it, prints
// $FAKE_STDOUT_<n> on stdout with SID replaced by that session id (n: this
// start's number in the log, 1 for the first child), runs $FAKE_AFTER
// and exits $FAKE_EXIT (default 0). $n is visible to the FAKE_ texts. It
// runs no hook; the file after each --mcp-config is copied into the log.
const fakeRedactClaude = `#!/bin/sh
if [ "$1" = "--version" ]; then echo '2.1.328 (Claude Code)'; exit 0; fi
log=%s
printf 'start %%s\n' "$*" >> "$log"
n=$(grep -c '^start ' "$log")
env | grep '^HOOKWARDEN_HOOK_' >> "$log"
[ -n "$HOOKWARDEN_HOOK_TABLE" ] && stat -c 'mode %%a %%n' "${HOOKWARDEN_HOOK_TABLE%%/*}" "${HOOKWARDEN_HOOK_TABLE%%/*}"/* >> "$log"
printf 'stdin=%%s\n' "$(cat)" >> "$log"
sid=; prev=
for a in "$@"; do
  [ "$prev" = --session-id ] && sid=$a
  [ "$prev" = --resume ] && sid=$a
  [ "$prev" = --mcp-config ] && { printf 'mcp-config %%s: ' "$a"; cat "$a" 2>&1; } >> "$log"
  prev=$a
done
[ -n "$sid" ] || sid=0f8fad5b-d9cb-469f-a165-70867728950e
eval "$FAKE_BEFORE"
dir="$CLAUDE_CONFIG_DIR/projects/$(pwd -P | sed 's/[^a-zA-Z0-9]/-/g')"
mkdir -p "$dir"
t=${FAKE_TRANSCRIPT-}
[ -n "$t" ] || t='{"type":"user","message":{"content":"hello"}}'
printf '%%s\n' "$t" >> "$dir/$sid.jsonl"
eval "out=\${FAKE_STDOUT_$n-}"
[ -z "$out" ] || printf '%%s\n' "$out" | sed "s/SID/$sid/g"
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

// writeFakeRedact writes the fake claude (in the returned engine directory,
// logging to startLog) and the stand-in MCP proxy of w, leaving a file that
// already holds the same bytes alone: a file rewritten while another run
// of the same world execs it fails that exec with "text file busy"
// (ETXTBSY: a writer holds it open), which TestRedactionConcurrentRuns
// met on CI when both of its runs rewrote the fake at once.
func writeFakeRedact(t *testing.T, w *redactWorld) (dir, startLog, proxy string) {
	t.Helper()
	dir = filepath.Join(w.work, "engine")
	startLog = filepath.Join(w.work, "started.log")
	proxy = filepath.Join(w.work, "bin", MCPProxyName)
	for path, body := range map[string]string{
		filepath.Join(dir, "claude"): fmt.Sprintf(fakeRedactClaude, shq(startLog)),
		proxy:                        "#!/bin/sh\nexit 1\n",
	} {
		if b, err := os.ReadFile(path); err == nil && string(b) == body {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir, startLog, proxy
}

// runFakeRedact runs `spawn exec -- claude -p PROMPT extra…` with the fake
// claude, the redaction entry of w, the shipped capability tables,
// CLAUDE_CONFIG_DIR in the client home, and env added.
func runFakeRedact(t *testing.T, w *redactWorld, prompt string, extra []string, env ...string) fakeRun {
	t.Helper()
	return runFakeRedactWith(t, w, prompt, extra, nil, env...)
}

// runFakeRedactWith is runFakeRedact with mod applied to the options
// before the call (nil: none).
func runFakeRedactWith(t *testing.T, w *redactWorld, prompt string, extra []string, mod func(*ExecOptions), env ...string) fakeRun {
	t.Helper()
	dir, startLog, proxy := writeFakeRedact(t, w)
	argv := append([]string{"claude", "-p", prompt}, extra...)
	e := append([]string{"PATH=" + dir + ":/usr/bin:/bin", "HOME=" + w.clientHome, "CLAUDE_CONFIG_DIR=" + w.clientHome}, env...)
	var out bytes.Buffer
	if w.noProxy {
		os.Remove(proxy)
	}
	opts := ExecOptions{Argv: argv, Home: w.home, Gateway: mcpProxyBin(t), Cwd: w.repo, Env: e,
		Stdin: strings.NewReader("stdin text " + realRaw), Stdout: &out, Stderr: &out, MCPProxy: proxy}
	if mod != nil {
		mod(&opts)
	}
	code, err := Exec(context.Background(), opts)
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

// redactionRun is one case of testdata/spawn/redaction-runs.json.
type redactionRun struct {
	Name, PromptSh, ExitSh, Timeout, Prompt, Want string
	Extra, Env                                    []string
	// NoProxy runs without hookwarden-mcp-proxy beside hookwarden; Started
	// are substrings the engine's start log must hold ($HOME is the
	// hookwarden home, $PROXY the proxy's path)
	NoProxy bool     `json:"no_proxy"`
	Started []string `json:"started"`
	// Detail is a substring a before_spawn refusal's message must hold,
	// Hidden one it must not (the hook's stderr)
	Detail string `json:"detail"`
	Hidden string `json:"hidden"`
}

// loadRedactionRuns reads testdata/spawn/redaction-runs.json, with
// $WRITE_TABLE replaced in the shell texts.
func loadRedactionRuns(t *testing.T) (before, after []redactionRun) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "spawn", "redaction-runs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		WriteTable string `json:"write_table"`
		Before     []struct {
			redactionRun
			PromptSh string `json:"prompt_sh"`
			ExitSh   string `json:"exit_sh"`
		} `json:"before_spawn"`
		After []struct {
			redactionRun
			PromptSh string `json:"prompt_sh"`
			ExitSh   string `json:"exit_sh"`
		} `json:"after_spawn"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	fix := func(r redactionRun, p, x string) redactionRun {
		r.PromptSh = strings.ReplaceAll(p, "$WRITE_TABLE", doc.WriteTable)
		r.ExitSh = strings.ReplaceAll(x, "$WRITE_TABLE", doc.WriteTable)
		if r.Prompt == "" {
			r.Prompt = "hello"
		}
		return r
	}
	for _, c := range doc.Before {
		before = append(before, fix(c.redactionRun, c.PromptSh, c.ExitSh))
	}
	for _, c := range doc.After {
		r := fix(c.redactionRun, c.PromptSh, c.ExitSh)
		r.Prompt = "use " + realRaw
		after = append(after, r)
	}
	return before, after
}

// TestRedactionRefusedBeforeSpawn replays the before_spawn cases of
// testdata/spawn/redaction-runs.json (ADR-0134 A2's agent_prompt half and
// the argv refusals under a redaction entry): each refuses with its
// reason, starts no engine, names no raw value and leaves nothing in
// run/hooks.
func TestRedactionRefusedBeforeSpawn(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/hookwarden; -short")
	}
	before, _ := loadRedactionRuns(t)
	for _, c := range before {
		t.Run(c.Name, func(t *testing.T) {
			w := newRedactWorld(t, map[string]string{"[GH_TOKEN]": realRaw}, c.PromptSh, c.ExitSh, c.Timeout)
			w.noProxy = c.NoProxy
			r := runFakeRedact(t, w, c.Prompt, c.Extra, c.Env...)
			if rf := AsRefusal(r.err); rf == nil || string(rf.Reason) != c.Want || r.code != RefusedExit {
				t.Fatalf("want %s (exit %d), got %d %v\n%s", c.Want, RefusedExit, r.code, r.err, r.out)
			}
			if r.started != "" {
				t.Errorf("the engine started: %s", r.started)
			}
			if !strings.Contains(r.err.Error(), c.Detail) {
				t.Errorf("the refusal %q does not hold %q", r.err, c.Detail)
			}
			if c.Hidden != "" && strings.Contains(r.err.Error()+r.out, c.Hidden) {
				t.Errorf("the refusal or the output shows the hook's stderr %q:\n%v\n%s", c.Hidden, r.err, r.out)
			}
			if strings.Contains(r.err.Error(), realRaw) || strings.Contains(r.out, realRaw) {
				t.Errorf("the refusal or the output names the raw value")
			}
			noRunFiles(t, w)
		})
	}
}

// TestRedactionRunFails replays the after_spawn cases of
// testdata/spawn/redaction-runs.json (ADR-0134 A2's after-the-spawn half
// on a fake engine): each fails the run (RunFailedExit, a *RunFailure
// naming the problem) after agent_exit ran, or passes when it names no
// problem; the engine always gets the prompt redacted, the gated tool
// list (--tools), a chosen --session-id, the run files' paths in its environment and an empty
// stdin; no raw value is left in the client's files and nothing in
// run/hooks.
func TestRedactionRunFails(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/hookwarden; -short")
	}
	_, after := loadRedactionRuns(t)
	for _, c := range after {
		t.Run(c.Name, func(t *testing.T) {
			w := newRedactWorld(t, map[string]string{"[GH_TOKEN]": realRaw}, c.PromptSh, c.ExitSh, c.Timeout)
			w.noProxy = c.NoProxy
			r := runFakeRedact(t, w, c.Prompt, c.Extra, c.Env...)
			if AsRefusal(r.err) != nil || r.started == "" {
				t.Fatalf("refused or not started: %d %v\n%s", r.code, r.err, r.out)
			}
			repl := strings.NewReplacer("$HOME", w.home, "$PROXY", filepath.Join(w.work, "bin", MCPProxyName), "$WORK", w.work)
			for _, want := range c.Started {
				if !strings.Contains(r.started, repl.Replace(want)) {
					t.Errorf("the engine's start log lacks %q:\n%s", repl.Replace(want), r.started)
				}
			}
			if !strings.Contains(r.started, "start -p use [GH_TOKEN] --setting-sources  --strict-mcp-config --settings ") ||
				!strings.Contains(r.started, "--session-id ") || !strings.Contains(r.started, "\nstdin=\n") ||
				!strings.Contains(r.started, " --tools "+strings.Join(claudeGatedTools, ",")+" ") ||
				!strings.Contains(r.started, "HOOKWARDEN_HOOK_TABLE="+filepath.Join(w.home, RunHooksDir)) {
				t.Errorf("the engine's argv, environment or stdin:\n%s", r.started)
			}
			if strings.Contains(r.started, realRaw) || strings.Contains(r.out, realRaw) {
				t.Errorf("the raw value reached the engine's argv, stdin or spawn exec's output")
			}
			f := AsRunFailure(r.err)
			t.Logf("exit %d: %v", r.code, r.err)
			switch {
			case c.Want == "" && (r.err != nil || r.code != 0):
				t.Errorf("want a passing run, got %d %v", r.code, r.err)
			case c.Want != "" && (f == nil || r.code != RunFailedExit || !strings.Contains(f.Error(), c.Want)):
				t.Errorf("want a failed run naming %q (exit %d), got %d %v", c.Want, RunFailedExit, r.code, r.err)
			}
			if f != nil && strings.Contains(f.Error(), realRaw) {
				t.Errorf("the failure names the raw value")
			}
			if found := scanTree(w.clientHome, []string{realRaw}); len(found) > 0 {
				t.Errorf("the client's files still hold the raw value after agent_exit: %v", found)
			}
			noRunFiles(t, w)
		})
	}
}

// TestRedactionCodexUnsupported: a Codex spawn under a complete redaction
// entry is refused before any hook or engine runs: with a table listing
// every capability, redaction-unsupported; with the shipped codex-0.169.0
// table (no pre_tool.fail_closed, no all_tools_gated: Codex 0.169.0
// fails open, testdata/clients/FACTS.md), capability-missing naming the
// first one missing and the version.
func TestRedactionCodexUnsupported(t *testing.T) {
	for _, c := range []struct {
		name   string
		tables fs.FS
		want   Reason
		names  []string
	}{
		{"full table", fullRedactionTable("codex", "0.169.0"), ReasonRedaction, nil},
		{"shipped table", nil, ReasonCapabilityMissing, []string{"pre_tool.fail_closed", "codex 0.169.0"}},
	} {
		t.Run(c.name, func(t *testing.T) { codexUnderEntry(t, c.tables, c.want, c.names) })
	}
}

// codexUnderEntry runs `spawn exec -- codex exec hi` under a complete
// redaction entry with tables (nil: the shipped ones) and fails t unless
// it is refused with want, its message naming each of names, and no engine
// started.
func codexUnderEntry(t *testing.T, tables fs.FS, want Reason, names []string) {
	t.Helper()
	w := materialise(t, filepath.Join("..", "testdata", "spawn", "refusals", "redaction-capabilities-missing"))
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
	code, err := Exec(context.Background(), ExecOptions{Argv: []string{"codex", "exec", "hi"}, Home: w.home, Gateway: mcpProxyBin(t), Cwd: w.repo, Env: w.env(),
		Tables: tables})
	if r := AsRefusal(err); r == nil || r.Reason != want || code != RefusedExit {
		t.Fatalf("want %s, got %d %v", want, code, err)
	}
	for _, n := range names {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("the refusal %q does not name %s", err, n)
		}
	}
	if s := w.started(t); s != "" {
		t.Fatalf("engine started: %s", s)
	}
}

// TestRedactionPostureRender: under the redaction entry the Claude run
// file carries the entry's PostToolUse handler also on PostToolUseFailure,
// onFailure block on every entry row but Stop, the arbiter posture (permissions.ask ["*"], defaultMode
// default, the caller's permissions.deny kept) and a PermissionRequest
// handler with the very command, timeout and onFailure of the entry's
// PreToolUse handler (so its approval covers it), and the engine's argv
// ends its options with --permission-mode default --permission-prompts
// none, after the caller's.
func TestRedactionPostureRender(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/hookwarden; -short")
	}
	w := newRedactWorld(t, map[string]string{"[GH_TOKEN]": realRaw}, "", "", "")
	var doc struct {
		Permissions map[string]any `json:"permissions"`
		Hooks       map[string][]struct {
			Matcher string           `json:"matcher"`
			Hooks   []map[string]any `json:"hooks"`
		} `json:"hooks"`
	}
	var args []string
	r := runFakeRedactWith(t, w, "hello", []string{"--permission-mode", "default", "--settings", `{"permissions":{"deny":["WebFetch"]}}`}, func(o *ExecOptions) {
		o.Started = func(r *Render, _ []string) {
			b, err := os.ReadFile(r.Files[0])
			if err != nil || json.Unmarshal(b, &doc) != nil {
				t.Errorf("run file %s: %v", r.Files[0], err)
			}
			args = r.Args
		}
	})
	if r.err != nil || r.started == "" {
		t.Fatalf("run: %d %v\n%s", r.code, r.err, r.out)
	}
	if got := fmt.Sprint(doc.Permissions); got != "map[ask:[*] defaultMode:default deny:[WebFetch]]" {
		t.Errorf("permissions %s", got)
	}
	pre, perm := doc.Hooks["PreToolUse"], doc.Hooks["PermissionRequest"]
	if len(pre) != 1 || len(perm) != 1 || perm[0].Matcher != "*" || fmt.Sprint(perm[0].Hooks) != fmt.Sprint(pre[0].Hooks) {
		t.Errorf("PermissionRequest %v, PreToolUse %v: want the same handler", perm, pre)
	}
	// every row of the entry fails closed where Claude honours onFailure
	// (not Stop), and the post-tool hook also serves PostToolUseFailure
	post, failed := doc.Hooks["PostToolUse"], doc.Hooks["PostToolUseFailure"]
	if len(post) != 1 || len(failed) != 1 || fmt.Sprint(failed[0]) != fmt.Sprint(post[0]) || post[0].Hooks[0]["onFailure"] != "block" {
		t.Errorf("PostToolUseFailure %v, PostToolUse %v: want the same handler with onFailure block", failed, post)
	}
	if st := doc.Hooks["Stop"]; len(st) != 1 || st[0].Hooks[0]["onFailure"] != nil {
		t.Errorf("Stop %v: Claude ignores onFailure there; the render writes none", st)
	}
	if n := len(args); n < 4 || strings.Join(args[n-4:], " ") != "--permission-mode default --permission-prompts none" {
		t.Errorf("render args %q do not end with --permission-mode default --permission-prompts none", args)
	}
	if !strings.Contains(r.started, "--permission-mode default") {
		t.Errorf("the engine's argv lacks the mode:\n%s", r.started)
	}
}
