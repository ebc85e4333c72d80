package codextrust

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type setCase struct {
	Name      string   `json:"name"`
	In        string   `json:"in"`
	Table     []string `json:"table"`
	Key       string   `json:"key"`
	Value     string   `json:"value"`
	Want      string   `json:"want"`
	Unchanged bool     `json:"unchanged"`
	Error     string   `json:"error"`
}

func TestSetStringCorpus(t *testing.T) {
	data, err := os.ReadFile("testdata/setstring.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []setCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 10 {
		t.Fatalf("corpus has %d cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			out, changed, err := setString([]byte(c.In), c.Table, c.Key, c.Value)
			if c.Error != "" {
				if err == nil || !strings.Contains(err.Error(), c.Error) {
					t.Fatalf("err = %v, want one containing %q", err, c.Error)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.Want, string(out)); diff != "" {
				t.Fatalf("output (-want +got):\n%s", diff)
			}
			if changed == c.Unchanged {
				t.Fatalf("changed = %v, want %v", changed, !c.Unchanged)
			}
			// Idempotent: a second application changes nothing.
			again, changed2, err := setString(out, c.Table, c.Key, c.Value)
			if err != nil || changed2 || string(again) != string(out) {
				t.Fatalf("second application changed the file: %v %q", err, again)
			}
			got, ok, err := getString(out, c.Table, c.Key)
			if err != nil || !ok || got != c.Value {
				t.Fatalf("getString = %q %v %v", got, ok, err)
			}
		})
	}
}
