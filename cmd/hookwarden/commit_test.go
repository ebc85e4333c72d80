package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdoptCommitCLI runs `adopt --commit` from the built binary over a
// fleet of a clean and a dirty repository and a directory that is not a
// repository: the clean one is committed on the branch, the dirty one
// skipped, the third failed (exit 1); the text report names the branch and
// the pull-request command, --json parses; --branch without --commit,
// --commit with --dry-run and a bad branch name are usage errors (2).
func TestAdoptCommitCLI(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	bin := buildBinary(t)
	cfg := filepath.Join(t.TempDir(), "gitconfig")
	os.WriteFile(cfg, nil, 0o600)
	env := append(os.Environ(), "GIT_CONFIG_GLOBAL="+cfg, "GIT_CONFIG_NOSYSTEM=1", "CODEX_HOME="+t.TempDir(),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
	sh := func(dir string, args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	fleet := t.TempDir()
	clean, dirty := filepath.Join(fleet, "clean"), filepath.Join(fleet, "dirty")
	for _, d := range []string{clean, dirty} {
		os.MkdirAll(d, 0o755)
		sh(d, "init", "-q", "-b", "main")
		os.WriteFile(filepath.Join(d, "README.md"), []byte("x\n"), 0o644)
		sh(d, "add", "-A")
		sh(d, "commit", "-q", "-m", "init")
	}
	os.WriteFile(filepath.Join(dirty, "README.md"), []byte("edited\n"), 0o644)
	notRepo := t.TempDir()
	run := func(args ...string) (string, string, int) {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		var so, se strings.Builder
		cmd.Stdout, cmd.Stderr = &so, &se
		code := exitCode(t, cmd.Run())
		return so.String(), se.String(), code
	}
	out, errOut, code := run("adopt", "--fleet", fleet, notRepo, "--commit", "--branch", "hw/adopt")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (one path is not a repository)\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{clean + ": committed ", "on branch hw/adopt (based on main)", "gh pr create --base main --head hw/adopt --fill",
		dirty + ": skipped — the work tree has uncommitted changes", notRepo + ": failed — not a git repository", "1 committed, 0 unchanged, 1 skipped, 1 failed"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if got := sh(clean, "rev-list", "--count", "main..hw/adopt"); got != "1" {
		t.Errorf("clean repository: %s commits on the branch, want 1", got)
	}
	if st := sh(clean, "status", "--porcelain"); st != "" {
		t.Errorf("clean repository's work tree changed:\n%s", st)
	}
	// Rerun: the branch exists now, so the repository is skipped.
	out, _, code = run("adopt", clean, "--commit", "--branch", "hw/adopt", "--json")
	var rep struct {
		SchemaVersion int `json:"schema_version"`
		Repositories  []struct {
			Status, Reason string
		} `json:"repositories"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || rep.SchemaVersion != 1 || rep.Repositories[0].Status != "skipped" || !strings.Contains(rep.Repositories[0].Reason, "already exists") {
		t.Fatalf("rerun: exit %d, %v %+v\n%s", code, err, rep, out)
	}
	for _, args := range [][]string{
		{"adopt", clean, "--branch", "x"},
		{"adopt", clean, "--commit", "--dry-run"},
		{"conform", clean, "--commit", "--check"},
		{"adopt", clean, "--commit", "--branch", "a..b"},
	} {
		if _, _, code := run(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
