package settings

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hookwarden/hookwarden/internal/posixtest"
)

type parseCase struct {
	Name       string `json:"name"`
	YAML       string `json:"yaml"`
	YAMLBase64 string `json:"yaml_base64"` // raw bytes JSON cannot hold (invalid UTF-8, UTF-16)
	DenyRepeat *struct {
		Count int `json:"count"`
		Bytes int `json:"bytes"`
	} `json:"yaml_deny_repeat"`
	Repo      bool   `json:"repo"`
	Err       string `json:"err"`
	DenyCount *int   `json:"want_deny_count"`
	DenyLines []int  `json:"want_deny_lines"`
	Want      *struct {
		Version int      `json:"version"`
		Clients []string `json:"clients"`
		Decline []string `json:"decline"`
		Scope   string   `json:"scope"`
		Events  []string `json:"events"`
		Deny    []string `json:"deny"`
		Minutes *int     `json:"minutes"`
		Files   *int     `json:"files"`
		OnStop  *bool    `json:"on_stop"`
		Ack     []string `json:"acknowledge"`
		Allowed []string `json:"allowed_commands"`
	} `json:"want"`
}

// loadParseCases reads testdata/parse.json.
func loadParseCases(t testing.TB) []parseCase {
	data, err := os.ReadFile("testdata/parse.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []parseCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

// source returns the case's file bytes: yaml, yaml_base64 (raw bytes JSON
// cannot hold), or a generated deny list of count patterns of bytes bytes.
func (tc parseCase) source(t testing.TB) string {
	if tc.YAMLBase64 != "" {
		b, err := base64.StdEncoding.DecodeString(tc.YAMLBase64)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if r := tc.DenyRepeat; r != nil {
		var b strings.Builder
		b.WriteString("version: 1\npolicy:\n  deny:\n")
		for i := 0; i < r.Count; i++ {
			p := fmt.Sprintf("p%03d", i)
			p += strings.Repeat("x", r.Bytes-len(p))
			fmt.Fprintf(&b, "    - '%s'\n", p)
		}
		return b.String()
	}
	return tc.YAML
}

func TestParseCorpus(t *testing.T) {
	cases := loadParseCases(t)
	if len(cases) < 25 {
		t.Fatalf("corpus has %d cases", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			src := tc.source(t)
			f, err := Parse([]byte(src), tc.Repo)
			if tc.Err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.Err) {
					t.Fatalf("err = %v, want containing %q", err, tc.Err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if tc.DenyCount != nil && len(f.Deny) != *tc.DenyCount {
				t.Fatalf("deny count = %d, want %d", len(f.Deny), *tc.DenyCount)
			}
			if tc.DenyLines != nil {
				if d := cmp.Diff(tc.DenyLines, f.DenyLines); d != "" {
					t.Fatalf("deny lines differ (-want +got):\n%s", d)
				}
			}
			if w := tc.Want; w != nil {
				got := *w
				got.Version, got.Clients, got.Decline = f.Version, f.Clients, f.Decline
				got.Scope, got.Events, got.Deny = f.Hooks.Scope, f.Hooks.Events, f.Deny
				got.Minutes, got.Files, got.OnStop = f.Checkpoint.CommitAfterMinutes, f.Checkpoint.CommitAfterFiles, f.Checkpoint.OnStop
				got.Ack, got.Allowed = f.Acknowledge, f.AllowedCommands
				if d := cmp.Diff(*w, got); d != "" {
					t.Fatalf("parsed file differs (-want +got):\n%s", d)
				}
			}
		})
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadLayersOnlyAddRestrictions(t *testing.T) {
	dir := t.TempDir()
	fleet := filepath.Join(dir, "fleet.yaml")
	ws := filepath.Join(dir, "xdg", "hookwarden", "config.yaml")
	repo := filepath.Join(dir, "repo")
	write(t, fleet, "hooks:\n  scope: all\npolicy:\n  deny: ['terraform destroy']\ncheckpoint:\n  commit_after_minutes: 20\n")
	write(t, ws, "checkpoint:\n  commit_after_minutes: 60\n  commit_after_files: 5\n  on_stop: true\n")
	write(t, filepath.Join(repo, RepoFileName), "version: 1\nhooks:\n  scope: governed\npolicy:\n  deny: ['kubectl delete']\ncheckpoint:\n  on_stop: false\n")
	src := SourcesFromEnv(func(k string) string {
		return map[string]string{"HOOKWARDEN_FLEET_CONFIG": fleet, "XDG_CONFIG_HOME": filepath.Join(dir, "xdg"), "HOME": "/nonexistent"}[k]
	})
	e, err := Load(src, []string{repo})
	if err != nil {
		t.Fatal(err)
	}
	if e.Scope != ScopeAll {
		t.Errorf("scope = %s: a later `governed` narrowed an earlier `all`", e.Scope)
	}
	var pats []string
	for _, p := range e.Deny {
		pats = append(pats, p.Pattern)
	}
	if d := cmp.Diff([]string{"terraform destroy", "kubectl delete"}, pats); d != "" {
		t.Errorf("deny union (-want +got):\n%s", d)
	}
	if !strings.HasPrefix(e.Deny[0].Layer, "fleet ") || !strings.HasPrefix(e.Deny[1].Layer, "repository ") {
		t.Errorf("layer labels = %q, %q", e.Deny[0].Layer, e.Deny[1].Layer)
	}
	if *e.Checkpoint.CommitAfterMinutes != 20 || *e.Checkpoint.CommitAfterFiles != 5 || !*e.Checkpoint.OnStop {
		t.Errorf("checkpoint = %d min, %d files, on_stop %v; want the strictest 20, 5, true",
			*e.Checkpoint.CommitAfterMinutes, *e.Checkpoint.CommitAfterFiles, *e.Checkpoint.OnStop)
	}
	if len(e.Layers) != 4 || len(e.Repository) != 1 {
		t.Errorf("layers = %d, repository layers = %d", len(e.Layers), len(e.Repository))
	}
}

func TestLoadDefaultsWhenNoFiles(t *testing.T) {
	dir := t.TempDir()
	e, err := Load(SourcesFromEnv(func(k string) string {
		if k == "HOME" {
			return dir
		}
		return ""
	}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.Scope != ScopeGoverned || len(e.Deny) != 0 || *e.Checkpoint.CommitAfterMinutes != 30 || *e.Checkpoint.CommitAfterFiles != 20 || *e.Checkpoint.OnStop {
		t.Fatalf("defaults = %+v", e)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	write(t, bad, "policy:\n  deny: ['(']\n")
	fifo := filepath.Join(dir, "fifo.yaml")
	posixtest.Mkfifo(t, fifo, 0o644)
	cases := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"explicit fleet file missing", map[string]string{"HOOKWARDEN_FLEET_CONFIG": filepath.Join(dir, "none.yaml")}, "settings: fleet file " + filepath.Join(dir, "none.yaml")},
		{"explicit workstation file missing", map[string]string{"HOOKWARDEN_CONFIG": filepath.Join(dir, "none.yaml")}, "settings: workstation file"},
		{"bad pattern fails the layer", map[string]string{"HOOKWARDEN_CONFIG": bad}, "workstation file " + bad + ": line 2: policy.deny[0]: not an RE2 pattern"},
		{"settings path is a directory", map[string]string{"HOOKWARDEN_CONFIG": dir}, "not a regular file"},
		// A FIFO is refused at once: opening it for reading would wait for
		// a writer, and a hook that never answers is let through by the
		// client's timeout (testdata/clients/FACTS.md).
		{"settings path is a FIFO", map[string]string{"HOOKWARDEN_FLEET_CONFIG": fifo}, "settings: fleet file " + fifo + ": not a regular file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := Load(SourcesFromEnv(func(k string) string { return tc.env[k] }), nil)
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("Load blocked on the settings path")
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want containing %q", err, tc.want)
			}
		})
	}
}

func TestSourcesFromEnv(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want Sources
	}{
		{map[string]string{"HOME": "/h"}, Sources{WorkstationPath: "/h/.config/hookwarden/config.yaml"}},
		{map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "/x"}, Sources{WorkstationPath: "/x/hookwarden/config.yaml"}},
		{map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "relative"}, Sources{WorkstationPath: "/h/.config/hookwarden/config.yaml"}},
		{map[string]string{"HOME": "/h", "HOOKWARDEN_CONFIG": "/c.yaml", "HOOKWARDEN_FLEET_CONFIG": "/f.yaml"}, Sources{FleetPath: "/f.yaml", FleetExplicit: true, WorkstationPath: "/c.yaml", WorkstationExplicit: true}},
	}
	for _, tc := range cases {
		if d := cmp.Diff(tc.want, SourcesFromEnv(func(k string) string { return tc.env[k] })); d != "" {
			t.Errorf("env %v (-want +got):\n%s", tc.env, d)
		}
	}
}

// BenchmarkParseRepoFile measures parsing a typical .hookwarden.yaml, which
// the hook does on every call in a governed repository.
func BenchmarkParseRepoFile(b *testing.B) {
	src := []byte("version: 1\nclients: [claude, codex, gemini]\nhooks:\n  scope: governed\n  events: [pre-tool, stop]\npolicy:\n  deny: ['terraform destroy', 'kubectl delete ns']\ncheckpoint:\n  commit_after_minutes: 30\n")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Parse(src, true); err != nil {
			b.Fatal(err)
		}
	}
}

// corpusSources returns the file bytes of every corpus case with its repo
// flag.
func corpusSources(t testing.TB) ([][]byte, []bool) {
	var srcs [][]byte
	var repos []bool
	for _, tc := range loadParseCases(t) {
		srcs, repos = append(srcs, []byte(tc.source(t))), append(repos, tc.Repo)
	}
	return srcs, repos
}

// render writes f back as YAML in one canonical layout (strings quoted in
// ASCII; YAML reads Go's escapes for valid UTF-8 the same).
func render(f File) string {
	var b strings.Builder
	list := func(l []string) string {
		q := make([]string, len(l))
		for i, s := range l {
			q[i] = strconv.QuoteToASCII(s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	if f.Version != 0 {
		fmt.Fprintf(&b, "version: %d\n", f.Version)
	}
	if f.Clients != nil {
		fmt.Fprintf(&b, "clients: %s\n", list(f.Clients))
	}
	if f.Decline != nil {
		fmt.Fprintf(&b, "decline: %s\n", list(f.Decline))
	}
	if f.Hooks.Scope != "" || f.Hooks.Events != nil {
		b.WriteString("hooks:\n")
		if f.Hooks.Scope != "" {
			fmt.Fprintf(&b, "  scope: %s\n", strconv.QuoteToASCII(f.Hooks.Scope))
		}
		if f.Hooks.Events != nil {
			fmt.Fprintf(&b, "  events: %s\n", list(f.Hooks.Events))
		}
	}
	if f.Deny != nil {
		fmt.Fprintf(&b, "policy:\n  deny: %s\n", list(f.Deny))
	}
	c := f.Checkpoint
	if c.CommitAfterMinutes != nil || c.CommitAfterFiles != nil || c.OnStop != nil {
		b.WriteString("checkpoint:\n")
		if c.CommitAfterMinutes != nil {
			fmt.Fprintf(&b, "  commit_after_minutes: %d\n", *c.CommitAfterMinutes)
		}
		if c.CommitAfterFiles != nil {
			fmt.Fprintf(&b, "  commit_after_files: %d\n", *c.CommitAfterFiles)
		}
		if c.OnStop != nil {
			fmt.Fprintf(&b, "  on_stop: %t\n", *c.OnStop)
		}
	}
	if f.Acknowledge != nil || f.AllowedCommands != nil {
		b.WriteString("audit:\n")
		if f.Acknowledge != nil {
			fmt.Fprintf(&b, "  acknowledge: %s\n", list(f.Acknowledge))
		}
		if f.AllowedCommands != nil {
			fmt.Fprintf(&b, "  allowed_commands: %s\n", list(f.AllowedCommands))
		}
	}
	return b.String()
}

// FuzzParse checks that Parse never panics, that its errors are one line,
// that it is deterministic, and that an accepted file, written back in a
// canonical layout, parses to the same File (deny and allow-list lines
// aside: they follow the layout). Seeded with every corpus case; run by hand with
// `go test ./settings -run '^$' -fuzz FuzzParse -fuzztime 30s`.
func FuzzParse(f *testing.F) {
	srcs, repos := corpusSources(f)
	for i := range srcs {
		f.Add(srcs[i], repos[i])
	}
	f.Fuzz(func(t *testing.T, data []byte, repo bool) {
		got, err := Parse(data, repo)
		again, err2 := Parse(data, repo)
		if (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) || !reflect.DeepEqual(got, again) {
			t.Fatalf("Parse is not deterministic: %v / %v", err, err2)
		}
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("error spans lines: %q", err.Error())
			}
			return
		}
		if len(got.Deny) != len(got.DenyLines) {
			t.Fatalf("%d deny patterns, %d deny lines", len(got.Deny), len(got.DenyLines))
		}
		out := render(got)
		back, err := Parse([]byte(out), repo)
		if err != nil {
			t.Fatalf("accepted file re-rendered as\n%s\ndoes not parse: %v", out, err)
		}
		got.DenyLines, back.DenyLines = nil, nil
		got.AllowedCommandLines, back.AllowedCommandLines = nil, nil
		if d := cmp.Diff(got, back); d != "" {
			t.Fatalf("re-parse differs (-first +again):\n%s", d)
		}
	})
}

// TestAdmissionLayers: hooks.admission merges so that a later layer only
// adds restrictions: enforce from any layer (a false never switches an
// earlier true off), every layer's shapes, the largest divisor; the
// default divisor is 3.
func TestAdmissionLayers(t *testing.T) {
	parse := func(src string) File {
		f, err := Parse([]byte(src), false)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	e := Merge(nil)
	if e.Admission.Enforce || e.Admission.MaxJobsDivisor != DefaultMaxJobsDivisor {
		t.Fatalf("defaults %+v", e.Admission)
	}
	e = Merge([]Layer{
		{Name: "fleet", File: parse("hooks:\n  admission:\n    enforce: true\n    commands: ['^just build( |$)']\n    max_jobs_divisor: 4\n")},
		{Name: "workstation", File: parse("hooks:\n  admission:\n    enforce: false\n    commands: ['^task ci( |$)']\n    max_jobs_divisor: 2\n")},
	})
	want := EffectiveAdmission{Enforce: true, Commands: []string{"^just build( |$)", "^task ci( |$)"}, MaxJobsDivisor: 4}
	if d := cmp.Diff(want, e.Admission); d != "" {
		t.Fatalf("merged admission (-want +got):\n%s", d)
	}
}

// TestRecordDir: record mode comes from the operator layers only, the last
// one that sets it winning.
func TestRecordDir(t *testing.T) {
	dir := t.TempDir()
	fleet, ws := filepath.Join(dir, "fleet.yaml"), filepath.Join(dir, "ws.yaml")
	write(t, fleet, "record:\n  dir: /srv/fleet-rec\n")
	write(t, ws, "record:\n  dir: /srv/ws-rec/\n")
	ops, err := OperatorLayers(Sources{FleetPath: fleet, FleetExplicit: true, WorkstationPath: ws, WorkstationExplicit: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := RecordDir(ops); got != "/srv/ws-rec" {
		t.Fatalf("RecordDir = %q, want the workstation's /srv/ws-rec", got)
	}
	if got := RecordDir(ops[:1]); got != "/srv/fleet-rec" {
		t.Fatalf("RecordDir = %q, want the fleet's", got)
	}
	if got := RecordDir(nil); got != "" {
		t.Fatalf("RecordDir(nil) = %q", got)
	}
}

// TestClientVersions: .hookwarden.yaml declares its clients' versions
// (client_versions, read by adopt's version gates); an unknown client, a
// version that is not dotted, or the key in another layer is an error.
func TestClientVersions(t *testing.T) {
	f, err := Parse([]byte("version: 1\nclient_versions:\n  claude: \"2.1.332\"\n  codex: 0.171.0\n"), true)
	if err != nil {
		t.Fatal(err)
	}
	if f.ClientVersions["claude"] != "2.1.332" || f.ClientVersions["codex"] != "0.171.0" {
		t.Errorf("client_versions = %v", f.ClientVersions)
	}
	for _, bad := range []string{"client_versions:\n  nosuch: \"1.0\"\n", "client_versions:\n  claude: latest\n", "client_versions:\n  claude: [1]\n"} {
		if _, err := Parse([]byte("version: 1\n"+bad), true); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if _, err := Parse([]byte("client_versions:\n  claude: \"2.1.332\"\n"), false); err == nil {
		t.Error("client_versions in a workstation layer: no error")
	}
}
