package clientjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/clientjson/*/after.json from the current Merge (review the diff before committing)")

// fixtureCase is testdata/clientjson/<name>/case.json; before.json and
// after.json next to it hold the exact bytes before and after the merge.
type fixtureCase struct {
	Note   string `json:"note"`
	Client string `json:"client"`
	Path   string `json:"path"`
	Want   []struct {
		NativeEvent string  `json:"native_event"`
		Matcher     string  `json:"matcher"`
		Command     string  `json:"command"`
		Timeout     float64 `json:"timeout"`
	} `json:"want"`
	Retract       bool     `json:"retract"`
	Changes       []string `json:"changes"`  // "<kind> <event>" in order; default: one "added" per want
	Warnings      int      `json:"warnings"` // expected number of warnings
	HooksDisabled bool     `json:"hooks_disabled"`
	Error         string   `json:"error"`      // substring of the expected error
	ErrorLine     int      `json:"error_line"` // expected ParseError.Line (0: not checked)
	NoRoundtrip   string   `json:"no_roundtrip"`
}

func (fc fixtureCase) handlers() []Handler {
	var out []Handler
	for _, w := range fc.Want {
		out = append(out, Handler{NativeEvent: w.NativeEvent, Matcher: w.Matcher, Command: w.Command, Timeout: w.Timeout})
	}
	return out
}

func loadFixtures(t testing.TB) map[string]fixtureCase {
	t.Helper()
	dirs, err := filepath.Glob("../testdata/clientjson/*/case.json")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fixtures found: %v", err)
	}
	out := map[string]fixtureCase{}
	for _, p := range dirs {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var fc fixtureCase
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&fc); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out[filepath.Dir(p)] = fc
	}
	return out
}

func TestFixtures(t *testing.T) {
	fixtures := loadFixtures(t)
	if len(fixtures) < 60 {
		t.Errorf("only %d fixture cases; the acceptance asks for at least 60", len(fixtures))
	}
	for dir, fc := range fixtures {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			before, err := os.ReadFile(filepath.Join(dir, "before.json"))
			if err != nil {
				t.Fatal(err)
			}
			want := fc.handlers()
			owner := testOwner(t, fc.Client, want)
			opts := Options{Owner: owner, Retract: fc.Retract}
			res, err := Merge(fc.Path, before, fc.Client, want, opts)
			if fc.Error != "" {
				if err == nil {
					t.Fatalf("Merge succeeded, want an error containing %q; output:\n%s", fc.Error, res.Out)
				}
				if !strings.Contains(err.Error(), fc.Error) {
					t.Errorf("error %q does not contain %q", err, fc.Error)
				}
				var pe *ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("error %T is not a *ParseError", err)
				}
				if pe.Path != fc.Path || pe.Fix == "" || pe.Line < 1 || pe.Col < 1 {
					t.Errorf("ParseError lacks path, position or fix: %+v", pe)
				}
				if !strings.HasPrefix(err.Error(), fc.Path+":") {
					t.Errorf("error does not start with the file path: %q", err)
				}
				if fc.ErrorLine != 0 && pe.Line != fc.ErrorLine {
					t.Errorf("error at line %d, want line %d (%v)", pe.Line, fc.ErrorLine, err)
				}
				if _, err := os.Stat(filepath.Join(dir, "after.json")); err == nil {
					t.Errorf("an error case must not carry after.json")
				}
				return
			}
			if err != nil {
				t.Fatalf("Merge: %v", err)
			}
			afterPath := filepath.Join(dir, "after.json")
			if *update {
				if err := os.WriteFile(afterPath, res.Out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			after, err := os.ReadFile(afterPath)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(res.Out, after) {
				t.Fatalf("output differs from after.json\n--- got\n%s\n--- want\n%s", res.Out, after)
			}

			// Changes and warnings.
			wantChanges := fc.Changes
			if wantChanges == nil {
				for _, w := range want {
					wantChanges = append(wantChanges, "added "+w.NativeEvent)
				}
			}
			var got []string
			for _, c := range res.Changes {
				got = append(got, c.Kind+" "+c.NativeEvent)
			}
			if strings.Join(got, "; ") != strings.Join(wantChanges, "; ") {
				t.Errorf("changes %q, want %q", got, wantChanges)
			}
			if len(res.Warnings) != fc.Warnings {
				t.Errorf("warnings %q, want %d", res.Warnings, fc.Warnings)
			}
			served := true
			for _, c := range res.Changes {
				served = served && c.Kind == "served"
			}
			if served && !bytes.Equal(res.Out, before) {
				t.Errorf("every row served but the file changed")
			}

			// The output is readable by the client's own reader.
			if _, err := Registered(fc.Path, res.Out, fc.Client, owner); err != nil {
				t.Errorf("merged file does not parse again: %v", err)
			}
			if d, err := HooksDisabled(fc.Path, res.Out, fc.Client); err != nil || d != fc.HooksDisabled {
				t.Errorf("HooksDisabled = %v, %v; want %v", d, err, fc.HooksDisabled)
			}

			// Idempotence: merging the output again changes nothing.
			again, err := Merge(fc.Path, res.Out, fc.Client, want, opts)
			if err != nil {
				t.Fatalf("second Merge: %v", err)
			}
			if !bytes.Equal(again.Out, res.Out) {
				t.Errorf("second Merge changed the file:\n%s", again.Out)
			}
			for _, c := range again.Changes {
				if c.Kind != "served" {
					t.Errorf("second Merge made a change: %+v", c)
				}
			}

			// Every wanted row is registered exactly once under its event.
			found, _ := Registered(fc.Path, res.Out, fc.Client, owner)
			for _, w := range want {
				n := 0
				for _, f := range found {
					if f.NativeEvent == w.NativeEvent && (f.Command == w.Command || f.Claim.Serves(owner.Claim(w.Command, nil, false).Event)) && Equivalent(fc.Client, f.Matcher, w.Matcher) {
						n++
					}
				}
				if n == 0 || (n > 1 && fc.Warnings == 0) {
					t.Errorf("row %s %q %q registered %d times", w.NativeEvent, w.Matcher, w.Command, n)
				}
			}

			// Retract after adopt gives back the original bytes.
			all, _ := Registered(fc.Path, before, fc.Client, owner)
			prior := ourFound(all)
			if !fc.Retract && fc.NoRoundtrip == "" && len(prior) == 0 {
				back, err := Merge(fc.Path, res.Out, fc.Client, nil, Options{Owner: owner, Retract: true})
				if err != nil {
					t.Fatalf("retract: %v", err)
				}
				if !bytes.Equal(back.Out, before) {
					t.Errorf("retract(merge(x)) != x:\n--- got\n%q\n--- want\n%q", back.Out, before)
				}
			}
		})
	}
}
