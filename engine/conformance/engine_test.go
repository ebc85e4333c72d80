package conformance

import (
	"encoding/json"
	"fmt"
	"github.com/hookwarden/hookwarden/internal/codexhash"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hookwarden/hookwarden/protocol/clock"
	"github.com/hookwarden/hookwarden/protocol/registration"
)

// The engine cases run the real clients with hookwarden's own rows
// registered (`<abs hookwarden> hook <client> <event>` for every row the
// registration table gives the client), next to one foreign row in the
// repository and one hook in the user-level settings of the isolated home
// (both the test hook in record mode). They check that the client called the
// hooks, that the foreign and user hooks still ran, and that the client
// honoured hookwarden's verdict.

const (
	// denyCommand creates the marker and then skips commit hooks: the
	// built-in policy denies the whole command (rule for --no-verify), so
	// the marker exists only if the client ran it anyway.
	denyCommand  = "touch " + deniedMarker + " && git commit -q --no-verify -m conformance"
	allowCommand = "touch " + allowedMarker
	// deniedMarker exists only if the client ran the denied command anyway;
	// allowedMarker only if the allowed one really ran.
	deniedMarker  = "hw_denied.txt"
	allowedMarker = "hw_allowed.txt"
	// question ends the final message with a question: the stop gate's
	// prose-question check denies it once.
	question = "I changed the parser. Shall I run the full test suite now?"
	// editFile is the file the "edit this file" scenario writes, relative
	// to the repo.
	editFile    = "edited.txt"
	editContent = "written by the scripted model\n"
)

// engineCase is one hookwarden case for one client.
type engineCase struct {
	name   string
	client string
	// rows are the registration rows (neutral events) the case observes.
	rows []string
	// check is the sentence recorded in observed.json for each row.
	check string
	// needs names the (event) the engine must evaluate for the case to
	// be meaningful; "" = pre-tool (the hook verb must exist).
	needs    string
	manifest string
	// launcher: "" (any registration), "path" (adopt, hookwarden on PATH)
	// or "fallback" (adopt, no hookwarden anywhere: the interceptor decides).
	launcher string
	// dirty writes an untracked file so the working tree has changes.
	dirty bool
	// breakSettings, when set, is appended to the repository's
	// .hookwarden.yaml after the rows are written (adopt reads a valid
	// one), so every hook call meets invalid settings.
	breakSettings string
	// args are more client arguments (Client.Setup's extraArgs) and env
	// more variables of the client's environment.
	args   []string
	env    []string
	script func(sb *Sandbox) Script
	verify func(t *testing.T, r *caseRun)
}

// caseRun is everything a finished case can inspect.
type caseRun struct {
	c        Client
	version  string
	sb       *Sandbox
	srv      *Server
	res      Result
	foreign  string // dir of the repository foreign row's payloads
	user     string // dir of the user-level hook's payloads
	settings map[string]string
	adopted  bool // rows written by the real `hookwarden adopt`
}

// manifestWith returns the case-specific keys of .hookwarden.yaml (manifestFor
// adds version, clients and hooks.events).
func manifestWith(extra string) string { return extra }

func engineCases() []engineCase {
	var cases []engineCase
	for _, client := range []string{"claude", "codex", "gemini", "opencode"} {
		cases = append(cases,
			engineCase{name: "growth-deny", client: client, rows: []string{"pre-tool"},
				check:    "bounded work: 257 directory changes and 64 env words before a --no-verify commit are each refused at their bound, in time, and neither command ran",
				manifest: manifestWith(""),
				script: func(*Sandbox) Script {
					return Script{Commands: []string{strings.Repeat("cd . ; ", 257) + denyCommand, strings.Repeat("env ", 64) + denyCommand}}
				},
				verify: func(t *testing.T, r *caseRun) {
					r.wantExit(t, 0)
					r.wantFile(t, deniedMarker, false)
					r.wantTurns(t, 3)
					r.wantCarried(t, "[BLOCKED BY hookwarden:scan-bound-targets]")
					if turns := r.srv.MainTurns(); len(turns) < 3 || !turns[2].Carries("[BLOCKED BY hookwarden:scan-bound-words]") {
						t.Errorf("the model's third turn does not carry the scan-bound-words refusal")
					}
				}},
			engineCase{name: "deny-allow", client: client, rows: []string{"pre-tool"},
				check:    "deny honoured (the denied command never ran, the refusal reached the model) and allow passes (the next command ran)",
				manifest: manifestWith(""),
				script:   func(*Sandbox) Script { return Script{Commands: []string{denyCommand, allowCommand}} },
				verify: func(t *testing.T, r *caseRun) {
					r.wantExit(t, 0)
					r.wantFile(t, deniedMarker, false)
					r.wantFile(t, allowedMarker, true)
					r.wantTurns(t, 3)
					r.wantCarried(t, blockedPrefix)
					r.wantUserSaw(t, "pre-tool", denyCommand)
					r.wantUserSaw(t, "pre-tool", allowCommand)
					// opencode 1.18.33 runs plugin hooks one after another and a
					// throw ends the chain: a project plugin after ours never sees
					// a call ours blocked (measured). Every other client runs the
					// foreign row for both calls.
					if r.c.Name != "opencode" {
						r.wantForeignSaw(t, "pre-tool", denyCommand)
					}
					r.wantForeignSaw(t, "pre-tool", allowCommand)
					if r.c.Name == "claude" {
						var out struct {
							PermissionDenials []any `json:"permission_denials"`
						}
						_ = json.Unmarshal(r.res.Stdout, &out)
						if len(out.PermissionDenials) != 1 {
							t.Errorf("claude result lists %d permission_denials, want 1", len(out.PermissionDenials))
						}
					}
				}},
		)
	}
	for _, client := range []string{"claude", "codex", "gemini", "opencode"} {
		cases = append(cases,
			engineCase{name: "launcher-fallback", client: client, rows: []string{"pre-tool"}, launcher: "fallback",
				check:    "launcher without hookwarden on PATH: the rendered interceptor denied, the command never ran and the refusal reached the model",
				manifest: manifestWith(""),
				script:   func(*Sandbox) Script { return Script{Command: denyCommand} },
				verify: func(t *testing.T, r *caseRun) {
					r.wantExit(t, 0)
					r.wantFile(t, deniedMarker, false)
					r.wantCarried(t, blockedPrefix)
				}})
	}
	for _, client := range []string{"claude", "codex", "gemini"} {
		cases = append(cases,
			engineCase{name: "stop-continue", client: client, rows: []string{"stop"}, needs: "stop",
				check:    "stop deny continues the turn once: the model's next request carries the prose-question refusal, the repeated stop passes",
				manifest: manifestWith(""),
				script:   func(*Sandbox) Script { return Script{FinalText: question} },
				verify: func(t *testing.T, r *caseRun) {
					r.wantExit(t, 0)
					r.wantTurns(t, 2)
					r.wantCarried(t, "stop-prose-question")
					r.wantStopCalls(t, []bool{false, true})
				}},
			engineCase{name: "stop-halt", client: client, rows: []string{"stop"}, needs: "stop",
				check:    "stop halt: a checkpoint still due on the repeated stop ends the session instead of denying again",
				manifest: manifestWith("checkpoint:\n  on_stop: true\n"), dirty: true,
				script: func(*Sandbox) Script { return Script{FinalText: "All done."} },
				verify: func(t *testing.T, r *caseRun) { r.wantHalted(t, "checkpoint-due") }},
			engineCase{name: "stop-dispatcher-halt", client: client, rows: []string{"stop"}, needs: "stop",
				check:         "every stop deny is bounded: invalid settings deny the first stop (the dispatcher's own deny) and the repeated stop halts the session instead of denying again",
				manifest:      manifestWith(""),
				breakSettings: "no_such_key: true\n",
				script:        func(*Sandbox) Script { return Script{FinalText: "All done."} },
				verify:        func(t *testing.T, r *caseRun) { r.wantHalted(t, "settings-invalid") }},
		)
	}
	for _, client := range []string{"claude", "codex", "gemini"} {
		cases = append(cases,
			engineCase{name: "post-tool-context", client: client, rows: []string{"post-tool"}, needs: "post-tool",
				check:    "post-tool context delivered: with a checkpoint due, the command ran and the model's next request carries the checkpoint note and the clock line",
				manifest: manifestWith("checkpoint:\n  commit_after_files: 1\n"), dirty: true,
				script: func(*Sandbox) Script { return Script{Command: allowCommand} },
				verify: func(t *testing.T, r *caseRun) {
					r.wantExit(t, 0)
					r.wantFile(t, allowedMarker, true)
					r.wantCarried(t, "checkpoint is due")
					// The clock line rides on the post-tool context, after
					// the checkpoint note (issue 19 item 1).
					if turns := r.srv.MainTurns(); len(turns) > 1 {
						r.wantClock(t, turns[1])
					}
					r.wantForeignEvent(t, "post-tool")
				}})
	}
	for _, client := range []string{"claude", "codex", "gemini", "opencode"} {
		cases = append(cases,
			engineCase{name: "prompt-clock", client: client, rows: []string{"prompt"}, needs: "prompt",
				check:    "clock line delivered: the model's first request after the prompt carries the hookwarden clock line with the current UTC time",
				manifest: manifestWith(""),
				script:   func(*Sandbox) Script { return Script{FinalText: "It is late."} },
				verify: func(t *testing.T, r *caseRun) {
					r.wantExit(t, 0)
					turns := r.srv.MainTurns()
					if len(turns) == 0 {
						t.Fatal("the client sent no request to the model")
					}
					r.wantClock(t, turns[0])
					if r.c.Name != "opencode" {
						r.wantForeignEvent(t, "prompt")
					}
				}})
	}
	for _, client := range []string{"claude", "gemini"} {
		cases = append(cases,
			engineCase{name: "pre-edit-deny", client: client, rows: []string{"pre-edit"}, needs: "pre-edit",
				check:    "pre-edit deny honoured: with a checkpoint due, a write outside the change set never happened and the refusal reached the model",
				manifest: manifestWith("checkpoint:\n  commit_after_files: 1\n"), dirty: true,
				script: func(sb *Sandbox) Script {
					return Script{Edit: &Edit{Path: filepath.Join(sb.Repo, editFile), Content: editContent}}
				},
				verify: func(t *testing.T, r *caseRun) {
					r.wantExit(t, 0)
					if r.sb.Exists("repo/" + editFile) {
						t.Errorf("%s was written although hookwarden denied the edit", editFile)
					}
					r.wantCarried(t, "checkpoint-due")
					r.wantForeignEvent(t, "pre-edit")
				}},
			engineCase{name: "pre-edit-allow", client: client, rows: []string{"pre-edit"}, needs: "pre-edit",
				check:    "pre-edit allow passes: with no checkpoint due the write happened",
				manifest: manifestWith(""),
				script: func(sb *Sandbox) Script {
					return Script{Edit: &Edit{Path: filepath.Join(sb.Repo, editFile), Content: editContent}}
				},
				verify: func(t *testing.T, r *caseRun) {
					r.wantExit(t, 0)
					b, err := os.ReadFile(filepath.Join(r.sb.Repo, editFile))
					if err != nil || string(b) != editContent {
						t.Errorf("%s not written as asked (err %v, %q)", editFile, err, b)
					}
					r.wantNotCarried(t, blockedPrefix)
					r.wantForeignEvent(t, "pre-edit")
				}},
			engineCase{name: "pre-edit-guard", client: client, rows: []string{"pre-edit"}, needs: "pre-edit",
				check:    "pre-edit guard: a write to .hookwarden.yaml was refused by the adopted pre-edit row, the file is unchanged and the refusal reached the model",
				manifest: manifestWith(""),
				script: func(sb *Sandbox) Script {
					return Script{Edit: &Edit{Path: filepath.Join(sb.Repo, ".hookwarden.yaml"), Content: "version: 1\nclients: []\n"}}
				},
				verify: func(t *testing.T, r *caseRun) {
					r.wantExit(t, 0)
					b, err := os.ReadFile(filepath.Join(r.sb.Repo, ".hookwarden.yaml"))
					if err != nil || string(b) != manifestFor(r.c.Name, "") {
						t.Errorf(".hookwarden.yaml changed although hookwarden denied the edit (err %v):\n%s", err, b)
					}
					r.wantCarried(t, "guard-file-edit")
					r.wantForeignEvent(t, "pre-edit")
				}},
		)
	}
	cases = append(cases, selfProtectCases()...)
	cases = append(cases, perimeterEngineCases()...)
	return cases
}

// TestEngineCases runs every engine case against the real client.
func TestEngineCases(t *testing.T) {
	for _, ec := range engineCases() {
		t.Run(ec.client+"/"+ec.name, func(t *testing.T) {
			t.Parallel()
			s := theSuite
			c, version := s.client(t, ec.client)
			bin := s.hookwarden(t)
			if ok, why := verbBuilt(bin, "hook"); !ok {
				s.unavailable(t, why)
			}
			if ec.needs != "" {
				if ok, why := engineServes(t, bin, "claude", ec.needs, probePayload(ec.needs)); !ok {
					s.unavailable(t, why)
				}
			}
			how := " (rows written by the harness)"
			if ok, _ := s.adoptWorks(t, bin); ok {
				how = " (rows written by hookwarden adopt, launcher with hookwarden on PATH)"
				if ec.launcher == "fallback" {
					how = " (rows written by hookwarden adopt)"
				}
			}
			for _, row := range ec.rows {
				s.observe(t, ec.client, version, row, ec.name+": "+ec.check+how)
			}
			r := s.runEngineCase(t, ec, c, version, bin)
			ec.verify(t, r)
			if t.Failed() {
				t.Logf("client output:\n%s", r.res.Tail(3000))
				for k, v := range r.settings {
					t.Logf("%s:\n%s", k, v)
				}
			} else {
				s.recordPayloads(t, r.sb, r.user, ec.client, version, ec.name)
			}
		})
	}
}

// probePayload is a Claude payload for event used to ask the built engine
// whether it evaluates that event yet.
func probePayload(event string) map[string]any {
	p := map[string]any{"session_id": "probe", "transcript_path": "/dev/null", "permission_mode": "default"}
	switch event {
	case "stop":
		p["hook_event_name"] = "Stop"
		p["stop_hook_active"] = false
		p["last_assistant_message"] = question
	case "post-tool":
		p["hook_event_name"] = "PostToolUse"
		p["tool_name"] = "Bash"
		p["tool_input"] = map[string]any{"command": "true"}
		p["tool_response"] = map[string]any{"stdout": ""}
		p["tool_use_id"] = "toolu_probe"
	case "prompt":
		p["hook_event_name"] = "UserPromptSubmit"
		p["prompt"] = "what time is it?"
	case "pre-edit":
		p["hook_event_name"] = "PreToolUse"
		p["tool_name"] = "Write"
		p["tool_input"] = map[string]any{"file_path": "probe.txt", "content": "x"}
		p["tool_use_id"] = "toolu_probe"
	}
	return p
}

// runEngineCase prepares the sandbox (manifest committed, optional dirty
// file, client config, hookwarden rows, foreign and user-level recorder
// rows), runs the client once and returns what happened.
func (s *suite) runEngineCase(t *testing.T, ec engineCase, c Client, version, bin string) *caseRun {
	t.Helper()
	adopted, why := s.adoptWorks(t, bin)
	if !adopted {
		// Under HOOKWARDEN_E2E=require a broken adopt fails every case: the
		// harness's own rows must never mask it. Locally the cases still
		// check the engine with rows the harness writes.
		if ec.launcher != "" || s.require {
			s.unavailable(t, "the case needs a working `hookwarden adopt`: "+why)
		}
		t.Logf("hookwarden adopt unusable (%s): the harness writes the rows itself", why)
	}
	sb := s.sandbox(t)
	srv, err := NewServer(c.API, ec.script(sb))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	inv, err := c.Setup(sb, s.clientsDir, srv.URL(), ec.args...)
	if err != nil {
		t.Fatal(err)
	}
	r := &caseRun{c: c, version: version, sb: sb, srv: srv, foreign: filepath.Join(sb.Out, "repo"),
		user: filepath.Join(sb.Out, "user"), settings: map[string]string{}, adopted: adopted}
	if err := sb.WriteFile("repo/.hookwarden.yaml", []byte(manifestFor(c.Name, ec.manifest))); err != nil {
		t.Fatal(err)
	}
	// PATH never holds a stray installed hookwarden; with adopt, the
	// launcher finds the binary under test on PATH unless the case tests
	// the interceptor fallback.
	path := pathWithout("hookwarden")
	if adopted && ec.launcher != "fallback" {
		path = filepath.Dir(bin) + string(os.PathListSeparator) + path
	}
	inv.Env = append(append(inv.Env, "PATH="+path), ec.env...)
	if adopted {
		s.adoptRows(t, r, bin, path)
	} else {
		s.registerRows(t, r, bin)
	}
	if ec.breakSettings != "" {
		if err := sb.WriteFile("repo/.hookwarden.yaml", []byte(manifestFor(c.Name, ec.manifest)+ec.breakSettings)); err != nil {
			t.Fatal(err)
		}
	}
	// Commit everything the setup wrote, so only the case's own dirt counts
	// as a change for the checkpoint.
	if err := sb.Commit(t.Context(), "governed"); err != nil {
		t.Fatal(err)
	}
	if ec.dirty {
		if err := sb.WriteFile("repo/wip.txt", []byte("work in progress\n")); err != nil {
			t.Fatal(err)
		}
	}
	r.res = s.run(t, inv)
	return r
}

// manifestFor returns the .hookwarden.yaml of a case: version 1, the one
// client, every event the registration table has for it (so adopt renders
// all of the client's rows), then the case's extra keys (checkpoint).
func manifestFor(client, extra string) string {
	tbl, _ := registration.Default()
	var events []string
	for _, r := range tbl.ForClient(client) {
		events = append(events, r.Event)
	}
	return "version: 1\nclients: [" + client + "]\nhooks:\n  events: [" + strings.Join(events, ", ") + "]\n" + extra
}

// pathWithout returns $PATH without the directories that hold an
// executable named name.
func pathWithout(name string) string {
	var keep []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if fi, err := os.Stat(filepath.Join(d, name)); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			continue
		}
		keep = append(keep, d)
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

// adoptWorks reports, once per test run, whether `hookwarden adopt` can
// govern a fresh repository end to end (manifest, client rows, rendered
// launcher). Until it can, cases register hookwarden's rows themselves.
func (s *suite) adoptWorks(t *testing.T, bin string) (bool, string) {
	t.Helper()
	s.adoptOnce.Do(func() {
		if ok, why := verbBuilt(bin, "adopt"); !ok {
			s.adoptWhy = why
			return
		}
		dir, err := os.MkdirTemp("", "hw-conf-adopt-probe-")
		if err != nil {
			s.adoptWhy = err.Error()
			return
		}
		defer os.RemoveAll(dir)
		sb, err := NewSandbox(t.Context(), dir)
		if err != nil {
			s.adoptWhy = err.Error()
			return
		}
		out, err := s.hookwardenCmd(t, bin, sb, pathWithout("hookwarden"), "adopt", "--clients", "claude", sb.Repo)
		if err != nil {
			s.adoptWhy = fmt.Sprintf("`hookwarden adopt` failed on a fresh repository: %v: %s", err, out)
			return
		}
		if !sb.Exists("repo/.hookwarden/hook.sh") {
			s.adoptWhy = "`hookwarden adopt` rendered no .hookwarden/hook.sh launcher"
			return
		}
		s.adoptOK = true
	})
	return s.adoptOK, s.adoptWhy
}

// hookwardenCmd runs the hookwarden binary with args in the sandbox repo,
// with the sandbox home as HOME and CODEX_HOME, and returns its combined
// output.
func (s *suite) hookwardenCmd(t *testing.T, bin string, sb *Sandbox, path string, args ...string) (string, error) {
	t.Helper()
	res, err := Run(t.Context(), Invocation{Args: append([]string{bin}, args...), Dir: sb.Repo,
		Env: []string{"HOME=" + sb.Home, "CODEX_HOME=" + sb.Home, "PWD=" + sb.Repo, "PATH=" + path}}, 2*time.Minute)
	if err != nil {
		return "", err
	}
	out := string(res.Stdout) + string(res.Stderr)
	if res.ExitCode != 0 {
		return out, fmt.Errorf("exit %d", res.ExitCode)
	}
	return out, nil
}

// adoptRows writes the foreign repository row and the user-level row, then
// runs the real `hookwarden adopt` (and for Codex `hookwarden codex-trust
// --trust-project`, plus the harness's own trust records for the foreign
// rows, which codex-trust rightly never trusts).
func (s *suite) adoptRows(t *testing.T, r *caseRun, bin, path string) {
	t.Helper()
	client := r.c.Name
	if client == "opencode" {
		s.writeOpencodeRecorders(t, r)
	} else {
		rec := func(dir string) []hookRow {
			var rows []hookRow
			for _, f := range foreignRows(client) {
				f.Command = s.testHookCommand(dir, "record")
				rows = append(rows, f)
			}
			return rows
		}
		repoFile, userFile := hookFiles(client)
		if err := r.sb.WriteFile(repoFile, hooksDoc(nil, rec(r.foreign))); err != nil {
			t.Fatal(err)
		}
		var userBase map[string]any
		if client == "gemini" {
			userBase = geminiUserBase()
		}
		if err := r.sb.WriteFile(userFile, hooksDoc(userBase, rec(r.user))); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := s.hookwardenCmd(t, bin, r.sb, path, "adopt", r.sb.Repo); err != nil {
		t.Fatalf("hookwarden adopt: %v\n%s", err, out)
	}
	if client == "codex" {
		if out, err := s.hookwardenCmd(t, bin, r.sb, path, "codex-trust", "--trust-project", r.sb.Repo); err != nil {
			t.Fatalf("hookwarden codex-trust: %v\n%s", err, out)
		}
		for _, rel := range []string{"repo/.codex/hooks.json", "home/hooks.json"} {
			recs, err := ComputeCodexTrust(filepath.Join(r.sb.Root, rel))
			if err != nil {
				t.Fatal(err)
			}
			var foreign []CodexTrust
			b, _ := os.ReadFile(filepath.Join(r.sb.Root, rel))
			for _, rc := range recs {
				if handlerCommand(b, rc.Key) != "" && strings.Contains(handlerCommand(b, rc.Key), hookArg) {
					foreign = append(foreign, rc)
				}
			}
			f, err := os.OpenFile(filepath.Join(r.sb.Home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.WriteString(CodexTrustTOML(foreign))
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, f := range []string{"repo/.claude/settings.json", "repo/.codex/hooks.json", "repo/.gemini/settings.json",
		"repo/.opencode/plugins/hookwarden.js", "home/config.toml", "repo/.hookwarden.yaml"} {
		if b, err := os.ReadFile(filepath.Join(r.sb.Root, f)); err == nil {
			r.settings[f] = string(b)
		}
	}
}

// handlerCommand returns the command of the handler a Codex trust key
// names ("…:<snake event>:<group>:<handler>") in the hooks document b.
func handlerCommand(b []byte, key string) string {
	parts := strings.Split(key, ":")
	if len(parts) < 4 {
		return ""
	}
	var gi, hi int
	fmt.Sscan(parts[len(parts)-2], &gi)
	fmt.Sscan(parts[len(parts)-1], &hi)
	snake := parts[len(parts)-3]
	var doc struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if json.Unmarshal(b, &doc) != nil {
		return ""
	}
	for ev, groups := range doc.Hooks {
		if codexhash.SnakeEvent(ev) != snake || gi >= len(groups) || hi >= len(groups[gi].Hooks) {
			continue
		}
		return groups[gi].Hooks[hi].Command
	}
	return ""
}

// registerRows writes hookwarden's rows for every registration row of the
// client plus the foreign repository row and the user-level row, in the
// client's own files.
func (s *suite) registerRows(t *testing.T, r *caseRun, bin string) {
	t.Helper()
	tbl, err := registration.Default()
	if err != nil {
		t.Fatal(err)
	}
	client := r.c.Name
	if client == "opencode" {
		s.registerOpencode(t, r, bin)
		return
	}
	var ours []hookRow
	for _, row := range tbl.ForClient(client) {
		ours = append(ours, hookRow{Native: row.NativeEvent, Matcher: row.Matcher,
			Command: shellQuote(bin) + " hook " + client + " " + row.Event, Timeout: row.Timeout})
	}
	rec := func(dir string) []hookRow {
		var rows []hookRow
		for _, f := range foreignRows(client) {
			f.Command = s.testHookCommand(dir, "record")
			rows = append(rows, f)
		}
		return rows
	}
	// foreign row first: adopt must keep it where it is.
	writeHooks(t, r.sb, client, append(rec(r.foreign), ours...), rec(r.user))
	repoFile, userFile := hookFiles(client)
	for _, f := range []string{repoFile, userFile, "home/config.toml"} {
		if b, err := os.ReadFile(filepath.Join(r.sb.Root, f)); err == nil {
			r.settings[f] = string(b)
		}
	}
}

// foreignRows are the operator's own rows the suite keeps next to ours:
// a recorder before the shell tool and the write tool, after the shell
// tool, and on the stop event, with plain (unanchored) matchers as
// operators write them.
func foreignRows(client string) []hookRow {
	switch client {
	case "claude":
		return []hookRow{{Native: "PreToolUse", Matcher: "Bash", Timeout: 15}, {Native: "PreToolUse", Matcher: "Write", Timeout: 15},
			{Native: "PostToolUse", Matcher: "Bash", Timeout: 15}, {Native: "Stop", Timeout: 15}, {Native: "UserPromptSubmit", Timeout: 15}}
	case "codex":
		return []hookRow{{Native: "PreToolUse", Matcher: "Bash", Timeout: 15}, {Native: "PostToolUse", Matcher: "Bash", Timeout: 15},
			{Native: "Stop", Timeout: 15}, {Native: "UserPromptSubmit", Timeout: 15}}
	case "gemini":
		return []hookRow{{Native: "BeforeTool", Matcher: "run_shell_command", Timeout: 15000},
			{Native: "BeforeTool", Matcher: "write_file", Timeout: 15000}, {Native: "AfterTool", Matcher: "run_shell_command", Timeout: 15000},
			{Native: "AfterAgent", Timeout: 15000}, {Native: "BeforeAgent", Timeout: 15000}}
	}
	return nil
}

// opencodeRecorder is a foreign opencode plugin: it saves what
// tool.execute.before saw as JSON.stringify({input, output}) to
// OUT/tool.execute.before.<n>.json and never blocks.
const opencodeRecorder = `import fs from "node:fs";
const OUT = %s;
export const ConformanceRecorder = async () => ({
  "tool.execute.before": async (input, output) => {
    fs.mkdirSync(OUT, { recursive: true });
    let n = 1;
    while (fs.existsSync(OUT + "/tool.execute.before." + n + ".json")) n++;
    fs.writeFileSync(OUT + "/tool.execute.before." + n + ".json", JSON.stringify({ input, output }));
  },
});
`

// opencodeOurs is the harness's stand-in for the rendered
// .opencode/plugins/hookwarden.js until adopt renders it: it pipes
// {input, output} to `hookwarden hook opencode pre-tool` in the project
// directory and throws (opencode's way to block a tool, ../shared/e2e/README.md
// §4) on any non-zero exit, with the engine's stderr as the message. It
// fails closed when the engine cannot be run.
const opencodeOurs = `import { spawnSync } from "node:child_process";
const BIN = %s;
export const HookwardenConformance = async (ctx) => ({
  "tool.execute.before": async (input, output) => {
    const r = spawnSync(BIN, ["hook", "opencode", "pre-tool"], {
      input: JSON.stringify({ input, output }), encoding: "utf8", cwd: ctx.directory, timeout: 15000,
    });
    if (r.status === 0) return;
    throw new Error((r.stderr || "").trim() || ("hookwarden: no verdict (exit " + r.status + ")"));
  },
});
`

func jsString(v string) string { b, _ := json.Marshal(v); return string(b) }

// writeOpencodeRecorders writes the foreign project plugin and the
// user-level plugin, both recorders.
func (s *suite) writeOpencodeRecorders(t *testing.T, r *caseRun) {
	t.Helper()
	files := map[string]string{
		"repo/.opencode/plugins/aaa-operator-recorder.js": fmt.Sprintf(opencodeRecorder, jsString(r.foreign)),
		"home/.config/opencode/plugins/user-recorder.js":  fmt.Sprintf(opencodeRecorder, jsString(r.user)),
	}
	for rel, body := range files {
		if err := r.sb.WriteFile(rel, []byte(body)); err != nil {
			t.Fatal(err)
		}
		r.settings[rel] = body
	}
}

func (s *suite) registerOpencode(t *testing.T, r *caseRun, bin string) {
	t.Helper()
	s.writeOpencodeRecorders(t, r)
	files := map[string]string{
		"repo/.opencode/plugins/hookwarden.js": fmt.Sprintf(opencodeOurs, jsString(bin)),
	}
	for rel, body := range files {
		if err := r.sb.WriteFile(rel, []byte(body)); err != nil {
			t.Fatal(err)
		}
		r.settings[rel] = body
	}
}

// --- checks --------------------------------------------------------------------

func (r *caseRun) wantExit(t *testing.T, code int) {
	t.Helper()
	if r.res.ExitCode != code {
		t.Errorf("client exit %d, want %d", r.res.ExitCode, code)
	}
}

// wantFile asserts whether the marker file rel (below the repo) exists,
// that is whether the command that creates it ran.
func (r *caseRun) wantFile(t *testing.T, rel string, present bool) {
	t.Helper()
	if got := r.sb.Exists("repo/" + rel); got != present {
		t.Errorf("%s present = %v, want %v (did the command run?)", rel, got, present)
	}
}

func (r *caseRun) wantTurns(t *testing.T, n int) {
	t.Helper()
	if got := len(r.srv.MainTurns()); got != n {
		t.Errorf("%d main model turns, want %d", got, n)
	}
}

// wantCarried asserts the model's second main turn carries text (the
// client forwarded hookwarden's reason to the model).
// wantHalted checks a session the stop gate halted on its repeated pass:
// the client ended cleanly after two model turns, the first stop's deny
// (carrying text) reached the model, the stop hook ran twice (the second
// with stop_hook_active), and Claude Code reports the halt form.
func (r *caseRun) wantHalted(t *testing.T, text string) {
	t.Helper()
	r.wantExit(t, 0)
	r.wantTurns(t, 2)
	r.wantCarried(t, text)
	r.wantStopCalls(t, []bool{false, true})
	if r.c.Name == "claude" {
		var out struct {
			TerminalReason string `json:"terminal_reason"`
		}
		_ = json.Unmarshal(r.res.Stdout, &out)
		if out.TerminalReason != "stop_hook_prevented" {
			t.Errorf("claude terminal_reason %q, want stop_hook_prevented (the halt form)", out.TerminalReason)
		}
	}
}

func (r *caseRun) wantCarried(t *testing.T, text string) {
	t.Helper()
	turns := r.srv.MainTurns()
	if len(turns) < 2 {
		t.Errorf("only %d main model turns: the client never went back to the model", len(turns))
		return
	}
	if !turns[1].Carries(text) {
		t.Errorf("the model's second turn does not carry %q", text)
	}
}

func (r *caseRun) wantNotCarried(t *testing.T, text string) {
	t.Helper()
	for i, turn := range r.srv.MainTurns() {
		if turn.Carries(text) {
			t.Errorf("model turn %d carries %q although nothing was refused", i+1, text)
		}
	}
}

// payloads returns the payloads the recorder in dir saw for the neutral
// event (mapped through the registration table).
func (r *caseRun) payloads(t *testing.T, dir, event string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, native := range []string{"PreToolUse", "BeforeTool", "Stop", "AfterAgent", "PostToolUse", "AfterTool", "UserPromptSubmit", "BeforeAgent"} {
		for _, p := range calls(t, dir, native) {
			if neutralEvent(r.c.Name, p) == event {
				out = append(out, p)
			}
		}
	}
	if r.c.Name == "opencode" {
		for n := 1; ; n++ {
			b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("tool.execute.before.%d.json", n)))
			if err != nil {
				break
			}
			var p map[string]any
			if err := json.Unmarshal(b, &p); err != nil {
				t.Errorf("opencode recorder payload %d: %v", n, err)
			}
			if neutralEvent("opencode", p) == event {
				out = append(out, p)
			}
		}
	}
	return out
}

// wantForeignSaw asserts that both the repository's foreign row and the
// user-level hook ran for event on command.
func (r *caseRun) wantForeignSaw(t *testing.T, event, command string) {
	t.Helper()
	for _, d := range []struct{ name, dir string }{{"foreign repository row", r.foreign}, {"user-level hook", r.user}} {
		if !sawCommand(r.payloads(t, d.dir, event), command) {
			t.Errorf("the %s did not run for %s %q alongside hookwarden", d.name, event, command)
		}
	}
}

// wantUserSaw asserts the user-level hook ran for event and saw command.
func (r *caseRun) wantUserSaw(t *testing.T, event, command string) {
	t.Helper()
	if !sawCommand(r.payloads(t, r.user, event), command) {
		t.Errorf("the user-level hook did not run for %s %q alongside hookwarden", event, command)
	}
}

// sawCommand reports whether one of the payloads names command.
func sawCommand(ps []map[string]any, command string) bool {
	for _, p := range ps {
		if toolCommand(p) == command {
			return true
		}
	}
	return false
}

func (r *caseRun) wantForeignEvent(t *testing.T, event string) {
	t.Helper()
	if len(r.payloads(t, r.foreign, event)) == 0 {
		t.Errorf("the foreign repository row did not run for %s", event)
	}
}

// wantStopCalls asserts the stop recorder's calls had the stop_hook_active
// values want, in order.
func (r *caseRun) wantStopCalls(t *testing.T, want []bool) {
	t.Helper()
	ps := r.payloads(t, r.foreign, "stop")
	var got []bool
	for _, p := range ps {
		a, _ := p["stop_hook_active"].(bool)
		got = append(got, a)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("stop calls with stop_hook_active %v, want %v", got, want)
	}
}

// wantClock asserts the model request req carries the hookwarden clock line
// (protocol/clock) and that its UTC time is the time of the run: not after
// the request reached the model server, and at most five minutes before it
// (the hook ran between the prompt and the request).
func (r *caseRun) wantClock(t *testing.T, req Request) {
	t.Helper()
	for _, s := range req.Strings() {
		i := strings.Index(s, clock.Marker)
		if i < 0 {
			continue
		}
		m := regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00`).FindString(s[i:])
		at, err := time.Parse("2006-01-02T15:04:05-07:00", m)
		if err != nil {
			t.Errorf("the clock line in the model request holds no UTC time: %q", s[i:])
			return
		}
		if at.After(req.Time.Add(time.Second)) || at.Before(req.Time.Add(-5*time.Minute)) {
			t.Errorf("the clock line says %s, the request reached the model server at %s", at, req.Time.UTC())
		}
		return
	}
	t.Errorf("the model request does not carry the clock line (%q)", clock.Marker)
}
