package live

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookwarden/hookwarden/internal/testbin"

	"github.com/hookwarden/hookwarden/engine/hook"
	"github.com/hookwarden/hookwarden/policy"
	"github.com/hookwarden/hookwarden/templates"
)

// trivialSource is the comparison program of the whole-process target, as
// the target names it: a Go binary that reads stdin, decodes it as JSON and
// writes a line.
const trivialSource = `package main

import (
	"encoding/json"
	"os"
)

func main() {
	var v map[string]any
	if err := json.NewDecoder(os.Stdin).Decode(&v); err != nil {
		os.Exit(1)
	}
	os.Stdout.WriteString("{}\n")
}
`

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// binaries returns the hookwarden binary (internal/testbin) and builds the
// hook-path-only testdata/enginemain and the trivial binary once per test
// process, into a temporary directory that lives until the process ends. It
// returns the paths of hookwarden and the trivial binary; enginemain is
// beside the trivial one.
func binaries(tb testing.TB) (hookwarden, trivial string) {
	tb.Helper()
	hookwarden = testbin.Hookwarden(tb)
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "hookwarden-bin-")
		if buildErr != nil {
			return
		}
		src := filepath.Join(buildDir, "trivial.go")
		if buildErr = os.WriteFile(src, []byte(trivialSource), 0o644); buildErr != nil {
			return
		}
		// Built as internal/testbin builds hookwarden (CGO_ENABLED=0, a
		// static binary): a dynamically linked reference would pay the
		// dynamic loader's start and flatter every ratio.
		for _, b := range [][2]string{{"enginemain", "./testdata/enginemain"}, {"depsfloor", "./testdata/depsfloor"}, {"trivial", src}} {
			cmd := exec.Command("go", "build", "-o", filepath.Join(buildDir, b[0]), b[1])
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = &buildError{b[0], err, out}
				return
			}
		}
	})
	if buildErr != nil {
		tb.Fatal(buildErr)
	}
	return hookwarden, filepath.Join(buildDir, "trivial")
}

type buildError struct {
	what string
	err  error
	out  []byte
}

func (e *buildError) Error() string {
	return "go build " + e.what + ": " + e.err.Error() + "\n" + string(e.out)
}

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// claudePayload returns the recorded Claude pre-tool payload with its cwd
// pointing at repo and its command replaced.
func claudePayload(tb testing.TB, repo, command string) []byte {
	return payloadFor(tb, "claude", command, repo)
}

// BenchmarkHookProcess measures the whole process: exec the built
// hookwarden binary on a Claude pre-tool payload (piped, as the clients hand
// it over) in a governed temporary repository, alternated with four
// references that take the gap apart:
//   - trivial (trivialSource: read stdin, decode JSON, write a line), the
//     program the target names;
//   - testdata/depsfloor, the trivial program linked with every package
//     outside this module that the hook path links: their initialisation
//     and size, none of our code;
//   - testdata/enginemain -start-only, the hook-path-only binary doing what
//     the trivial program does: our packages initialised and mapped, no hook
//     work;
//   - testdata/enginemain, the hook path without the other verbs' packages.
//
// All are built like hookwarden (CGO_ENABLED=0) and run one of each per
// iteration in an order that rotates, so that a change of load on a shared
// machine reaches all alike and none always runs after the same one. The
// target is hookwarden's median within 1.3x of the trivial binary's:
// reported as x-trivial; each reference's median is reported in
// milliseconds and as its own ratio to trivial (depsfloor-x-trivial,
// startonly-x-trivial, enginemain-x-trivial). Also reported: hookwarden's
// user and system CPU time (milliseconds per run) and minor page faults per
// run (getrusage), which vary less than wall time.
func BenchmarkHookProcess(b *testing.B) {
	hw, trivial := binaries(b)
	engine := filepath.Join(filepath.Dir(trivial), "enginemain")
	floor := filepath.Join(filepath.Dir(trivial), "depsfloor")
	repo, _ := governedRepo(b)
	payload := claudePayload(b, repo, "git status")
	home := filepath.Join(filepath.Dir(repo), "home")
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "PATH=" + os.Getenv("PATH")}
	type series struct {
		name      string
		argv      []string
		times     []time.Duration
		user, sys time.Duration
		faults    int64
	}
	all := []*series{
		{name: "hookwarden", argv: []string{hw, "hook", "claude", "pre-tool"}},
		{name: "trivial", argv: []string{trivial}},
		{name: "depsfloor", argv: []string{floor}},
		{name: "startonly", argv: []string{engine, "-start-only"}},
		{name: "enginemain", argv: []string{engine, "claude", "pre-tool"}},
	}
	for i := 0; i < b.N; i++ {
		// The order rotates every iteration: a fixed order moved a binary's
		// median by up to 0.1 ms depending on which one ran before it.
		for k := range all {
			s := all[(i+k)%len(all)]
			cmd := exec.Command(s.argv[0], s.argv[1:]...)
			cmd.Stdin = bytes.NewReader(payload)
			cmd.Env = env
			cmd.Dir = repo
			start := time.Now()
			if err := cmd.Run(); err != nil {
				b.Fatalf("%s: %v", s.argv[0], err)
			}
			s.times = append(s.times, time.Since(start))
			s.user += cmd.ProcessState.UserTime()
			s.sys += cmd.ProcessState.SystemTime()
			s.faults += minorFaults(cmd.ProcessState)
		}
	}
	// The target is about the median: the mean (ns/op, all binaries
	// together) is inflated by a loaded machine's outliers.
	median := func(s *series) float64 {
		slices.Sort(s.times)
		return float64(s.times[len(s.times)/2].Microseconds()) / 1000
	}
	hwMed, trivMed := median(all[0]), median(all[1])
	b.ReportMetric(hwMed, "median-ms")
	b.ReportMetric(trivMed, "trivial-median-ms")
	b.ReportMetric(hwMed/trivMed, "x-trivial")
	for _, s := range all[2:] {
		m := median(s)
		b.ReportMetric(m, s.name+"-median-ms")
		b.ReportMetric(m/trivMed, s.name+"-x-trivial")
	}
	b.ReportMetric(float64(all[0].user.Microseconds())/1000/float64(b.N), "user-ms")
	b.ReportMetric(float64(all[0].sys.Microseconds())/1000/float64(b.N), "sys-ms")
	b.ReportMetric(float64(all[0].faults)/float64(b.N), "minflt")
}

// BenchmarkHookRun measures the dispatcher in process (no exec): read,
// decode, locate the repository, load settings, build the policy, judge,
// encode.
func BenchmarkHookRun(b *testing.B) {
	deps, err := Deps()
	if err != nil {
		b.Fatal(err)
	}
	repo, lookup := governedRepo(b)
	payload := string(claudePayload(b, repo, "git commit -m 'fix: typo' && git push origin HEAD"))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		resp := hook.Run(context.Background(), deps, hook.Request{Client: "claude", Event: "pre-tool",
			Stdin: strings.NewReader(payload), LookupEnv: lookup, Cwd: "/"})
		if resp.Exit != 0 {
			b.Fatalf("exit %d: %s", resp.Exit, resp.Stderr)
		}
	}
}

// BenchmarkPolicyBuild measures building the command policy (policy.New
// through NewPolicy), which the pre-tool path does once per call.
func BenchmarkPolicyBuild(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := NewPolicy(nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPolicyJudge measures judging one typical command with a built
// policy.
func BenchmarkPolicyJudge(b *testing.B) {
	p, err := NewPolicy(nil)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		p.JudgeAt(policy.NewCommand("git commit -m 'fix: typo' && git push origin HEAD"), dir, nil)
	}
}

// growthShapes are the shapes whose work used to grow with the command
// (issue 14 item 1), each at the scan bound (256 directory operands, 8
// nesting levels, 63 launcher words, 256 parentheses, the 2 KiB line) and
// just past it. Run from a directory above the governed repository, so the
// directory scan decides whether the command is judged there at all.
var growthShapes = []struct {
	name, command string
}{
	{"cd-16", strings.Repeat("cd a; ", 15) + "cd repo; git commit --no-verify -m x"},
	{"cd-26", strings.Repeat("cd a; ", 25) + "cd repo; git commit --no-verify -m x"},
	{"cd-256", strings.Repeat("cd a; ", 255) + "cd repo; git commit --no-verify -m x"},
	{"cd-257", strings.Repeat("cd a; ", 256) + "cd repo; git commit --no-verify -m x"},
	{"pushd-16", strings.Repeat("pushd a; ", 15) + "pushd repo; git commit --no-verify -m x"},
	{"gitC-16", "git" + strings.Repeat(" -C .", 15) + " -C repo commit --no-verify -m x"},
	{"gitC-256", "git" + strings.Repeat(" -C .", 255) + " -C repo commit --no-verify -m x"},
	{"gitdir-16", "git" + strings.Repeat(" --git-dir=a", 15) + " -C repo commit -n -m x"},
	{"if-branches-8", strings.Repeat("if true; then cd a; else cd b; fi; ", 8) + "git commit --no-verify -m x"},
	{"subst-250", strings.Repeat("echo $(", 250) + "cd repo && git commit --no-verify" + strings.Repeat(")", 250)},
	{"pipeline-2000", "ls" + strings.Repeat(" |\ncat", 2000) + " |\ngit -C repo commit --no-verify"},
	{"env-63", strings.Repeat("env ", 63) + "git -C repo commit --no-verify"},
	{"env-64", strings.Repeat("env ", 64) + "git -C repo commit --no-verify"},
	{"mixed-launchers-60", strings.Repeat("env nice -n 1 timeout 5 nohup ", 15) + "git -C repo commit --no-verify"},
	{"gitc-200", "git -C repo" + strings.Repeat(" -c a.b=c", 200) + " commit --no-verify"},
	{"eval-8", strings.Repeat("eval ", 8) + "git -C repo commit --no-verify"},
	{"eval-9", strings.Repeat("eval ", 9) + "git -C repo commit --no-verify"},
	{"alias-8", aliasChain(7) + " -C repo a0"},
	{"and-chain-1000", strings.Repeat("true &&\n", 1000) + "git -C repo commit --no-verify"},
}

func aliasChain(n int) string {
	var b strings.Builder
	b.WriteString("git")
	for i := 0; i < n; i++ {
		b.WriteString(" -c alias.a" + strconv.Itoa(i) + "=a" + strconv.Itoa(i+1))
	}
	b.WriteString(" -c 'alias.a" + strconv.Itoa(n) + "=commit --no-verify'")
	return b.String()
}

// BenchmarkGrowthShapes is the adversarial benchmark of issue 14 item 1:
// each growth shape through the whole in-process hook call (read, decode,
// directory scan, settings, policy, encode) from the directory above a
// governed repository. Every shape must be denied; ns/op is the time the
// client waits. Run: go test ./engine/hook/live -run '^$' -bench GrowthShapes
func BenchmarkGrowthShapes(b *testing.B) {
	deps, err := Deps()
	if err != nil {
		b.Fatal(err)
	}
	repo, lookup := governedRepo(b)
	parent := filepath.Dir(repo)
	if err := os.MkdirAll(filepath.Join(parent, "a", "repo"), 0o755); err != nil {
		b.Fatal(err)
	}
	for _, sh := range growthShapes {
		b.Run(sh.name, func(b *testing.B) {
			payload := string(claudePayload(b, parent, sh.command))
			for i := 0; i < b.N; i++ {
				resp := hook.Run(context.Background(), deps, hook.Request{Client: "claude", Event: "pre-tool",
					Stdin: strings.NewReader(payload), LookupEnv: lookup})
				if resp.Exit != 2 {
					b.Fatalf("%s: exit %d, want a deny: %s", sh.name, resp.Exit, resp.Stderr)
				}
			}
		})
	}
}

// BenchmarkPreEditGuard measures one pre-edit call through hook.Run (warm,
// in process) in the cases where the edit guard decides without the
// checkpoint's git: a Write of the manifest (deny by name), a Write through
// a symlink to it (deny after resolving), and an Edit of
// .claude/settings.json that changes our row (the edit applied and both
// files parsed). An edit the guard allows goes on to the checkpoint, whose
// git is the cost it was before the guard existed; engine/editguard's
// BenchmarkJudge measures the guard alone on an allowed edit.
func BenchmarkPreEditGuard(b *testing.B) {
	deps, err := Deps()
	if err != nil {
		b.Fatal(err)
	}
	repo, lookup := governedRepo(b)
	if err := os.Symlink(".hookwarden.yaml", filepath.Join(repo, "alias.yaml")); err != nil {
		b.Fatal(err)
	}
	cmd, err := templates.RegistrationCommand("claude", "pre-tool")
	if err != nil {
		b.Fatal(err)
	}
	settings, _ := json.MarshalIndent(map[string]any{"permissions": map[string]any{"allow": []string{"Bash(npm test)"}},
		"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "^Bash$", "hooks": []any{
			map[string]any{"type": "command", "command": cmd, "timeout": 15}}}}}}, "", "  ")
	if err := os.MkdirAll(filepath.Join(repo, ".claude"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".claude", "settings.json"), settings, 0o644); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name, tool string
		input      map[string]any
		exit       int
	}{
		{"deny-manifest", "Write", map[string]any{"file_path": ".hookwarden.yaml", "content": "x"}, 2},
		{"deny-symlink", "Write", map[string]any{"file_path": "alias.yaml", "content": "x"}, 2},
		{"deny-client-file", "Edit", map[string]any{"file_path": ".claude/settings.json", "old_string": `"timeout": 15`, "new_string": `"timeout": 1`}, 2},
		// The worst shapes of issue 29 item 8, refused by the shape check
		// (internal/parsebound) before a parser runs, and the largest
		// accepted shape of the TOML kind, parsed in full.
		{"deny-toml-40000-keys", "Write", map[string]any{"file_path": ".codex/config.toml", "content": tomlKeys(40000) + "[features]\nhooks = false\n"}, 2},
		{"allow-toml-4000-keys", "Write", map[string]any{"file_path": ".codex/config.toml", "content": tomlKeys(4000)}, 0},
		{"deny-json-400000-deep", "Write", map[string]any{"file_path": ".claude/settings.json", "content": strings.Repeat("[", 400000) + strings.Repeat("]", 400000)}, 2},
	} {
		payload, _ := json.Marshal(map[string]any{"session_id": "s", "transcript_path": "/t.jsonl", "cwd": repo,
			"permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": bc.tool, "tool_input": bc.input, "tool_use_id": "toolu_01"})
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				resp := hook.Run(context.Background(), deps, hook.Request{Client: "claude", Event: "pre-edit",
					Stdin: bytes.NewReader(payload), LookupEnv: lookup, Cwd: "/"})
				if resp.Exit != bc.exit {
					b.Fatalf("exit %d: %s", resp.Exit, resp.Stderr)
				}
			}
		})
	}
}

// tomlKeys returns n distinct top-level TOML keys, one a line.
func tomlKeys(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "k%d = 1\n", i)
	}
	return b.String()
}
