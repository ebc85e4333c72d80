package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// qwenClient is Qwen Code, driven apart from Clients() (its hook file is
// .qwen/settings.json, which the Claude-family cases do not write). Pinned
// in .ci/run: @qwen-code/qwen-code 0.24.4, which declares node >= 22, and
// node 22.23.3 (the npm package "node") beside it: under the machine's Node
// 20 the CLI started and ran its UserPromptSubmit hook but sent no model
// request (README, "Clients beyond the first five").
var qwenClient = Client{Name: "qwen", Package: "@qwen-code/qwen-code", API: Chat}

// qwenDir is the npm prefix .ci/run installs Qwen Code and Node 22 into,
// apart from the other clients (npm would otherwise run their install
// scripts with that node first on PATH).
func qwenDir(clientsDir string) string { return filepath.Join(clientsDir, "node22") }

// qwenNodeDir is the directory of the Node 22 binary the npm package "node"
// installs into qwenDir.
func qwenNodeDir(clientsDir string) string {
	return filepath.Join(qwenDir(clientsDir), "node_modules", "node", "bin")
}

// qwenInvocation is the Qwen Code 0.24.4 recipe (`qwen --help`): the
// OpenAI-compatible provider on the loopback model (--auth-type openai,
// --openai-base-url, --openai-api-key, --model), --yolo so tools run without
// approval, the prompt as the positional argument (one shot), HOME inside
// the sandbox, and Node 22 first on PATH for the CLI's `#!/usr/bin/env
// node`. extra is added to the environment.
func qwenInvocation(sb *Sandbox, clientsDir, modelURL string, extra ...string) Invocation {
	env := []string{"PWD=" + sb.Repo, "HOME=" + sb.Home, "QWEN_CODE_SUPPRESS_YOLO_WARNING=1",
		"PATH=" + qwenNodeDir(clientsDir) + string(os.PathListSeparator) + pathWithout("hookwarden")}
	return Invocation{Dir: sb.Repo, Env: append(env, extra...),
		Args: []string{qwenClient.Bin(qwenDir(clientsDir)), "--auth-type", "openai", "--openai-base-url", modelURL + "/v1",
			"--openai-api-key", "sk-dummy", "--model", "mock-model", "--yolo", Prompt}}
}

// engineTapTee is engineTap that also passes the engine's stderr on to the
// client: Qwen Code 0.24.4 lets a PreToolUse call through on exit 2 when
// stderr is empty (observed: a hook exiting 2 without output did not stop
// run_shell_command), so a tap that swallowed stderr would turn every deny
// into an allow. It keeps the engine's exit code.
func engineTapTee(t *testing.T, sb *Sandbox, bin string) (tap, log string) {
	t.Helper()
	tap, log = engineTap(t, sb, bin)
	script := "#!/bin/sh\nprintf 'argv: %s\\n' \"$*\" >>" + shellQuote(log) + "\nhw_e=$(mktemp)\n" + shellQuote(bin) +
		" \"$@\" 2>\"$hw_e\"\nhw_rc=$?\ncat \"$hw_e\" >>" + shellQuote(log) + "\ncat \"$hw_e\" >&2\nrm -f \"$hw_e\"\nexit $hw_rc\n"
	if err := os.WriteFile(tap, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return tap, log
}

// adoptedTee returns a fresh sandbox whose repository the real `hookwarden
// adopt --clients clients` governs (bin the engine, hookwarden off PATH),
// with an engineTapTee tap (for HOOKWARDEN_BIN) and its log.
func (s *suite) adoptedTee(t *testing.T, bin, clients string) (sb *Sandbox, tap, log string) {
	t.Helper()
	sb = s.sandbox(t)
	if out, err := s.hookwardenCmd(t, bin, sb, pathWithout("hookwarden"), "adopt", "--clients", clients, sb.Repo); err != nil {
		t.Fatalf("adopt --clients %s: %v\n%s", clients, err, out)
	}
	tap, log = engineTapTee(t, sb, bin)
	return sb, tap, log
}

// TestRealQwen drives the real Qwen Code through the rows `hookwarden adopt
// --clients qwen` merges into .qwen/settings.json: a --no-verify commit is
// denied with hookwarden's reason reaching the model and a plain command
// runs (pre-tool); the same command through the tool_call meta tool does
// not run; a write of .hookwarden.yaml with write_file is refused by
// the pre-edit row and the file stays as adopt wrote it.
func TestRealQwen(t *testing.T) {
	if testing.Short() {
		t.Skip("real-client test; -short skips it")
	}
	s := theSuite
	version := s.installed(t, qwenClient, qwenDir(s.clientsDir), filepath.Join(qwenNodeDir(s.clientsDir), "node"))
	bin := s.hookwarden(t)
	adopted := func(t *testing.T) (*Sandbox, string, string) { return s.adoptedTee(t, bin, "qwen") }

	t.Run("pre-tool", func(t *testing.T) {
		s.observe(t, "qwen", version, "pre-tool", "deny honoured (the --no-verify commit never ran, the refusal reached the model) and allow passes, through .qwen/settings.json written by hookwarden adopt")
		sb, tap, log := adopted(t)
		srv, err := NewServer(Chat, Script{Commands: []string{denyCommand, allowCommand}, MaxToolCalls: 2})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		res := s.run(t, qwenInvocation(sb, s.clientsDir, srv.URL(), "HOOKWARDEN_BIN="+tap))
		checkDenyAllowRun(t, "qwen", version, sb, srv, res)
		b, _ := os.ReadFile(log)
		if n := strings.Count(string(b), "argv: hook qwen pre-tool\n"); n < 2 {
			t.Errorf("the qwen pre-tool row ran %d times, want one per command (2)\n%s", n, b)
		}
	})

	// Qwen Code offers a tool_call tool {name, arguments} that calls a
	// deferred tool by name; no PreToolUse names run_shell_command then.
	// Observed: its bridge refuses a tool the model already sees ("[tool_call
	// bridge refused] Tool "run_shell_command" is already visible to the
	// model or is not deferred"), so the shell cannot be reached around the
	// pre-tool row that way.
	t.Run("tool_call", func(t *testing.T) {
		s.observe(t, "qwen", version, "pre-tool", "tool_call indirection: tool_call naming run_shell_command is refused by Qwen's bridge, the denied command never ran")
		sb, tap, _ := adopted(t)
		srv, err := NewServer(Chat, Script{Call: &ToolCall{Name: "tool_call", Input: map[string]any{"name": "run_shell_command", "arguments": map[string]any{"command": denyCommand}}}})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		res := s.run(t, qwenInvocation(sb, s.clientsDir, srv.URL(), "HOOKWARDEN_BIN="+tap))
		if res.ExitCode != 0 {
			t.Fatalf("qwen %s exited %d\n%s", version, res.ExitCode, res.Tail(3000))
		}
		called := false
		for _, r := range srv.Requests() {
			called = called || r.Tool == "tool_call"
		}
		if !called {
			t.Fatalf("the scripted model never called tool_call (Qwen no longer offers it?)")
		}
		if sb.Exists("repo/" + deniedMarker) {
			t.Errorf("the command called through tool_call ran: the pre-tool row does not see tool_call")
		}
	})

	t.Run("pre-edit", func(t *testing.T) {
		s.observe(t, "qwen", version, "pre-edit", "pre-edit guard: a write_file of .hookwarden.yaml was refused by the adopted pre-edit row, the file is unchanged and the refusal reached the model")
		sb, tap, _ := adopted(t)
		manifest := filepath.Join(sb.Repo, ".hookwarden.yaml")
		before, err := os.ReadFile(manifest)
		if err != nil {
			t.Fatal(err)
		}
		srv, err := NewServer(Chat, Script{Edit: &Edit{Path: manifest, Content: "version: 1\nclients: []\n"}})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		res := s.run(t, qwenInvocation(sb, s.clientsDir, srv.URL(), "HOOKWARDEN_BIN="+tap))
		if res.ExitCode != 0 {
			t.Fatalf("qwen %s exited %d\n%s", version, res.ExitCode, res.Tail(3000))
		}
		if after, _ := os.ReadFile(manifest); string(after) != string(before) {
			t.Errorf(".hookwarden.yaml was rewritten:\n%s", after)
		}
		tool := false
		carried := false
		for _, r := range srv.Requests() {
			tool = tool || r.Tool == "write_file"
		}
		for _, r := range srv.MainTurns() {
			carried = carried || r.Carries(blockedPrefix)
		}
		if !tool || !carried {
			t.Errorf("write_file called %v, refusal reached the model %v", tool, carried)
		}
	})
}
