package conformance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lefthookClient is lefthook, driven apart from Clients(): it speaks to no
// model, it runs the jobs of its config when `lefthook run <hook>` is
// called. Pinned in .ci/run: npm lefthook 2.2.2, whose node_modules/.bin/
// lefthook is a node wrapper (lefthook/bin/index.js) around the platform
// package's native binary.
var lefthookClient = Client{Name: "lefthook", Package: "lefthook"}

// lefthookInvocation is `lefthook run <hook>` in the sandbox repository
// with payload on stdin (nil: /dev/null), HOME inside the sandbox, the
// engine tap as HOOKWARDEN_BIN (what .hookwarden/hook.sh runs), NO_COLOR
// for plain output, and extra added to the environment.
func lefthookInvocation(sb *Sandbox, clientsDir, tap, hook string, payload []byte, extra ...string) Invocation {
	env := []string{"PWD=" + sb.Repo, "HOME=" + sb.Home, "HOOKWARDEN_BIN=" + tap, "NO_COLOR=1",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "PATH=" + pathWithout("hookwarden")}
	return Invocation{Dir: sb.Repo, Env: append(env, extra...), Stdin: payload,
		Args: []string{lefthookClient.Bin(clientsDir), "run", hook}}
}

// claudePreToolPayload is the Claude Code PreToolUse payload of a Bash call
// running command in dir: what the agent's client row forwards to `lefthook
// run pre-tool` (the use_stdin job receives it unchanged).
func claudePreToolPayload(t *testing.T, dir, command string) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"session_id": "conformance", "cwd": dir, "hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": command}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRealLefthook runs the real lefthook in a repository adopted with
// `hookwarden adopt --clients claude,lefthook` (the jobs file
// .hookwarden/lefthook.yml reached through the extends block adopt writes
// into lefthook.yml) and records the two lefthook rows in observed.json.
//
// pre-tool: the use_stdin job fed the agent's PreToolUse payload for
// `git commit --no-verify` denies (lefthook exits 1 and shows hookwarden's
// refusal) and fed `git status` allows (exit 0, the allow marker in the
// job's output); the engine ran as `hook lefthook pre-tool` once per run.
//
// environment: the pre-commit job runs with a file staged and allows
// (exit 0); with LEFTHOOK_EXCLUDE naming another job lefthook still runs it
// and the row denies with env-lefthook-disabled (exit 1); under LEFTHOOK=0
// lefthook runs no job at all (exit 0, the engine never called), so the row
// cannot see that variable, and the pre-tool row denies the agent's
// `LEFTHOOK=0 git commit` (rule hook-manager-env) before it runs.
func TestRealLefthook(t *testing.T) {
	if testing.Short() {
		t.Skip("real-client test; -short skips it")
	}
	s := theSuite
	version := s.installed(t, lefthookClient, s.clientsDir)
	bin := s.hookwarden(t)
	// engineTapTee: the engine's stderr (the refusal) must reach lefthook's output.
	adopted := func(t *testing.T) (*Sandbox, string, string) { return s.adoptedTee(t, bin, "claude,lefthook") }
	engineCalls := func(t *testing.T, log, argv string) int {
		t.Helper()
		b, _ := os.ReadFile(log)
		return strings.Count(string(b), "argv: "+argv+"\n")
	}

	t.Run("pre-tool", func(t *testing.T) {
		s.observe(t, "lefthook", version, "pre-tool", "use_stdin job via the extends block hookwarden adopt wrote: the agent's PreToolUse payload for git commit --no-verify denied (lefthook exit 1, refusal shown), git status allowed (exit 0, allow marker)")
		sb, tap, log := adopted(t)
		res := s.run(t, lefthookInvocation(sb, s.clientsDir, tap, "pre-tool", claudePreToolPayload(t, sb.Repo, "git commit --no-verify -m x")))
		if out := string(res.Stdout) + string(res.Stderr); res.ExitCode != 1 || !strings.Contains(out, blockedPrefix+"git-no-verify]") {
			t.Errorf("deny payload: lefthook exit %d, want 1 with the git-no-verify refusal\n%s", res.ExitCode, res.Tail(3000))
		}
		res = s.run(t, lefthookInvocation(sb, s.clientsDir, tap, "pre-tool", claudePreToolPayload(t, sb.Repo, "git status")))
		if out := string(res.Stdout) + string(res.Stderr); res.ExitCode != 0 || !strings.Contains(out, "hookwarden: allow") {
			t.Errorf("allow payload: lefthook exit %d, want 0 with the allow marker\n%s", res.ExitCode, res.Tail(3000))
		}
		if n := engineCalls(t, log, "hook lefthook pre-tool"); n != 2 {
			t.Errorf("the lefthook pre-tool row ran %d times, want once per lefthook run (2)", n)
		}
	})

	t.Run("environment", func(t *testing.T) {
		s.observe(t, "lefthook", version, "environment", "pre-commit job with a file staged allowed (exit 0); with LEFTHOOK_EXCLUDE set lefthook ran it and it denied (exit 1, env-lefthook-disabled); under LEFTHOOK=0 lefthook ran no job (exit 0), and the pre-tool job denied the agent's LEFTHOOK=0 git commit (hook-manager-env)")
		sb, tap, log := adopted(t)
		if err := sb.WriteFile("repo/staged.txt", []byte("staged\n")); err != nil {
			t.Fatal(err)
		}
		if err := sb.Git(t.Context(), "add", "staged.txt"); err != nil {
			t.Fatal(err)
		}
		res := s.run(t, lefthookInvocation(sb, s.clientsDir, tap, "pre-commit", nil))
		if out := string(res.Stdout) + string(res.Stderr); res.ExitCode != 0 || !strings.Contains(out, "hookwarden environment") || strings.Contains(out, "(skip)") {
			t.Errorf("pre-commit with a file staged: lefthook exit %d, want 0 with the environment job run\n%s", res.ExitCode, res.Tail(3000))
		}
		if n := engineCalls(t, log, "hook lefthook environment"); n != 1 {
			t.Fatalf("the environment row ran %d times, want 1", n)
		}
		res = s.run(t, lefthookInvocation(sb, s.clientsDir, tap, "pre-commit", nil, "LEFTHOOK_EXCLUDE=some-other-job"))
		if out := string(res.Stdout) + string(res.Stderr); res.ExitCode != 1 || !strings.Contains(out, blockedPrefix+"env-lefthook-disabled]") {
			t.Errorf("LEFTHOOK_EXCLUDE set: lefthook exit %d, want 1 with the env-lefthook-disabled refusal\n%s", res.ExitCode, res.Tail(3000))
		}
		res = s.run(t, lefthookInvocation(sb, s.clientsDir, tap, "pre-commit", nil, "LEFTHOOK=0"))
		if out := string(res.Stdout) + string(res.Stderr); res.ExitCode != 0 || strings.Contains(out, "hookwarden environment") {
			t.Errorf("LEFTHOOK=0: lefthook exit %d, want 0 with no job run (lefthook's off switch)\n%s", res.ExitCode, res.Tail(3000))
		}
		if n := engineCalls(t, log, "hook lefthook environment"); n != 2 {
			t.Errorf("the environment row ran %d times in all, want 2 (none under LEFTHOOK=0)", n)
		}
		res = s.run(t, lefthookInvocation(sb, s.clientsDir, tap, "pre-tool", claudePreToolPayload(t, sb.Repo, "LEFTHOOK=0 git commit -m x")))
		if out := string(res.Stdout) + string(res.Stderr); res.ExitCode != 1 || !strings.Contains(out, blockedPrefix+"hook-manager-env]") {
			t.Errorf("agent's LEFTHOOK=0 commit: lefthook exit %d, want 1 with the hook-manager-env refusal\n%s", res.ExitCode, res.Tail(3000))
		}
		if _, err := os.Stat(filepath.Join(sb.Repo, ".hookwarden", "lefthook.yml")); err != nil {
			t.Errorf("adopt wrote no jobs file: %v", err)
		}
	})
}
