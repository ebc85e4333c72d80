package doctor

import (
	"context"
	"github.com/hookwarden/hookwarden/internal/testbin"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/adopt"
)

// realEngine is ./cmd/hookwarden built from this tree (internal/testbin).
func realEngine(t *testing.T) string {
	t.Helper()
	return testbin.Hookwarden(t)
}

// machine is an adopted repository (the real adopt, Codex's trust recorded
// by the real codex-trust in a private CODEX_HOME) and a PATH of tools
// (sh, bash, git, python3 and the built engine), each of which a case can
// leave out.
type machine struct {
	repo, home, tools string
	env               []string
}

func newMachine(t *testing.T, leaveOut ...string) *machine {
	t.Helper()
	return newMachineFor(t, nil, "", leaveOut...)
}

// newMachineFor is newMachine with the repository adopted for clients
// (--clients; nil: the default clients), from manifest when it is not ""
// (written as .hookwarden.yaml before adopt, which keeps it). Codex's
// trust is recorded only when codex is among the clients.
func newMachineFor(t *testing.T, clients []string, manifest string, leaveOut ...string) *machine {
	t.Helper()
	base := t.TempDir()
	m := &machine{repo: filepath.Join(base, "repo"), home: filepath.Join(base, "home"), tools: filepath.Join(base, "tools")}
	for _, d := range []string{m.repo, m.home, m.tools} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "init", "-q", m.repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	getenv := func(k string) string {
		switch k {
		case "HOME", "CODEX_HOME":
			return m.home
		}
		return ""
	}
	if manifest != "" {
		if err := os.WriteFile(filepath.Join(m.repo, adopt.ManifestFile), []byte(manifest), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := adopt.Adopt(context.Background(), []string{m.repo}, adopt.Options{Getenv: getenv, Jobs: 1, Clients: clients})
	if err != nil || rep.Failed() {
		t.Fatalf("adopt: %v %+v", err, rep)
	}
	if clients != nil && !contains(clients, "codex") {
		// No Codex rows to trust.
	} else if tr, err := adopt.CodexTrust([]string{m.repo}, adopt.TrustOptions{TrustProject: true, Getenv: getenv}); err != nil || tr.Failed() {
		t.Fatalf("codex-trust: %v %+v", err, tr)
	}
	tools := map[string]string{"hookwarden": realEngine(t)}
	for _, tool := range []string{"sh", "bash", "git", "python3", "cat", "sleep", "rm", "mkdir", "dirname", "env", "date"} {
		p, err := exec.LookPath(tool)
		if tool == "python3" && err == nil {
			// The interpreter itself, not a pyenv shim (a script that
			// needs more of PATH than this machine's tools).
			out, perr := exec.Command(p, "-c", "import sys; print(sys.executable)").Output()
			p, err = strings.TrimSpace(string(out)), perr
		}
		if err != nil {
			if tool == "python3" && os.Getenv("HOOKWARDEN_E2E") != "require" {
				t.Skipf("stated skip: python3 is not installed (the interceptor fallback needs it); HOOKWARDEN_E2E=require makes this a failure")
			}
			t.Fatalf("%s is required: %v", tool, err)
		}
		tools[tool] = p
	}
	for name, target := range tools {
		if contains(leaveOut, name) {
			continue
		}
		if err := os.Symlink(target, filepath.Join(m.tools, name)); err != nil {
			t.Fatal(err)
		}
	}
	m.env = []string{"PATH=" + m.tools, "HOME=" + m.home, "CODEX_HOME=" + m.home, "XDG_CACHE_HOME=" + filepath.Join(base, "cache"), "LANG=C.UTF-8"}
	return m
}

// commitAll commits every file of m's repository (adopt's included), so
// its checkpoint is not due.
func commitAll(t *testing.T, m *machine) {
	t.Helper()
	for _, args := range [][]string{{"add", "-A"}, {"-c", "user.name=doctor", "-c", "user.email=doctor@example.invalid", "-c", "commit.gpgsign=false", "commit", "-q", "--no-verify", "-m", "adopt"}} {
		if out, err := exec.Command("git", append([]string{"-C", m.repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func (m *machine) edit(t *testing.T, rel, old, new string) {
	t.Helper()
	p := filepath.Join(m.repo, filepath.FromSlash(rel))
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s: %q not found", rel, old)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// rowStates returns "client event: guards|DOES NOT GUARD [answered-by
// of the deny canary]" for every row.
func rowStates(rep *Report) map[string]Row {
	out := map[string]Row{}
	for _, r := range rep.Rows {
		out[r.Client+" "+r.Event] = r
	}
	return out
}

// checkRows checks a report against a case: every row of names is in it
// and guards unless it is in broken, the report is OK exactly when nothing
// is broken, each problem (row → substring) and deny canary's AnsweredBy
// (row → substring) holds. It returns the rows by "client event" and the
// text report.
func checkRows(t *testing.T, rep *Report, names, broken []string, problem, denyBy map[string]string) (map[string]Row, string) {
	t.Helper()
	rows := rowStates(rep)
	var b strings.Builder
	rep.WriteText(&b)
	text := b.String()
	for _, name := range names {
		r, ok := rows[name]
		if !ok {
			t.Errorf("%s: no row in the report:\n%s", name, text)
			continue
		}
		if want := !contains(broken, name); r.Guards != want {
			t.Errorf("%s: guards %v, want %v:\n%s", name, r.Guards, want, text)
		}
	}
	if rep.OK != (len(broken) == 0) {
		t.Errorf("OK %v with broken rows %v", rep.OK, broken)
	}
	for name, s := range problem {
		if !strings.Contains(rows[name].Problem, s) {
			t.Errorf("%s: problem %q lacks %q", name, rows[name].Problem, s)
		}
	}
	for name, s := range denyBy {
		if rows[name].Deny == nil || !strings.Contains(rows[name].Deny.AnsweredBy, s) {
			t.Errorf("%s: deny canary answered by %+v, want %q", name, rows[name].Deny, s)
		}
	}
	return rows, text
}

// TestDoctorOnAdoptedRepository runs doctor on a freshly adopted and
// trusted repository, then with each failure injected: every row guards
// on the healthy machine, and each injection makes the rows it breaks
// fail with the reason a user would act on (exit 1 through Report.OK).
func TestDoctorOnAdoptedRepository(t *testing.T) {
	allRows := []string{"claude pre-tool", "claude pre-edit", "codex pre-tool", "gemini pre-tool", "gemini pre-edit", "agy pre-tool", "opencode pre-tool"}
	promptRows := []string{"claude prompt", "codex prompt", "gemini prompt"}
	stopRows := []string{"claude stop", "codex stop", "gemini stop", "agy stop"}
	cases := []struct {
		name      string
		leaveOut  []string
		inject    func(t *testing.T, m *machine)
		broken    []string          // rows that must not guard; every other row must
		problem   map[string]string // row → substring of its problem
		denyBy    map[string]string // row → substring of the deny canary's AnsweredBy
		wantRules map[string]string // row → the deny canary's rule
	}{
		{name: "healthy", denyBy: map[string]string{"claude pre-tool": "engine ", "opencode pre-tool": "engine ", "agy stop": "engine ", "gemini stop": "engine "},
			wantRules: map[string]string{"claude stop": "stop-prose-question", "gemini stop": "stop-prose-question", "agy stop": "checkpoint-due"}},
		// Everything committed: no checkpoint is due, so agy's stop (no
		// last message in its payload) answers the pass canary with the
		// question check's skip alone, which is judged (found by following
		// the README on a repository with a commit).
		{name: "committed", inject: commitAll,
			wantRules: map[string]string{"claude stop": "stop-prose-question", "agy stop": "checkpoint-due"}},
		// The launcher's own answer (sh and date(1)) carries the clock; a
		// stop without an engine is a stated skip; the pre-edit deny canary
		// (an edit of .hookwarden.yaml) is refused by the launcher itself,
		// not by the engine's rule, which doctor still reports.
		{name: "engine-missing", leaveOut: []string{"hookwarden"},
			broken:  append([]string{"claude pre-edit", "gemini pre-edit"}, stopRows...),
			problem: map[string]string{"claude pre-edit": `denied by "launcher", not by guard-file-edit`, "codex stop": `answered "skip", not held`, "agy stop": `answered "skip", not held`},
			denyBy:  map[string]string{"claude pre-tool": "interceptor", "codex pre-tool": "interceptor", "agy pre-tool": "interceptor"}},
		{name: "interpreter-missing", leaveOut: []string{"hookwarden", "python3"},
			broken:    append(slices.Clone(allRows), stopRows...),
			problem:   map[string]string{"claude pre-tool": `not by git-no-verify`},
			denyBy:    map[string]string{"claude pre-tool": "launcher: no engine and no fallback"},
			wantRules: map[string]string{"claude pre-tool": "launcher"}},
		{name: "client-shell-missing", leaveOut: []string{"bash"},
			broken:  []string{"gemini pre-tool", "gemini pre-edit", "gemini prompt", "gemini stop"},
			problem: map[string]string{"gemini pre-tool": "cannot start", "gemini prompt": `answered "error"`, "gemini stop": `answered "error", not held`}},
		// Without an engine the launcher states a skip with the clock
		// line it reads from date(1); without date(1) the model is not
		// told the time.
		{name: "engine-and-date-missing", leaveOut: []string{"hookwarden", "date"},
			broken:  append([]string{"claude pre-edit", "gemini pre-edit", "claude prompt", "codex prompt", "gemini prompt"}, stopRows...),
			problem: map[string]string{"claude prompt": "carries no clock line", "gemini prompt": "carries no clock line"}},
		{name: "launcher-edited", inject: func(t *testing.T, m *machine) {
			m.edit(t, ".hookwarden/hook.sh", "# hookwarden skew-guard launcher", "exit 0\n# hookwarden skew-guard launcher")
		}, broken: []string{"claude pre-tool", "claude pre-edit", "codex pre-tool", "gemini pre-tool", "gemini pre-edit", "opencode pre-tool", "claude prompt", "codex prompt", "gemini prompt", "claude stop", "codex stop", "gemini stop"},
			problem: map[string]string{"claude pre-tool": `answered "allow", not denied`, "codex prompt": "carries no clock line", "claude stop": `answered "allow", not held`}},
		{name: "row-drifted", inject: func(t *testing.T, m *machine) {
			m.edit(t, ".claude/settings.json", `set -- claude pre-tool;`, `set -- claude pre-tool --lax;`)
			m.edit(t, ".gemini/settings.json", `set -- gemini pre-tool;`, `set -- gemini pre-tool; exit 0;`)
			// A stop row running the prompt row's handler; Codex's drifted
			// row loses its trusted_hash, so Codex skips it.
			m.edit(t, ".claude/settings.json", `set -- claude stop;`, `set -- claude prompt;`)
			m.edit(t, ".codex/hooks.json", `set -- codex stop;`, `set -- codex prompt;`)
		}, broken: []string{"claude pre-tool", "gemini pre-tool", "claude stop", "codex stop"},
			problem: map[string]string{"claude pre-tool": "not by git-no-verify", "gemini pre-tool": "no handler of ours fires", "claude stop": `answered "skip", not held`,
				"codex stop": "no trusted_hash for this hook"}},
	}
	// A sample (every third case, the first and last) unless -long,
	// HOOKWARDEN_TEST_LONG=1 or HOOKWARDEN_E2E=require (CI).
	for _, c := range testbin.Sample(cases, 3) {
		t.Run(c.name, func(t *testing.T) {
			m := newMachine(t, c.leaveOut...)
			if c.inject != nil {
				c.inject(t, m)
			}
			rep, err := Run(context.Background(), m.repo, Options{Env: m.env})
			if err != nil {
				t.Fatal(err)
			}
			rows, _ := checkRows(t, rep, append(append(slices.Clone(allRows), promptRows...), stopRows...), c.broken, c.problem, c.denyBy)
			for name, rule := range c.wantRules {
				if rows[name].Deny == nil || rows[name].Deny.Rule != rule {
					t.Errorf("%s: deny canary %+v, want rule %q", name, rows[name].Deny, rule)
				}
			}
		})
	}
}

// TestDoctorOptInClients runs doctor on a repository adopted with
// --clients claude,copilot,cursor,windsurf,qwen,droid,devin: every pre-tool and
// pre-edit row of these clients is probed through its skewguard.Spawn
// entry, guards on the healthy machine, and each injected failure breaks
// the rows it must with the reason a user would act on.
func TestDoctorOptInClients(t *testing.T) {
	clients := []string{"claude", "copilot", "cursor", "windsurf", "qwen", "droid", "devin"}
	allRows := []string{"claude pre-tool", "claude pre-edit", "claude prompt", "claude stop", "claude pre-skill-shell", "copilot pre-tool", "copilot pre-edit", "copilot stop", "cursor pre-tool", "cursor pre-edit", "cursor stop",
		"windsurf pre-tool", "windsurf pre-edit", "qwen pre-tool", "qwen pre-edit", "qwen stop", "droid pre-tool", "droid pre-edit", "droid prompt", "droid stop", "devin pre-tool"}
	stopRows := []string{"claude stop", "copilot stop", "cursor stop", "qwen stop", "droid stop"}
	cases := []doctorCase{
		{name: "healthy",
			denyBy:     map[string]string{"copilot pre-tool": "engine ", "copilot pre-edit": "engine ", "cursor pre-tool": "engine ", "cursor pre-edit": "engine ", "windsurf pre-edit": "engine ", "qwen pre-edit": "engine ", "droid pre-tool": "engine ", "droid pre-edit": "engine ", "copilot stop": "engine ", "cursor stop": "engine ", "qwen stop": "engine ", "devin pre-tool": "engine "},
			unverified: []string{"cursor pre-tool", "cursor pre-edit", "windsurf pre-tool", "windsurf pre-edit", "droid pre-tool", "droid pre-edit", "cursor stop", "droid stop", "devin pre-tool"}},
		// Without an engine the launcher hands pre-tool calls to the
		// standalone interceptor, which decodes each client's own payload
		// (Copilot's, Cursor's, Windsurf's, Claude's shape for Qwen and
		// Droid) and judges the canary in that client's deny form; pre-edit
		// rows have no fallback and state a skip.
		{name: "engine-missing", leaveOut: []string{"hookwarden"},
			broken: append([]string{"claude pre-edit", "claude pre-skill-shell", "copilot pre-edit", "cursor pre-edit", "windsurf pre-edit", "qwen pre-edit", "droid pre-edit"}, stopRows...),
			problem: map[string]string{"claude pre-skill-shell": `not by git-no-verify`, "copilot pre-edit": `denied by "launcher", not by guard-file-edit`, "copilot stop": `answered "skip", not held`, "cursor stop": `answered "skip", not held`,
				"cursor pre-edit": `denied by "launcher", not by guard-file-edit`, "windsurf pre-edit": `denied by "launcher", not by guard-file-edit`, "qwen pre-edit": `denied by "launcher", not by guard-file-edit`, "droid pre-edit": `denied by "launcher", not by guard-file-edit`},
			denyBy: map[string]string{"copilot pre-tool": "interceptor", "cursor pre-tool": "interceptor", "windsurf pre-tool": "interceptor", "qwen pre-tool": "interceptor", "droid pre-tool": "interceptor", "devin pre-tool": "interceptor"}},
		// Copilot, Qwen and Droid run rows through bash (PATH lookup).
		{name: "client-shell-missing", leaveOut: []string{"bash"},
			broken:  []string{"copilot pre-tool", "copilot pre-edit", "copilot stop", "qwen pre-tool", "qwen pre-edit", "qwen stop", "droid pre-tool", "droid pre-edit", "droid prompt", "droid stop"},
			problem: map[string]string{"copilot pre-tool": "cannot start", "qwen pre-edit": "cannot start", "droid pre-tool": "cannot start", "droid pre-edit": "cannot start"}},
		{name: "copilot-file-removed", inject: func(t *testing.T, m *machine) {
			if err := os.Remove(filepath.Join(m.repo, ".github", "hooks", "hookwarden.json")); err != nil {
				t.Fatal(err)
			}
		}, broken: []string{"copilot pre-tool", "copilot pre-edit", "copilot stop"},
			problem: map[string]string{"copilot pre-tool": "no handler of ours fires", "copilot stop": "no handler of ours fires"}},
		// Everything committed: Copilot's and Cursor's stop payloads carry
		// no last message, so their pass canary is answered with the
		// question check's skip alone (the checkpoint not due): judged.
		{name: "committed", inject: commitAll},
		{name: "cursor-row-drifted", inject: func(t *testing.T, m *machine) {
			m.edit(t, ".cursor/hooks.json", `cursor pre-tool`, `cursor pre-tool --lax`)
		}, broken: []string{"cursor pre-tool"}},
	}
	runCases(t, cases, clients, "", allRows, func(t *testing.T, c doctorCase, rep *Report, rows map[string]Row, text string) {
		if len(rep.Rows) != len(allRows) {
			t.Errorf("%d rows, want %d:\n%s", len(rep.Rows), len(allRows), text)
		}
		for _, name := range c.unverified {
			if !rows[name].SpawnUnverified || !strings.Contains(text, "spawn unverified: "+rows[name].Spawn) {
				t.Errorf("%s: spawn not reported unverified:\n%s", name, text)
			}
		}
		for _, name := range []string{"claude pre-tool", "copilot pre-tool", "qwen pre-tool"} {
			if r := rows[name]; r.Fired && r.SpawnUnverified {
				t.Errorf("%s: an observed spawn reported unverified", name)
			}
		}
	})
}

// TestDoctorPreDispatch runs doctor on a repository whose manifest declares
// dispatch.tasks: each client's pre-dispatch row (Claude's Agent, Codex's
// spawn_agent, Gemini's invoke_agent, agy's invoke_subagent) denies a brief
// without a task label by dispatch-task and lets a labelled one through;
// without the engine the rows state a skip (no fallback judges a
// dispatch); a row that runs another event's handler is caught; and a
// dispatch section without tasks gives no canary, said so.
func TestDoctorPreDispatch(t *testing.T) {
	rows := []string{"claude pre-dispatch", "codex pre-dispatch", "gemini pre-dispatch", "agy pre-dispatch"}
	withTasks := "version: 1\nclients: [claude, codex, gemini, agy, opencode]\ndispatch:\n  tasks: [review, docs]\n"
	cases := []struct {
		name, manifest string
		leaveOut       []string
		inject         func(t *testing.T, m *machine)
		broken         []string
		problem        map[string]string
		skipped        string
	}{
		{name: "healthy", manifest: withTasks},
		{name: "engine-missing", manifest: withTasks, leaveOut: []string{"hookwarden"}, broken: rows,
			problem: map[string]string{"claude pre-dispatch": `answered "skip", not denied`, "agy pre-dispatch": `answered "skip", not denied`}},
		{name: "row-drifted", manifest: withTasks, inject: func(t *testing.T, m *machine) {
			m.edit(t, ".claude/settings.json", `set -- claude pre-dispatch;`, `set -- claude pre-tool;`)
		}, broken: []string{"claude pre-dispatch"}},
		{name: "no-tasks", manifest: "version: 1\ndispatch:\n  readonly_agents: [Explore]\n",
			skipped: "claude pre-dispatch: no canary (the manifest declares no dispatch.tasks"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := newMachineFor(t, nil, c.manifest, c.leaveOut...)
			if c.inject != nil {
				c.inject(t, m)
			}
			rep, err := Run(context.Background(), m.repo, Options{Env: m.env})
			if err != nil {
				t.Fatal(err)
			}
			got := rowStates(rep)
			var text strings.Builder
			rep.WriteText(&text)
			if c.skipped != "" {
				if !strings.Contains(text.String(), "not probed: "+c.skipped) {
					t.Errorf("report lacks %q:\n%s", c.skipped, text.String())
				}
				if _, ok := got["claude pre-dispatch"]; ok {
					t.Errorf("a pre-dispatch row probed without declared tasks:\n%s", text.String())
				}
				return
			}
			for _, name := range rows {
				r, ok := got[name]
				if !ok {
					t.Errorf("%s: no row in the report:\n%s", name, text.String())
					continue
				}
				want := !contains(c.broken, name)
				if r.Guards != want {
					t.Errorf("%s: guards %v, want %v:\n%s", name, r.Guards, want, text.String())
				}
				if want && (r.Deny == nil || r.Deny.Rule != "dispatch-task" || r.Allow == nil || r.Allow.Verdict != "allow") {
					t.Errorf("%s: deny %+v allow %+v, want dispatch-task and allow", name, r.Deny, r.Allow)
				}
			}
			for name, s := range c.problem {
				if !strings.Contains(got[name].Problem, s) {
					t.Errorf("%s: problem %q lacks %q", name, got[name].Problem, s)
				}
			}
		})
	}
}

// doctorCase is one machine a doctor test builds and what doctor must
// report on it: leaveOut the tools left off PATH, inject the failure made
// after adopt, broken the rows that must not guard (every other row named
// must), problem a substring of each broken row's problem, denyBy a
// substring of a row's deny canary's AnsweredBy.
type doctorCase struct {
	name     string
	leaveOut []string
	inject   func(t *testing.T, m *machine)
	broken   []string
	problem  map[string]string
	denyBy   map[string]string
	// unverified are rows whose spawn must be reported unverified (read
	// by the check a test hands runCases).
	unverified []string
}

// runCases runs each case as a subtest on a machine adopted for clients
// from manifest (newMachineFor), checks rows with checkRows and hands the
// report, its rows and the text report to check (nil: nothing more).
func runCases(t *testing.T, cases []doctorCase, clients []string, manifest string, rows []string, check func(t *testing.T, c doctorCase, rep *Report, got map[string]Row, text string)) {
	t.Helper()
	// A sample (every third case, the first and last) unless -long,
	// HOOKWARDEN_TEST_LONG=1 or HOOKWARDEN_E2E=require (CI).
	for _, c := range testbin.Sample(cases, 3) {
		t.Run(c.name, func(t *testing.T) {
			m := newMachineFor(t, clients, manifest, c.leaveOut...)
			if c.inject != nil {
				c.inject(t, m)
			}
			rep, err := Run(context.Background(), m.repo, Options{Env: m.env})
			if err != nil {
				t.Fatal(err)
			}
			got, text := checkRows(t, rep, rows, c.broken, c.problem, c.denyBy)
			if check != nil {
				check(t, c, rep, got, text)
			}
		})
	}
}

// TestDoctorPostTool runs doctor on a repository whose manifest registers
// post-tool rows (Claude Code, Codex, Gemini CLI): on the healthy machine
// each answers the post-tool canary with an allow or added context that
// carries the clock line (a due checkpoint is added context, never a
// block); without the engine the launcher states a skip (the checkpoint is
// not evaluated), also when python3 is missing; an edited launcher lets the
// call through without the clock line; a drifted row is caught.
func TestDoctorPostTool(t *testing.T) {
	rows := []string{"claude post-tool", "codex post-tool", "gemini post-tool"}
	manifest := "version: 1\nclients: [claude, codex, gemini]\nhooks:\n  events: [pre-tool, post-tool]\n"
	cases := []doctorCase{
		{name: "healthy"},
		{name: "engine-missing", leaveOut: []string{"hookwarden"}, broken: rows,
			problem: map[string]string{"claude post-tool": "stated skip", "gemini post-tool": "stated skip"}},
		{name: "interpreter-missing", leaveOut: []string{"hookwarden", "python3"}, broken: rows,
			problem: map[string]string{"codex post-tool": "stated skip"}},
		{name: "launcher-edited", inject: func(t *testing.T, m *machine) {
			m.edit(t, ".hookwarden/hook.sh", "# hookwarden skew-guard launcher", "exit 0\n# hookwarden skew-guard launcher")
		}, broken: rows, problem: map[string]string{"claude post-tool": "carries no clock line"}},
		{name: "row-drifted", inject: func(t *testing.T, m *machine) {
			m.edit(t, ".claude/settings.json", `set -- claude post-tool;`, `set -- claude post-tool --lax;`)
			m.edit(t, ".gemini/settings.json", `"matcher": "^(run_shell_command|write_file|replace)$"`, `"matcher": "^write_file$"`)
		}, broken: []string{"claude post-tool", "gemini post-tool"},
			problem: map[string]string{"claude post-tool": `answered "deny"`, "gemini post-tool": "no handler of ours fires"}},
	}
	runCases(t, cases, nil, manifest, rows, func(t *testing.T, c doctorCase, _ *Report, got map[string]Row, text string) {
		for _, name := range rows {
			if r := got[name]; !contains(c.broken, name) && (r.Post == nil || (r.Post.Verdict != "allow" && r.Post.Verdict != "context") || !r.Post.Clock || !strings.HasPrefix(r.Post.AnsweredBy, "engine ")) {
				t.Errorf("%s: post-tool canary %+v, want an allow or context with the clock line from the engine:\n%s", name, r.Post, text)
			}
		}
		if !strings.Contains(text, "post-tool canary: ") {
			t.Errorf("the text report names no post-tool canary:\n%s", text)
		}
	})
}

// TestDoctorLefthook runs doctor on a repository adopted with --clients
// claude,lefthook: hookwarden's two lefthook jobs (read from
// .hookwarden/lefthook.yml once lefthook.yml extends it) are run as lefthook
// runs a job; the pre-tool job denies the commit canary and allows `git
// status`, the environment job denies a run with LEFTHOOK_EXCLUDE set. Each
// injected failure breaks the jobs it must: no engine (the interceptor
// judges pre-tool; the environment job states a skip), no engine and no
// python3, the launcher edited, the extends block removed, a hook-level
// skip: on pre-tool, and the jobs file's pre-tool command edited (reported,
// never run).
func TestDoctorLefthook(t *testing.T) {
	rows := []string{"lefthook pre-tool", "lefthook environment", "claude pre-tool"}
	cases := []doctorCase{
		{name: "healthy", denyBy: map[string]string{"lefthook pre-tool": "engine ", "lefthook environment": "engine "}},
		{name: "engine-missing", leaveOut: []string{"hookwarden"}, broken: []string{"lefthook environment"},
			problem: map[string]string{"lefthook environment": `answered "skip", not denied`},
			denyBy:  map[string]string{"lefthook pre-tool": "interceptor"}},
		{name: "interpreter-missing", leaveOut: []string{"hookwarden", "python3"}, broken: rows,
			problem: map[string]string{"lefthook pre-tool": `not by git-no-verify`}},
		{name: "launcher-edited", inject: func(t *testing.T, m *machine) {
			m.edit(t, ".hookwarden/hook.sh", "# hookwarden skew-guard launcher", "exit 0\n# hookwarden skew-guard launcher")
		}, broken: rows, problem: map[string]string{"lefthook pre-tool": `answered "allow", not denied`, "lefthook environment": `answered "allow", not denied`}},
		{name: "extends-block-removed", inject: func(t *testing.T, m *machine) {
			m.edit(t, "lefthook.yml", "  - .hookwarden/lefthook.yml\n", "")
		}, broken: []string{"lefthook pre-tool", "lefthook environment"},
			problem: map[string]string{"lefthook pre-tool": "lefthook does not read .hookwarden/lefthook.yml", "lefthook environment": "lacks hookwarden's extends block"}},
		{name: "hook-skipped", inject: func(t *testing.T, m *machine) {
			m.edit(t, "lefthook.yml", "# BEGIN hookwarden", "pre-tool:\n  skip: true\n# BEGIN hookwarden")
		}, broken: []string{"lefthook pre-tool"}, problem: map[string]string{"lefthook pre-tool": "the pre-tool hook sets skip:"}},
		{name: "job-edited", inject: func(t *testing.T, m *machine) {
			m.edit(t, ".hookwarden/lefthook.yml", "run: sh .hookwarden/hook.sh lefthook pre-tool", "run: \"true\"")
		}, broken: []string{"lefthook pre-tool"}, problem: map[string]string{"lefthook pre-tool": "doctor does not run a command that is not ours"}},
	}
	runCases(t, cases, []string{"claude", "lefthook"}, "", rows, func(t *testing.T, c doctorCase, _ *Report, got map[string]Row, text string) {
		if r := got["lefthook pre-tool"]; r.Fired && (!r.SpawnUnverified || r.File != ".hookwarden/lefthook.yml") {
			t.Errorf("lefthook pre-tool: spawn unverified %v, file %q:\n%s", r.SpawnUnverified, r.File, text)
		}
	})
}

// TestDoctorSubagentStart runs doctor on a repository whose manifest has a
// dispatch section naming a read-only agent type: Claude's subagent-start
// row gives its built-in Explore type the read-only banner as added
// context, Codex's gives the declared auditor type the same, and an agent
// type no list names is let through without it; without the engine both
// rows state a skip (no read-only context reaches the subagent); Claude's
// row running the prompt handler is caught; the rows doctor cannot probe
// (receipts, post-return, hand-back) are listed with the reason.
func TestDoctorSubagentStart(t *testing.T) {
	rows := []string{"claude subagent-start", "codex subagent-start"}
	manifest := "version: 1\nclients: [claude, codex]\ndispatch:\n  tasks: [review]\n  readonly_agents: [auditor]\n"
	cases := []doctorCase{
		{name: "healthy"},
		{name: "engine-missing", leaveOut: []string{"hookwarden"}, broken: rows,
			problem: map[string]string{"claude subagent-start": `(a subagent of type Explore) was answered "skip"`, "codex subagent-start": `(a subagent of type auditor) was answered "skip"`}},
		{name: "row-drifted", inject: func(t *testing.T, m *machine) {
			m.edit(t, ".claude/settings.json", `set -- claude subagent-start;`, `set -- claude prompt;`)
		}, broken: []string{"claude subagent-start"}, problem: map[string]string{"claude subagent-start": "not given the read-only context"}},
	}
	runCases(t, cases, nil, manifest, rows, func(t *testing.T, c doctorCase, _ *Report, got map[string]Row, text string) {
		for _, name := range rows {
			if r := got[name]; r.Guards && (r.Deny == nil || r.Deny.Verdict != "context" || r.Allow == nil || r.Allow.Verdict != "allow") {
				t.Errorf("%s: read-only canary %+v, other %+v", name, r.Deny, r.Allow)
			}
		}
		if !strings.Contains(text, "not probed: claude post-return: no canary (its verdict depends on a binding") {
			t.Errorf("post-return not listed with its reason:\n%s", text)
		}
	})
}
