package spawn

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/internal/posixtest"
)

// continuationRun is one case of testdata/spawn/continuation-runs.json.
type continuationRun struct {
	Name       string            `json:"name"`
	Plain      bool              `json:"plain"`
	Codex      bool              `json:"codex"`
	PromptSh   string            `json:"prompt_sh"`
	BeforeExit string            `json:"before_exit"`
	Between    string            `json:"between"`
	Env        []string          `json:"env"`
	ContEnv    []string          `json:"cont_env"`
	AutoFinish *string           `json:"auto_finish"`
	Extra      *[]string         `json:"extra"`
	Want       string            `json:"want"`
	Refusal    string            `json:"refusal"`
	Code       int               `json:"code"`
	Children   int               `json:"children"`
	Exits      int               `json:"exits"`
	Prompts    int               `json:"prompts"`
	Rec        map[string]string `json:"rec"`
	Started    []string          `json:"started"`
}

// continuationExitSh is the exit hook of a continuation case: it keeps
// the payload in $REC, runs the case's before text, then `hookwarden
// redact --hook exit`, then (after child 1's hook passed) the case's
// between text; $c is the payload's child, $TABLE, $POLICY and $RENDER
// the run's files.
func continuationExitSh(before, between string) string {
	if before == "" {
		before = ":"
	}
	if between == "" {
		between = ":"
	}
	return `f=$(mktemp "$REC/exit.XXXXXX"); cat > "$f"; c=$(sed -n 's/.*"child":\([0-9]*\).*/\1/p' "$f")
TABLE=$HOOKWARDEN_HOOK_TABLE; POLICY=$HOOKWARDEN_HOOK_POLICY; RENDER=${TABLE%.table.json}.settings.json
` + before + `
"$HW" redact "$@" < "$f"; rc=$?
if [ $rc = 0 ] && [ "$c" = 1 ]; then
` + between + `
fi
exit $rc`
}

// startLines returns the "start …" lines of the fake claude's log (one
// per child, in order).
func startLines(log string) []string {
	var out []string
	for _, ln := range strings.Split(log, "\n") {
		if strings.HasPrefix(ln, "start ") {
			out = append(out, ln)
		}
	}
	return out
}

// argAfter returns the argument after flag in a start line ("" when
// absent).
func argAfter(line, flag string) string {
	f := strings.Fields(line)
	if i := slices.Index(f, flag); i >= 0 && i+1 < len(f) {
		return f[i+1]
	}
	return ""
}

// recPayloads reads the payloads the hooks of a case kept in rec under
// prefix (exit. or prompt.).
func recPayloads(t *testing.T, rec, prefix string) []map[string]any {
	t.Helper()
	es, _ := os.ReadDir(rec)
	var out []map[string]any
	for _, e := range es {
		if !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		b, _ := os.ReadFile(filepath.Join(rec, e.Name()))
		var p map[string]any
		if err := json.Unmarshal(b, &p); err != nil {
			t.Errorf("%s: %v", e.Name(), err)
			continue
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b map[string]any) int { return int(a["child"].(float64) - b["child"].(float64)) })
	return out
}

// TestContinuationRuns replays testdata/spawn/continuation-runs.json:
// `spawn exec --auto-finish` on the fake claude, under the redaction
// entry (ADR-0134 A2's continuation cases: two exit events and one run
// outcome; the continuation's argv carries the first child's session as
// --resume and neither --session-id nor --continue, the same render and
// the continuation's prompt after agent_prompt with child 2; a table
// edited or widened, a read policy or render edited between the children
// fail the run before the continuation starts; a new named value at the
// continuation is added without failing; a table emptied after the
// restore fails child 2's exit on the digest) and without it (plain: the
// same render, --resume, an empty stdin for the continuation). Every case
// leaves nothing in run/hooks; while each child runs the run directory is
// 0700 and every run file 0600; no raw value reaches the engine's argv,
// spawn exec's output, the failure text or the client's files.
func TestContinuationRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/hookwarden; -short")
	}
	b, err := os.ReadFile(filepath.Join("..", "testdata", "spawn", "continuation-runs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Cases []continuationRun }
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, c := range doc.Cases {
		t.Run(c.Name, func(t *testing.T) {
			var w *redactWorld
			if c.Plain {
				w = &redactWorld{realWorld: newRealWorld(t), hw: hookwardenBin(t)}
			} else {
				w = newRedactWorld(t, map[string]string{"[GH_TOKEN]": realRaw}, c.PromptSh, continuationExitSh(c.BeforeExit, c.Between), "")
			}
			rec := t.TempDir()
			prompt := "finish the task"
			if c.AutoFinish != nil {
				prompt = *c.AutoFinish
			}
			extra := []string{"--output-format", "json"}
			if c.Extra != nil {
				extra = *c.Extra
			}
			env := append([]string{"REC=" + rec, "HW_RECORD=" + rec}, c.Env...)
			if c.Codex {
				dir, _, _ := writeFakeRedact(t, w)
				fakeEngine(t, dir, "codex", defaultVersion("codex"), filepath.Join(w.work, "started.log"))
			}
			first := "use " + realRaw
			if c.Plain {
				first = "do the task"
			}
			r := runFakeRedactWith(t, w, first, extra, func(o *ExecOptions) {
				o.AutoFinish, o.contEnv = prompt, c.ContEnv
				if c.Codex {
					o.Argv = []string{"codex", "exec", "hi"}
				}
			}, env...)
			t.Logf("exit %d: %v", r.code, r.err)
			defer noRunFiles(t, w)
			if c.Refusal != "" {
				if rf := AsRefusal(r.err); rf == nil || string(rf.Reason) != c.Refusal || r.code != RefusedExit {
					t.Fatalf("want refusal %s, got %d %v", c.Refusal, r.code, r.err)
				}
				if r.started != "" {
					t.Errorf("an engine started: %s", r.started)
				}
				return
			}
			if AsRefusal(r.err) != nil {
				t.Fatalf("refused: %v\n%s", r.err, r.out)
			}
			f := AsRunFailure(r.err)
			switch {
			case c.Want == "" && (r.err != nil || r.code != c.Code):
				t.Errorf("want a passing run with exit %d, got %d %v\n%s", c.Code, r.code, r.err, r.out)
			case c.Want != "" && (f == nil || r.code != RunFailedExit || !strings.Contains(f.Error(), c.Want)):
				t.Errorf("want a failed run naming %q (exit %d), got %d %v", c.Want, RunFailedExit, r.code, r.err)
			}
			starts := startLines(r.started)
			if len(starts) != c.Children {
				t.Fatalf("%d children started, want %d:\n%s", len(starts), c.Children, r.started)
			}
			repl := strings.NewReplacer("$HOME", w.home)
			for _, want := range c.Started {
				if !strings.Contains(r.started, repl.Replace(want)) {
					t.Errorf("the start log lacks %q:\n%s", want, r.started)
				}
			}
			for _, ln := range strings.Split(r.started, "\n") {
				if m, ok := strings.CutPrefix(ln, "mode "); ok && !strings.HasPrefix(m, "600 ") && !(strings.HasPrefix(m, "700 ") && strings.HasSuffix(m, RunHooksDir)) {
					t.Errorf("while a child ran: %s", ln)
				}
			}
			if !c.Plain && !strings.Contains(r.started, "mode 700 ") {
				t.Errorf("the fake engine logged no modes:\n%s", r.started)
			}
			if len(starts) == 2 {
				sid := argAfter(starts[0], "--session-id")
				if sid == "" {
					sid = "0f8fad5b-d9cb-469f-a165-70867728950e" // the fake's id when child 1 names none
					if c.Extra != nil {
						for i, a := range *c.Extra {
							if a == "--session-id" {
								sid = (*c.Extra)[i+1]
							}
						}
					}
				}
				two := starts[1]
				words := strings.Fields(two)
				if argAfter(two, "--resume") != sid || slices.Contains(words, "--session-id") || slices.Contains(words, "--continue") || slices.Contains(words, "--fork-session") {
					t.Errorf("the continuation's argv does not resume %s by --resume alone: %s", sid, two)
				}
				if s1, s2 := argAfter(starts[0], "--settings"), argAfter(two, "--settings"); s1 == "" || s1 != s2 {
					t.Errorf("the children's renders: %q and %q, want the same file", s1, s2)
				}
				if !strings.Contains(two, " -- ") || strings.Contains(two, first) || strings.Contains(two, "use [GH_TOKEN]") {
					t.Errorf("the continuation's prompt is not its own: %s", two)
				}
				if i := strings.LastIndex(r.started, "stdin="); !strings.HasPrefix(r.started[i:], "stdin=\n") {
					t.Errorf("the continuation's stdin is not empty")
				}
				if !strings.Contains(r.out, "auto-finish: child 1 stopped with error_max_turns; child 2 resumes session "+sid) {
					t.Errorf("spawn exec did not say that child 2 continues: %s", r.out)
				}
			}
			if !c.Plain {
				if strings.Contains(r.started, realRaw) || strings.Contains(r.out, realRaw) || (r.err != nil && strings.Contains(r.err.Error(), realRaw)) {
					t.Errorf("a raw value reached the engine's argv or stdin, spawn exec's output or the failure")
				}
				if found := scanTree(w.clientHome, []string{realRaw}); len(found) > 0 {
					t.Errorf("the client's files hold the raw value: %v", found)
				}
				exits := recPayloads(t, rec, "exit.")
				if len(exits) != c.Exits {
					t.Fatalf("%d agent_exit calls, want %d", len(exits), c.Exits)
				}
				for i, p := range exits {
					if p["child"] != float64(i+1) || p["session_id"] != exits[0]["session_id"] {
						t.Errorf("agent_exit %d: child %v session %v", i, p["child"], p["session_id"])
					}
				}
				if len(exits) == 2 && (exits[0]["table_sha256"] == exits[1]["table_sha256"]) != (len(c.ContEnv) == 0) {
					t.Errorf("table digests %v and %v: want equal exactly when the continuation adds no value", exits[0]["table_sha256"], exits[1]["table_sha256"])
				}
				if c.PromptSh == "" {
					prompts := recPayloads(t, rec, "prompt.")
					if want := max(c.Prompts, c.Children); len(prompts) != want {
						t.Errorf("%d agent_prompt calls, want %d", len(prompts), want)
					}
					for i, p := range prompts {
						if p["child"] != float64(i+1) {
							t.Errorf("agent_prompt %d: child %v", i, p["child"])
						}
					}
				}
				if sid, _ := exits[0]["session_id"].(string); sid != "" {
					_, rerr := readRunRecord(w.home, sid)
					if (rerr == nil) != (c.Want == "") {
						t.Errorf("the run record of session %s: %v (want one exactly when the run passed)", sid, rerr)
					}
				}
			}
			for name, want := range c.Rec {
				if b, _ := os.ReadFile(filepath.Join(rec, name)); !strings.Contains(string(b), want) {
					t.Errorf("%s holds %q, want %q", name, b, want)
				}
			}
		})
	}
}

// TestResultWatch: the result is read from json output (one object),
// json with --verbose (an array of messages), stream-json (the last
// result line), written in pieces, and from what Claude Code 2.1.328
// printed in each form (testdata/spawn/claude-results); a session id that is not a UUID, a
// finished result, a line past maxResultLine, and output without a result
// start no continuation.
func TestResultWatch(t *testing.T) {
	const sid = "0f8fad5b-d9cb-469f-a165-70867728950e"
	res := `{"type":"result","subtype":"error_max_turns","session_id":"` + sid + `"}`
	cases := []struct{ name, out, want string }{
		{"json", res + "\n", sid},
		{"json without a newline", res, sid},
		{"json --verbose", `[{"type":"system","subtype":"init"},` + res + `]` + "\n", sid},
		{"stream-json", `{"type":"system","subtype":"init","session_id":"` + sid + `"}` + "\n" + res + "\n", sid},
		{"finished", strings.Replace(res, "error_max_turns", "success", 1), ""},
		{"an earlier stop, a later finish", res + "\n" + strings.Replace(res, "error_max_turns", "success", 1) + "\n", ""},
		{"not a session id", strings.Replace(res, sid, "../../etc", 1), ""},
		{"not a result", `{"type":"assistant","subtype":"error_max_turns","session_id":"` + sid + `"}`, ""},
		{"a line past the bound", res[:len(res)-1] + `,"pad":"` + strings.Repeat("x", maxResultLine) + `"}` + "\n", ""},
		{"no output", "", ""},
	}
	// the real engine's output (testdata/spawn/claude-results/README.md)
	for file, want := range map[string]string{
		"json.error_max_turns.json":         "8c7f7f6f-0cd1-4b5b-80d2-45ec9a199d10",
		"json-verbose.error_max_turns.json": "1cc86655-cc3f-4a7f-8d5e-3bd340d07c98",
		"stream-json.error_max_turns.jsonl": "51fccb8f-f431-422c-a2f5-90a416f3795f",
		"stream-json.resumed.success.jsonl": "",
	} {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "spawn", "claude-results", file))
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct{ name, out, want string }{"recorded " + file, string(b), want})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := &resultWatch{}
			for b := []byte(c.out); len(b) > 0; {
				n := min(len(b), 7)
				w.Write(b[:n])
				b = b[n:]
			}
			if got := w.unfinished(); got != c.want {
				t.Errorf("unfinished() = %q, want %q", got, c.want)
			}
		})
	}
}

// TestContinuationOutputHeld: a process the first child leaves running
// with the child's stdout (which spawn exec reads through a pipe for the
// result) does not hold the run: the continuation starts and spawn exec
// returns while that process still runs (engineIODelay).
func TestContinuationOutputHeld(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/hookwarden; -short")
	}
	w := &redactWorld{realWorld: newRealWorld(t)}
	pidFile := filepath.Join(t.TempDir(), "bg.pid")
	r := runFakeRedactWith(t, w, "do the task", []string{"--output-format", "json"}, func(o *ExecOptions) { o.AutoFinish = "finish" },
		`FAKE_STDOUT_1={"type":"result","subtype":"error_max_turns","session_id":"SID"}`,
		"FAKE_AFTER=[ $n = 1 ] && { sleep 120 & echo $! > "+shq(pidFile)+"; }")
	b, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pid <= 0 {
		t.Fatalf("the first child left no background process: %q", b)
	}
	alive := posixtest.Alive(pid)
	posixtest.Kill(pid)
	if r.err != nil || r.code != 0 || len(startLines(r.started)) != 2 {
		t.Fatalf("want both children and exit 0, got %d %v:\n%s", r.code, r.err, r.started)
	}
	if !alive {
		t.Errorf("spawn exec returned only after the process holding the first child's stdout ended")
	}
	noRunFiles(t, w)
}

// TestContinuationCLI runs the built `hookwarden spawn exec --auto-finish
// PROMPT -- claude -p … --output-format json` on the fake claude of a
// plain world: child 1 stops with error_max_turns (exit 1), child 2 exits
// 3; the binary exits 3, says on stderr that child 2 resumes the session,
// passes both children's stdout on, and child 2's argv carries the prompt
// after --resume and --. A blank --auto-finish is refused (exit 125).
func TestContinuationCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/hookwarden; -short")
	}
	w := &redactWorld{realWorld: newRealWorld(t)}
	dir, startLog, _ := writeFakeRedact(t, w)
	run := func(args ...string) (string, string, int) {
		cmd := exec.Command(hookwardenBin(t), args...)
		cmd.Dir = w.repo
		cmd.Env = []string{"PATH=" + dir + ":/usr/bin:/bin", "HOME=" + w.clientHome, "CLAUDE_CONFIG_DIR=" + w.clientHome, "HOOKWARDEN_HOME=" + w.home,
			`FAKE_STDOUT_1={"type":"result","subtype":"error_max_turns","session_id":"SID"}`,
			`FAKE_STDOUT_2={"type":"result","subtype":"success","session_id":"SID"}`,
			"FAKE_AFTER=[ $n = 1 ] && exit 1; exit 3"}
		var so, se strings.Builder
		cmd.Stdout, cmd.Stderr = &so, &se
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return so.String(), se.String(), code
	}
	so, se, code := run("spawn", "exec", "--auto-finish", "wrap it up", "--", "claude", "-p", "do it", "--output-format", "json")
	b, _ := os.ReadFile(startLog)
	starts := startLines(string(b))
	if code != 3 || len(starts) != 2 || strings.Count(so, `"type":"result"`) != 2 ||
		!strings.Contains(se, "hookwarden: spawn: auto-finish: child 1 stopped with error_max_turns; child 2 resumes session ") {
		t.Fatalf("exit %d, %d children, stdout %q, stderr %q", code, len(starts), so, se)
	}
	if sid := argAfter(starts[0], "--session-id"); sid == "" || argAfter(starts[1], "--resume") != sid {
		t.Errorf("child 2's argv: %s", starts[1])
	}
	if !strings.HasSuffix(starts[1], "-- wrap it up") {
		t.Errorf("child 2's prompt: %s", starts[1])
	}
	_, se, code = run("spawn", "exec", "--auto-finish", "", "--", "claude", "-p", "do it", "--output-format", "json")
	if code != RefusedExit || !strings.HasPrefix(se, "hookwarden: spawn refused: auto-finish-unsupported") {
		t.Errorf("a blank prompt: exit %d %q", code, se)
	}
	noRunFiles(t, w)
}
