package clientjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// enableCase is testdata/clientjson/enable-hooks/<name>/case.json; before.json
// next to it is the file, after.json (only when Changed) the exact bytes
// EnableHooks must return.
type enableCase struct {
	Note    string `json:"note"`
	Client  string `json:"client"`
	Path    string `json:"path"`
	Changed bool   `json:"changed"`
	Error   string `json:"error"`
}

// TestEnableHooksFixtures replays testdata/clientjson/enable-hooks: the
// switch is flipped byte for byte, HooksDisabled agrees afterwards, a second
// call changes nothing, and files with nothing switched off come back as they
// were.
func TestEnableHooksFixtures(t *testing.T) {
	cases, err := filepath.Glob("../testdata/clientjson/enable-hooks/*/case.json")
	if err != nil || len(cases) < 4 {
		t.Fatalf("want at least 4 enable-hooks fixtures, found %d (%v)", len(cases), err)
	}
	for _, p := range cases {
		dir := filepath.Dir(p)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var c enableCase
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&c); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			before, err := os.ReadFile(filepath.Join(dir, "before.json"))
			if err != nil {
				t.Fatal(err)
			}
			out, changed, err := EnableHooks(c.Path, before, c.Client)
			if c.Error != "" {
				var pe *ParseError
				if err == nil || !strings.Contains(err.Error(), c.Error) || !errors.As(err, &pe) {
					t.Fatalf("EnableHooks error %v, want a *ParseError containing %q", err, c.Error)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if changed != c.Changed {
				t.Fatalf("changed = %v, want %v", changed, c.Changed)
			}
			want := before
			if c.Changed {
				if want, err = os.ReadFile(filepath.Join(dir, "after.json")); err != nil {
					t.Fatal(err)
				}
				if off, err := HooksDisabled(c.Path, before, c.Client); err != nil || !off {
					t.Errorf("before.json: HooksDisabled = %v, %v; a changing case must start switched off", off, err)
				}
			} else if _, err := os.Stat(filepath.Join(dir, "after.json")); err == nil {
				t.Errorf("an unchanged case must not carry after.json")
			}
			if !bytes.Equal(out, want) {
				t.Fatalf("output differs\n--- got\n%q\n--- want\n%q", out, want)
			}
			if off, err := HooksDisabled(c.Path, out, c.Client); err != nil || off {
				t.Errorf("after EnableHooks: HooksDisabled = %v, %v; want false", off, err)
			}
			again, changed, err := EnableHooks(c.Path, out, c.Client)
			if err != nil || changed || !bytes.Equal(again, out) {
				t.Errorf("second EnableHooks changed the file (changed=%v, err=%v)", changed, err)
			}
		})
	}
}
