package adopt

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hookwarden/hookwarden/internal/testbin"
)

// TestContextStepIdempotent: adopt compiles AGENTS.md once; a second adopt
// and a conform change nothing; after AGENTS.md is edited, conform refreshes
// the files that copy it (with backups), a dry run shows their diff first,
// and the files that only import it stay as they are.
func TestContextStepIdempotent(t *testing.T) {
	testbin.Need(t, "git") // adopt writes a backup only where git confirms it is ignored
	root := filepath.Join(t.TempDir(), "repo")
	makeRepo(t, root, true, map[string]string{"AGENTS.md": "# Project\n\nKeep it small.\n"}, nil)
	opts := testOptions(t)
	if rep, err := Adopt(context.Background(), []string{root}, opts); err != nil || rep.Failed() {
		t.Fatalf("first run: %v %+v", err, rep.Repositories[0])
	}
	once := tree(t, root)
	for _, p := range []string{"CLAUDE.md", "GEMINI.md", "AGENTS.readonly.md"} {
		if _, ok := once[p]; !ok {
			t.Fatalf("%s not written by adopt", p)
		}
	}
	for _, run := range []func(context.Context, []string, Options) (*Report, error){Adopt, Conform} {
		rep, err := run(context.Background(), []string{root}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if r := rep.Repositories[0]; r.Status != StatusUnchanged {
			t.Fatalf("%s again: status %s %+v", rep.Verb, r.Status, r)
		}
		if diff := cmp.Diff(once, tree(t, root)); diff != "" {
			t.Fatalf("%s again changed the tree:\n%s", rep.Verb, diff)
		}
	}

	if err := os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte("# Project\n\nKeep it smaller.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dry := opts
	dry.DryRun = true
	rep, err := Conform(context.Background(), []string{root}, dry)
	if err != nil {
		t.Fatal(err)
	}
	var diffed []string
	for _, d := range rep.Repositories[0].Diffs() {
		if d.Path == "AGENTS.readonly.md" && !strings.Contains(d.Unified, "+Keep it smaller.") {
			t.Errorf("dry-run diff of AGENTS.readonly.md lacks the new line:\n%s", d.Unified)
		}
		diffed = append(diffed, d.Path)
	}
	// CLAUDE.md and GEMINI.md only import AGENTS.md: an edit of AGENTS.md
	// leaves them as they are (issue 15: they went stale on every edit).
	if !cmp.Equal(diffed, []string{"AGENTS.readonly.md"}) {
		t.Fatalf("dry run diffs %v, want AGENTS.readonly.md only", diffed)
	}
	rep, err = Conform(context.Background(), []string{root}, opts)
	if err != nil || rep.Failed() {
		t.Fatalf("conform: %v %+v", err, rep.Repositories[0])
	}
	r := rep.Repositories[0]
	if f := fileReport(r, "AGENTS.readonly.md"); f == nil || f.Action != ActionUpdated || f.Backup == "" {
		t.Fatalf("AGENTS.readonly.md after editing AGENTS.md: %+v", f)
	}
	after := tree(t, root)
	if after["AGENTS.readonly.md"] == once["AGENTS.readonly.md"] {
		t.Fatal("AGENTS.readonly.md not refreshed after AGENTS.md changed")
	}
	for _, p := range []string{"CLAUDE.md", "GEMINI.md"} {
		if after[p] != once[p] {
			t.Errorf("%s changed after an AGENTS.md edit; it only imports AGENTS.md", p)
		}
	}
}
