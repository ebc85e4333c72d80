package policy

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestPerimeterOnDisk: under JudgeIn, a patch file on disk is read and its
// paths judged, and a git alias set in the repository's config resolves
// as git would (issue 28 item 5, issue 29 item 5).
func TestPerimeterOnDisk(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed; the alias half needs a repository git made")
	}
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("guard.patch", "--- a/.hookwarden.yaml\n+++ b/.hookwarden.yaml\n@@ -1 +1 @@\n-version: 1\n+version: 0\n")
	write("ok.patch", "--- a/src/x.go\n+++ b/src/x.go\n@@ -1 +1 @@\n-a\n+b\n")
	cfg := filepath.Join(dir, ".git", "config")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, append(b, []byte("[alias]\n\tci = commit\n\tlg = log --oneline\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	site := testSite(t, dir)
	for _, c := range []struct {
		cmd, rule string
	}{
		{"git apply guard.patch", RuleSelfProtect},
		{"git apply ok.patch", ""},
		{"patch -p1 -i guard.patch", RuleSelfProtect},
		{"git ci -n -m wip", RuleGitNoVerifyShort},
		{"git ci -m wip", ""},
		{"git lg -n 5", ""},
	} {
		d := p.JudgeAt(c.cmd, site)
		if d.RuleID != c.rule || d.Allowed != (c.rule == "") {
			t.Errorf("%s in a repository: allowed=%v rule=%q, want rule %q", c.cmd, d.Allowed, d.RuleID, c.rule)
		}
	}
}
