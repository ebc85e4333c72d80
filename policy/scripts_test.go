package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScriptsOnDisk: a script the command runs is judged by its content on
// disk (JudgeIn's directory), an unreadable or oversized text script is
// refused, a missing file or a binary is not.
func TestScriptsOnDisk(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("bad.sh", "#!/bin/sh\ngit commit -n -m wip\n")
	write("ok.sh", "#!/bin/sh\nmake test\n")
	write("bad.py", "import subprocess\nsubprocess.run(['git', 'push', '--no-verify'])\n")
	write("setup.py", "from setuptools import setup\nsetup(name='x')\n")
	write("tool", "#!/usr/bin/env node\nrequire('child_process').execSync('git commit -n')\n")
	write("big.sh", strings.Repeat("echo hello\n", maxScriptBytes/10))
	write("app", "\x7fELF"+strings.Repeat("\x00", maxScriptBytes+10))
	p, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	site := testSite(t, dir)
	for _, c := range []struct{ cmd, rule string }{
		{"bash bad.sh", RuleGitNoVerifyShort},
		{"./bad.sh", RuleGitNoVerifyShort},
		{"source bad.sh", RuleGitNoVerifyShort},
		{"python3 bad.py", RuleGitNoVerify},
		{"./tool", RuleGitNoVerifyShort},
		{"bash big.sh", RuleScriptUnknown},
		{"bash ok.sh", ""},
		{"python3 setup.py build", ""},
		{"./app --serve", ""},
		{"bash missing.sh", ""},
		{"cd sub && bash bad.sh", ""},
	} {
		d := p.JudgeAt(c.cmd, site)
		if d.RuleID != c.rule {
			t.Errorf("%s: got %q, want %q", c.cmd, d.RuleID, c.rule)
		}
	}
}

// BenchmarkCodeScanMaxScript: the code scanner over a Python script of the
// largest size read from disk (maxScriptBytes), with calls on every line.
func BenchmarkCodeScanMaxScript(b *testing.B) {
	line := "subprocess.run(['git', 'status', '--short'], check=True)  # x\n"
	src := "import subprocess\n" + strings.Repeat(line, maxScriptBytes/len(line)-1)
	p, _ := New(nil)
	j := &judge{p: p, hits: &hitSet{}}
	b.ReportAllocs()
	for b.Loop() {
		if !j.codeScan(pythonLang, src, 0, nil) {
			b.Fatal("not read")
		}
	}
}

// TestTaskRunnersOnDisk: npm run, make, just and task read their files from
// the directory the command starts in.
func TestTaskRunnersOnDisk(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"package.json": `{"scripts":{"test":"jest","ship":"git push --no-verify","precommit":"echo ok"}}`,
		"Makefile":     "test:\n\tgo test ./...\nrelease: tag\n\tgit push origin main\ntag:\n\tgit commit -n -m release\n",
		"justfile":     "build:\n    go build ./...\nskip:\n    LEFTHOOK=0 git commit -m x\n",
		"Taskfile.yml": "version: 3\ntasks:\n  lint:\n    cmds:\n      - golangci-lint run\n  off:\n    cmds:\n      - git config core.hooksPath /dev/null\n",
	}
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	site := testSite(t, dir)
	for _, c := range []struct{ cmd, rule string }{
		{"npm test", ""},
		{"npm run ship", RuleGitNoVerify},
		{"yarn ship", RuleGitNoVerify},
		{"make test", ""},
		{"make release", RuleGitNoVerifyShort},
		{"just build", ""},
		{"just skip", RuleHookManagerEnv},
		{"task lint", ""},
		{"task off", RuleHooksPathConfig},
	} {
		if d := p.JudgeAt(c.cmd, site); d.RuleID != c.rule {
			t.Errorf("%s: got %q, want %q", c.cmd, d.RuleID, c.rule)
		}
	}
}
