package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/hookwarden/hookwarden/internal/posixtest"
)

// TestTargetDirsCorpus replays testdata/targets.json through ScanTargets
// from /work/cwd: the directories found, whether the scan leaves a
// directory to run time (unresolved), and the bound a command passes
// (error: a rule id). Directories listed in "missing" do not exist.
func TestTargetDirsCorpus(t *testing.T) {
	posixtest.SkipOnWindows(t, "the corpus is written in Unix absolute paths (/gov, /work/cwd), which are not absolute on Windows")
	data, err := os.ReadFile("testdata/targets.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Command    string   `json:"command"`
		Home       string   `json:"home"`
		Missing    []string `json:"missing"`
		Want       []string `json:"want"`
		Unresolved bool     `json:"unresolved"`
		Error      string   `json:"error"`
		Note       string   `json:"note"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cases); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.Command, func(t *testing.T) {
			isDir := func(d string) bool { return !slices.Contains(tc.Missing, d) }
			got, err := ScanTargets(NewCommand(tc.Command), "/work/cwd", tc.Home, isDir)
			if tc.Error != "" {
				var be *BoundError
				if !errors.As(err, &be) || be.Rule != tc.Error {
					t.Fatalf("err = %v, want bound %s", err, tc.Error)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Dirs == nil {
				got.Dirs = []string{}
			}
			if d := cmp.Diff(tc.Want, got.Dirs); d != "" {
				t.Errorf("targets (-want +got):\n%s", d)
			}
			if got.Unresolved != tc.Unresolved {
				t.Errorf("unresolved = %v, want %v", got.Unresolved, tc.Unresolved)
			}
		})
	}
}

// TestScanNamedPaths: words that leave the directory they are read in are
// named paths (Paths); relative words with a slash are Below, bare names
// Names.
func TestScanNamedPaths(t *testing.T) {
	posixtest.SkipOnWindows(t, "the case is written in Unix absolute paths (/w/x, /home/u), which are not absolute on Windows")
	sc, err := ScanTargets(NewCommand(`rm ../.hookwarden.yaml src/x; echo '{}' > /g/.claude/settings.json; cp --target-directory=../y a; cat ~/n`), "/w/x", "/home/u", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/w/.hookwarden.yaml", "/g/.claude/settings.json", "/w/y", "/home/u/n"}
	if !slices.Equal(sc.Paths, want) {
		t.Fatalf("Paths = %v, want %v", sc.Paths, want)
	}
	if want := []string{"/w/x/src/x"}; !slices.Equal(sc.Below, want) {
		t.Fatalf("Below = %v, want %v", sc.Below, want)
	}
	// Bare names (not options, not the command name): entries of the
	// directory, looked at when nothing governs it.
	if want := []string{"/w/x/{}", "/w/x/a"}; !slices.Equal(sc.Names, want) {
		t.Fatalf("Names = %v, want %v", sc.Names, want)
	}
	// A for loop's items are words bash hands the body (found 2026-12-06:
	// for d in /gov; do rm $d/.hookwarden.yaml; done was skipped from an
	// ungoverned directory).
	sc, err = ScanTargets(NewCommand(`for d in /g ../h; do rm $d/.hookwarden.yaml; done`), "/w/x", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"/g", "/w/h"}; !slices.Equal(sc.Paths, want) {
		t.Fatalf("for items: Paths = %v, want %v", sc.Paths, want)
	}
}

// TestExpands: a word the shell expands into other words is a glob or a
// brace expansion as the evaluator's expansion reads it (syntax.SplitBraces
// then a brace among the parts): xargs' {} and a sequence that is not one
// stay words; a quoted part inside the braces still expands.
func TestExpands(t *testing.T) {
	for word, want := range map[string]bool{
		"plain": false, "a*": true, "x?y": true, "[ab]c": true, "[": false,
		"{a,b}": true, "x{,.bak}": true, "{1..3}": true, "{a..c}": true, "{a,'b'}": true,
		"{}": false, "a{b": false, "{foo..bar}": false, "'{a,b}'": false, `"a*"`: false,
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader("echo "+word), "")
		if err != nil {
			t.Fatal(err)
		}
		w := f.Stmts[0].Cmd.(*syntax.CallExpr).Args[1]
		before := len(w.Parts)
		if got := expands(w); got != want {
			t.Errorf("expands(%s) = %v, want %v", word, got, want)
		}
		if len(w.Parts) != before {
			t.Errorf("expands(%s) rewrote the word", word)
		}
	}
}
