package live

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/engine/hook"
)

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
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", ".hookwarden.yaml"},
		{"-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", "govern"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return repo, lookup
}

// TestRecordedPayloads replays the real clients' recorded payloads
// (testdata/clients) through the hook path in a clean governed repository:
// the recorded command (`touch e2e_tool_ran.txt`) is allowed with empty
// streams, the recorded first stop calls (final message "done", clean tree)
// are let through by the stop gate, and the repeated stop passes
// (stop_hook_active true) answer one stated-skip line.
func TestRecordedPayloads(t *testing.T) {
	deps, err := Deps()
	if err != nil {
		t.Fatal(err)
	}
	repo, lookup := realRepo(t)
	files, err := filepath.Glob("../../../testdata/clients/*/*/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 9 {
		t.Fatalf("found %d recorded payloads", len(files))
	}
	for _, f := range files {
		rel, _ := filepath.Rel("../../../testdata/clients", f)
		parts := strings.Split(rel, string(filepath.Separator))
		client := parts[0]
		event, _, _ := strings.Cut(strings.TrimSuffix(parts[2], ".json"), ".")
		t.Run(rel, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			stdin := strings.ReplaceAll(string(data), "$REPO", repo)
			if client == "opencode" {
				// The rendered plugin adds the session directory as cwd.
				stdin = strings.Replace(stdin, `{"input"`, `{"cwd":"`+repo+`","input"`, 1)
			}
			resp := hook.Run(context.Background(), deps, hook.Request{Client: client, Event: event,
				Stdin: strings.NewReader(stdin), LookupEnv: lookup, Cwd: "/"})
			if strings.Contains(rel, ".active.") {
				// The repeated stop pass: the stop gate's loop bound skips
				// the question check and says so.
				errs := string(resp.Stderr)
				if resp.Exit != 0 || len(resp.Stdout) != 0 || !strings.HasPrefix(errs, "hookwarden: skip: ") || strings.Count(errs, "\n") != 1 {
					t.Fatalf("%s %s repeated pass: exit %d stdout %q stderr %q, want one stated-skip line", client, event, resp.Exit, resp.Stdout, errs)
				}
				return
			}
			if resp.Exit != 0 || len(resp.Stdout) != 0 || len(resp.Stderr) != 0 {
				t.Fatalf("%s %s: exit %d stdout %q stderr %q (verdict %v %s), want a plain allow",
					client, event, resp.Exit, resp.Stdout, resp.Stderr, resp.Verdict.Kind, resp.Verdict.RuleID)
			}
		})
	}
}
