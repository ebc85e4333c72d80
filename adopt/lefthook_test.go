package adopt

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestLefthookOffered: the first adopt of a repository holding a
// lefthook.yml names hookwarden's lefthook jobs in a warning and leaves
// lefthook.yml as it was; conform (the manifest exists) does not repeat it;
// with lefthook selected in the manifest the warning says where the jobs
// go.
func TestLefthookOffered(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	user := "pre-commit:\n  jobs:\n    - run: make lint\n"
	makeRepo(t, root, true, map[string]string{"lefthook.yml": user}, nil)
	opts := testOptions(t)
	rep, err := Adopt(context.Background(), []string{root}, opts)
	if err != nil || rep.Failed() {
		t.Fatalf("adopt: %v %+v", err, rep)
	}
	if !anyContains(rep.Repositories[0].Warnings, "lefthook.yml found; hookwarden's lefthook jobs") {
		t.Errorf("first adopt: no lefthook offer in %q", rep.Repositories[0].Warnings)
	}
	if got := tree(t, root)["lefthook.yml"]; !strings.HasSuffix(got, "\n"+user) {
		t.Errorf("lefthook.yml changed: %q", got)
	}
	rep, err = Conform(context.Background(), []string{root}, opts)
	if err != nil || rep.Failed() {
		t.Fatalf("conform: %v %+v", err, rep)
	}
	if anyContains(rep.Repositories[0].Warnings, "lefthook.yml found") {
		t.Errorf("conform repeats the offer: %q", rep.Repositories[0].Warnings)
	}
	root2 := filepath.Join(t.TempDir(), "repo")
	makeRepo(t, root2, true, map[string]string{"lefthook.yml": user, ManifestFile: "version: 1\nclients: [claude, lefthook]\n"}, nil)
	rep, err = Adopt(context.Background(), []string{root2}, opts)
	if err != nil || rep.Failed() {
		t.Fatalf("adopt with lefthook: %v %+v", err, rep)
	}
	if w := rep.Repositories[0].Warnings; !anyContains(w, "client lefthook: adopt writes nothing for it yet") || anyContains(w, "lefthook.yml found") {
		t.Errorf("adopt with lefthook selected: warnings %q", w)
	}
}
