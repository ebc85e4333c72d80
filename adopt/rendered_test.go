package adopt

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/hookwarden/hookwarden/internal/testbin"
	"github.com/hookwarden/hookwarden/templates"
)

// TestRenderedFiles: adopt writes every rendered file with its body and mode;
// a hand-edited rendered file is kept with a warning by adopt and conform,
// and replaced with --force; a declined rendered step is not written.
func TestRenderedFiles(t *testing.T) {
	testbin.Need(t, "git") // adopt writes a backup only where git confirms it is ignored
	files, err := templates.Render(templates.DefaultClients())
	if err != nil {
		t.Fatalf("templates.Render: %v", err)
	}
	root := filepath.Join(t.TempDir(), "repo")
	makeRepo(t, root, true, nil, nil)
	opts := testOptions(t)
	if rep, _ := Adopt(context.Background(), []string{root}, opts); rep.Failed() {
		t.Fatalf("%+v", rep.Repositories[0])
	}
	var launcher templates.File
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f.Path))
		got, err := os.ReadFile(p)
		if err != nil || string(got) != string(f.Body) {
			t.Fatalf("%s: %v, content differs from the render", f.Path, err)
		}
		fi, _ := os.Stat(p)
		if fi.Mode().Perm()&0o111 != f.Mode.Perm()&0o111 {
			t.Errorf("%s: mode %v, rendered %v", f.Path, fi.Mode().Perm(), f.Mode.Perm())
		}
		if f.Step == templates.StepLauncher {
			launcher = f
		}
	}
	if launcher.Path == "" {
		t.Fatal("templates.Render returned no launcher")
	}
	lp := filepath.Join(root, filepath.FromSlash(launcher.Path))
	edited := append(append([]byte{}, launcher.Body...), "\n# local tweak\n"...)
	os.WriteFile(lp, edited, 0o755)
	if h, ok := templates.ParseHeader(edited); !ok || !h.Edited {
		t.Fatalf("templates.ParseHeader does not see the hand edit: %+v %v", h, ok)
	}
	for _, run := range []func(context.Context, []string, Options) (*Report, error){Adopt, Conform} {
		rep, _ := run(context.Background(), []string{root}, opts)
		f := fileReport(rep.Repositories[0], launcher.Path)
		if f == nil || f.Action != ActionSkipped || !anyContains(rep.Repositories[0].Warnings, "edited by hand") {
			t.Fatalf("%s: hand-edited launcher: %+v warnings %v", rep.Verb, f, rep.Repositories[0].Warnings)
		}
		if got, _ := os.ReadFile(lp); string(got) != string(edited) {
			t.Fatalf("%s replaced a hand-edited file without --force", rep.Verb)
		}
	}
	opts.Force = true
	rep, _ := Conform(context.Background(), []string{root}, opts)
	if f := fileReport(rep.Repositories[0], launcher.Path); f == nil || f.Action != ActionUpdated || f.Backup == "" {
		t.Fatalf("--force: %+v", f)
	}
	if got, _ := os.ReadFile(lp); string(got) != string(launcher.Body) {
		t.Fatal("--force did not restore the render")
	}

	// A stale render (an older version, not edited since) is refreshed by
	// conform without --force, and backed up. The header form is templates'
	// own: "# hookwarden-render: version=V sha256=<hex of the rest>".
	opts.Force = false
	oldBody := "print('an older launcher')\n"
	sum := sha256.Sum256([]byte(oldBody))
	stale := "# hookwarden-render: version=0.0.1 sha256=" + hex.EncodeToString(sum[:]) + "\n" + oldBody
	if h, ok := templates.ParseHeader([]byte(stale)); !ok || h.Edited || h.Version != "0.0.1" {
		t.Fatalf("the stale fixture is not a clean older render: %+v %v", h, ok)
	}
	os.WriteFile(lp, []byte(stale), 0o755)
	rep, _ = Conform(context.Background(), []string{root}, opts)
	if f := fileReport(rep.Repositories[0], launcher.Path); f == nil || f.Action != ActionUpdated || !anyContains(f.Changes, "version 0.0.1") || f.Backup == "" {
		t.Fatalf("stale render: %+v", f)
	}
	if got, _ := os.ReadFile(lp); string(got) != string(launcher.Body) {
		t.Fatal("conform did not refresh the stale render")
	}

	// Declined rendered steps are not written.
	other := filepath.Join(t.TempDir(), "other")
	makeRepo(t, other, true, nil, nil)
	opts.Force = false
	opts.Decline = []string{templates.StepInterceptor, templates.StepOpencodePlugin}
	rep, _ = Adopt(context.Background(), []string{other}, opts)
	for _, f := range files {
		_, err := os.Stat(filepath.Join(other, filepath.FromSlash(f.Path)))
		declined := f.Step == templates.StepInterceptor || f.Step == templates.StepOpencodePlugin
		if declined != (err != nil) {
			t.Errorf("%s (step %s): exists=%v, declined=%v", f.Path, f.Step, err == nil, declined)
		}
		if fr := fileReport(rep.Repositories[0], f.Path); declined && (fr == nil || fr.Action != ActionDeclined) {
			t.Errorf("%s: report %+v, want declined", f.Path, fr)
		}
	}
}
