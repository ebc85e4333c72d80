package adopt

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hookwarden/hookwarden/internal/testbin"
)

type repoCase struct {
	Name             string            `json:"name"`
	Git              bool              `json:"git"`
	Verb             string            `json:"verb"`
	Clients          []string          `json:"clients"`
	Decline          []string          `json:"decline"`
	Force            bool              `json:"force"`
	Files            map[string]string `json:"files"`
	Symlinks         map[string]string `json:"symlinks"`
	RunErrorContains string            `json:"run_error_contains"`
	Want             struct {
		Status          string              `json:"status"`
		Files           map[string]string   `json:"files"`
		Contents        map[string]string   `json:"contents"`
		Contains        map[string][]string `json:"contains"`
		NotContains     map[string][]string `json:"not_contains"`
		Absent          []string            `json:"absent"`
		Backups         []string            `json:"backups"`
		ErrorContains   string              `json:"error_contains"`
		WarningContains string              `json:"warning_contains"`
		NextContains    string              `json:"next_contains"`
		Untouched       bool                `json:"untouched"`
	} `json:"want"`
}

// TestRepoCorpus replays testdata/adopt/repos/cases.json: each case builds a
// repository, runs adopt (or conform) on it and checks the report and the
// files a user would look at.
func TestRepoCorpus(t *testing.T) {
	testbin.Need(t, "git") // adopt writes a backup only where git confirms it is ignored
	data, err := os.ReadFile("../testdata/adopt/repos/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []repoCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "repo")
			makeRepo(t, root, c.Git, c.Files, c.Symlinks)
			before := tree(t, root)
			opts := testOptions(t)
			opts.Clients, opts.Decline, opts.Force = c.Clients, c.Decline, c.Force
			run := Adopt
			if c.Verb == "conform" {
				run = Conform
			}
			rep, err := run(context.Background(), []string{root}, opts)
			if c.RunErrorContains != "" {
				if err == nil || !strings.Contains(err.Error(), c.RunErrorContains) {
					t.Fatalf("run error = %v, want one containing %q", err, c.RunErrorContains)
				}
				if diff := cmp.Diff(before, tree(t, root)); diff != "" {
					t.Fatalf("a refused run wrote files:\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r := rep.Repositories[0]
			if r.Status != c.Want.Status {
				t.Fatalf("status %q, want %q; errors %v warnings %v", r.Status, c.Want.Status, r.Errors, r.Warnings)
			}
			for p, act := range c.Want.Files {
				f := fileReport(r, p)
				if f == nil || f.Action != act {
					t.Errorf("%s: report %+v, want action %s", p, f, act)
				}
			}
			after := tree(t, root)
			for p, want := range c.Want.Contents {
				got, ok := after[p]
				if !ok {
					t.Errorf("%s absent", p)
					continue
				}
				if diff := cmp.Diff(want, got[strings.IndexByte(got, '\n')+1:]); diff != "" {
					t.Errorf("%s (-want +got):\n%s", p, diff)
				}
			}
			for p, subs := range c.Want.Contains {
				for _, s := range subs {
					if !strings.Contains(after[p], s) {
						t.Errorf("%s lacks %q:\n%s", p, s, after[p])
					}
				}
			}
			for p, subs := range c.Want.NotContains {
				for _, s := range subs {
					if strings.Contains(after[p], s) {
						t.Errorf("%s holds %q:\n%s", p, s, after[p])
					}
				}
			}
			for _, p := range c.Want.Absent {
				for k := range after {
					if k == p || strings.HasPrefix(k, p+"/") {
						t.Errorf("%s exists, want absent", k)
					}
				}
			}
			for _, p := range c.Want.Backups {
				bk := BackupDir + "/" + fixedStamp + "/" + p
				if got, ok := after[bk]; !ok || got[strings.IndexByte(got, '\n')+1:] != c.Files[p] {
					t.Errorf("backup %s = %q, want the old content %q", bk, got, c.Files[p])
				}
				if f := fileReport(r, p); f == nil || f.Backup != bk {
					t.Errorf("report for %s does not name backup %s: %+v", p, bk, f)
				}
			}
			if s := c.Want.ErrorContains; s != "" && !anyContains(r.Errors, s) {
				t.Errorf("errors %q lack %q", r.Errors, s)
			}
			if s := c.Want.WarningContains; s != "" && !anyContains(r.Warnings, s) {
				t.Errorf("warnings %q lack %q", r.Warnings, s)
			}
			if s := c.Want.NextContains; s != "" && !anyContains(r.Next, s) {
				t.Errorf("next %q lacks %q", r.Next, s)
			}
			if c.Want.Untouched {
				if diff := cmp.Diff(before, after); diff != "" {
					t.Errorf("repository changed (-before +after):\n%s", diff)
				}
			}
		})
	}
}
