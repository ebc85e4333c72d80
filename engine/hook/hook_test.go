package hook

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hookwarden/hookwarden/policy"
	"github.com/hookwarden/hookwarden/protocol/clock"
	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/protocol/verdict"
	"github.com/hookwarden/hookwarden/settings"
)

// fakePolicy stands in for package policy in the dispatcher's own tests; the
// real policy is replayed through the hook path in engine/hook/live.
type fakePolicy struct{ ops []*regexp.Regexp }

func (f fakePolicy) JudgeAt(c *policy.Command, _ string, _ func(string) (string, bool)) verdict.Verdict {
	command := c.Text()
	if strings.Contains(command, "--no-verify") {
		return verdict.Verdict{Kind: verdict.Deny, RuleID: "fake-no-verify", Reason: "[BLOCKED BY hookwarden:fake-no-verify] skipping hooks; run them"}
	}
	return f.JudgeOperators(c)
}

// JudgeOperators matches the operator patterns alone.
func (f fakePolicy) JudgeOperators(c *policy.Command) verdict.Verdict {
	command := c.Text()
	for _, re := range f.ops {
		if re.MatchString(command) {
			return verdict.Verdict{Kind: verdict.Deny, RuleID: "fake-operator", Reason: "[BLOCKED BY hookwarden:fake-operator] operator pattern"}
		}
	}
	return verdict.Verdict{Kind: verdict.Allow}
}

func fakeDeps(t testing.TB, withJudges bool) Deps {
	tab, err := registration.Default()
	if err != nil {
		t.Fatal(err)
	}
	d := Deps{
		Table: tab,
		NewPolicy: func(ops []settings.Pattern) (CommandPolicy, error) {
			var f fakePolicy
			for _, o := range ops {
				re, err := regexp.Compile(o.Pattern)
				if err != nil {
					return nil, err
				}
				f.ops = append(f.ops, re)
			}
			return f, nil
		},
		Environment: func(lookup func(string) (string, bool)) verdict.Verdict {
			if v, ok := lookup("LEFTHOOK"); ok && v == "0" {
				return verdict.Verdict{Kind: verdict.Deny, RuleID: "fake-env", Reason: "[BLOCKED BY hookwarden:fake-env] hooks switched off"}
			}
			return verdict.Verdict{Kind: verdict.Allow}
		},
	}
	if withJudges {
		d.Judges = Judges{
			Stop: func(_ context.Context, c Call) verdict.Verdict {
				if c.Payload.StopHookActive && c.Payload.LastMessage != "deny me" {
					return verdict.Verdict{Kind: verdict.Halt, Reason: "fake halt in " + c.RepoRoot}
				}
				return verdict.Verdict{Kind: verdict.Deny, RuleID: "fake-stop", Reason: "fake stop deny"}
			},
			PostTool: func(context.Context, Call) verdict.Verdict {
				return verdict.Verdict{Kind: verdict.Context, Reason: "fake context"}
			},
			PreEdit: func(_ context.Context, c Call) verdict.Verdict {
				if strings.HasSuffix(c.Payload.FilePath, "blocked.go") {
					return verdict.Verdict{Kind: verdict.Deny, RuleID: "fake-edit", Reason: "fake edit deny"}
				}
				return verdict.Verdict{Kind: verdict.Allow}
			},
		}
	}
	return d
}

// fixture is a temporary world: a governed repo, an ungoverned repo, a plain
// directory, a broken worktree, an empty home.
type fixture struct {
	root, gov, plain, nowhere, broken, home, xdg, rec string
}

func newFixture(t testing.TB, repoYAML string) fixture {
	t.Helper()
	// Forward slashes on Windows too (C:/Users/...): the paths go into
	// JSON payloads and shell command texts as they are, which a Windows
	// path's backslashes would escape; Windows takes either separator.
	r := filepath.ToSlash(t.TempDir())
	f := fixture{root: r, gov: r + "/gov", plain: r + "/plain", nowhere: r + "/nowhere",
		broken: r + "/broken", home: r + "/home", xdg: r + "/xdg", rec: r + "/rec"}
	for _, d := range []string{f.gov + "/.git", f.gov + "/src", f.plain + "/.git", f.nowhere, f.broken, f.home, f.xdg} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if repoYAML == "" {
		repoYAML = "version: 1\n"
	}
	must(t, os.WriteFile(filepath.Join(f.gov, settings.RepoFileName), []byte(repoYAML), 0o644))
	must(t, os.WriteFile(filepath.Join(f.broken, ".git"), []byte("gitdir: /nonexistent/hookwarden\n"), 0o644))
	return f
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func (f fixture) subst(s string) string {
	return strings.NewReplacer("$GOV", f.gov, "$PLAIN", f.plain, "$NOWHERE", f.nowhere, "$BROKEN", f.broken, "$REPO", f.gov).Replace(s)
}

// substJSON is subst for a JSON text (the fixture's paths need no
// escaping: forward slashes on every platform).
func (f fixture) substJSON(s string) string { return f.subst(s) }

// slashes turns a Windows path's separators in an engine's output (plain,
// or JSON-escaped) into the forward slashes of the fixture's paths, so one
// expectation holds on every platform; elsewhere s is returned as it is.
// Both sides of a comparison go through it (it also turns a JSON escape
// such as \n into /n, the same on both).
func slashes(s string) string {
	if runtime.GOOS != "windows" {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, `\\`, "/"), `\`, "/")
}

func (f fixture) env(extra map[string]string) func(string) (string, bool) {
	m := map[string]string{"HOME": f.home, "XDG_CONFIG_HOME": f.xdg}
	for k, v := range extra {
		m[k] = f.subst(v)
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

type dispatchCase struct {
	Name        string            `json:"name"`
	Client      string            `json:"client"`
	Event       string            `json:"event"`
	Cwd         string            `json:"cwd"`
	Stdin       json.RawMessage   `json:"stdin"`
	StdinRaw    *string           `json:"stdin_raw"`
	Env         map[string]string `json:"env"`
	Workstation string            `json:"workstation"`
	RepoYAML    string            `json:"repo_yaml"`
	Record      bool              `json:"record"`
	NoJudges    bool              `json:"no_judges"`
	Want        struct {
		Exit           int     `json:"exit"`
		Stdout         *string `json:"stdout"`
		StdoutContains string  `json:"stdout_contains"`
		Stderr         *string `json:"stderr"`
		StderrContains string  `json:"stderr_contains"`
		StderrLacks    string  `json:"stderr_lacks"`
		Rule           string  `json:"rule"`
		Kind           string  `json:"kind"`
		Usage          bool    `json:"usage"`
		Recorded       int     `json:"recorded"`
	} `json:"want"`
}

// corpusNow is the time the dispatch corpus runs at (Request.Now).
var corpusNow = time.Date(2026, 12, 1, 21, 30, 5, 0, time.UTC)

func TestDispatchCorpus(t *testing.T) {
	data, err := os.ReadFile("testdata/dispatch.json")
	must(t, err)
	var cases []dispatchCase
	must(t, json.Unmarshal(data, &cases))
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			f := newFixture(t, tc.RepoYAML)
			ws := f.subst(tc.Workstation)
			if tc.Record {
				// Record mode is the operator's (record.dir in the
				// workstation settings), never the environment's.
				ws += "\nrecord:\n  dir: " + f.rec + "\n"
			}
			if ws != "" {
				p := filepath.Join(f.xdg, "hookwarden", "config.yaml")
				must(t, os.MkdirAll(filepath.Dir(p), 0o755))
				must(t, os.WriteFile(p, []byte(ws), 0o644))
			}
			env := map[string]string{}
			for k, v := range tc.Env {
				env[k] = v
			}
			stdin := ""
			if tc.StdinRaw != nil {
				stdin = *tc.StdinRaw
			} else {
				stdin = string(tc.Stdin)
			}
			resp := Run(context.Background(), fakeDeps(t, !tc.NoJudges), Request{
				Client: tc.Client, Event: tc.Event,
				Stdin:     strings.NewReader(f.substJSON(stdin)),
				LookupEnv: f.env(env),
				Cwd:       f.subst(tc.Cwd),
				Now:       func() time.Time { return corpusNow },
			})
			w := tc.Want
			out, errs := slashes(string(resp.Stdout)), slashes(string(resp.Stderr))
			if resp.Exit != w.Exit {
				t.Errorf("exit %d, want %d (stderr %q)", resp.Exit, w.Exit, errs)
			}
			// $CLOCK in a wanted stdout is the clock line of corpusNow in
			// this process's zone (protocol/clock; it holds no character JSON
			// escapes).
			if w.Stdout != nil && out != slashes(strings.ReplaceAll(f.subst(*w.Stdout), "$CLOCK", clock.Line(corpusNow, time.Local))) {
				t.Errorf("stdout %q, want %q", out, strings.ReplaceAll(f.subst(*w.Stdout), "$CLOCK", clock.Line(corpusNow, time.Local)))
			}
			if w.StdoutContains != "" && !strings.Contains(out, slashes(f.subst(w.StdoutContains))) {
				t.Errorf("stdout %q lacks %q", out, f.subst(w.StdoutContains))
			}
			if w.Stderr != nil && errs != slashes(f.subst(*w.Stderr)) {
				t.Errorf("stderr %q, want %q", errs, f.subst(*w.Stderr))
			}
			if w.StderrContains != "" && !strings.Contains(errs, slashes(f.subst(w.StderrContains))) {
				t.Errorf("stderr %q lacks %q", errs, f.subst(w.StderrContains))
			}
			if w.StderrLacks != "" && (strings.Contains(errs, w.StderrLacks) || strings.Contains(out, w.StderrLacks)) {
				t.Errorf("output echoes %q", w.StderrLacks)
			}
			if w.Rule != "" && resp.Verdict.RuleID != w.Rule {
				t.Errorf("rule %q, want %q", resp.Verdict.RuleID, w.Rule)
			}
			if w.Kind != "" && resp.Verdict.Kind.String() != w.Kind {
				t.Errorf("kind %s, want %s", resp.Verdict.Kind, w.Kind)
			}
			if resp.Usage != w.Usage {
				t.Errorf("usage %v, want %v", resp.Usage, w.Usage)
			}
			if tc.Record || w.Recorded > 0 {
				entries, _ := os.ReadDir(f.rec)
				if len(entries) != w.Recorded {
					t.Errorf("%d recorded files, want %d", len(entries), w.Recorded)
				}
				for _, e := range entries {
					got, _ := os.ReadFile(filepath.Join(f.rec, e.Name()))
					if string(got) != f.substJSON(stdin) {
						t.Errorf("recorded %q, want the raw stdin %q", got, stdin)
					}
				}
			}
		})
	}
}

// A client that never closes stdin cannot hold the hook past the event's
// budget: the call is denied in time.
func TestStdinNeverClosed(t *testing.T) {
	deps := fakeDeps(t, false)
	deps.Table = &registration.Table{Rows: []registration.Row{{Client: "claude", Event: "pre-tool", NativeEvent: "PreToolUse",
		Matcher: "^Bash$", Timeout: 15, TimeoutUnit: "s", BudgetMillis: 200}}}
	pr, pw, err := os.Pipe()
	must(t, err)
	defer pr.Close()
	defer pw.Close()
	pw.Write([]byte(`{"hook_event_name":"PreToolUse",`))
	start := time.Now()
	resp := Run(context.Background(), deps, Request{Client: "claude", Event: "pre-tool", Stdin: pr, Cwd: "/"})
	el := time.Since(start)
	if resp.Exit != 2 || !strings.Contains(string(resp.Stderr), "stdin was not closed within the event's budget") {
		t.Fatalf("exit %d stderr %q", resp.Exit, resp.Stderr)
	}
	if el > 3*time.Second {
		t.Fatalf("hook held for %v with a 200 ms budget", el)
	}
}

// A reason longer than the cap is cut to verdict.MaxReasonBytes.
func TestLongReasonCapped(t *testing.T) {
	deps := fakeDeps(t, false)
	deps.NewPolicy = func([]settings.Pattern) (CommandPolicy, error) {
		return longPolicy{}, nil
	}
	f := newFixture(t, "")
	resp := Run(context.Background(), deps, Request{Client: "claude", Event: "pre-tool", LookupEnv: f.env(nil),
		Stdin: strings.NewReader(`{"hook_event_name":"PreToolUse","tool_name":"Bash","cwd":"` + f.gov + `","tool_input":{"command":"x"}}`)})
	if resp.Exit != 2 || len(resp.Stderr) != verdict.MaxReasonBytes+1 {
		t.Fatalf("exit %d, stderr of %d bytes", resp.Exit, len(resp.Stderr))
	}
}

type longPolicy struct{}

func (longPolicy) JudgeAt(*policy.Command, string, func(string) (string, bool)) verdict.Verdict {
	return verdict.Verdict{Kind: verdict.Deny, RuleID: "long", Reason: strings.Repeat("r", 10000)}
}

func (longPolicy) JudgeOperators(*policy.Command) verdict.Verdict {
	return verdict.Verdict{Kind: verdict.Allow}
}

// A build without a policy wired denies rather than allowing.
func TestMissingPolicyDenies(t *testing.T) {
	deps := fakeDeps(t, false)
	deps.NewPolicy = nil
	f := newFixture(t, "")
	resp := Run(context.Background(), deps, Request{Client: "codex", Event: "pre-tool", LookupEnv: f.env(nil),
		Stdin: strings.NewReader(`{"hook_event_name":"PreToolUse","tool_name":"Bash","cwd":"` + f.gov + `","tool_input":{"command":"ls"}}`)})
	if resp.Exit != 2 || resp.Verdict.RuleID != RuleNoJudge {
		t.Fatalf("exit %d rule %q", resp.Exit, resp.Verdict.RuleID)
	}
}

func TestCheck(t *testing.T) {
	f := newFixture(t, "version: 1\npolicy:\n  deny: ['terraform destroy']\n")
	deps := fakeDeps(t, false)
	getenv := func(k string) string { v, _ := f.env(nil)(k); return v }
	cases := []struct {
		dir, command, wantKind, wantRule, wantErr string
	}{
		{f.gov, "git commit --no-verify", "deny", "fake-no-verify", ""},
		{f.gov, "terraform destroy", "deny", "fake-operator", ""},
		{f.plain, "terraform destroy", "allow", "", ""},
		{f.plain, "git -C " + f.gov + " status && terraform destroy", "deny", "fake-operator", ""},
		{f.nowhere, "ls", "allow", "", ""},
		{f.nowhere, strings.Repeat("cd a; ", 257) + "git commit --no-verify -m x", "deny", "scan-bound-targets", ""},
		{f.nowhere, strings.Repeat("env ", 64) + "ls", "deny", "scan-bound-words", ""},
		{f.gov, "   ", "", "", "no command given"},
		{f.gov, "\xff", "", "", "not valid UTF-8"},
		{f.broken, "ls", "", "", "gitdir"},
		{"relative", "ls", "", "", "not absolute"},
	}
	for _, tc := range cases {
		v, err := Check(deps, tc.dir, tc.command, getenv)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q in %s: err %v, want %q", tc.command, tc.dir, err, tc.wantErr)
			}
			continue
		}
		if err != nil || v.Kind.String() != tc.wantKind || v.RuleID != tc.wantRule {
			t.Errorf("%q in %s: %v %q err %v; want %s %q", tc.command, tc.dir, v.Kind, v.RuleID, err, tc.wantKind, tc.wantRule)
		}
	}
}

type panicPolicy struct{}

func (panicPolicy) JudgeAt(c *policy.Command, _ string, _ func(string) (string, bool)) verdict.Verdict {
	command := c.Text()
	panic("boom: " + command)
}

func (p panicPolicy) JudgeOperators(c *policy.Command) verdict.Verdict {
	return p.JudgeAt(c, "", nil)
}

// A judge that panics denies in the client's form and does not leak the
// panic value (which may hold the command).
func TestPanicDenies(t *testing.T) {
	f := newFixture(t, "")
	for _, client := range []string{"claude", "agy"} {
		deps := fakeDeps(t, false)
		deps.NewPolicy = func([]settings.Pattern) (CommandPolicy, error) { return panicPolicy{}, nil }
		stdin := `{"hook_event_name":"PreToolUse","tool_name":"Bash","cwd":"` + f.gov + `","tool_input":{"command":"SECRET-CMD"}}`
		if client == "agy" {
			stdin = `{"toolCall":{"name":"run_command","args":{"CommandLine":"SECRET-CMD"}},"workspacePaths":["` + f.gov + `"]}`
		}
		resp := Run(context.Background(), deps, Request{Client: client, Event: "pre-tool", LookupEnv: f.env(nil), Stdin: strings.NewReader(stdin)})
		if resp.Verdict.Kind != verdict.Deny || resp.Verdict.RuleID != RuleInternal {
			t.Fatalf("%s: verdict %v %q", client, resp.Verdict.Kind, resp.Verdict.RuleID)
		}
		if strings.Contains(string(resp.Stdout)+string(resp.Stderr), "SECRET-CMD") {
			t.Fatalf("%s: answer leaks the command", client)
		}
		if client == "agy" && !strings.HasPrefix(string(resp.Stdout), `{"decision":"deny"`) {
			t.Fatalf("agy stdout %q", resp.Stdout)
		}
		if client == "claude" && resp.Exit != 2 {
			t.Fatalf("claude exit %d", resp.Exit)
		}
	}
}

// TestGetwdOnlyWhenNeeded: the process working directory is never asked
// for a call with a payload (os.Getwd costs two stat calls on every hook
// process), and a payload without an absolute directory is a deny, not
// joined to the process directory (issue 14 item 7).
func TestGetwdOnlyWhenNeeded(t *testing.T) {
	f := newFixture(t, "")
	cases := []struct {
		name, cwdMember string
		wantExit        int
		wantStderr      string
	}{
		{"absolute payload cwd", `"cwd":"$GOV/src",`, 2, "fake-no-verify"},
		{"no payload cwd", ``, 2, "workspace-unreadable] hookwarden could not inspect the workspace: the payload names no cwd"},
		{"relative payload cwd", `"cwd":"src",`, 2, "is not absolute"},
		{"empty payload cwd", `"cwd":"",`, 2, "the payload names no cwd"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			payload := f.substJSON(`{"session_id":"s","transcript_path":"/t",` + tc.cwdMember + `"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git commit --no-verify -m x"}}`)
			resp := Run(context.Background(), fakeDeps(t, false), Request{
				Client: "claude", Event: "pre-tool",
				Stdin:     strings.NewReader(payload),
				LookupEnv: f.env(nil),
				Getwd: func() (string, error) {
					calls++
					return f.gov, nil
				},
			})
			if calls != 0 {
				t.Errorf("Getwd called %d times, want 0", calls)
			}
			if resp.Exit != tc.wantExit || !strings.Contains(string(resp.Stderr), tc.wantStderr) {
				t.Errorf("exit %d stderr %q, want exit %d with %q", resp.Exit, resp.Stderr, tc.wantExit, tc.wantStderr)
			}
		})
	}
}

type stallPolicy struct{ release chan struct{} }

func (p stallPolicy) JudgeAt(*policy.Command, string, func(string) (string, bool)) verdict.Verdict {
	<-p.release
	return verdict.Verdict{Kind: verdict.Allow}
}

func (p stallPolicy) JudgeOperators(c *policy.Command) verdict.Verdict {
	return p.JudgeAt(c, "", nil)
}

// TestBudgetBoundsTheWholeCall: a judgement that is still running when the
// row's budget ends (here a policy and a stop judge that never return) is
// answered inside the budget: a deny for pre-tool, the halt for a stop on
// its repeated pass, a stated skip for post-tool. Never an allow, and
// never the client's own timeout.
func TestBudgetBoundsTheWholeCall(t *testing.T) {
	f := newFixture(t, "")
	release := make(chan struct{})
	defer close(release)
	deps := fakeDeps(t, true)
	deps.NewPolicy = func([]settings.Pattern) (CommandPolicy, error) { return stallPolicy{release}, nil }
	stall := func(ctx context.Context, c Call) verdict.Verdict {
		<-release
		return verdict.Verdict{Kind: verdict.Allow}
	}
	deps.Judges.Stop, deps.Judges.PostTool = stall, stall
	var rows []registration.Row
	for _, r := range deps.Table.Rows {
		r.BudgetMillis = 100
		rows = append(rows, r)
	}
	deps.Table = &registration.Table{Rows: rows}
	cases := []struct {
		client, event, stdin string
		kind                 verdict.Kind
		rule                 string
	}{
		{"claude", "pre-tool", `{"hook_event_name":"PreToolUse","tool_name":"Bash","cwd":"$GOV","tool_input":{"command":"ls"}}`, verdict.Deny, RuleBudget},
		{"claude", "stop", `{"hook_event_name":"Stop","cwd":"$GOV","stop_hook_active":false,"last_assistant_message":"x"}`, verdict.Deny, RuleBudget},
		{"codex", "stop", `{"hook_event_name":"Stop","cwd":"$GOV","stop_hook_active":true,"last_assistant_message":"x"}`, verdict.Halt, RuleBudget},
		{"claude", "post-tool", `{"hook_event_name":"PostToolUse","tool_name":"Bash","cwd":"$GOV","tool_input":{"command":"ls"}}`, verdict.Skip, ""},
	}
	for _, tc := range cases {
		t.Run(tc.client+" "+tc.event, func(t *testing.T) {
			resp := Run(context.Background(), deps, Request{Client: tc.client, Event: tc.event,
				Stdin: strings.NewReader(f.substJSON(tc.stdin)), LookupEnv: f.env(nil)})
			if resp.Verdict.Kind != tc.kind || resp.Verdict.RuleID != tc.rule {
				t.Fatalf("verdict %v %q, want %v %q (stderr %q)", resp.Verdict.Kind, resp.Verdict.RuleID, tc.kind, tc.rule, resp.Stderr)
			}
			if tc.kind == verdict.Deny && (resp.Exit != 2 || !strings.Contains(string(resp.Stderr), "within its 100ms budget")) {
				t.Fatalf("exit %d stderr %q", resp.Exit, resp.Stderr)
			}
		})
	}
}
