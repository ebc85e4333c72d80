package audit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/hookwarden/hookwarden/adopt"
	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/templates"
)

// sarifSchema compiles the SARIF 2.1.0 JSON schema (sarif-2.1.0-rtm.5.json,
// as shipped in the npm package @microsoft/jest-sarif 1.0.0-beta.0, MIT).
// The schema is draft-04, which the validator the MCP proxy links
// (github.com/google/jsonschema-go v0.4.3) refuses ("cannot validate
// version …draft-04…, supported versions: draft-07 and draft 2020-12",
// tried 2026-12-05), so the tests keep santhosh-tekuri/jsonschema.
func sarifSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	p := filepath.Join("..", "..", "testdata", "audit", "schema", "sarif-2.1.0-rtm.5.json")
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("sarif.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("sarif.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// auditAll builds every fixture case and audits them in one run (the
// order of the sorted case names).
func auditAll(t *testing.T) (*Report, []string) {
	t.Helper()
	cases := loadCases(t)
	names := make([]string, 0, len(cases))
	for n := range cases {
		names = append(names, n)
	}
	sort.Strings(names)
	var repos []string
	for _, n := range names {
		repo, _ := sharedCase(t, n)
		repos = append(repos, repo)
	}
	rep, err := Audit(context.Background(), repos, Options{Getenv: emptyEnv(t.TempDir(), nil), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return rep, repos
}

// TestSARIFValidates checks the SARIF output of every fixture, one
// repository at a time and all together, against the SARIF 2.1.0 schema,
// and that each result points at its file and line.
func TestSARIFValidates(t *testing.T) {
	schema := sarifSchema(t)
	rep, _ := auditAll(t)
	check := func(name string, r *Report) map[string]any {
		var buf bytes.Buffer
		if err := r.WriteSARIF(&buf); err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("%s: SARIF is not JSON: %v", name, err)
		}
		if err := schema.Validate(inst); err != nil {
			t.Errorf("%s: SARIF does not validate: %v", name, err)
		}
		var doc map[string]any
		_ = json.Unmarshal(buf.Bytes(), &doc)
		return doc
	}
	for _, repo := range rep.Repositories {
		one := &Report{SchemaVersion: 1, Tool: "hookwarden", Version: "test", Repositories: []*RepoResult{repo}}
		doc := check(repo.Path, one)
		results := doc["runs"].([]any)[0].(map[string]any)["results"].([]any)
		if len(results) != len(repo.Findings) {
			t.Fatalf("%s: %d results for %d findings", repo.Path, len(results), len(repo.Findings))
		}
		for i, f := range repo.Findings {
			res := results[i].(map[string]any)
			if res["ruleId"] != f.ID || res["level"] != string(f.Severity) {
				t.Errorf("%s: result %d is %v/%v, want %s/%s", repo.Path, i, res["ruleId"], res["level"], f.ID, f.Severity)
			}
			pl := res["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)
			uri := pl["artifactLocation"].(map[string]any)["uri"].(string)
			want := f.File
			if want == "" {
				want = ".hookwarden.yaml"
			}
			if filepath.IsAbs(want) {
				want = "file://" + want
			}
			if uri != want {
				t.Errorf("%s: result %d uri %q, want %q", repo.Path, i, uri, want)
			}
			region, hasRegion := pl["region"].(map[string]any)
			if (f.Line > 0) != hasRegion || (hasRegion && int(region["startLine"].(float64)) != f.Line) {
				t.Errorf("%s: result %d region %v, want line %d", repo.Path, i, pl["region"], f.Line)
			}
		}
	}
	broken, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"version":"2.1.0","runs":[{"tool":{"driver":{}},"results":[]}]}`))
	if schema.Validate(broken) == nil {
		t.Fatal("the schema accepts a driver without a name: the validator is not checking")
	}
	doc := check("all fixtures", rep)
	rules := doc["runs"].([]any)[0].(map[string]any)["tool"].(map[string]any)["driver"].(map[string]any)["rules"].([]any)
	if len(rules) != len(Rules()) {
		t.Errorf("%d SARIF rules, want %d", len(rules), len(Rules()))
	}
}

// TestJSONSchemaVersion1 checks the JSON report against the schema the
// package doc documents: the top-level members, schema_version 1, the
// finding members, and a summary that adds up.
func TestJSONSchemaVersion1(t *testing.T) {
	rep, repos := auditAll(t)
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		SchemaVersion *int   `json:"schema_version"`
		Tool          string `json:"tool"`
		Version       string `json:"version"`
		Repositories  []struct {
			Path     string            `json:"path"`
			Root     string            `json:"root"`
			Governed *bool             `json:"governed"`
			Findings []json.RawMessage `json:"findings"`
		} `json:"repositories"`
		Summary Summary `json:"summary"`
	}
	dec := json.NewDecoder(&buf)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if doc.SchemaVersion == nil || *doc.SchemaVersion != 1 || doc.Tool != "hookwarden" || doc.Version != "test" {
		t.Fatalf("header: %+v", doc)
	}
	if len(doc.Repositories) != len(repos) || doc.Summary.Repositories != len(repos) {
		t.Fatalf("%d repositories, want %d", len(doc.Repositories), len(repos))
	}
	var e, w, n, clean int
	for i, r := range doc.Repositories {
		if r.Path != repos[i] || r.Governed == nil || r.Findings == nil {
			t.Errorf("repository %d: %+v", i, r)
		}
		bad := false
		for _, raw := range r.Findings {
			var f map[string]any
			_ = json.Unmarshal(raw, &f)
			for _, k := range []string{"id", "severity", "file", "line", "message", "fix"} {
				if _, ok := f[k]; !ok {
					t.Errorf("finding without %q: %s", k, raw)
				}
			}
			switch f["severity"] {
			case "error":
				e++
				bad = true
			case "warning":
				w++
				bad = true
			case "note":
				n++
			default:
				t.Errorf("severity %v", f["severity"])
			}
		}
		if !bad {
			clean++
		}
	}
	if got := (Summary{len(repos), clean, e, w, n}); got != doc.Summary {
		t.Errorf("summary %+v, counted %+v", doc.Summary, got)
	}
}

// auditText audits the shared fixture cases named, in order, with an empty
// environment and returns their repositories and the text report.
func auditText(t *testing.T, names ...string) ([]string, string) {
	t.Helper()
	var repos []string
	for _, n := range names {
		repo, _ := sharedCase(t, n)
		repos = append(repos, repo)
	}
	rep, err := Audit(context.Background(), repos, Options{Getenv: emptyEnv(t.TempDir(), nil)})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rep.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	return repos, buf.String()
}

// TestTextGroupsByRepository checks the text report: one heading per
// repository in order, each finding's fix under it, and the summary line.
func TestTextGroupsByRepository(t *testing.T) {
	repos, out := auditText(t, "clean-without-codex", "row-missing", "duplicate-handler")
	i0 := strings.Index(out, repos[0]+": clean\n")
	i1 := strings.Index(out, repos[1]+": 2 findings (1 error, 0 warnings, 1 note)\n")
	i2 := strings.Index(out, repos[2]+": 2 findings (0 errors, 1 warning, 1 note)\n")
	if i0 < 0 || i1 < i0 || i2 < i1 {
		t.Fatalf("repositories not grouped in order:\n%s", out)
	}
	section := out[i1:i2]
	if !strings.Contains(section, "error   row-missing  .claude/settings.json\n") || !strings.Contains(section, "fix: hookwarden conform "+repos[1]+"\n") {
		t.Errorf("row-missing finding not under its repository:\n%s", section)
	}
	if !strings.Contains(out, "failing repositories:\n  "+repos[1]+": row-missing .claude/settings.json: claude stop") || strings.Contains(out, "failing repositories:\n  "+repos[2]) {
		t.Errorf("the fleet's failing repositories are not listed with their first error (and only those):\n%s", out)
	}
	if !strings.HasSuffix(out, "audit: 3 repositories, 1 clean; 1 error, 1 warning, 2 notes\n") {
		t.Errorf("summary line:\n%s", out)
	}
}

// TestTextFailingRepositoryLocation checks that the fleet's list of failing
// repositories names a finding about the repository itself (no file, as
// not-governed) at ".", as its heading does, and never as "not-governed : "
// (found by following the README on a fleet of fresh clones).
func TestTextFailingRepositoryLocation(t *testing.T) {
	repos, out := auditText(t, "not-governed", "row-missing")
	if !strings.Contains(out, "error   not-governed  .\n") || !strings.Contains(out, "failing repositories:\n  "+repos[0]+": not-governed .: not governed") {
		t.Errorf("the ungoverned repository is not named at \".\" in the heading and the failing list:\n%s", out)
	}
	if strings.Contains(out, "not-governed : ") {
		t.Errorf("a finding without a file is listed with an empty location:\n%s", out)
	}
}

// treeDigest hashes every entry below root, .git included: path, type,
// mode, size, modification time (ns) and content or symlink target.
func treeDigest(t testing.TB, root string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(h, "%s\x00%v\x00%d\x00%d\x00", rel, fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			h.Write([]byte(target))
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(data)
		}
		h.Write([]byte{0})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestAuditNeverWrites audits every fixture repository, writing all three
// reports, and checks each tree (contents, modes, mtimes, .git) is
// unchanged. The mtimes are first set into the past, so a rewrite with the
// same bytes would still show.
func TestAuditNeverWrites(t *testing.T) {
	cases := loadCases(t)
	past := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	for name := range cases {
		repo, getenv := sharedCase(t, name)
		_ = filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type()&fs.ModeSymlink == 0 {
				_ = os.Chtimes(p, past, past)
			}
			return nil
		})
		before := treeDigest(t, repo)
		rep, err := Audit(context.Background(), []string{repo}, Options{Getenv: getenv})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []func(*bytes.Buffer) error{
			func(b *bytes.Buffer) error { return rep.WriteText(b) },
			func(b *bytes.Buffer) error { return rep.WriteJSON(b) },
			func(b *bytes.Buffer) error { return rep.WriteSARIF(b) },
		} {
			if err := w(&bytes.Buffer{}); err != nil {
				t.Fatal(err)
			}
		}
		if after := treeDigest(t, repo); after != before {
			t.Errorf("%s: the audit changed the repository tree", name)
		}
	}
}

// TestUnusableInvocation checks the errors that make the CLI exit 2: no
// path, a missing path, a file instead of a directory.
func TestUnusableInvocation(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	must(t, os.WriteFile(file, nil, 0o644))
	for _, paths := range [][]string{nil, {filepath.Join(dir, "missing")}, {file}} {
		if _, err := Audit(context.Background(), paths, Options{}); err == nil {
			t.Errorf("Audit(%q) = nil error", paths)
		}
	}
}

// TestSARIFFleetURIs audits two repositories given by relative paths, one
// with a space: each result's uri is the repository path joined with the
// file, percent-encoded, and the log validates.
func TestSARIFFleetURIs(t *testing.T) {
	cases := loadCases(t)
	a, getenv := buildCase(t, "row-missing", cases["row-missing"])
	b, _ := buildCase(t, "rendered-missing", cases["rendered-missing"])
	base := t.TempDir()
	must(t, os.Rename(a, filepath.Join(base, "my repo")))
	must(t, os.Rename(b, filepath.Join(base, "other")))
	schema := sarifSchema(t)
	t.Chdir(base)
	rep, err := Audit(context.Background(), []string{"my repo", "other"}, Options{Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rep.WriteSARIF(&buf); err != nil {
		t.Fatal(err)
	}
	inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(buf.Bytes()))
	if err := schema.Validate(inst); err != nil {
		t.Fatalf("SARIF does not validate: %v", err)
	}
	out := buf.String()
	for _, want := range []string{`"uri": "my%20repo/.claude/settings.json"`, `"uri": "other/.hookwarden/interceptor.py"`, `"text": "my repo: `} {
		if !strings.Contains(out, want) {
			t.Errorf("SARIF lacks %s", want)
		}
	}
}

// TestRenderUnavailable makes this build's render fail through the run's
// one render (adopt.Shared, which audit's checks and its conform dry run
// share) and checks the audit says the rendered files were not checked,
// as an error, instead of passing them; the render is asked once for the
// whole run.
func TestRenderUnavailable(t *testing.T) {
	repo, getenv := sharedCase(t, "rendered-missing")
	table, err := registration.Default()
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	shared, err := adopt.NewShared(table, func([]string, bool) ([]templates.File, error) {
		calls++
		return nil, errors.New("hookwarden: render: template broken")
	})
	if err != nil {
		t.Fatal(err)
	}
	a := &auditor{table: table, getenv: getenv, shared: shared}
	if a.dry, err = adopt.NewConformDryRun(a.dryOptions()); err != nil {
		t.Fatal(err)
	}
	res := a.repo(context.Background(), repo, repo, "")
	var ids []string
	for _, f := range res.Findings {
		ids = append(ids, f.ID+"@"+string(f.Severity))
	}
	// conform's dry run meets the same broken render and plans nothing.
	want := []string{IDRenderUnavailable + "@error", IDCodexTrust + "@note"}
	if strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Fatalf("findings %v, want %v (a render failure hides rendered-missing; it must be an error itself)", ids, want)
	}
	if calls != 1 {
		t.Errorf("the render was asked %d times in one run, want once (audit and its conform dry run share it)", calls)
	}
}
