package policy

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEvaluatorDisk judges commands that depend on the directory they start
// in (JudgeIn): a glob is judged by what it matches there, a planted
// ./--no-verify file among them, and a glob matching nothing is a literal
// name.
func TestEvaluatorDisk(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"--no-verify", "build/a.json", "build/b.json", ".claude/settings.json", "run.sh"} {
		full := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		body := ""
		if f == "run.sh" {
			body = "git commit -n -m wip\n"
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	site := testSite(t, dir)
	cases := []struct {
		cmd, rule string
		allowed   bool
	}{
		{"git commit * -m wip", RuleGitNoVerify, false},
		{"git commit -- * ", "", true},
		{"rm -f build/*.json", "", true},
		{"rm -f missing/*.json", "", true},
		{"sed -i s/a/b/ .github/workflows/*.yml", "", true},
		{"rm -f .claude/*.json", RuleSelfProtectClientHooks, false},
		{"cd .claude && rm -f *.json", RuleSelfProtectClientHooks, false},
		{"cd build && rm -f *.json", "", true},
		{"ls build/*.json | xargs cat", "", true},
		{"bash < run.sh", RuleGitNoVerifyShort, false},
		{"rm -f .codex/hoo*.json", RuleSelfProtectClientHooks, false},
		{"rm lefthook*.yml", RuleSelfProtectClientHooks, false},
		{"rm -rf .git/hoo*", RuleHooksDirTamper, false},
	}
	for _, c := range cases {
		d := p.JudgeAt(c.cmd, site)
		if d.Allowed != c.allowed || d.RuleID != c.rule {
			t.Errorf("%q in a directory: got allowed=%v rule=%q, want allowed=%v rule=%q", c.cmd, d.Allowed, d.RuleID, c.allowed, c.rule)
		}
	}
}
