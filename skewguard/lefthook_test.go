package skewguard_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// lefthookJobs is the lefthook.yml of TestRealLefthook: the pre-tool row
// as a job with use_stdin (the agent's payload forwarded by `lefthook run
// pre-tool`), and the environment row as a pre-commit job.
const lefthookJobs = `pre-tool:
  jobs:
    - name: hookwarden pre-tool
      run: sh .hookwarden/hook.sh lefthook pre-tool
      use_stdin: true
pre-commit:
  jobs:
    - name: hookwarden environment
      run: sh .hookwarden/hook.sh lefthook environment
`

// TestRealLefthook runs the real lefthook (npm lefthook@2.2.2, pinned in
// .ci/run, from $HOOKWARDEN_CLIENTS_DIR) in a governed repository with the
// engine on PATH: a use_stdin job fed a Claude pre-tool payload denies
// `git commit --no-verify` (lefthook exits 1 and shows the reason) and
// allows `git status` (exit 0, the allow marker in the job's output). The
// environment row as a pre-commit job runs and passes when a file is
// staged; under LEFTHOOK=0 lefthook runs no job at all (exit 0, the job's
// name never printed), so the row cannot see LEFTHOOK=0: the agent-side
// rule env-lefthook-disabled is what refuses it. Without
// HOOKWARDEN_CLIENTS_DIR a stated skip (a failure under
// HOOKWARDEN_E2E=require), as the other real-client tests.
func TestRealLefthook(t *testing.T) {
	dir := os.Getenv("HOOKWARDEN_CLIENTS_DIR")
	if dir == "" {
		if os.Getenv("HOOKWARDEN_E2E") == "require" {
			t.Fatal("HOOKWARDEN_CLIENTS_DIR is not set and HOOKWARDEN_E2E=require")
		}
		t.Skip("stated skip: HOOKWARDEN_CLIENTS_DIR is not set, so lefthook cannot be found (HOOKWARDEN_E2E=require makes this a failure)")
	}
	// The platform package's native binary (node_modules/.bin/lefthook is
	// a node wrapper around it).
	bins, _ := filepath.Glob(filepath.Join(dir, "node_modules", "lefthook-*", "bin", "lefthook"))
	if len(bins) == 0 {
		t.Fatalf("lefthook is not installed in %s (.ci/run pins lefthook@2.2.2)", dir)
	}
	lh := bins[0]
	w := newWorld(t)
	engDir := filepath.Dir(realEngine(t))
	if err := os.WriteFile(filepath.Join(w.repo, "lefthook.yml"), []byte(lefthookJobs), 0o644); err != nil {
		t.Fatal(err)
	}
	env := w.env("PATH="+engDir+string(os.PathListSeparator)+w.tools, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid", "NO_COLOR=1")
	run := func(stdin string, extra []string, args ...string) (int, string) {
		t.Helper()
		cmd := exec.Command(lh, args...)
		cmd.Dir, cmd.Env = w.repo, append(append([]string{}, env...), extra...)
		cmd.Stdin = strings.NewReader(stdin)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("lefthook %v: %v", args, err)
		}
		return code, out.String()
	}
	if code, out := run(inDir(claudePre("git commit --no-verify -m x"), w.repo), nil, "run", "pre-tool"); code != 1 || !strings.Contains(out, "[BLOCKED BY hookwarden:git-no-verify]") {
		t.Errorf("deny payload: lefthook exit %d, want 1 with the refusal:\n%s", code, out)
	}
	if code, out := run(inDir(claudePre("git status"), w.repo), nil, "run", "pre-tool"); code != 0 || !strings.Contains(out, "hookwarden: allow") {
		t.Errorf("allow payload: lefthook exit %d, want 0 with the allow marker:\n%s", code, out)
	}
	if out, err := exec.Command("git", "-C", w.repo, "add", "lefthook.yml").CombinedOutput(); err != nil {
		t.Fatalf("git add: %v %s", err, out)
	}
	if code, out := run("", nil, "run", "pre-commit"); code != 0 || !strings.Contains(out, "hookwarden environment") || strings.Contains(out, "(skip)") {
		t.Errorf("environment job with a staged file: lefthook exit %d, want 0 with the job run:\n%s", code, out)
	}
	if code, out := run("", []string{"LEFTHOOK=0"}, "run", "pre-commit"); code != 0 || strings.Contains(out, "hookwarden environment") {
		t.Errorf("LEFTHOOK=0: lefthook exit %d, want 0 with no job run:\n%s", code, out)
	}
}
