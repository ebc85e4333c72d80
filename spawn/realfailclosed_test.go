package spawn

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// failClosedRecord is testdata/spawn/failclosed-claude-<version>.json, one
// per Claude Code version with a capability table (see its "about"): the calls the scripted model makes, the failures injected
// into the pre-tool hook, the permission postures, and what was observed
// per posture and failure (one letter per call) and for the redaction
// routes per posture.
type failClosedRecord struct {
	About string `json:"about"`
	Calls []struct {
		Name    string `json:"name"`
		Tool    string `json:"tool"`
		Command string `json:"command,omitempty"`
		File    string `json:"file,omitempty"`
	} `json:"calls"`
	Failures []struct {
		Name    string `json:"name"`
		Script  string `json:"script"`
		Timeout int    `json:"timeout"`
		Gone    bool   `json:"gone,omitempty"`
	} `json:"failures"`
	Postures []struct {
		Name     string          `json:"name"`
		Args     []string        `json:"args"`
		Settings json.RawMessage `json:"settings,omitempty"`
		// Entry: the spawn runs under the redaction entry, whose render
		// sets the arbiter posture; the injected failure is the entry's
		// pre-tool hook answering a PreToolUse payload, while its
		// PermissionRequest payloads reach the real arbiter
		Entry bool `json:"entry,omitempty"`
		// Failures names the failures measured under the posture (empty:
		// all of them)
		Failures []string `json:"failures,omitempty"`
	} `json:"postures"`
	Observed map[string]map[string]string `json:"observed"`
	Routes   map[string]string            `json:"routes"`
	// RoutesWithoutArbiter is the redaction routes measured under the
	// postures without the entry's arbiter (2026-12-01), before spawn exec
	// refused their flags and settings under the entry (redaction-posture);
	// kept as the record the docs cite, not replayed.
	RoutesWithoutArbiter map[string]string `json:"routes_without_arbiter"`
}

// failClosedFile is the record's file name for a Claude Code version.
func failClosedFile(version string) string { return "failclosed-claude-" + version + ".json" }

// noDecision are the record's failures whose hook exits 0 without a
// decision: Claude Code 2.1.328 leaves those calls to its permission
// check, so under the entry's posture the arbiter must refuse them.
var noDecision = map[string]bool{"garbage, exit 0": true, "JSON without a decision": true}

// TestRealClaudePreToolFailClosed measures pre_tool.fail_closed on the
// pinned Claude Code (ADR-0134 D6, A2): every failure of the record is
// injected into a required pre_tool hook (matcher "*") that spawn exec
// renders with "onFailure": "block", under each permission posture of the
// record, and the scripted model makes the record's calls: a write (touch),
// read-only shell commands that print a fixture value (cat of a file, git
// log of a commit message), a Read of that file, and pwd. Each call is
// marked refused or ran, and each posture is also run under the redaction
// entry to see whether its mediated routes (the Read route's deny with the
// redacted file, the Bash rewrite) still deliver the file as tokens. The
// test fails when an observation differs from the record (rerun with
// HOOKWARDEN_E2E_RECORD=1 to write the new observation into it, then
// update the docs that cite it), when a hook that crashes, times out,
// exits 1 or is gone lets any call run, and when the claude-2.1.328 table
// grants pre_tool.fail_closed while no posture holds (or the reverse).
//
// Observed 2026-12-01 (testdata/spawn/failclosed-claude-2.1.328.json, six
// postures, 3m56s on the shared 2-core machine): crash, timeout, exit 1
// and argv0 gone refuse every call under every posture (the render's
// onFailure block), and so do an unknown permissionDecision and "ask"
// (-p has no one to ask). A hook that exits 0 without a decision (garbage,
// or JSON without one) leaves the call to Claude's own permission check:
// the bundle's hook resolver (bin/claude.exe, the function that logs "Hook
// denied tool use for …") sends a result that is neither "allow" nor
// "ask" to canUseTool, `if(e?.behavior!=="allow"&&e?.behavior!=="ask")
// return{decision:await h(o,r,g,y,k),input:r}`, and that check allows
// read-only shell commands by itself (the Bash check's reason "Read-only
// command is allowed") and Read inside the working directories in every
// mode, dontAsk included. So under --allowedTools Bash all five calls run;
// under default or dontAsk only the touch is refused (cat, Read and git
// log hand the model the raw value, pwd runs); an ask rule on Read refuses
// the Read; a deny rule Read(//**) makes the Bash path check refuse cat
// but not git log or pwd, and the Read tool's validateInput refuses a
// covered file before any PreToolUse hook ("File is in a directory that is
// denied by your permission settings."), so the Read route never runs;
// that refusal is a form the table records (pre_hook_refusals
// read-denied-by-rule), so agent_exit lets the receipt-less call pass
// (routes xT+; xT- before the form was recorded on 2026-12-02). Ask
// rules on Bash and Read refuse every call under every failure, but also
// the hook's own allow of the rewritten command: the resolver sends an
// allow whose rule check answers "ask" to the full permission pipeline
// ("Hook returned 'allow' for Bash, but the rule check objected…"), which
// dontAsk denies (routes Tx+: the shell route is gone). None of these
// postures holds (their routes are now in routes_without_arbiter: spawn
// exec refuses their flags and settings under the entry,
// redaction-posture; the three dontAsk-with-rules postures run only the
// two no-decision failures, where they differ).
//
// Observed 2026-12-02, the arbiter row (the redaction entry's own
// posture, render.go renderPosture): every failure refused all five calls
// (for garbage and JSON without a decision, each with the arbiter's
// reason, which the test requires) and the routes were TT+, so the table
// grants pre_tool.fail_closed under the condition
// claude-permission-arbiter, which the test also checks.
func TestRealClaudePreToolFailClosed(t *testing.T) {
	bin := needClient(t, "claude")
	version, table := installedTable(t, bin, "claude")
	path := filepath.Join("..", "testdata", "spawn", failClosedFile(version))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rec failClosedRecord
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&rec); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	observed := map[string]map[string]string{}
	routes := map[string]string{}
	holding := []string{}
	// one after another, on the test's goroutine: startMock and the
	// scripted model skip or fail the test, which only its goroutine may do
	for _, p := range rec.Postures {
		observed[p.Name] = map[string]string{}
		holds := p.Entry && len(p.Failures) == 0
		for i, f := range rec.Failures {
			if len(p.Failures) > 0 && !slices.Contains(p.Failures, f.Name) {
				continue
			}
			got, results := runFailingPreTool(t, bin, &rec, p.Args, p.Settings, "#!/bin/sh\n"+f.Script+"\n", f.Timeout, f.Gone, p.Entry)
			observed[p.Name][f.Name] = got
			t.Logf("%-34s %-28s %s", p.Name, f.Name, got)
			if p.Entry && noDecision[f.Name] {
				// the pre-tool hook gave no decision: each call must have
				// been refused by the entry's arbiter, with its reason
				for i, r := range results {
					if !strings.Contains(r, "hookwarden redact:") {
						t.Errorf("%s, %s: call %d was not refused by the arbiter: %.200q", p.Name, f.Name, i, r)
					}
				}
			}
			if got != strings.Repeat("x", len(rec.Calls)) {
				holds = false
				if i < 4 || p.Entry {
					t.Errorf("%s, %s: %s: a call ran although the render sets onFailure block (and, under the entry, the arbiter answers)", p.Name, f.Name, got)
				}
			}
			if want, ok := rec.Observed[p.Name][f.Name]; ok && want != got {
				t.Errorf("%s, %s: observed %s, the record says %s", p.Name, f.Name, got, want)
			}
		}
		if !p.Entry {
			// spawn exec refuses these postures' flags and settings under
			// the entry (redaction-posture): no route to measure
			continue
		}
		r := runPostureRoutes(t, bin, p.Args, p.Settings)
		routes[p.Name] = r
		t.Logf("%-34s %-28s %s", p.Name, "redaction routes", r)
		if want, ok := rec.Routes[p.Name]; ok && want != r {
			t.Errorf("%s, redaction routes: observed %s, the record says %s", p.Name, r, want)
		}
		if r != "TT+" {
			t.Errorf("%s, redaction routes: %s; under the entry's posture the Read and shell routes must deliver the file as tokens and the run pass", p.Name, r)
		}
		if holds && r == "TT+" {
			holding = append(holding, p.Name)
		}
	}
	if os.Getenv("HOOKWARDEN_E2E_RECORD") == "1" {
		rec.Observed, rec.Routes = observed, routes
		var out bytes.Buffer
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		enc.Encode(rec)
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if len(rec.Observed) != len(rec.Postures) || len(rec.Routes) != len(routes) {
		t.Errorf("%s records %d postures' observations and %d routes for %d postures (%d under the entry); record them (HOOKWARDEN_E2E_RECORD=1)", path, len(rec.Observed), len(rec.Routes), len(rec.Postures), len(routes))
	}
	_, granted := table.Capabilities["pre_tool.fail_closed"]
	if granted != (len(holding) > 0) {
		t.Errorf("claude-%s lists pre_tool.fail_closed = %v, but the postures under which no injected failure let a call through and the routes work are %v", version, granted, holding)
	}
	if cond := table.Conditions["pre_tool.fail_closed"]; granted && cond != PostureClaudeArbiter {
		t.Errorf("claude-%s grants pre_tool.fail_closed under the condition %q; it holds only under the entry's posture %q", version, cond, PostureClaudeArbiter)
	}
}

// failClosedTables is the shipped table with permissions.ask admitted as
// a caller settings key: the postures under measurement pass their rules
// as --settings (the arbiter posture, the entry's own render, needs no
// such key).
func failClosedTables(t *testing.T, bin string) fstest.MapFS {
	t.Helper()
	version, tab := installedTable(t, bin, "claude")
	tab.SettingsKeys["permissions.ask"] = "granted by the test, a posture under measurement"
	b, _ := json.Marshal(tab)
	return fstest.MapFS{"claude-" + version + ".json": {Data: b}}
}

// fixtureRepo writes secret.txt holding the fixture value into repo and,
// with commit, makes repo a Git repository with one commit whose message
// holds it too. (Claude Code puts the latest commits into the system
// prompt itself, so under the redaction entry that value reaches the model
// unmediated and agent_exit fails the run on it: the routes run without
// the commit.)
func fixtureRepo(t *testing.T, repo string, commit bool) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(repo, "secret.txt"), []byte("token="+realRaw+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !commit {
		return
	}
	os.RemoveAll(filepath.Join(repo, ".git"))
	git := exec.Command("sh", "-c", "git init -q && git add secret.txt && git -c user.name=t -c user.email=t@example.invalid commit -qm \"add $1\"", "sh", realRaw)
	git.Dir = repo
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git: %v\n%s", err, out)
	}
}

// postureArgv is `claude -p "run it" --output-format json` with a
// posture's arguments and, when it has settings, --settings.
func postureArgv(args []string, settings json.RawMessage) []string {
	argv := append([]string{"claude", "-p", "run it", "--output-format", "json"}, args...)
	if len(settings) > 0 {
		argv = append(argv, "--settings", string(settings))
	}
	return argv
}

// runFailingPreTool spawns the real claude under the posture with one
// required pre_tool hook (matcher "*") running script with timeout
// seconds (removed once the engine started, when gone) or, with entry,
// under the redaction entry whose pre-tool hook runs script for PreToolUse
// payloads (injectEntry; its wrapper removed when gone), lets the scripted
// model make the record's calls, and returns one letter per call (x
// refused, R ran, see the record's "about"; . never made) and the result
// each call returned to the model.
func runFailingPreTool(t *testing.T, bin string, rec *failClosedRecord, args []string, settings json.RawMessage, script string, timeout int, gone, entry bool) (string, []string) {
	t.Helper()
	var w *realWorld
	var hook string                             // the file removed when gone
	var tables fs.FS = failClosedTables(t, bin) // entry: the shipped tables
	if entry {
		w, hook = injectEntry(t, script, timeout)
		tables = nil
	} else {
		w = newRealWorld(t)
		fixtureRepo(t, w.repo, true)
		hook = filepath.Join(w.home, "bin", "inject.sh")
		os.WriteFile(hook, []byte(script), 0o755)
		d, _ := fileDigest(hook)
		writeJSONFile(t, filepath.Join(w.home, LibraryFile), library{Version: 1, Entries: map[string]Entry{
			"inject": {Argv: []string{hook}, Pin: map[string]string{hook: d}, Timeout: json.RawMessage(strconv.Itoa(timeout))}}})
		writeJSONFile(t, filepath.Join(w.home, RegistryFile), Layer{Version: 1, Attachments: []Attachment{
			{Hook: "inject", Event: "pre_tool", Matcher: "*", Required: true}}})
		if err := Approve(w.home, [][]string{{hook}}); err != nil {
			t.Fatal(err)
		}
	}
	var calls []scriptedCall
	for _, c := range rec.Calls {
		if c.Tool == "Read" {
			calls = append(calls, scriptedCall{"Read", map[string]any{"file_path": filepath.Join(w.repo, c.File)}})
		} else {
			calls = append(calls, scriptedCall{c.Tool, map[string]any{"command": c.Command, "description": c.Name}})
		}
	}
	model := startScriptedModel(t, calls, nil)
	_, env := w.mockClient("claude", bin, model.port)
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	started := false
	_, err := Exec(ctx, ExecOptions{Argv: postureArgv(args, settings),
		Home: w.home, Gateway: mcpProxyBin(t), Cwd: w.repo, Env: env, Stdout: &out, Stderr: &out, Tables: tables,
		Started: func(r *Render, _ []string) {
			started = true
			b, _ := os.ReadFile(r.Files[0])
			if !strings.Contains(string(b), `"onFailure": "block"`) {
				t.Errorf("the run file lacks onFailure block: %s", b)
			}
			if entry && !strings.Contains(string(b), `"PermissionRequest"`) {
				t.Errorf("under the entry the run file lacks the PermissionRequest arbiter: %s", b)
			}
			if gone {
				os.Remove(hook)
			}
		}})
	if (err != nil && AsRunFailure(err) == nil) || !started {
		t.Fatalf("spawn exec: %v\n%s", err, out.String())
	}
	made := modelCalls(model.log())
	letters := make([]byte, len(rec.Calls))
	results := make([]string, len(rec.Calls))
	for i, c := range rec.Calls {
		letters[i] = '.'
		if i >= len(made) {
			continue
		}
		res := made[i].Result
		results[i] = res
		ran := false
		switch c.Name {
		case "touch":
			_, statErr := os.Stat(filepath.Join(w.repo, "ran.bash"))
			ran = statErr == nil
		case "pwd":
			ran = strings.TrimSpace(res) == w.repo
		default:
			ran = strings.Contains(res, realRaw)
		}
		letters[i] = "xR"[boolIndex(ran)]
	}
	return string(letters), results
}

// injectEntry returns a real-client world under the redaction entry
// (newRedactWorld, its entry's timeout timeout seconds) whose table holds
// only a value no call prints, so that the post-tool hook leaves every
// result alone and a call that ran shows the raw fixture value; the
// entry's wrapper answers a PreToolUse payload with script (the injected
// failure) and a PermissionRequest payload with the real `hookwarden
// redact` (the arbiter the render attaches with the same argv). It also
// returns the wrapper's path (the entry's argv0).
func injectEntry(t *testing.T, script string, timeout int) (*realWorld, string) {
	t.Helper()
	w := newRedactWorld(t, map[string]string{"[OTHER]": "unrelated-value-0123456789"}, "", "", strconv.Itoa(timeout))
	fixtureRepo(t, w.repo, true)
	inject := filepath.Join(w.home, "bin", "inject.sh")
	os.WriteFile(inject, []byte(script), 0o755)
	wrapper := filepath.Join(w.home, "bin", "redact.sh")
	b, err := os.ReadFile(wrapper)
	if err != nil {
		t.Fatal(err)
	}
	pre := "pre-tool)\nf=$(mktemp) && cat > \"$f\"\n" +
		"if grep -q '\"hook_event_name\":\"PermissionRequest\"' \"$f\"; then exec \"$HW\" redact \"$@\" < \"$f\"; fi\n" +
		"exec " + shq(inject) + " < \"$f\"\n;;\n"
	b = bytes.Replace(b, []byte("case \"$2\" in\n"), []byte("case \"$2\" in\n"+pre), 1)
	if err := os.WriteFile(wrapper, b, 0o755); err != nil {
		t.Fatal(err)
	}
	w.approveAllAttached(t)
	return w.realWorld, wrapper
}

// runPostureRoutes runs the posture under the redaction entry
// (newRedactWorld, failClosedTables) with the model reading secret.txt by
// Read and by cat, and returns a letter per call (T: the model received
// the token and not the raw value, x: not) and + when the run passed, -
// when spawn exec failed or refused it.
func runPostureRoutes(t *testing.T, bin string, args []string, settings json.RawMessage) string {
	t.Helper()
	w := newRedactWorld(t, map[string]string{"[GH_TOKEN]": realRaw}, "", "", "")
	fixtureRepo(t, w.repo, false)
	model := startScriptedModel(t, []scriptedCall{
		{"Read", map[string]any{"file_path": filepath.Join(w.repo, "secret.txt")}},
		{"Bash", map[string]any{"command": "cat secret.txt", "description": "show"}},
	}, nil)
	_, env := w.mockClient("claude", bin, model.port)
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	code, err := Exec(ctx, ExecOptions{Argv: postureArgv(args, settings), Home: w.home, Gateway: mcpProxyBin(t), Cwd: w.repo, Env: env,
		Stdout: &out, Stderr: &out, Tables: failClosedTables(t, bin)})
	made := modelCalls(model.log())
	s := ""
	for i := range 2 {
		ok := i < len(made) && strings.Contains(made[i].Result, "[GH_TOKEN]") && !strings.Contains(made[i].Result, realRaw)
		s += string("xT"[boolIndex(ok)])
	}
	if err != nil || code != 0 {
		t.Logf("redaction routes: spawn exec %d %v", code, err)
		return s + "-"
	}
	return s + "+"
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}
