package policy

import "testing"

// TestCommandParsedOnce: the target scan and then the judge read one
// Command as the hook call does (ScanTargets, then JudgeCommand); every
// script in it, the command and the scripts it runs, is parsed once, and
// the verdict is the one a fresh Command gets.
func TestCommandParsedOnce(t *testing.T) {
	p, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		command string
		scripts int // the command itself and each distinct script it runs
	}{
		{"git status", 1},
		{"cd sub && git -C ../other log --oneline", 1},
		{"bash -c 'cd /tmp && git commit -n -m x'", 2},
		{"sh -c 'eval \"git push --no-verify\"'; ls", 3},
	} {
		c := NewCommand(tc.command)
		if _, err := ScanTargets(c, "/work/cwd", "/home/u", nil); err != nil {
			t.Fatalf("%s: scan: %v", tc.command, err)
		}
		scanned := c.parses
		got := p.JudgeCommand(c, Site{})
		if c.parses != tc.scripts || scanned != tc.scripts {
			t.Errorf("%s: parsed %d times by the scan and %d in all, want %d and %d", tc.command, scanned, c.parses, tc.scripts, tc.scripts)
		}
		if want := p.Judge(tc.command); got != want {
			t.Errorf("%s: JudgeCommand after the scan = %+v, Judge = %+v", tc.command, got, want)
		}
	}
}
