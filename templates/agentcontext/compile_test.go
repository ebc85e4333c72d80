package agentcontext

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hookwarden/hookwarden/internal/unidiff"
)

var update = flag.Bool("update", false, "rewrite the want/ trees of testdata/context/cases from the current output (review the diff before committing)")

const testVersion = "0.0.0-test"

// caseConfig is testdata/context/cases/<case>/case.json (optional).
type caseConfig struct {
	Source     string   `json:"source"` // default AGENTS.md
	Clients    []string `json:"clients"`
	LineBudget int      `json:"line_budget"`
	Error      string   `json:"error"`   // Compile must fail with this substring
	Refused    []string `json:"refused"` // paths Compile must refuse; Apply writes nothing
	Notes      []string `json:"notes"`   // exact plan notes when set
}

// readTree returns every regular file below dir as slash path → bytes.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return out
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func writeTree(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	for rel, b := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFixtures replays every case under testdata/context/cases: the in/ tree
// is copied into a fresh target directory, compiled and applied; every file
// that is new or different afterwards must equal want/ byte for byte, and
// want/ must hold nothing more. A second compile must then be clean.
func TestFixtures(t *testing.T) {
	root := filepath.Join("..", "..", "testdata", "context", "cases")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 40 {
		t.Fatalf("want at least 40 fixture cases, have %d", len(entries))
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		name := e.Name()
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(root, name)
			var cfg caseConfig
			if b, err := os.ReadFile(filepath.Join(dir, "case.json")); err == nil {
				if err := json.Unmarshal(b, &cfg); err != nil {
					t.Fatalf("case.json: %v", err)
				}
			}
			in := readTree(t, filepath.Join(dir, "in"))
			source := cfg.Source
			if source == "" {
				source = "AGENTS.md"
			}
			if _, ok := in[source]; !ok {
				t.Fatalf("case has no in/%s", source)
			}
			target := t.TempDir()
			writeTree(t, target, in)
			opts := Options{TargetDir: target, Source: source, Clients: cfg.Clients, LineBudget: cfg.LineBudget, Version: testVersion}
			plan, err := Compile(context.Background(), opts)
			if cfg.Error != "" {
				if err == nil || !strings.Contains(err.Error(), cfg.Error) {
					t.Fatalf("Compile error = %v, want it to contain %q", err, cfg.Error)
				}
				return
			}
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			if cfg.Notes != nil {
				if diff := cmp.Diff(cfg.Notes, plan.Notes); diff != "" {
					t.Errorf("notes (-want +got):\n%s", diff)
				}
			}
			var refused []string
			for _, f := range plan.Refusals() {
				refused = append(refused, f.Path)
			}
			if diff := cmp.Diff(cfg.Refused, refused); diff != "" {
				t.Fatalf("refused files (-want +got):\n%s", diff)
			}
			_, applyErr := Apply(context.Background(), plan)
			if len(cfg.Refused) > 0 {
				if applyErr == nil {
					t.Fatal("Apply wrote a plan with refusals")
				}
			} else if applyErr != nil {
				t.Fatalf("Apply: %v", applyErr)
			}
			got := map[string][]byte{}
			for rel, b := range readTree(t, target) {
				if old, ok := in[rel]; !ok || string(old) != string(b) {
					got[rel] = b
				}
			}
			wantDir := filepath.Join(dir, "want")
			if *update {
				if err := os.RemoveAll(wantDir); err != nil {
					t.Fatal(err)
				}
				writeTree(t, wantDir, got)
			}
			want := readTree(t, wantDir)
			if diff := cmp.Diff(keys(want), keys(got)); diff != "" {
				t.Fatalf("written files (-want +got):\n%s", diff)
			}
			for rel := range want {
				h, ok := ParseHeader(got[rel])
				// A file that only imports the source records its import
				// line's digest: it does not change with the source.
				imported := false
				for _, ref := range []string{"@" + source, "@./" + source} {
					sum := sha256.Sum256([]byte(ref))
					imported = imported || h.SourceDigest == hex.EncodeToString(sum[:]) && (strings.Contains(string(got[rel]), "\n"+ref+"\n") || strings.Contains(string(got[rel]), "\n"+ref+"\r\n"))
				}
				if !ok || h.Edited || h.Version != testVersion || h.SourceDigest != plan.SourceDigest && !imported || h.Source != source {
					t.Errorf("%s: header %+v ok=%v, want an unedited %s header for %s", rel, h, ok, testVersion, source)
				}
				if string(want[rel]) != string(got[rel]) {
					t.Errorf("%s differs from want/%s:\n%s", rel, rel, unidiff.Unified("want/"+rel, "got/"+rel, want[rel], got[rel]))
				}
			}
			if len(cfg.Refused) > 0 {
				return
			}
			again, err := Compile(context.Background(), opts)
			if err != nil {
				t.Fatalf("second Compile: %v", err)
			}
			if f := Verify(again); len(f) != 0 {
				t.Errorf("second Compile is not clean: %+v", f)
			}
		})
	}
}

func keys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
