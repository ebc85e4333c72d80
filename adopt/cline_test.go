package adopt

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/internal/posixtest"
	"github.com/hookwarden/hookwarden/templates"
)

// TestAdoptCline: --clients cline writes Cline's executable hook file
// .clinerules/hooks/PreToolUse (mode 0755, shebang first, the render header
// second); a dry run writes nothing; an operator's own PreToolUse (no
// header of ours) is kept byte for byte with its mode and reported; conform
// is a no-op on a fresh render, keeps and reports an edit, repairs it with
// --force, and keeps the file when the manifest drops cline.
func TestAdoptCline(t *testing.T) {
	own := "#!/bin/sh\necho '{\"cancel\":false}'\n"
	rules := "# team rules\n"
	root := filepath.Join(t.TempDir(), "repo")
	makeRepo(t, root, true, map[string]string{".clinerules/hooks/PreToolUse": own, ".clinerules/rules.md": rules}, nil)
	ownPath := filepath.Join(root, filepath.FromSlash(templates.ClineHookPath))
	must(t, os.Chmod(ownPath, 0o750))
	opts := testOptions(t)
	opts.Clients = []string{"cline"}

	dry := opts
	dry.DryRun = true
	rep, err := Adopt(context.Background(), []string{root}, dry)
	if err != nil || rep.Failed() {
		t.Fatalf("dry run: %v %+v", err, rep)
	}
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(templates.LauncherPath))); !os.IsNotExist(err) {
		t.Fatalf("the dry run wrote the launcher: %v", err)
	}
	rep, err = Adopt(context.Background(), []string{root}, opts)
	if err != nil || rep.Failed() {
		t.Fatalf("%v %+v", err, rep)
	}
	fi, err := os.Stat(ownPath)
	if err != nil || string(mustRead(t, ownPath)) != own || fi.Mode().Perm() != posixtest.Perm(0o750) {
		t.Fatalf("the operator's PreToolUse changed: %v mode %v", err, fi.Mode())
	}
	if f := fileReport(rep.Repositories[0], templates.ClineHookPath); f == nil || f.Action != ActionSkipped || !anyContains(rep.Repositories[0].Warnings, "carries no hookwarden render header") {
		t.Fatalf("the operator's PreToolUse is not kept and reported: %+v %v", f, rep.Repositories[0].Warnings)
	}
	if got := string(mustRead(t, filepath.Join(root, ".clinerules", "rules.md"))); got != rules {
		t.Fatalf("the operator's rules changed: %q", got)
	}

	root = filepath.Join(t.TempDir(), "fresh")
	makeRepo(t, root, true, nil, nil)
	if rep, err = Adopt(context.Background(), []string{root}, opts); err != nil || rep.Failed() {
		t.Fatalf("%v %+v", err, rep)
	}
	path := filepath.Join(root, filepath.FromSlash(templates.ClineHookPath))
	body := mustRead(t, path)
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != posixtest.Perm(0o755) {
		t.Fatalf("%s: %v, want mode 0755 (Cline runs the file itself)", templates.ClineHookPath, err)
	}
	if !bytes.HasPrefix(body, []byte("#!/bin/sh\n")) {
		t.Fatalf("no shebang first:\n%s", body)
	}
	if hd, ok := templates.ParseHeaderAt(templates.ClineHookPath, body); !ok || hd.Edited {
		t.Fatalf("render header %+v ok %v", hd, ok)
	}
	for _, ev := range []string{"pre-tool", "pre-edit"} {
		cmd, err := templates.RegistrationCommand("cline", ev)
		if err != nil || !strings.Contains(string(body), cmd) {
			t.Fatalf("the file does not run cline %s (%v): %q", ev, err, cmd)
		}
	}
	edited := strings.Replace(string(body), `[ "$2" -ne 0 ] || return 0`, `return 0`, 1)
	checkRenderedLifecycle(t, root, opts, "cline", templates.ClineHookPath, body, edited)
}
