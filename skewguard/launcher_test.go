package skewguard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookwarden/hookwarden/internal/testbin"
	"github.com/hookwarden/hookwarden/policy"
	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/skewguard"
	"github.com/hookwarden/hookwarden/templates"
)

// realEngine is the real cmd/hookwarden binary (internal/testbin: built
// once per source state for every test process).
func realEngine(t testing.TB) string {
	t.Helper()
	return testbin.Hookwarden(t)
}

// world is one governed repository rendered by templates.Render, plus an
// environment in which no hookwarden engine is installed: PATH holds a
// directory with python3 (the real interpreter), git, the shells and the few
// tools the launcher and the tests call (date: the clock line).
type world struct {
	repo  string
	tools string // PATH directory with python3, git, sh, bash
	cache string // XDG_CACHE_HOME
	home  string
}

func newWorld(t testing.TB) *world {
	t.Helper()
	base := t.TempDir()
	w := &world{repo: filepath.Join(base, "repo"), tools: filepath.Join(base, "tools"), cache: filepath.Join(base, "cache"), home: filepath.Join(base, "home")}
	for _, d := range []string{w.repo, w.tools, w.cache, w.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files, err := templates.Render([]string{"claude", "codex", "gemini", "agy", "opencode", "lefthook"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		p := filepath.Join(w.repo, filepath.FromSlash(f.Path))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, f.Body, f.Mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(w.repo, ".hookwarden.yaml"), []byte("version: 1\nclients: [claude, codex, gemini, agy, opencode, lefthook]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testbin.Need(t, "python3")
	py, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Fatalf("python3 is required: %v", err)
	}
	link := func(name, target string) {
		if err := os.Symlink(target, filepath.Join(w.tools, name)); err != nil {
			t.Fatal(err)
		}
	}
	link("python3", strings.TrimSpace(string(py)))
	for _, tool := range []string{"git", "sh", "bash", "dash", "busybox", "cat", "head", "sleep", "printf", "dirname", "env", "id", "mkdir", "rm", "date"} {
		p, err := exec.LookPath(tool)
		if err != nil && optionalShells[tool] && !testbin.Require() {
			continue // run skips the commands that need it, saying so
		}
		if err != nil {
			t.Fatalf("%s is required: %v", tool, err)
		}
		link(tool, p)
	}
	if out, err := exec.Command("git", "init", "-q", w.repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	return w
}

// optionalShells are the shells a world links when the machine has them:
// run states a skip for a command that needs a missing one (a failure
// under HOOKWARDEN_E2E=require, where .ci/run has installed them).
var optionalShells = map[string]bool{"dash": true, "busybox": true}

// env returns the no-engine environment plus extra "K=V" entries.
func (w *world) env(extra ...string) []string {
	env := []string{"PATH=" + w.tools, "HOME=" + w.home, "XDG_CACHE_HOME=" + w.cache, "LANG=C.UTF-8"}
	return append(env, extra...)
}

type result struct {
	stdout, stderr string
	exit           int
	took           time.Duration
}

// run runs argv in dir with env and stdin and returns its answer; payloadDir
// in stdin becomes dir (inDir).
func run(t *testing.T, dir string, env []string, stdin string, argv ...string) result {
	t.Helper()
	if optionalShells[filepath.Base(argv[0])] {
		if _, err := os.Stat(argv[0]); err != nil {
			testbin.Need(t, filepath.Base(argv[0]))
		}
	}
	r, err := runReader(dir, env, strings.NewReader(inDir(stdin, dir)), argv...)
	if err != nil {
		t.Fatalf("%v: %v", argv, err)
	}
	return r
}

// runReader runs argv in dir with env and stdin (at most 60 s) and returns
// its answer; the error is one of starting or waiting, not an exit status.
// It calls no testing.T method, so goroutines may use it.
func runReader(dir string, env []string, stdin io.Reader, argv ...string) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, stdin
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			return result{}, err
		}
		code = ee.ExitCode()
	}
	return result{so.String(), se.String(), code, took}, nil
}

// launcherKinds are the ways the launcher is run: the sh launcher under each
// POSIX shell it must work in, as a program (the opencode plugin, lefthook,
// rows of earlier versions) and read into the shell the client starts (the
// sourced rows: "-sourced", hw_self set and the arguments as the positional
// parameters, the way templates.RegistrationCommand's forms do it), and the
// Python launcher (rows of earlier versions, Codex's commandWindows).
var launcherKinds = []string{"dash", "bash", "busybox", "dash-sourced", "bash-sourced", "busybox-sourced", "python"}

// sourcedScript is how a "-sourced" kind reads the launcher: the sourced
// rows' statements, with hw_self relative under dash (Gemini's and agy's
// form) and absolute under the others (Claude's and Codex's), and an exit
// code no launcher path uses when the launcher returns.
func sourcedScript(kind, sh string) string {
	self := sh
	if kind == "dash-sourced" {
		self = ".hookwarden/hook.sh"
	}
	return `hw_self='` + self + `'; command . "$hw_self"; echo "the launcher returned" >&2; exit 99`
}

// argv returns how kind runs the launcher at repo with args.
func (w *world) argv(kind string, args ...string) []string {
	sh := filepath.Join(w.repo, ".hookwarden", "hook.sh")
	var pre []string
	switch kind {
	case "dash", "bash":
		pre = []string{filepath.Join(w.tools, kind), sh}
	case "busybox":
		pre = []string{filepath.Join(w.tools, "busybox"), "sh", sh}
	case "dash-sourced", "bash-sourced":
		pre = []string{filepath.Join(w.tools, strings.TrimSuffix(kind, "-sourced")), "-c", sourcedScript(kind, sh), "client-shell"}
	case "busybox-sourced":
		pre = []string{filepath.Join(w.tools, "busybox"), "sh", "-c", sourcedScript(kind, sh), "client-shell"}
	default:
		pre = []string{filepath.Join(w.tools, "python3"), filepath.Join(w.repo, ".hookwarden", "hook.py")}
	}
	return append(pre, args...)
}

func (w *world) launcher(t *testing.T, kind string, env []string, stdin string, args ...string) result {
	t.Helper()
	return run(t, w.repo, env, stdin, w.argv(kind, args...)...)
}

// noPython returns a copy of the world's environment whose PATH holds
// every tool but python3.
func (w *world) noPython(t testing.TB, extra ...string) []string {
	t.Helper()
	dir := filepath.Join(filepath.Dir(w.tools), "tools-nopython")
	if _, err := os.Stat(dir); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		ents, err := os.ReadDir(w.tools)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if e.Name() == "python3" {
				continue
			}
			target, err := os.Readlink(filepath.Join(w.tools, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, filepath.Join(dir, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	env := w.env(extra...)
	env[0] = "PATH=" + dir
	return env
}

// forEachKind runs f as a subtest for every launcher kind.
func forEachKind(t *testing.T, f func(t *testing.T, kind string)) {
	for _, kind := range launcherKinds {
		t.Run(kind, func(t *testing.T) { f(t, kind) })
	}
}

// payloadDir stands, in a payload, for the directory the process runs in:
// run puts that directory there (inDir), as a client names its session
// directory in cwd (agy: workspacePaths). The engine never takes the
// process directory in place of a payload's.
const payloadDir = "@RUN_DIR@"

func inDir(stdin, dir string) string {
	q, _ := json.Marshal(dir)
	return strings.ReplaceAll(stdin, `"`+payloadDir+`"`, string(q))
}

func claudePre(command string) string {
	b, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": payloadDir, "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": command}})
	return string(b)
}

func geminiPre(command string) string {
	b, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": payloadDir, "hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": map[string]any{"command": command}})
	return string(b)
}

func agyPre(command string) string {
	b, _ := json.Marshal(map[string]any{"conversationId": "c", "stepIdx": 1, "workspacePaths": []string{payloadDir}, "toolCall": map[string]any{"name": "run_command", "args": map[string]any{"CommandLine": command}}})
	return string(b)
}

func refusal(t *testing.T, rule string) string {
	r, ok := policy.Refusal(rule)
	if !ok {
		t.Fatalf("no refusal for %s", rule)
	}
	return r
}

// fakeEngine writes a /bin/sh engine that lists the given pairs, logs every
// invocation's arguments to log, and answers a hand-off with a marker on
// stdout and stderr and exit code 7 (or sleeps when hang is set).
func fakeEngine(t *testing.T, dir string, pairs []string, hang, hangProbe bool) (bin, log string) {
	t.Helper()
	bin = filepath.Join(dir, "hookwarden")
	log = filepath.Join(dir, "calls.log")
	listing := strings.Join(pairs, "\n")
	probe := fmt.Sprintf("printf '%%s\\n' '%s'", strings.ReplaceAll(listing, "\n", "' '"))
	if hangProbe {
		probe = "sleep 60"
	}
	answer := `cat >/dev/null; echo "fake-engine $2 $3"; echo "fake-stderr $2 $3" >&2; exit 7`
	if hang {
		answer = "sleep 60"
	}
	script := fmt.Sprintf("#!/bin/sh\necho \"$*\" >> '%s'\nif [ \"$1\" = hook ] && [ $# -eq 1 ]; then %s; exit 0; fi\nif [ \"$1\" = hook ] && [ $# -eq 3 ]; then %s; fi\nexit 2\n", log, probe, answer)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, log
}

func calls(t *testing.T, log string) []string {
	b, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func allPairs(t *testing.T) []string {
	tbl, err := registration.Default()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(tbl.Listing()), "\n")
}

// TestCurrentEngine: with the real engine as HOOKWARDEN_BIN the launcher's
// answer is byte for byte the engine's own answer (stdout, stderr, exit),
// under every shell and the Python launcher, cold cache and warm.
func TestCurrentEngine(t *testing.T) {
	bin := realEngine(t)
	forEachKind(t, func(t *testing.T, kind string) {
		w := newWorld(t)
		env := w.env("HOOKWARDEN_BIN=" + bin)
		for round := 0; round < 2; round++ {
			for _, tc := range []struct{ client, event, stdin string }{
				{"claude", "pre-tool", claudePre("git commit --no-verify -m x")},
				{"claude", "pre-tool", claudePre("ls -la")},
				{"agy", "pre-tool", agyPre("sudo true")},
				{"claude", "stop", `{"hook_event_name":"Stop","cwd":"` + payloadDir + `","stop_hook_active":false}`},
				{"claude", "pre-tool", "not json"},
			} {
				direct := run(t, w.repo, env, tc.stdin, bin, "hook", tc.client, tc.event)
				got := w.launcher(t, kind, env, tc.stdin, tc.client, tc.event)
				if got.stdout != direct.stdout || got.stderr != direct.stderr || got.exit != direct.exit {
					t.Errorf("round %d, %s %s: launcher answered %q %q exit %d; the engine answers %q %q exit %d", round, tc.client, tc.event, got.stdout, got.stderr, got.exit, direct.stdout, direct.stderr, direct.exit)
				}
			}
		}
		deny := w.launcher(t, kind, env, claudePre("git commit --no-verify -m x"), "claude", "pre-tool")
		if deny.exit != 2 || !strings.HasPrefix(deny.stderr, "[BLOCKED BY hookwarden:git-no-verify]") {
			t.Errorf("the engine behind the launcher did not deny --no-verify: exit %d, stderr %q", deny.exit, deny.stderr)
		}
	})
}

// TestBoundedListing: asked the way the sh launcher asks, the real engine
// adds the bounded marker to its listing; asked plainly it does not, so the
// Python launcher and parseListing keep reading it.
func TestBoundedListing(t *testing.T) {
	bin := realEngine(t)
	w := newWorld(t)
	plain := run(t, w.repo, w.env(), "", bin, "hook")
	if _, err := parseListing([]byte(plain.stdout)); err != nil || strings.Contains(plain.stdout, skewguard.BoundedMarker) {
		t.Errorf("plain listing %q: %v", plain.stdout, err)
	}
	asked := run(t, w.repo, w.env(skewguard.ListingEnv+"="+skewguard.ListingLauncher), "", bin, "hook")
	if asked.stdout != plain.stdout+skewguard.BoundedMarker+"\n" {
		t.Errorf("listing asked by the launcher: %q, want the plain listing and %q", asked.stdout, skewguard.BoundedMarker)
	}
}

// cacheFiles returns the launcher's cache files (names) under w.cache.
func cacheFiles(t *testing.T, w *world) []string {
	ents, _ := os.ReadDir(filepath.Join(w.cache, "hookwarden"))
	var out []string
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestWarmCacheOneProcess: the listing is asked once per binary; later calls
// cost one engine process; a changed binary (mtime) is asked again; a corrupt
// cache is ignored and rewritten.
func TestWarmCacheOneProcess(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind string) {
		w := newWorld(t)
		bin, log := fakeEngine(t, filepath.Join(t.TempDir(), "eng"), allPairs(t), false, false)
		env := w.env("HOOKWARDEN_BIN=" + bin)
		for i := 0; i < 3; i++ {
			r := w.launcher(t, kind, env, "{}", "claude", "stop")
			if r.exit != 7 || r.stdout != "fake-engine claude stop\n" || r.stderr != "fake-stderr claude stop\n" {
				t.Fatalf("call %d: hand-off not passed through unchanged: %q %q exit %d", i, r.stdout, r.stderr, r.exit)
			}
		}
		want := []string{"hook", "hook claude stop", "hook claude stop", "hook claude stop"}
		if got := calls(t, log); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("engine invocations %q, want %q (one probe, then one process per call)", got, want)
		}
		files := cacheFiles(t, w)
		if len(files) == 0 {
			t.Fatalf("no cache file under %s", w.cache)
		}
		// A new engine binary at the same path (new mtime) is probed again.
		later := time.Now().Add(time.Minute)
		if err := os.Chtimes(bin, later, later); err != nil {
			t.Fatal(err)
		}
		w.launcher(t, kind, env, "{}", "claude", "stop")
		if got := calls(t, log); len(got) != 6 || got[4] != "hook" {
			t.Fatalf("after the binary changed: invocations %q, want a new probe", got)
		}
		// A corrupt cache is ignored and rewritten.
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(w.cache, "hookwarden", f), []byte("{not json"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		r := w.launcher(t, kind, env, "{}", "claude", "stop")
		if r.exit != 7 {
			t.Fatalf("with a corrupt cache: exit %d, stderr %q", r.exit, r.stderr)
		}
		if got := calls(t, log); len(got) != 8 || got[6] != "hook" {
			t.Fatalf("with a corrupt cache: invocations %q, want a new probe", got)
		}
		if kind == "python" {
			var doc map[string]any
			if b, _ := os.ReadFile(filepath.Join(w.cache, "hookwarden", "launcher-cache.json")); json.Unmarshal(b, &doc) != nil {
				t.Fatalf("the corrupt cache was not rewritten: %q", b)
			}
		} else if b, _ := os.ReadFile(filepath.Join(w.cache, "hookwarden", "launcher-v2-bin-claude-stop")); string(b) != bin+"\n\n" {
			t.Fatalf("the corrupt cache entry was not rewritten: %q", b)
		}
	})
}

// TestForgedCacheIsProbedAgain: a cache that says the engine does not serve
// the pair, or names another binary (written by hand, as an agent could), does
// not keep the call from the engine: the launcher probes again and hands off.
func TestForgedCacheIsProbedAgain(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind string) {
		w := newWorld(t)
		bin, log := fakeEngine(t, filepath.Join(t.TempDir(), "eng"), allPairs(t), false, false)
		env := w.env("HOOKWARDEN_BIN=" + bin)
		if r := w.launcher(t, kind, env, "{}", "claude", "stop"); r.exit != 7 {
			t.Fatalf("first call: exit %d, stderr %q", r.exit, r.stderr)
		}
		var forgeries []func()
		if kind == "python" {
			cacheFile := filepath.Join(w.cache, "hookwarden", "launcher-cache.json")
			var doc map[string]any
			b, err := os.ReadFile(cacheFile)
			if err != nil {
				t.Fatal(err)
			}
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.UseNumber() // keep size and mtime_ns exact, so the forged entry still matches the binary
			if err := dec.Decode(&doc); err != nil {
				t.Fatalf("cache %s: %v %q", cacheFile, err, b)
			}
			for _, forged := range []any{[]any{"claude pre-tool"}, nil} {
				forgeries = append(forgeries, func() {
					for _, e := range doc["entries"].(map[string]any) {
						e.(map[string]any)["pairs"] = forged
					}
					b, _ := json.Marshal(doc)
					if err := os.WriteFile(cacheFile, b, 0o644); err != nil {
						t.Fatal(err)
					}
				})
			}
		} else {
			entry := filepath.Join(w.cache, "hookwarden", "launcher-v2-bin-claude-stop")
			for _, forged := range []string{"", "/elsewhere/hookwarden\nbounded\n", bin + "x\nbounded\n"} {
				forgeries = append(forgeries, func() {
					if err := os.WriteFile(entry, []byte(forged), 0o644); err != nil {
						t.Fatal(err)
					}
				})
			}
			forgeries = append(forgeries, func() { os.Remove(entry) })
		}
		for i, forge := range forgeries {
			forge()
			before := len(calls(t, log))
			r := w.launcher(t, kind, env, "{}", "claude", "stop")
			if r.exit != 7 || r.stdout != "fake-engine claude stop\n" {
				t.Fatalf("forgery %d: exit %d, stdout %q, stderr %q; want the engine's answer", i, r.exit, r.stdout, r.stderr)
			}
			if got := calls(t, log)[before:]; strings.Join(got, "|") != "hook|hook claude stop" {
				t.Fatalf("forgery %d: engine invocations %q, want a new probe then the hand-off", i, got)
			}
		}
	})
}

// TestEngineWithoutRow: an engine whose table lacks a row (an old engine, or
// rows newer than the engine) is passed over for that row: the next
// candidate serving it gets the call, and when none does, pre-tool is judged
// by the standalone interceptor (and says so) while other events are a
// stated skip. A hookwarden inside the repository is never a candidate, not
// even on PATH.
func TestEngineWithoutRow(t *testing.T) {
	var small []string
	for _, p := range allPairs(t) {
		if p != "claude pre-tool" && p != "gemini stop" {
			small = append(small, p)
		}
	}
	forEachKind(t, func(t *testing.T, kind string) {
		w := newWorld(t)
		old, oldLog := fakeEngine(t, filepath.Join(t.TempDir(), "old"), small, false, false)
		repoBin, repoLog := fakeEngine(t, filepath.Join(w.repo, "bin"), allPairs(t), false, false)
		env := w.env("HOOKWARDEN_BIN=" + old)
		env[0] += string(os.PathListSeparator) + filepath.Dir(repoBin)

		r := w.launcher(t, kind, env, claudePre("git commit --no-verify -m x"), "claude", "pre-tool")
		want := refusal(t, "git-no-verify") + "\n"
		if r.exit != 2 || !strings.HasPrefix(r.stderr, want) || !strings.Contains(r.stderr, "standalone interceptor judged this call") {
			t.Errorf("old engine, claude pre-tool: exit %d stderr %q; want the interceptor's deny and a note", r.exit, r.stderr)
		}
		r = w.launcher(t, kind, env, claudePre("ls"), "claude", "pre-tool")
		if r.exit != 0 || r.stdout != "" {
			t.Errorf("old engine, harmless command: exit %d stdout %q, want an allow", r.exit, r.stdout)
		}
		r = w.launcher(t, kind, env, "{}", "gemini", "stop")
		if r.exit != 0 || !strings.HasPrefix(r.stderr, "hookwarden: skip: launcher: no installed hookwarden engine serves gemini stop") {
			t.Errorf("old engine, gemini stop: exit %d stderr %q, want a stated skip", r.exit, r.stderr)
		}
		r = w.launcher(t, kind, env, "{}", "claude", "stop")
		if r.exit != 7 {
			t.Errorf("old engine, claude stop (a row it has): exit %d, want the engine's", r.exit)
		}
		for _, c := range calls(t, oldLog) {
			if strings.HasPrefix(c, "hook claude pre-tool") || strings.HasPrefix(c, "hook gemini stop") {
				t.Errorf("the old engine was handed a pair it does not serve: %q", c)
			}
		}
		if got := calls(t, repoLog); len(got) != 0 {
			t.Errorf("the repository's bin/hookwarden was run: %q; it is never a candidate", got)
		}

		// A second candidate on PATH, outside the repository, that serves the
		// row gets the call.
		newer, newerLog := fakeEngine(t, filepath.Join(t.TempDir(), "newer"), allPairs(t), false, false)
		env[0] = "PATH=" + filepath.Dir(newer) + string(os.PathListSeparator) + strings.TrimPrefix(env[0], "PATH=")
		r = w.launcher(t, kind, env, claudePre("ls"), "claude", "pre-tool")
		if r.exit != 7 || r.stdout != "fake-engine claude pre-tool\n" {
			t.Errorf("newer engine on PATH: exit %d stdout %q, want its answer", r.exit, r.stdout)
		}
		if got := calls(t, newerLog); len(got) != 2 || got[1] != "hook claude pre-tool" {
			t.Errorf("newer engine invocations %q", got)
		}
	})
}

// TestNoEngine: nothing installed. pre-tool denies through the interceptor in
// each client's dialect; other events are stated skips in the dialect. With
// no python3 either, the sh launcher's pre-tool is a deny naming what to
// install (never a status the client ignores).
func TestNoEngine(t *testing.T) {
	nv := refusal(t, "git-no-verify")
	cases := []struct {
		client, event, stdin string
		stdout               string
		stderrPrefix         string
		exit                 int
	}{
		{"claude", "pre-tool", claudePre("git commit --no-verify -m x"), "", nv + "\n", 2},
		{"codex", "pre-tool", claudePre("git commit --no-verify -m x"), "", nv + "\n", 2},
		{"gemini", "pre-tool", geminiPre("git commit --no-verify"), "", nv + "\n", 2},
		{"agy", "pre-tool", agyPre("sudo true"), `{"decision":"deny","reason":` + jsonString(refusal(t, "privilege-escalation")) + "}\n", "hookwarden: launcher:", 0},
		{"opencode", "pre-tool", `{"cwd":"` + payloadDir + `","input":{"tool":"bash","sessionID":"s","callID":"c"},"output":{"args":{"command":"git commit --no-verify","description":"d"}}}`, "", nv + "\n", 2},
		{"lefthook", "pre-tool", claudePre("git commit --no-verify"), "", nv + "\n", 1},
		{"claude", "pre-tool", "not json", "", "[BLOCKED BY hookwarden:invalid-input]", 2},
		{"claude", "stop", "{}", "", "hookwarden: skip: launcher: no installed hookwarden engine serves claude stop", 0},
		{"agy", "stop", "{}", `{"decision":"allow"}` + "\n", "hookwarden: skip: launcher:", 0},
		{"claude", "pre-edit", "{}", "", "hookwarden: skip: launcher:", 0},
	}
	forEachKind(t, func(t *testing.T, kind string) {
		w := newWorld(t)
		env := w.env()
		for _, tc := range cases {
			r := w.launcher(t, kind, env, tc.stdin, tc.client, tc.event)
			if r.exit != tc.exit || r.stdout != tc.stdout || !strings.HasPrefix(r.stderr, tc.stderrPrefix) {
				t.Errorf("%s %s: stdout %q stderr %q exit %d; want stdout %q, stderr starting %q, exit %d", tc.client, tc.event, r.stdout, r.stderr, r.exit, tc.stdout, tc.stderrPrefix, tc.exit)
			}
		}
		if kind == "python" {
			return
		}
		install := "python3 is not on PATH for the standalone interceptor; install hookwarden (or python3)"
		for _, tc := range []struct {
			client, stdout string
			exit           int
		}{
			{"claude", "", 2}, {"codex", "", 2}, {"gemini", "", 2}, {"opencode", "", 2}, {"lefthook", "", 1},
			{"agy", `{"decision":"deny","reason":"[BLOCKED BY hookwarden:launcher]`, 0},
		} {
			r := w.launcher(t, kind, w.noPython(t), claudePre("ls"), tc.client, "pre-tool")
			where := r.stderr
			if tc.client == "agy" {
				where = r.stdout
			}
			if r.exit != tc.exit || !strings.HasPrefix(r.stdout, tc.stdout) || !strings.Contains(where, install) {
				t.Errorf("no engine, no python3, %s pre-tool: stdout %q stderr %q exit %d; want a deny (exit %d) naming what to install", tc.client, r.stdout, r.stderr, r.exit, tc.exit)
			}
		}
		r := w.launcher(t, kind, w.noPython(t), "{}", "claude", "stop")
		if r.exit != 0 || !strings.HasPrefix(r.stderr, "hookwarden: skip: launcher:") {
			t.Errorf("no engine, no python3, claude stop: exit %d stderr %q, want a stated skip", r.exit, r.stderr)
		}
	})
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestHangingEngine: an engine that never answers (and did not declare
// itself bounded) is ended and the launcher answers before the client's
// timeout for the row: deny for pre-tool (fail closed), in the client's
// dialect; a probe that hangs is given up and the next candidate (here none:
// the interceptor) decides. A process the hung engine left behind holds none
// of the client's pipes: the answer arrives at the deadline, not when that
// process ends. The cases wait in parallel (they sleep, not compute).
func TestHangingEngine(t *testing.T) {
	tbl, err := registration.Default()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	for _, kind := range launcherKinds {
		for _, tc := range []struct {
			client, stdin string
			hangProbe     bool
		}{
			{"claude", claudePre("ls"), false},
			{"agy", agyPre("ls"), false},
			{"gemini", geminiPre("git commit --no-verify"), true},
		} {
			w := newWorld(t)
			bin, _ := fakeEngine(t, filepath.Join(t.TempDir(), "eng"), allPairs(t), true, tc.hangProbe)
			row, _ := tbl.Lookup(tc.client, "pre-tool")
			wg.Add(1)
			go func() {
				defer wg.Done()
				fail := func(format string, args ...any) {
					mu.Lock()
					failures = append(failures, kind+" "+tc.client+": "+fmt.Sprintf(format, args...))
					mu.Unlock()
				}
				r, err := runReader(w.repo, w.env("HOOKWARDEN_BIN="+bin), strings.NewReader(inDir(tc.stdin, w.repo)), w.argv(kind, tc.client, "pre-tool")...)
				if err != nil {
					fail("%v", err)
					return
				}
				code, took, so, se := r.exit, r.took, r.stdout, r.stderr
				if took >= row.ClientTimeout() {
					fail("the launcher answered after %v, not before the client's timeout %v", took, row.ClientTimeout())
				}
				switch {
				case tc.hangProbe:
					// The probe gave up within its 2 s cap; the interceptor judged.
					if code != 2 || !strings.HasPrefix(se, refusal(t, "git-no-verify")) || took > 8*time.Second {
						fail("hanging probe: exit %d stderr %q after %v", code, se, took)
					}
				case tc.client == "agy":
					if code != 0 || !strings.HasPrefix(so, `{"decision":"deny","reason":"[BLOCKED BY hookwarden:launcher]`) {
						fail("hanging engine: stdout %q exit %d, want a deny JSON", so, code)
					}
				default:
					if code != 2 || !strings.Contains(se, "did not answer within") {
						fail("hanging engine: exit %d stderr %q, want a deny (exit 2)", code, se)
					}
				}
			}()
		}
	}
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}
}

// TestMalformedArguments: the launcher's own arguments are checked first;
// malformed ones exit 2 (and agy also gets a deny it can read).
func TestMalformedArguments(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind string) {
		w := newWorld(t)
		for _, args := range [][]string{{}, {"claude"}, {"claude", "pre-tool", "extra"}, {"Claude", "pre-tool"}, {"claude", "no-such-event"}, {"nobody", "pre-tool"}, {"claude", "pre tool"}, {"agy", "bogus"}, {"claude", "pre-tool;"}, {"claude/pre-tool=1;claude", "x"}, {"", ""}} {
			r := w.launcher(t, kind, w.env(), claudePre("ls"), args...)
			if r.exit != 2 || !strings.Contains(r.stderr, "usage: hook.") {
				t.Errorf("args %q: exit %d stderr %q, want exit 2 with usage", args, r.exit, r.stderr)
			}
			if len(args) > 0 && args[0] == "agy" && !strings.HasPrefix(r.stdout, `{"decision":"deny"`) {
				t.Errorf("args %q: stdout %q, want a deny JSON for agy", args, r.stdout)
			}
		}
	})
}

// TestRegistrationStrings runs every client's registration command for
// pre-tool the way that client runs it (measured, see templates
// RegistrationCommand: Claude Code /bin/sh -c with CLAUDE_PROJECT_DIR and cwd
// the project; Codex /bin/bash -c with cwd the session directory, possibly a
// subdirectory; Gemini bash -c with cwd the project; agy from the directory
// holding hooks.json), also under busybox sh and `$SHELL -lc`, with and
// without an engine, and with neither an engine nor python3.
func TestRegistrationStrings(t *testing.T) {
	w := newWorld(t)
	bin := realEngine(t)
	engDir := filepath.Join(t.TempDir(), "enginepath")
	os.MkdirAll(engDir, 0o755)
	if err := os.Symlink(bin, filepath.Join(engDir, "hookwarden")); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(w.repo, "deep", "sub")
	os.MkdirAll(sub, 0o755)
	shell := os.Getenv("SHELL")
	if shell == "" {
		shell = "/bin/sh"
	}
	nv := "git commit --no-verify -m x"
	gem := geminiPre(nv)
	for _, tc := range []struct {
		client, dir, stdin string
		env                []string
		wantOut            string
		wantExit           int
	}{
		{"claude", w.repo, claudePre(nv), []string{"CLAUDE_PROJECT_DIR=" + w.repo}, "", 2},
		{"codex", sub, claudePre(nv), nil, "", 2},
		{"codex", w.repo, claudePre(nv), nil, "", 2},
		{"gemini", w.repo, gem, []string{"GEMINI_PROJECT_DIR=" + w.repo, "CLAUDE_PROJECT_DIR=" + w.repo}, "", 2},
		{"agy", filepath.Join(w.repo, ".agents", "plugins", "hookwarden"), agyPre(nv), nil, `{"decision":"deny"`, 0},
		{"opencode", w.repo, `{"cwd":"` + payloadDir + `","input":{"tool":"bash","sessionID":"s","callID":"c"},"output":{"args":{"command":"` + nv + `","description":"d"}}}`, nil, "", 2},
		{"lefthook", w.repo, claudePre(nv), nil, "", 1},
	} {
		cmdline, err := templates.RegistrationCommand(tc.client, "pre-tool")
		if err != nil {
			t.Fatal(err)
		}
		for _, setup := range []string{"no engine", "engine on PATH", "neither engine nor python3"} {
			env := w.env(tc.env...)
			switch setup {
			case "engine on PATH":
				env[0] = "PATH=" + engDir + string(os.PathListSeparator) + w.tools
			case "neither engine nor python3":
				env = w.noPython(t, tc.env...)
			}
			for _, sh := range [][]string{{"/bin/sh", "-c"}, {"/bin/bash", "-c"}, {filepath.Join(w.tools, "busybox"), "sh", "-c"}, {shell, "-lc"}} {
				argv := append(append([]string{}, sh...), cmdline)
				if sh[len(sh)-1] == "-lc" {
					// A login shell may reset PATH from /etc/profile; the
					// client hands the hook its own PATH, which we restore the
					// way a profile-respecting setup would.
					argv = append(append([]string{}, sh...), "PATH="+strings.TrimPrefix(env[0], "PATH=")+"; export PATH; "+cmdline)
				}
				r := run(t, tc.dir, env, tc.stdin, argv...)
				if setup == "neither engine nor python3" {
					where := r.stderr
					if tc.client == "agy" {
						where = r.stdout
					}
					if r.exit != tc.wantExit || !strings.HasPrefix(r.stdout, tc.wantOut) || !strings.Contains(where, "install hookwarden") {
						t.Errorf("%s via %s (%s): %q → exit %d stdout %q stderr %q; want exit %d and a deny naming what to install", tc.client, strings.Join(sh, " "), setup, cmdline, r.exit, r.stdout, r.stderr, tc.wantExit)
					}
					continue
				}
				if r.exit != tc.wantExit || !strings.HasPrefix(r.stdout, tc.wantOut) || !strings.Contains(r.stderr+r.stdout, "git-no-verify") {
					t.Errorf("%s via %s (%s): %q → exit %d stdout %q stderr %q; want exit %d and the no-verify deny", tc.client, strings.Join(sh, " "), setup, cmdline, r.exit, r.stdout, r.stderr, tc.wantExit)
				}
				if setup == "no engine" && tc.client != "agy" && !strings.Contains(r.stderr, "standalone interceptor") {
					t.Errorf("%s via %s without an engine: stderr %q does not say the interceptor judged", tc.client, strings.Join(sh, " "), r.stderr)
				}
			}
		}
	}
	if runtime.GOOS == "windows" {
		t.Log("Windows shells are not exercised on this platform")
	}
}

// TestStdinNeverClosed: a client that writes part of a payload and never
// closes stdin gets a deny before the row's client timeout, never a hang
// until that timeout (which Codex and Gemini CLI treat as "let the call
// through"): from the real engine behind the sh launcher (its own budget,
// 5 s), from a fake engine that never declared itself bounded (the
// launcher's watchdog at the row's deadline less the probe's 2 s cap, which
// sh, having no clock, counts as spent), from the interceptor when no
// engine is installed (its budget), and from the Python launcher (its
// budget; never Python's shutdown abort, exit 134). The cases wait in
// parallel. An answer counts when it comes before the client's timeout
// (what the client honours); earlier than the budget would mean a wait
// cut short. A bound of budget + 3 s failed on a loaded two-core machine
// (8.0-8.4 s, 2026-12-06) while every answer still came 6.6 s before the
// client gave up.
func TestStdinNeverClosed(t *testing.T) {
	tbl, err := registration.Default()
	if err != nil {
		t.Fatal(err)
	}
	row, _ := tbl.Lookup("claude", "pre-tool")
	deadline := time.Duration(skewguard.DeadlineMillis(row)) * time.Millisecond
	w := newWorld(t)
	fake, _ := fakeEngine(t, filepath.Join(t.TempDir(), "eng"), allPairs(t), false, false)
	real := realEngine(t)
	py := filepath.Join(w.tools, "python3")
	type tcase struct {
		name     string
		env      []string
		argv     []string
		want     string
		from, to time.Duration
	}
	var cases []tcase
	for _, kind := range launcherKinds {
		argv := w.argv(kind, "claude", "pre-tool")
		if kind == "python" {
			cases = append(cases,
				tcase{"python launcher, engine installed", w.env("HOOKWARDEN_BIN=" + fake), argv, "stdin was not closed", row.Budget(), row.ClientTimeout()},
				tcase{"python launcher, no engine", w.env(), argv, "stdin was not closed", row.Budget(), row.ClientTimeout()})
			continue
		}
		cases = append(cases,
			tcase{kind + ", real engine", w.env("HOOKWARDEN_BIN=" + real), argv, "could not read the claude pre-tool payload", row.Budget(), row.ClientTimeout()},
			tcase{kind + ", unbounded engine", w.env("HOOKWARDEN_BIN=" + fake), argv, "did not answer within", deadline - 2*time.Second, row.ClientTimeout()},
			tcase{kind + ", no engine", w.env(), argv, "stdin was not closed", row.Budget(), row.ClientTimeout()})
	}
	cases = append(cases, tcase{"interceptor", w.env(), []string{py, filepath.Join(w.repo, ".hookwarden", "interceptor.py"), "claude"}, "stdin was not closed", row.Budget(), row.ClientTimeout()})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	for _, tc := range cases {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pw.WriteString(`{"hook_event_name":"PreToolUse","tool_name":"Bash"`); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer pw.Close()
			fail := func(format string, args ...any) {
				mu.Lock()
				failures = append(failures, tc.name+": "+fmt.Sprintf(format, args...))
				mu.Unlock()
			}
			r, err := runReader(w.repo, tc.env, pr, tc.argv...)
			pr.Close()
			if err != nil {
				fail("%v", err)
				return
			}
			code, took := r.exit, r.took
			if code != 2 || !strings.Contains(r.stderr, tc.want) {
				fail("exit %d, stderr %q; want exit 2 with %q", code, r.stderr, tc.want)
			}
			if took < tc.from || took >= tc.to {
				fail("answered after %v, want within [%v, %v) (client timeout %v)", took, tc.from, tc.to, row.ClientTimeout())
			}
		}()
	}
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}
}

// TestStdinClosed: a launcher started with its stdin closed (not a pipe, no
// descriptor at all) still answers pre-tool with a deny in the client's
// dialect, with and without an engine, under every shell.
func TestStdinClosed(t *testing.T) {
	bin := realEngine(t)
	forEachKind(t, func(t *testing.T, kind string) {
		w := newWorld(t)
		for _, env := range [][]string{w.env("HOOKWARDEN_BIN=" + bin), w.env()} {
			argv := w.argv(kind, "claude", "pre-tool")
			script := `exec 0<&-; exec "$@"`
			r := run(t, w.repo, env, "", append([]string{filepath.Join(w.tools, "dash"), "-c", script, "sh"}, argv...)...)
			if r.exit != 2 || !strings.Contains(r.stderr, "[BLOCKED BY hookwarden:") {
				t.Errorf("stdin closed (%s): exit %d stdout %q stderr %q; want a deny (exit 2)", env[len(env)-1], r.exit, r.stdout, r.stderr)
			}
		}
	})
}

// TestSourcedRowWithoutLauncher: a sourced row whose launcher file is
// missing, empty or cut short (the client's shell reads it and returns)
// still answers: pre-tool, pre-skill-shell and pre-edit deny (exit 2 with the reason on
// stderr; agy its deny JSON), other events end with exit 1, a non-blocking
// error (Claude's Stop is not held). Under every shell a client may start.
func TestSourcedRowWithoutLauncher(t *testing.T) {
	tbl, err := registration.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, damage := range []string{"missing", "empty", "cut short"} {
		w := newWorld(t)
		for _, p := range []string{templates.LauncherPath, templates.AgyLauncherPath} {
			f := filepath.Join(w.repo, filepath.FromSlash(p))
			body, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			switch damage {
			case "missing":
				err = os.Remove(f)
			case "empty":
				err = os.WriteFile(f, nil, 0o644)
			default:
				err = os.WriteFile(f, body[:len(body)/3], 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		for _, r := range tbl.Rows {
			cmdline, err := templates.RegistrationCommand(r.Client, r.Event)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(cmdline, "hw_") { // run as a program (opencode, lefthook, copilot)
				continue
			}
			dir, env := w.repo, w.env("CLAUDE_PROJECT_DIR="+w.repo)
			if r.Client == "agy" {
				dir = filepath.Join(w.repo, filepath.FromSlash(templates.AgyPluginDir))
			}
			gating := r.Event == "pre-tool" || r.Event == "pre-skill-shell" || r.Event == "pre-edit" || r.Event == "pre-dispatch" || r.Event == "pre-handback"
			for _, sh := range [][]string{{"/bin/sh", "-c"}, {"/bin/bash", "-c"}, {filepath.Join(w.tools, "busybox"), "sh", "-c"}} {
				res := run(t, dir, env, claudePre("ls"), append(append([]string{}, sh...), cmdline)...)
				switch {
				case gating && r.Client == "agy":
					if res.exit != 0 || !strings.HasPrefix(res.stdout, `{"decision":"deny","reason":"[BLOCKED BY hookwarden:launcher]`) {
						t.Errorf("%s launcher, %s %s via %s: exit %d stdout %q; want agy's deny", damage, r.Client, r.Event, sh[0], res.exit, res.stdout)
					}
				case gating:
					if res.exit != 2 || !strings.Contains(res.stderr, "[BLOCKED BY hookwarden:launcher] the launcher ") {
						t.Errorf("%s launcher, %s %s via %s: exit %d stderr %q; want a deny (exit 2)", damage, r.Client, r.Event, sh[0], res.exit, res.stderr)
					}
				default:
					if res.exit != 1 || !strings.Contains(res.stderr, "could not be read; run hookwarden conform") {
						t.Errorf("%s launcher, %s %s via %s: exit %d stderr %q; want exit 1 with the reason", damage, r.Client, r.Event, sh[0], res.exit, res.stderr)
					}
				}
			}
		}
	}
}

// TestEngineSignalDeath: a bounded engine (its listing cached) that dies of a
// signal before answering. Where the launcher waits for it (claude, agy) the
// call is denied in the client's dialect; for codex and gemini the client's
// bash became the engine (exec, for speed: see hook.sh's common path), so
// the client sees the signal itself, as the README states.
func TestEngineSignalDeath(t *testing.T) {
	// The sh launcher only: the Python launcher has no cached common path
	// (its watchdog path is TestHangingEngine's).
	for _, kind := range slices.DeleteFunc(slices.Clone(launcherKinds), func(k string) bool { return k == "python" }) {
		t.Run(kind, func(t *testing.T) { engineSignalDeath(t, kind) })
	}
}

func engineSignalDeath(t *testing.T, kind string) {
	{
		w := newWorld(t)
		dir := filepath.Join(t.TempDir(), "eng")
		os.MkdirAll(dir, 0o755)
		bin := filepath.Join(dir, "hookwarden")
		listing := strings.Join(allPairs(t), "' '")
		script := "#!/bin/sh\nif [ \"$1\" = hook ] && [ $# -eq 1 ]; then printf '%s\\n' '" + listing + "' '@bounded'; exit 0; fi\nkill -KILL $$\n"
		if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		env := w.env("HOOKWARDEN_BIN=" + bin)
		for _, tc := range []struct{ client, stdin string }{{"claude", claudePre("ls")}, {"agy", agyPre("ls")}, {"gemini", geminiPre("ls")}, {"codex", claudePre("ls")}} {
			w.launcher(t, kind, env, tc.stdin, tc.client, "pre-tool") // probes and caches
			r := w.launcher(t, kind, env, tc.stdin, tc.client, "pre-tool")
			switch tc.client {
			case "claude":
				if r.exit != 2 || !strings.Contains(r.stderr, "ended on signal 9") {
					t.Errorf("claude: exit %d stderr %q; want a deny naming the signal", r.exit, r.stderr)
				}
			case "agy":
				if r.exit != 0 || !strings.HasPrefix(r.stdout, `{"decision":"deny"`) {
					t.Errorf("agy: exit %d stdout %q; want a deny JSON", r.exit, r.stdout)
				}
			default:
				if r.exit != -1 {
					t.Errorf("%s: exit %d stderr %q; want the engine's own signal death (the shell exec'd it)", tc.client, r.exit, r.stderr)
				}
			}
		}
	}
}

// TestNoEngineGuardEdit: with no engine installed, a pre-edit whose payload
// may name one of the guard's own files is refused (exit 2 with the reason),
// so that removing the engine first does not turn an edit of
// .hookwarden.yaml into a stated skip; an ordinary edit stays a stated
// skip, and a skill's inline shell command is refused by both launchers.
func TestNoEngineGuardEdit(t *testing.T) {
	edit := func(path string) string {
		return `{"hook_event_name":"PreToolUse","tool_name":"Write","cwd":"` + payloadDir + `","tool_input":{"file_path":"` + path + `","content":"x"}}`
	}
	deny := "[BLOCKED BY hookwarden:launcher] no installed hookwarden engine serves "
	skip := "hookwarden: skip: launcher: no installed hookwarden engine serves "
	cases := []struct {
		name, client, event, stdin, stderrPrefix string
		exit                                     int
	}{
		{"config", "claude", "pre-edit", edit(".hookwarden.yaml"), deny, 2},
		{"config folded", "claude", "pre-edit", edit(".HookWarden.YAML"), deny, 2},
		{"launcher", "claude", "pre-edit", edit(payloadDir + "/.hookwarden/hook.sh"), deny, 2},
		{"claude settings", "claude", "pre-edit", edit(".claude/settings.json"), deny, 2},
		{"claude local settings", "claude", "pre-edit", edit(".claude/settings.local.json"), deny, 2},
		{"lefthook config", "claude", "pre-edit", edit("lefthook.yml"), deny, 2},
		{"escaped name", "claude", "pre-edit", edit(`.\u0068ookwarden.yaml`), deny, 2},
		{"codex patch", "codex", "pre-edit", `{"hook_event_name":"PreToolUse","tool_name":"apply_patch","cwd":"` + payloadDir + `","tool_input":{"command":"*** Begin Patch\n*** Delete File: .codex/hooks.json\n*** End Patch"}}`, deny, 2},
		{"gemini settings", "gemini", "pre-edit", `{"hook_event_name":"BeforeTool","tool_name":"write_file","cwd":"` + payloadDir + `","tool_input":{"file_path":".gemini/settings.json","content":"{}"}}`, deny, 2},
		{"ordinary edit", "claude", "pre-edit", edit("src/main.go"), skip + "claude pre-edit", 0},
		{"ordinary codex patch", "codex", "pre-edit", `{"hook_event_name":"PreToolUse","tool_name":"apply_patch","cwd":"` + payloadDir + `","tool_input":{"command":"*** Begin Patch\n*** Add File: notes.txt\n+hi\n*** End Patch"}}`, skip + "codex pre-edit", 0},
		{"skill shell", "claude", "pre-skill-shell", `{"hook_event_name":"PreSkillShellCommand","cwd":"` + payloadDir + `","command":"ls"}`, "[BLOCKED BY hookwarden:launcher] no installed hookwarden engine serves ", 2},
	}
	forEachKind(t, func(t *testing.T, kind string) {
		w := newWorld(t)
		env := w.env()
		for _, tc := range cases {
			r := w.launcher(t, kind, env, tc.stdin, tc.client, tc.event)
			if r.exit != tc.exit || r.stdout != "" || !strings.HasPrefix(r.stderr, tc.stderrPrefix) {
				t.Errorf("%s (%s %s): stdout %q stderr %q exit %d; want stderr starting %q, exit %d", tc.name, tc.client, tc.event, r.stdout, r.stderr, r.exit, tc.stderrPrefix, tc.exit)
			}
		}
	})
}
