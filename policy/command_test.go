package policy

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hookwarden/hookwarden/internal/posixtest"
)

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

// TestCommandEvaluated: where the evaluator saw a command act, for the
// words the static target scan cannot read (ScanTargets leaves them
// unresolved).
func TestCommandEvaluated(t *testing.T) {
	posixtest.SkipOnWindows(t, "the cases are written in Unix absolute paths")
	p, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	gov := t.TempDir()
	if err := os.Mkdir(filepath.Join(base, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		command string
		want    []string // beside base itself
	}{
		{"D=" + gov + "; cd $D && git status", []string{gov}},
		{"set -- " + gov + "; git -C \"$1\" log", []string{gov}},
		{"x=sub; git -C $x status", []string{filepath.Join(base, "sub")}},
		{"cd " + globOf(gov) + "; make", []string{gov}},
		{"for d in " + globOf(gov) + "; do git -C $d status; done", []string{gov}},
		{"git status", nil}, // plain words: the static scan read it whole
	} {
		c := NewCommand(tc.command)
		sc, err := ScanTargets(c, base, "", nil)
		if err != nil {
			t.Fatalf("%s: scan: %v", tc.command, err)
		}
		p.JudgeCommand(c, Site{Dir: base})
		got, err := c.Evaluated()
		if err != nil {
			t.Fatalf("%s: %v", tc.command, err)
		}
		if tc.want == nil {
			if len(got) != 0 || sc.Unresolved {
				t.Errorf("%s: evaluated %v (unresolved %v), want nothing", tc.command, got, sc.Unresolved)
			}
			continue
		}
		if !sc.Unresolved {
			t.Errorf("%s: the static scan resolved it (%v); the case tests nothing", tc.command, sc.Dirs)
		}
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: evaluated %v, want it to hold %s", tc.command, got, w)
			}
		}
	}
}

// globOf is a glob that matches dir alone: its last byte as a bracket
// expression.
func globOf(dir string) string {
	return dir[:len(dir)-1] + "[" + dir[len(dir)-1:] + "]"
}
