package policy

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCronCommands: a crontab's job commands without their schedules, cut
// at an unescaped %; comments, blank lines and settings left out
// (crontab(5)).
func TestCronCommands(t *testing.T) {
	text := "# m h dom mon dow command\nSHELL=/bin/bash\nMAILTO = ops\n\n*/5 * * * * make -C /srv test\n@reboot  git commit -n -m y\n0 1 * * 1-5 date +\\%F % stdin text\n"
	want := "make -C /srv test\ngit commit -n -m y\ndate +\\%F "
	if got := cronCommands(text); got != want {
		t.Fatalf("cronCommands =\n%q\nwant\n%q", got, want)
	}
}

// TestCrontabFileJudged: `crontab FILE` is judged by the jobs of the file on
// disk.
func TestCrontabFileJudged(t *testing.T) {
	p, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	site := testSite(t, dir)
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("jobs.cron", "0 * * * * git commit --no-verify -m wip\n")
	write("ok.cron", "0 * * * * make test\n")
	for _, tc := range []struct{ cmd, rule string }{
		{"crontab jobs.cron", RuleGitNoVerify},
		{"crontab -u me jobs.cron", RuleGitNoVerify},
		{"crontab ok.cron", ""},
		{"crontab -l", ""},
	} {
		d := p.JudgeAt(tc.cmd, site)
		if d.RuleID != tc.rule || d.Allowed != (tc.rule == "") {
			t.Errorf("%s: allowed=%v rule %q, want rule %q", tc.cmd, d.Allowed, d.RuleID, tc.rule)
		}
	}
}
