package registration

import (
	"encoding/json"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestRequiredRows checks the rows issue 2 item 2 asks for, with the client
// facts they encode.
func TestRequiredRows(t *testing.T) {
	tab, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("testdata/required.json")
	if err != nil {
		t.Fatal(err)
	}
	var want []struct {
		Client      string   `json:"client"`
		Event       string   `json:"event"`
		NativeEvent string   `json:"native_event"`
		Matcher     string   `json:"matcher"`
		Timeout     float64  `json:"timeout"`
		TimeoutUnit string   `json:"timeout_unit"`
		Matches     []string `json:"matches"`
		Not         []string `json:"not"`
	}
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		r, ok := tab.Lookup(w.Client, w.Event)
		if !ok {
			t.Errorf("no row %s %s", w.Client, w.Event)
			continue
		}
		if w.NativeEvent != "" && r.NativeEvent != w.NativeEvent {
			t.Errorf("%s %s: native event %s, want %s", w.Client, w.Event, r.NativeEvent, w.NativeEvent)
		}
		if w.Matcher != "" && r.Matcher != w.Matcher {
			t.Errorf("%s %s: matcher %s, want %s", w.Client, w.Event, r.Matcher, w.Matcher)
		}
		if w.TimeoutUnit != "" && (r.Timeout != w.Timeout || r.TimeoutUnit != w.TimeoutUnit) {
			t.Errorf("%s %s: timeout %v %s, want %v %s", w.Client, w.Event, r.Timeout, r.TimeoutUnit, w.Timeout, w.TimeoutUnit)
		}
		re, err := regexp.Compile(r.Matcher)
		if err != nil {
			t.Errorf("%s %s: matcher: %v", w.Client, w.Event, err)
			continue
		}
		for _, m := range w.Matches {
			if !re.MatchString(m) {
				t.Errorf("%s %s: matcher %s does not match %s", w.Client, w.Event, r.Matcher, m)
			}
		}
		for _, m := range w.Not {
			if re.MatchString(m) {
				t.Errorf("%s %s: matcher %s matches %s", w.Client, w.Event, r.Matcher, m)
			}
		}
		if r.Source == "" {
			t.Errorf("%s %s: no source named", w.Client, w.Event)
		}
	}
}

func TestListingFormat(t *testing.T) {
	tab, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	l := tab.Listing()
	if !strings.HasSuffix(l, "\n") {
		t.Fatal("listing does not end with a newline")
	}
	lines := strings.Split(strings.TrimSuffix(l, "\n"), "\n")
	if len(lines) != len(tab.Rows) {
		t.Fatalf("%d lines for %d rows", len(lines), len(tab.Rows))
	}
	if !sort.StringsAreSorted(lines) {
		t.Fatal("listing is not sorted")
	}
	line := regexp.MustCompile(`^[a-z-]+ [a-z-]+$`)
	for _, ln := range lines {
		if !line.MatchString(ln) {
			t.Fatalf("line %q is not `client event`", ln)
		}
		f := strings.Fields(ln)
		if _, ok := tab.Lookup(f[0], f[1]); !ok {
			t.Fatalf("listed pair %q has no row", ln)
		}
	}
}

func TestParseRefusals(t *testing.T) {
	row := `{"client":"claude","event":"pre-tool","native_event":"PreToolUse","matcher":"^Bash$","timeout":15,"timeout_unit":"s","budget_ms":5000,"source":"x"}`
	cases := []struct{ name, doc, want string }{
		{"version", `{"version":2,"rows":[]}`, "unknown version 2"},
		{"bad client name", `{"version":1,"rows":[` + strings.Replace(row, `"claude"`, `"Claude"`, 1) + `]}`, "is not ^[a-z-]+$"},
		{"duplicate pair", `{"version":1,"rows":[` + row + `,` + row + `]}`, "duplicate pair claude pre-tool"},
		{"unit", `{"version":1,"rows":[` + strings.Replace(row, `"s"`, `"min"`, 1) + `]}`, "timeout unit \"min\""},
		{"budget over timeout", `{"version":1,"rows":[` + strings.Replace(row, `5000`, `15000`, 1) + `]}`, "budget 15000 ms is not below"},
		{"malformed", `{"version":1,"rows":[`, "registration table"},
	}
	for _, tc := range cases {
		if _, err := Parse([]byte(tc.doc)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.want)
		}
	}
	tab, err := Parse([]byte(`{"version":1,"rows":[` + row + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	r := tab.Rows[0]
	if r.ClientTimeout() != 15*time.Second || r.Budget() != 5*time.Second {
		t.Fatalf("timeout %v budget %v", r.ClientTimeout(), r.Budget())
	}
}

func TestValidName(t *testing.T) {
	for s, want := range map[string]bool{"claude": true, "pre-tool": true, "": false, "Pre": false, "pre_tool": false, "a b": false, "claude\n": false} {
		if ValidName(s) != want {
			t.Errorf("ValidName(%q) = %v", s, !want)
		}
	}
}

// TestGeneratedTableMatchesJSON fails when table_gen.go (what the binary
// serves) and table.json (the one source) drift: run
// `go generate ./protocol/registration` after editing table.json.
func TestGeneratedTableMatchesJSON(t *testing.T) {
	data, err := os.ReadFile("table.json")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Parse(data)
	if err != nil {
		t.Fatalf("table.json: %v", err)
	}
	got, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.Rows, got.Rows); diff != "" {
		t.Fatalf("table_gen.go differs from table.json (-json +generated); run go generate ./protocol/registration:\n%s", diff)
	}
	got.Rows[0].Client = "changed"
	if again, _ := Default(); again.Rows[0].Client == "changed" {
		t.Fatal("Default returned the shared compiled rows, not a copy")
	}
}

// TestServedMatchesLookup: Served answers as Default's Lookup does for
// every row of the table, and false for a pair the table lacks.
func TestServedMatchesLookup(t *testing.T) {
	tab, _ := Default()
	for _, r := range tab.Rows {
		if !Served(r.Client, r.Event) {
			t.Errorf("Served(%s, %s) = false for a row of the table", r.Client, r.Event)
		}
	}
	if Served("claude", "no-such-event") || Served("no-such-client", "pre-tool") {
		t.Error("Served is true for a pair the table lacks")
	}
}
