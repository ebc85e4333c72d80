package adopt

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hookwarden/hookwarden/internal/buildinfo"
	"github.com/hookwarden/hookwarden/templates"
)

// TestConformLeavesAnotherVersionsRender: a rendered file whose only
// difference from this build's render is the version in its header (what
// a teammate's other hookwarden version wrote) is left byte for byte by
// conform, so mixed installs do not rewrite each other's files.
func TestConformLeavesAnotherVersionsRender(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	makeRepo(t, root, true, nil, nil)
	opts := testOptions(t)
	if _, err := Adopt(context.Background(), []string{root}, opts); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, filepath.FromSlash(templates.OpencodePluginPath))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	old := bytes.Replace(b, []byte("version="+buildinfo.Current()+" "), []byte("version=0.0.9-old "), 1)
	if bytes.Equal(old, b) {
		t.Fatalf("%s carries no version=%s header", p, buildinfo.Current())
	}
	if err := os.WriteFile(p, old, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Conform(context.Background(), []string{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if f := fileReport(rep.Repositories[0], templates.OpencodePluginPath); f == nil || f.Action != ActionUnchanged {
		t.Errorf("conform's report of %s: %+v, want unchanged", templates.OpencodePluginPath, f)
	}
	if got, _ := os.ReadFile(p); !bytes.Equal(got, old) {
		t.Errorf("conform rewrote %s, which differed only in its version stamp", p)
	}
}
