package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// clineClient is the npm Cline CLI, driven apart from Clients() (its hook is
// the executable .clinerules/hooks/PreToolUse). Pinned in .ci/run: cline
// 3.0.65 in its own prefix (clineDir). The npm wrapper bin/cline runs the
// Bun-compiled binary of @cline/cli-linux-x64 (found by walking
// node_modules; the postinstall that caches it is not needed).
var clineClient = Client{Name: "cline", Package: "cline", API: Chat}

// clineDir is the npm prefix .ci/run installs the Cline CLI into.
func clineDir(clientsDir string) string { return filepath.Join(clientsDir, "cline") }

// clineEnv is the environment of every Cline CLI 3.0.65 run: HOME inside the
// sandbox (its settings live in HOME/.cline), hookwarden off PATH, and
// CLINE_SESSION_BACKEND_MODE=local so the session runs in the process
// itself: otherwise the first run starts a hub daemon that outlives the
// test and runs later hooks with its own environment (@cline/core 0.0.86
// dist/index.js, the backend-mode reader; observed 2026-12-02).
func clineEnv(sb *Sandbox, extra ...string) []string {
	env := []string{"PWD=" + sb.Repo, "HOME=" + sb.Home, "CLINE_SESSION_BACKEND_MODE=local", "PATH=" + pathWithout("hookwarden")}
	return append(env, extra...)
}

// clineRun points the sandbox's Cline CLI at the loopback model (`cline
// auth -p openai-compatible -b URL/v1`: a base URL is accepted only for the
// OpenAI-compatible providers) and runs one headless task (`cline --json
// PROMPT`, act mode with auto-approve, its default). It fails the test when
// the auth step fails.
func (s *suite) clineRun(t *testing.T, sb *Sandbox, modelURL string, extra ...string) Result {
	t.Helper()
	bin := clineClient.Bin(clineDir(s.clientsDir))
	auth := s.run(t, Invocation{Dir: sb.Repo, Env: clineEnv(sb),
		Args: []string{bin, "auth", "-p", "openai-compatible", "-k", "sk-dummy", "-m", "mock-model", "-b", modelURL + "/v1"}})
	if auth.ExitCode != 0 {
		t.Fatalf("cline auth exited %d\n%s", auth.ExitCode, auth.Tail(2000))
	}
	return s.run(t, Invocation{Dir: sb.Repo, Env: clineEnv(sb, extra...), Args: []string{bin, "--json", Prompt}})
}

// clineAborted reports whether a `cline --json` run ended aborted (the
// run_result line's finishReason), which is what a hook's cancel does.
func clineAborted(res Result) bool {
	return strings.Contains(string(res.Stdout), `"type":"run_result","finishReason":"aborted"`)
}

// TestRealCline drives the real npm Cline CLI through the file `hookwarden
// adopt --clients cline` renders, .clinerules/hooks/PreToolUse: a
// --no-verify commit through run_commands is cancelled (the run aborts,
// the command never ran), a plain command runs; an editor write of
// .hookwarden.yaml is cancelled by the pre-edit row and the file stays as
// adopt wrote it; with no engine installed (interceptor) the standalone
// interceptor cancels the --no-verify commit and the plain command runs. It records the two cline rows (native event PreToolUse)
// in observed.json under HOOKWARDEN_E2E_RECORD=1, as TestRealLefthook does.
func TestRealCline(t *testing.T) {
	if testing.Short() {
		t.Skip("real-client test; -short skips it")
	}
	s := theSuite
	version := s.installed(t, clineClient, clineDir(s.clientsDir))
	bin := s.hookwarden(t)

	// runCommands runs the deny and the allow command through run_commands,
	// with the engine (HOOKWARDEN_BIN, its pre-tool row must run) or, with
	// engine false, none anywhere (PATH without hookwarden, no
	// HOOKWARDEN_BIN): then the launcher hands pre-tool to the standalone
	// interceptor, which decodes the CLI's tool_call payload and cancels in
	// Cline's form, and states pre-edit's skip as {"cancel":false}, so the
	// plain command runs; no engine process may start.
	runCommands := func(t *testing.T, engine bool) {
		for _, tc := range []struct {
			command, marker string
			deny            bool
		}{{denyCommand, deniedMarker, true}, {allowCommand, allowedMarker, false}} {
			sb, tap, log := s.adoptedTee(t, bin, "cline")
			srv, err := NewServer(Chat, Script{Call: &ToolCall{Name: "run_commands", Input: map[string]any{"commands": []any{tc.command}}}})
			if err != nil {
				t.Fatal(err)
			}
			var extra []string
			if engine {
				extra = []string{"HOOKWARDEN_BIN=" + tap}
			}
			res := s.clineRun(t, sb, srv.URL(), extra...)
			srv.Close()
			if res.ExitCode != 0 {
				t.Fatalf("cline %s exited %d\n%s", version, res.ExitCode, res.Tail(3000))
			}
			b, _ := os.ReadFile(log)
			if ran := strings.Contains(string(b), "argv: hook cline pre-tool\n"); engine && !ran {
				t.Errorf("%s: the cline pre-tool row did not run\n%s", tc.command, b)
			}
			if !engine && len(b) != 0 {
				t.Errorf("%s: the engine ran in the interceptor case\n%s", tc.command, b)
			}
			if ran := sb.Exists("repo/" + tc.marker); ran == tc.deny {
				t.Errorf("%s: ran %v, want %v\n%s", tc.command, ran, !tc.deny, res.Tail(3000))
			}
			if clineAborted(res) != tc.deny {
				t.Errorf("%s: run aborted %v, want %v\n%s", tc.command, clineAborted(res), tc.deny, res.Tail(3000))
			}
		}
	}
	t.Run("pre-tool", func(t *testing.T) {
		s.observe(t, "cline", version, "pre-tool", "deny honoured (run_commands with a --no-verify commit never ran, the run aborted) and allow passes, through .clinerules/hooks/PreToolUse written by hookwarden adopt")
		runCommands(t, true)
	})
	t.Run("interceptor", func(t *testing.T) { runCommands(t, false) })

	t.Run("pre-edit", func(t *testing.T) {
		s.observe(t, "cline", version, "pre-edit", "pre-edit guard: an editor write of .hookwarden.yaml was cancelled by the adopted pre-edit row (the run aborted) and the file is unchanged")
		sb, tap, log := s.adoptedTee(t, bin, "cline")
		manifest := filepath.Join(sb.Repo, ".hookwarden.yaml")
		before, err := os.ReadFile(manifest)
		if err != nil {
			t.Fatal(err)
		}
		srv, err := NewServer(Chat, Script{Call: &ToolCall{Name: "editor", Input: map[string]any{"path": manifest, "old_text": string(before), "new_text": "version: 1\nclients: []\n"}}})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		res := s.clineRun(t, sb, srv.URL(), "HOOKWARDEN_BIN="+tap)
		if res.ExitCode != 0 {
			t.Fatalf("cline %s exited %d\n%s", version, res.ExitCode, res.Tail(3000))
		}
		if after, _ := os.ReadFile(manifest); string(after) != string(before) {
			t.Errorf(".hookwarden.yaml was rewritten:\n%s", after)
		}
		b, _ := os.ReadFile(log)
		if !strings.Contains(string(b), "argv: hook cline pre-edit\n") {
			t.Errorf("the cline pre-edit row did not run\n%s", b)
		}
		if !clineAborted(res) {
			t.Errorf("the run was not aborted by the pre-edit cancel\n%s", res.Tail(3000))
		}
	})
}
