package adopt

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/templates"
)

// TestAdoptCopilot: --clients copilot writes GitHub Copilot CLI's hook file
// .github/hooks/hookwarden.json (Copilot's native schema, every copilot row,
// the render header), leaves an operator's own hook file in .github/hooks
// byte for byte, conform is a no-op on it, an edit by hand is kept and
// reported (replaced with --force), and a repository whose manifest drops copilot keeps the file
// with a warning (hookwarden deletes no file).
func TestAdoptCopilot(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	foreign := "{\n  // the operator's own hooks\n  \"version\": 1, \"hooks\": {\"sessionStart\": [{\"type\": \"command\", \"bash\": \"./hello.sh\"}]}\n}\n"
	makeRepo(t, root, true, map[string]string{".github/hooks/team.json": foreign}, nil)
	opts := testOptions(t)
	opts.Clients = []string{"copilot"}
	rep, err := Adopt(context.Background(), []string{root}, opts)
	if err != nil || rep.Failed() {
		t.Fatalf("%v %+v", err, rep.Repositories[0])
	}
	path := filepath.Join(root, filepath.FromSlash(templates.CopilotHooksPath))
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version int                         `json:"version"`
		Hooks   map[string][]map[string]any `json:"hooks"`
	}
	if err := json.Unmarshal(body, &doc); err != nil || doc.Version != 1 {
		t.Fatalf("not Copilot's schema (%v):\n%s", err, body)
	}
	var cmds []string
	for ev, hs := range doc.Hooks {
		for _, h := range hs {
			if h["type"] != "command" || h["timeoutSec"] == nil {
				t.Errorf("%s entry %v lacks type command or timeoutSec", ev, h)
			}
			cmds = append(cmds, ev+" "+h["bash"].(string))
		}
	}
	for _, want := range []string{"preToolUse sh .hookwarden/hook.sh copilot pre-tool", "preToolUse sh .hookwarden/hook.sh copilot pre-edit", "agentStop sh .hookwarden/hook.sh copilot stop"} {
		if !strings.Contains(strings.Join(cmds, "\n"), want) {
			t.Errorf("no %q in %v", want, cmds)
		}
	}
	if h, ok := templates.ParseHeader(body); !ok || h.Edited {
		t.Fatalf("render header %+v ok %v", h, ok)
	}
	if got, _ := os.ReadFile(filepath.Join(root, ".github/hooks/team.json")); string(got) != foreign {
		t.Fatalf("the operator's hook file changed:\n%s", got)
	}
	if !strings.Contains(string(mustRead(t, filepath.Join(root, ManifestFile))), "copilot") {
		t.Fatalf("the manifest does not select copilot")
	}

	edited := strings.Replace(string(body), "copilot pre-tool", "copilot pre-toolx", 1)
	checkRenderedLifecycle(t, root, opts, "copilot", templates.CopilotHooksPath, body, edited)
}

// checkRenderedLifecycle walks a client's rendered hook file (rel, as
// adopt wrote it: body) through conform in root, adopted with opts: a fresh
// render is left unchanged, a hand edit (edited) is kept and reported
// without --force and replaced with it, and a manifest that drops client
// keeps the file with a warning (hookwarden deletes no file).
func checkRenderedLifecycle(t *testing.T, root string, opts Options, client, rel string, body []byte, edited string) {
	t.Helper()
	path := filepath.Join(root, filepath.FromSlash(rel))
	rep, err := Conform(context.Background(), []string{root}, opts)
	if err != nil || rep.Failed() {
		t.Fatalf("%v %+v", err, rep.Repositories[0])
	}
	if f := fileReport(rep.Repositories[0], rel); f != nil && f.Action != ActionUnchanged {
		t.Fatalf("conform changed a fresh render: %+v", f)
	}
	if edited == string(body) {
		t.Fatalf("the edit changes nothing in:\n%s", body)
	}
	must(t, os.WriteFile(path, []byte(edited), 0o644))
	if rep, err = Conform(context.Background(), []string{root}, opts); err != nil || rep.Failed() {
		t.Fatalf("%v %+v", err, rep.Repositories[0])
	}
	if f := fileReport(rep.Repositories[0], rel); f == nil || f.Action != ActionSkipped || string(mustRead(t, path)) != edited {
		t.Fatalf("conform without --force must keep and report the edited file: %+v", f)
	}
	force := opts
	force.Force = true
	if rep, err = Conform(context.Background(), []string{root}, force); err != nil || rep.Failed() {
		t.Fatalf("%v %+v", err, rep.Repositories[0])
	}
	if got := mustRead(t, path); string(got) != string(body) {
		t.Fatalf("conform --force did not repair the edited file:\n%s", got)
	}

	must(t, os.WriteFile(filepath.Join(root, ManifestFile), []byte("version: 1\nclients: [claude]\n"), 0o644))
	if rep, err = Conform(context.Background(), []string{root}, opts); err != nil || rep.Failed() {
		t.Fatalf("%v %+v", err, rep.Repositories[0])
	}
	if !anyContains(rep.Repositories[0].Warnings, client+" is no longer selected") {
		t.Fatalf("warnings %v", rep.Repositories[0].Warnings)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("conform deleted %s: %v", rel, err)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
