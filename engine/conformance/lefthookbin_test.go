package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRealLefthookBin shows on the real lefthook that LEFTHOOK_BIN is an off
// switch, and that the pre-tool row refuses it (issue 29 item 4). In a
// repository adopted with `--clients claude,lefthook`, `lefthook install`
// writes lefthook's own .git/hooks/pre-commit, and lefthook-local.yml adds a
// pre-commit job that always fails:
//   - `git commit` is stopped by that job (git exit 1, no new commit);
//   - `LEFTHOOK_BIN=true git commit` lands (exit 0): the installed hook
//     runs "$LEFTHOOK_BIN" instead of lefthook (read in the hook lefthook
//     2.2.2 installs; the pinned 2.2.1 has the same call_lefthook), so no job
//     ran;
//   - the agent's `LEFTHOOK_BIN=true git commit -m x`, fed to the lefthook
//     pre-tool job adopt wrote, is denied with hook-manager-env (lefthook
//     exit 1, the refusal shown), while `LEFTHOOK_VERBOSE=1 git commit -m x`
//     is allowed.
func TestRealLefthookBin(t *testing.T) {
	if testing.Short() {
		t.Skip("real-client test; -short skips it")
	}
	s := theSuite
	s.installed(t, lefthookClient, s.clientsDir)
	bin := s.hookwarden(t)
	sb, tap, _ := s.adoptedTee(t, bin, "claude,lefthook")
	local := "pre-commit:\n  jobs:\n    - name: always-fails\n      run: echo always-fails-ran; exit 1\n"
	if err := sb.WriteFile("repo/lefthook-local.yml", []byte(local)); err != nil {
		t.Fatal(err)
	}
	inst := lefthookInvocation(sb, s.clientsDir, tap, "pre-commit", nil)
	inst.Args = []string{lefthookClient.Bin(s.clientsDir), "install"}
	if res := s.run(t, inst); res.ExitCode != 0 {
		t.Fatalf("lefthook install: exit %d\n%s", res.ExitCode, res.Tail(3000))
	}
	hook, err := os.ReadFile(filepath.Join(sb.Repo, ".git", "hooks", "pre-commit"))
	if err != nil || !strings.Contains(string(hook), `"$LEFTHOOK_BIN" "$@"`) {
		t.Fatalf("lefthook's installed pre-commit hook does not run $LEFTHOOK_BIN (%v):\n%s", err, hook)
	}
	commit := func(extra ...string) Result {
		if err := sb.WriteFile("repo/change.txt", []byte(strings.Join(extra, ",")+"\n")); err != nil {
			t.Fatal(err)
		}
		if err := sb.Git(t.Context(), "add", "change.txt"); err != nil {
			t.Fatal(err)
		}
		inv := lefthookInvocation(sb, s.clientsDir, tap, "pre-commit", nil, extra...)
		inv.Env = append(inv.Env, "GIT_AUTHOR_NAME=c", "GIT_AUTHOR_EMAIL=c@example.invalid",
			"GIT_COMMITTER_NAME=c", "GIT_COMMITTER_EMAIL=c@example.invalid")
		inv.Args = []string{"git", "commit", "-q", "-m", "x"}
		return s.run(t, inv)
	}
	if res := commit(); res.ExitCode == 0 || !strings.Contains(string(res.Stdout)+string(res.Stderr), "always-fails-ran") {
		t.Fatalf("git commit: exit %d, want the failing job to stop it\n%s", res.ExitCode, res.Tail(3000))
	}
	if res := commit("LEFTHOOK_BIN=true"); res.ExitCode != 0 || strings.Contains(string(res.Stdout)+string(res.Stderr), "always-fails-ran") {
		t.Fatalf("LEFTHOOK_BIN=true git commit: exit %d, want 0 with no job run (the switch this test guards)\n%s", res.ExitCode, res.Tail(3000))
	}
	for _, c := range []struct {
		command string
		exit    int
	}{{"LEFTHOOK_BIN=true git commit -m x", 1}, {"LEFTHOOK_VERBOSE=1 git commit -m x", 0}} {
		res := s.run(t, lefthookInvocation(sb, s.clientsDir, tap, "pre-tool", claudePreToolPayload(t, sb.Repo, c.command)))
		out := string(res.Stdout) + string(res.Stderr)
		denied := strings.Contains(out, blockedPrefix+"hook-manager-env]")
		if res.ExitCode != c.exit || denied != (c.exit == 1) {
			t.Errorf("pre-tool %q: lefthook exit %d (refusal shown: %v), want %d\n%s", c.command, res.ExitCode, denied, c.exit, res.Tail(3000))
		}
	}
}
