package spawn

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// clientsBin returns the directory holding the pinned real clients:
// $E2E_CLIENTS_BIN, else $HOOKWARDEN_CLIENTS_DIR/node_modules/.bin, else
// ~/.cache/hookwarden-clients/node_modules/.bin (../shared/e2e/README.md).
func clientsBin() string {
	if d := os.Getenv("E2E_CLIENTS_BIN"); d != "" {
		return d
	}
	if d := os.Getenv("HOOKWARDEN_CLIENTS_DIR"); d != "" {
		return filepath.Join(d, "node_modules", ".bin")
	}
	h, _ := os.UserHomeDir()
	return filepath.Join(h, ".cache", "hookwarden-clients", "node_modules", ".bin")
}

// unavailable skips with the reason, or fails under HOOKWARDEN_E2E=require.
func unavailable(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("HOOKWARDEN_E2E") == "require" {
		t.Fatalf("HOOKWARDEN_E2E=require but %s", why)
	}
	t.Skip(why)
}

// needClient returns the pinned clients' bin directory when the client
// name is installed there; under -short it skips, and an absent client is
// unavailable (a failure under HOOKWARDEN_E2E=require).
func needClient(t *testing.T, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("real clients take seconds; -short")
	}
	bin := clientsBin()
	if _, err := os.Stat(filepath.Join(bin, name)); err != nil {
		unavailable(t, "the pinned "+name+" is not installed in "+bin)
	}
	// npm's .bin/claude and .bin/codex are node scripts.
	if _, err := exec.LookPath("node"); err != nil {
		unavailable(t, "node is not on PATH, and the pinned "+name+" is a node script")
	}
	return bin
}

// attachScript writes script as the executable hook w.home/bin/NAME.sh,
// pins and approves it, and makes it the registry's one attachment on
// event with matcher Bash and a timeout of 15 seconds. It returns the
// hook's path.
func (w *realWorld) attachScript(t *testing.T, name, event string, required bool, script string) string {
	t.Helper()
	hook := filepath.Join(w.home, "bin", name+".sh")
	if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	d, _ := fileDigest(hook)
	writeJSONFile(t, filepath.Join(w.home, LibraryFile), library{Version: 1, Entries: map[string]Entry{
		name: {Argv: []string{hook}, Pin: map[string]string{hook: d}, Timeout: json.RawMessage("15")}}})
	writeJSONFile(t, filepath.Join(w.home, RegistryFile), Layer{Version: 1, Attachments: []Attachment{
		{Hook: name, Event: event, Matcher: "Bash", Required: required}}})
	if err := Approve(w.home, [][]string{{hook}}); err != nil {
		t.Fatal(err)
	}
	return hook
}

// mockClient returns the argv and environment that run the pinned engine
// ("claude" or "codex") from bin against the mock model server on port,
// with w's client home: `claude -p "run it"` with Bash allowed, or `codex
// exec` with the mock as its model provider.
func (w *realWorld) mockClient(engine, bin string, port int) (argv, env []string) {
	env = []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + w.clientHome, "PWD=" + w.repo}
	if engine == "codex" {
		return []string{"codex", "exec", "--json", "--skip-git-repo-check", "-c", "model=mock-model", "-c", "model_provider=mock", "-c",
				fmt.Sprintf(`model_providers.mock={name="mock",base_url="http://127.0.0.1:%d/v1",wire_api="responses",env_key="MOCK_API_KEY"}`, port), "run it"},
			append(env, "CODEX_HOME="+w.clientHome, "MOCK_API_KEY=sk-dummy")
	}
	return []string{"claude", "-p", "run it", "--output-format", "json", "--allowedTools", "Bash"},
		append(env, "CLAUDE_CONFIG_DIR="+w.clientHome, fmt.Sprintf("ANTHROPIC_BASE_URL=http://127.0.0.1:%d", port),
			"ANTHROPIC_API_KEY=sk-test-dummy", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
}

// entryArgv returns a mockClient argv for a spawn under the redaction
// entry: without --allowedTools and its tools, which widen the entry's
// posture and are refused there (redaction-posture); the entry's
// PermissionRequest arbiter lets the shell route's rewrite run.
func entryArgv(argv []string) []string {
	var out []string
	for i := 0; i < len(argv); i++ {
		if argv[i] == "--allowedTools" {
			for i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") {
				i++
			}
			continue
		}
		out = append(out, argv[i])
	}
	return out
}

// startMock starts ../shared/e2e/mock_llm.py on 127.0.0.1 for api, whose
// model asks for `touch e2e_tool_ran.txt` once; it returns the port and the
// request log path, and kills the mock (by its PID) when the test ends.
func startMock(t *testing.T, api, dir string) (int, string) {
	t.Helper()
	return startMockCommand(t, api, dir, "touch e2e_tool_ran.txt")
}

// startMockCommand is startMock whose model asks for command. The harness
// is ../shared/e2e beside the repository, or $HOOKWARDEN_E2E_DIR (as in
// skewguard's real-client tests: a worktree is not beside ../shared).
func startMockCommand(t *testing.T, api, dir, command string) (int, string) {
	t.Helper()
	script := filepath.Join("..", "..", "shared", "e2e", "mock_llm.py")
	if d := os.Getenv("HOOKWARDEN_E2E_DIR"); d != "" {
		script = filepath.Join(d, "mock_llm.py")
	}
	if _, err := os.Stat(script); err != nil {
		unavailable(t, "the e2e mock is absent: "+err.Error())
	}
	log := filepath.Join(dir, "mock."+api+".jsonl")
	cmd := exec.Command("python3", script, "--api", api, "--port", "0", "--command", command,
		"--log", log, "--log-bodies", "--lifetime", "240")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		unavailable(t, "python3 cannot start the mock: "+err.Error())
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	var port int
	if _, serr := fmt.Sscanf(line, "READY %d", &port); err != nil || serr != nil {
		t.Fatalf("mock: %q %v", line, err)
	}
	return port, log
}

const guardScript = `#!/bin/sh
# registry guard for TestRealClients: record stdin and the ancestors' argv, then deny
out=%s
cat > "$out/registry.$1.json"
p=$PPID; i=0
while [ $i -lt 3 ] && [ "$p" -gt 1 ]; do
  tr '\000' ' ' < /proc/$p/cmdline >> "$out/ancestors.$1.txt"; echo >> "$out/ancestors.$1.txt"
  p=$(awk '{print $4}' /proc/$p/stat); i=$((i+1))
done
echo "blocked by the registry guard" >&2
exit 2
`

const plantedScript = `#!/bin/sh
# a hook planted outside the registry: it only leaves a marker and allows
cat > %s/planted.$1.json
exit 0
`

type realWorld struct {
	work, home, repo, out, clientHome, guard, planted string
}

func newRealWorld(t *testing.T) *realWorld {
	t.Helper()
	work := runTempDir(t)
	w := &realWorld{work: work, home: filepath.Join(work, "hw"), repo: filepath.Join(work, "repo"), out: filepath.Join(work, "out"),
		clientHome: filepath.Join(work, "client-home")}
	for _, d := range []string{w.home, filepath.Join(w.home, "hooks"), filepath.Join(w.home, "bin"), filepath.Join(w.repo, ".git"), w.out, w.clientHome} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(w.home, 0o700)
	w.guard = filepath.Join(w.home, "bin", "guard.sh")
	w.planted = filepath.Join(work, "planted.sh")
	os.WriteFile(w.guard, []byte(fmt.Sprintf(guardScript, shq(w.out))), 0o755)
	os.WriteFile(w.planted, []byte(fmt.Sprintf(plantedScript, shq(w.out))), 0o755)
	d, _ := fileDigest(w.guard)
	writeJSONFile(t, filepath.Join(w.home, LibraryFile), library{Version: 1, Entries: map[string]Entry{
		"guard": {Argv: []string{w.guard}, Pin: map[string]string{w.guard: d}, Timeout: json.RawMessage("15")}}})
	writeJSONFile(t, filepath.Join(w.home, RegistryFile), Layer{Version: 1, Attachments: []Attachment{
		{Hook: "guard", Event: "pre_tool", Matcher: "Bash", Required: true, Args: []string{"{engine}"}, Requires: []string{"pre_tool.deny"}}}})
	if err := Approve(w.home, [][]string{{w.guard, "claude"}, {w.guard, "codex"}}); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *realWorld) marker(name string) bool {
	_, err := os.Stat(filepath.Join(w.out, name))
	return err == nil
}

func plantedHooks(cmd string) map[string]any {
	return map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash",
		"hooks": []any{map[string]any{"type": "command", "command": cmd, "timeout": 15}}}}}}
}

func mockTurns(t *testing.T, log string) string {
	t.Helper()
	b, _ := os.ReadFile(log)
	return string(b)
}

// TestRealClients runs `spawn exec` on the pinned real claude and codex
// against the loopback mock model: the rendered flags are in the running
// engine's argv (read by the registry hook from /proc), hooks planted in
// the client's user settings and the repository's own settings never run
// while the registry's hook does and its deny reaches the model, and Codex
// runs the rendered hook through the computed trust records without any
// bypass flag. A control run of each client without spawn shows that the
// planted hooks do run there, so the isolation is what keeps them out.
func TestRealClients(t *testing.T) {
	if testing.Short() {
		t.Skip("real clients take seconds; -short")
	}
	bin := clientsBin()
	for _, engine := range []string{"claude", "codex"} {
		t.Run(engine, func(t *testing.T) {
			engineBin := filepath.Join(bin, engine)
			if _, err := os.Stat(engineBin); err != nil {
				unavailable(t, "the pinned "+engine+" is not installed at "+engineBin)
			}
			w := newRealWorld(t)
			api := map[string]string{"claude": "anthropic", "codex": "responses"}[engine]
			var env, args []string
			base := []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + w.clientHome, "PWD=" + w.repo}
			switch engine {
			case "claude":
				writeJSONFile(t, filepath.Join(w.clientHome, "settings.json"), plantedHooks(w.planted+" user"))
				writeJSONFile(t, filepath.Join(w.repo, ".claude", "settings.json"), plantedHooks(w.planted+" project"))
				args = []string{"claude", "-p", "run it", "--output-format", "json", "--allowedTools", "Bash"}
			case "codex":
				writeJSONFile(t, filepath.Join(w.clientHome, "hooks.json"), plantedHooks(w.planted+" user-hooks-json"))
				// user config.toml: a hook, trust for it and for hooks.json, and the project trusted,
				// so that Codex would run both planted hooks if it read this file
				ts := func(v string) string {
					q, err := tomlString(v)
					if err != nil {
						t.Fatal(err)
					}
					return q
				}
				toml := fmt.Sprintf("[projects.%s]\ntrust_level = \"trusted\"\n\n[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = %s\ntimeout = 15\n\n"+
					"[hooks.state.%s]\ntrusted_hash = %s\n\n[hooks.state.%s]\ntrusted_hash = %s\n",
					ts(w.repo), ts(w.planted+" user-config-toml"),
					ts(filepath.Join(w.clientHome, "config.toml")+":pre_tool_use:0:0"), ts(CodexTrustHash("pre_tool_use", w.planted+" user-config-toml", 15, "Bash")),
					ts(filepath.Join(w.clientHome, "hooks.json")+":pre_tool_use:0:0"), ts(CodexTrustHash("pre_tool_use", w.planted+" user-hooks-json", 15, "Bash")))
				os.WriteFile(filepath.Join(w.clientHome, "config.toml"), []byte(toml), 0o600)
				args = []string{"codex", "exec", "--json", "--skip-git-repo-check"}
			}
			run := func(viaSpawn bool) (string, string, []string) {
				t.Helper()
				port, log := startMock(t, api, w.work)
				env = append(cloneStrings(base), map[string][]string{
					"claude": {"CLAUDE_CONFIG_DIR=" + w.clientHome, fmt.Sprintf("ANTHROPIC_BASE_URL=http://127.0.0.1:%d", port),
						"ANTHROPIC_API_KEY=sk-test-dummy", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"},
					"codex": {"CODEX_HOME=" + w.clientHome, "MOCK_API_KEY=sk-dummy"},
				}[engine]...)
				a := cloneStrings(args)
				if engine == "codex" {
					a = append(a, "-c", "model=mock-model", "-c", "model_provider=mock", "-c",
						fmt.Sprintf(`model_providers.mock={name="mock",base_url="http://127.0.0.1:%d/v1",wire_api="responses",env_key="MOCK_API_KEY"}`, port), "run it")
				}
				var stdout, stderr bytes.Buffer
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
				defer cancel()
				var childArgv []string
				if viaSpawn {
					code, err := Exec(ctx, ExecOptions{Argv: a, Home: w.home, Cwd: w.repo, Env: env, Stdout: &stdout, Stderr: &stderr,
						Started: func(_ *Render, argv []string) { childArgv = argv }})
					if err != nil || code != 0 {
						t.Fatalf("spawn exec: code %d err %v\nstderr: %s", code, err, stderr.String())
					}
				} else {
					cmd := exec.CommandContext(ctx, filepath.Join(bin, engine), a[1:]...)
					cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = w.repo, env, &stdout, &stderr
					if err := cmd.Run(); err != nil {
						t.Fatalf("control run: %v\nstderr: %s", err, stderr.String())
					}
				}
				return mockTurns(t, log), stdout.String() + stderr.String(), childArgv
			}

			// control: the engine alone runs the planted hooks
			run(false)
			plantedNames := map[string][]string{"claude": {"planted.user.json", "planted.project.json"}, "codex": {"planted.user-config-toml.json", "planted.user-hooks-json.json"}}[engine]
			for _, m := range plantedNames {
				if !w.marker(m) {
					t.Fatalf("control: the planted hook %s did not run without spawn, so this test could not tell isolation apart", m)
				}
				os.Remove(filepath.Join(w.out, m))
			}
			os.Remove(filepath.Join(w.repo, "e2e_tool_ran.txt"))

			mock, output, childArgv := run(true)
			for _, m := range plantedNames {
				if w.marker(m) {
					t.Errorf("planted hook %s ran under spawn", m)
				}
			}
			if !w.marker("registry." + engine + ".json") {
				t.Fatalf("the registry hook did not run; engine output:\n%s", output)
			}
			anc, _ := os.ReadFile(filepath.Join(w.out, "ancestors."+engine+".txt"))
			t.Logf("ancestors of the registry hook:\n%.1500s", anc)
			want := map[string][]string{"claude": {"--setting-sources  --strict-mcp-config --settings " + filepath.Join(w.home, RunHooksDir)},
				"codex": {"--ignore-user-config -c hooks={PreToolUse=", "trusted_hash="}}[engine]
			for _, s := range want {
				if !strings.Contains(string(anc), s) {
					t.Errorf("no running ancestor of the hook carries %q:\n%s", s, anc)
				}
			}
			if strings.Contains(string(anc), "dangerously-bypass-hook-trust") || strings.Contains(strings.Join(childArgv, " "), "dangerously") {
				t.Errorf("a bypass flag reached the engine")
			}
			denial := map[string]string{"claude": "blocked by the registry guard", "codex": "Command blocked by PreToolUse hook: blocked by the registry guard"}[engine]
			if !strings.Contains(mock, denial) {
				t.Errorf("the model never saw the deny %q", denial)
			}
			if _, err := os.Stat(filepath.Join(w.repo, "e2e_tool_ran.txt")); err == nil {
				t.Errorf("the denied tool ran")
			}
			es, _ := os.ReadDir(filepath.Join(w.home, RunHooksDir))
			if len(es) != 0 {
				t.Errorf("run/hooks not empty after the engine exited: %v", es)
			}
		})
	}
	t.Run("codex-project-hooks", func(t *testing.T) {
		engineBin := filepath.Join(bin, "codex")
		if _, err := os.Stat(engineBin); err != nil {
			unavailable(t, "the pinned codex is not installed at "+engineBin)
		}
		w := newRealWorld(t)
		writeJSONFile(t, filepath.Join(w.repo, ".codex", "hooks.json"), plantedHooks(w.planted+" project"))
		code, err := Exec(context.Background(), ExecOptions{Argv: []string{engineBin, "exec", "run it"}, Home: w.home, Cwd: w.repo,
			Env: []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + w.clientHome, "CODEX_HOME=" + w.clientHome}})
		if r := AsRefusal(err); r == nil || r.Reason != ReasonCodexProjectLayer || code != RefusedExit {
			t.Fatalf("want %s, got %d %v", ReasonCodexProjectLayer, code, err)
		}
		if w.marker("planted.project.json") {
			t.Fatal("the repository's hook ran")
		}
	})
}

// offersTool reports whether any request in the mock log offered the tool
// named name to the model.
func offersTool(t *testing.T, log, name string) bool {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var rec struct {
			Body struct {
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
			} `json:"body"`
		}
		if json.Unmarshal([]byte(line), &rec) != nil {
			continue
		}
		for _, tool := range rec.Body.Tools {
			if tool.Name == name {
				return true
			}
		}
	}
	return false
}

// TestRealClaudeCallerPermissions measures the one settings key in the
// Claude 2.1.328 table: a caller's --settings {"permissions":{"deny":["Bash"]}}
// is merged into the run file and honoured under --setting-sources "" (the
// model is not offered Bash); without it the same spawn offers Bash and the
// tool runs.
func TestRealClaudeCallerPermissions(t *testing.T) {
	bin := needClient(t, "claude")
	w := newRealWorld(t)
	writeJSONFile(t, filepath.Join(w.home, RegistryFile), Layer{Version: 1, Attachments: []Attachment{}})
	for _, deny := range []bool{false, true} {
		port, log := startMock(t, "anthropic", t.TempDir())
		args, env := w.mockClient("claude", bin, port)
		if deny {
			args = append(args, "--settings", `{"permissions":{"deny":["Bash"]}}`)
		}
		var runFile []byte
		var out bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		code, err := Exec(ctx, ExecOptions{Argv: args, Home: w.home, Cwd: w.repo, Env: env, Stdout: &out, Stderr: &out,
			Started: func(r *Render, _ []string) { runFile, _ = os.ReadFile(r.Files[0]) }})
		cancel()
		if err != nil || code != 0 {
			t.Fatalf("deny=%v: code %d err %v\n%s", deny, code, err, out.String())
		}
		sentinel := filepath.Join(w.repo, "e2e_tool_ran.txt")
		_, statErr := os.Stat(sentinel)
		ran := statErr == nil
		os.Remove(sentinel)
		if offersTool(t, log, "Bash") == deny || ran == deny {
			t.Fatalf("deny=%v: Bash offered %v, tool ran %v; run file %s", deny, offersTool(t, log, "Bash"), ran, runFile)
		}
		if deny && !strings.Contains(string(runFile), `"deny"`) {
			t.Fatalf("the caller's permissions are not in the run file: %s", runFile)
		}
	}
}

func cloneStrings(s []string) []string { return append([]string(nil), s...) }

// installedTable returns the version of the real engine ("claude" or
// "codex") in the clients' bin directory, as spawn exec reads it
// (ProbeVersion, with a fresh cache), and the shipped capability table for
// that exact version. A version without a shipped table fails the test:
// the real-client tests measure the table of the version they run, and
// .ci/run pins only versions that have one.
func installedTable(t *testing.T, bin, engine string) (string, *Table) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*ProbeTimeout)
	defer cancel()
	v, err := ProbeVersion(ctx, t.TempDir(), filepath.Join(bin, engine), nil)
	if err != nil {
		t.Fatalf("the installed %s: %v", engine, err)
	}
	if _, err := fs.Stat(Tables(), engine+"-"+v+".json"); err != nil {
		t.Fatalf("the installed %s is %s, which has no shipped capability table (capabilities/%s-%s.json): pin a version that has one", engine, v, engine, v)
	}
	tab, err := LoadTable(Tables(), engine, v)
	if err != nil {
		t.Fatal(err)
	}
	return v, tab
}
