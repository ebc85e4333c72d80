package live

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/engine/hook"
	"github.com/hookwarden/hookwarden/protocol/clock"
	"github.com/hookwarden/hookwarden/protocol/verdict"
)

const clientsDir = "../../../testdata/clients"

// realRepo makes a governed git repository with one commit holding
// .hookwarden.yaml (a clean tree), using the git CLI for setup only.
func realRepo(t testing.TB) (string, func(string) (string, bool)) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is required for the recorded stop payloads: %v", err)
	}
	repo, lookup := governedRepo(t)
	if err := os.RemoveAll(filepath.Join(repo, ".git")); err != nil {
		t.Fatal(err)
	}
	gitCommitAll(t, repo, ".hookwarden.yaml")
	return repo, lookup
}

// gitCommitAll makes dir a git repository with one commit holding paths
// (git add's arguments), with no user or system git config read.
func gitCommitAll(t testing.TB, dir string, paths ...string) {
	t.Helper()
	for _, args := range [][]string{
		{"init", "-q"},
		append([]string{"add"}, paths...),
		{"-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", "govern"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// replay runs one recorded payload through the hook path with $REPO pointing
// at repo. opencode payloads get the cwd member the rendered plugin adds.
func replay(t *testing.T, deps hook.Deps, repo string, lookup func(string) (string, bool), file, client, event string) hook.Response {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(clientsDir, file))
	if err != nil {
		t.Fatal(err)
	}
	stdin := strings.ReplaceAll(string(data), "$REPO", repo)
	if client == "opencode" {
		stdin = strings.Replace(stdin, `{"input"`, `{"cwd":"`+repo+`","input"`, 1)
	}
	return hook.Run(context.Background(), deps, hook.Request{Client: client, Event: event,
		Stdin: strings.NewReader(stdin), LookupEnv: lookup, Cwd: "/"})
}

// TestRecordedPayloads replays the real clients' recorded payloads listed in
// testdata/recorded.json through the hook path in a clean governed
// repository: the recorded command (`touch e2e_tool_ran.txt`) is a plain
// allow (exit 0, empty streams; lefthook prints its allow marker), the first stop calls (final message
// "done", clean tree) are let through by the stop gate, and the repeated
// stop passes (stop_hook_active true) answer one stated-skip line; the
// recorded pre-edit writes are allowed for an ordinary file and denied by
// the edit guard for .hookwarden.yaml ("deny:<rule>"); the recorded Agent
// dispatches are refused when read-only (the repository has no projection)
// and allowed otherwise, and SubagentStart adds context for Explore only;
// the recorded prompts (UserPromptSubmit, BeforeAgent) are answered with the
// clock line ("clock").
func TestRecordedPayloads(t *testing.T) {
	deps, err := Deps()
	if err != nil {
		t.Fatal(err)
	}
	repo, lookup := realRepo(t)
	data, err := os.ReadFile("testdata/recorded.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct{ File, Client, Event, Want string }
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.Client+"/"+tc.File, func(t *testing.T) {
			resp := replay(t, deps, repo, lookup, tc.File, tc.Client, tc.Event)
			errs := string(resp.Stderr)
			switch tc.Want {
			case "allow":
				if resp.Exit != 0 || len(resp.Stdout) != 0 || errs != "" {
					t.Fatalf("exit %d stdout %q stderr %q (verdict %v %s), want a plain allow",
						resp.Exit, resp.Stdout, errs, resp.Verdict.Kind, resp.Verdict.RuleID)
				}
			case "marker":
				if resp.Exit != 0 || string(resp.Stdout) != "hookwarden: allow\n" || errs != "" {
					t.Fatalf("exit %d stdout %q stderr %q, want lefthook's allow marker", resp.Exit, resp.Stdout, errs)
				}
			case "context":
				// subagent-start for a read-only type without a projection:
				// the banner and the reason as added context.
				if resp.Exit != 0 || !strings.Contains(string(resp.Stdout), `"hookEventName":"SubagentStart"`) || !strings.Contains(string(resp.Stdout), "compile-context") {
					t.Fatalf("exit %d stdout %q stderr %q, want SubagentStart added context", resp.Exit, resp.Stdout, errs)
				}
			case "clock":
				// a prompt row: an allow that carries the clock line, in
				// the client's added-context form, nothing on stderr.
				if resp.Exit != 0 || resp.Verdict.Kind != verdict.Allow || !strings.Contains(string(resp.Stdout), `"additionalContext":"`+clock.Marker) || errs != "" {
					t.Fatalf("exit %d stdout %q stderr %q (verdict %v), want an allow carrying the clock line", resp.Exit, resp.Stdout, errs, resp.Verdict.Kind)
				}
			case "skip":
				if resp.Exit != 0 || len(resp.Stdout) != 0 || !strings.HasPrefix(errs, "hookwarden: skip: ") || strings.Count(errs, "\n") != 1 {
					t.Fatalf("exit %d stdout %q stderr %q, want one stated-skip line", resp.Exit, resp.Stdout, errs)
				}
			case "cline-allow":
				// Cline reads only JSON on stdout: an allow is {"cancel":false}.
				if resp.Exit != 0 || string(resp.Stdout) != "{\"cancel\":false}\n" || errs != "" {
					t.Fatalf("exit %d stdout %q stderr %q (verdict %v %s), want Cline's allow", resp.Exit, resp.Stdout, errs, resp.Verdict.Kind, resp.Verdict.RuleID)
				}
			case "cline-skip":
				if resp.Exit != 0 || string(resp.Stdout) != "{\"cancel\":false}\n" || !strings.HasPrefix(errs, "hookwarden: skip: ") || strings.Count(errs, "\n") != 1 {
					t.Fatalf("exit %d stdout %q stderr %q, want Cline's allow with one stated-skip line", resp.Exit, resp.Stdout, errs)
				}
			default:
				if rule, ok := strings.CutPrefix(tc.Want, "cline-deny:"); ok {
					if resp.Exit != 0 || resp.Verdict.Kind != verdict.Deny || resp.Verdict.RuleID != rule || !strings.HasPrefix(string(resp.Stdout), "{\"cancel\":true,\"errorMessage\":\"[BLOCKED BY hookwarden:"+rule+"]") {
						t.Fatalf("exit %d stdout %q (verdict %v %s), want Cline's cancel by %s", resp.Exit, resp.Stdout, resp.Verdict.Kind, resp.Verdict.RuleID, rule)
					}
					return
				}
				rule, ok := strings.CutPrefix(tc.Want, "deny:")
				if !ok {
					t.Fatalf("unknown expectation %q", tc.Want)
				}
				if resp.Exit != 2 || resp.Verdict.Kind != verdict.Deny || resp.Verdict.RuleID != rule || !strings.Contains(errs, rule) {
					t.Fatalf("exit %d stderr %q (verdict %v %s), want a deny by %s", resp.Exit, errs, resp.Verdict.Kind, resp.Verdict.RuleID, rule)
				}
			}
		})
	}
}

// TestEveryRecordedPayloadDecodes replays every payload under
// testdata/clients/<client>/<version>/ (also those the conformance suite
// records, named <event>.<scenario>[.<n>].json) and checks that the engine
// reads it: whatever the verdict, it is never invalid-input or a usage
// error. (A scenario name such as "badjson" describes what the recording
// hook answered, not the payload.)
func TestEveryRecordedPayloadDecodes(t *testing.T) {
	deps, err := Deps()
	if err != nil {
		t.Fatal(err)
	}
	repo, lookup := realRepo(t)
	files, err := filepath.Glob(filepath.Join(clientsDir, "*", "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		rel, _ := filepath.Rel(clientsDir, f)
		parts := strings.Split(rel, string(filepath.Separator))
		client := parts[0]
		event, _, _ := strings.Cut(strings.TrimSuffix(parts[2], ".json"), ".")
		if _, ok := deps.Table.Lookup(client, event); !ok {
			continue
		}
		n++
		t.Run(rel, func(t *testing.T) {
			resp := replay(t, deps, repo, lookup, rel, client, event)
			if resp.Usage {
				t.Fatalf("usage error")
			}
			if resp.Verdict.Kind == verdict.Deny && resp.Verdict.RuleID == hook.RuleInvalidInput {
				t.Fatalf("a real payload was refused as invalid input: %s", resp.Stderr)
			}
			// A prompt row states a skip for a payload it cannot decode
			// (it never blocks a prompt): a real one must decode.
			if event == "prompt" && resp.Verdict.Kind != verdict.Allow {
				t.Fatalf("a real prompt payload was not read: %s", resp.Stderr)
			}
		})
	}
	if n < 9 {
		t.Fatalf("replayed %d recorded payloads", n)
	}
}
