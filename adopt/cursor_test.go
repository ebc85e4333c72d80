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

// TestAdoptCursor: Cursor is opt-in (the default clients leave
// .cursor/hooks.json alone); --clients …,cursor merges the cursor rows into
// the operator's .cursor/hooks.json as flat handlers beside the operator's
// own, conform is then a no-op, and a manifest that drops cursor makes
// conform retract our rows and give back the operator's bytes exactly.
func TestAdoptCursor(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	foreign := "{\n  \"version\": 1,\n  \"hooks\": {\n    \"beforeShellExecution\": [\n      { \"command\": \"./hooks/audit.sh\", \"timeout\": 5 }\n    ]\n  }\n}\n"
	makeRepo(t, root, true, map[string]string{".cursor/hooks.json": foreign}, nil)
	path := filepath.Join(root, ".cursor", "hooks.json")

	opts := testOptions(t)
	if rep, err := Adopt(context.Background(), []string{root}, opts); err != nil || rep.Failed() {
		t.Fatalf("%v %+v", err, rep.Repositories[0])
	}
	if got := string(mustRead(t, path)); got != foreign {
		t.Fatalf("adopt with the default clients changed .cursor/hooks.json:\n%s", got)
	}

	must(t, os.WriteFile(filepath.Join(root, ManifestFile), []byte("version: 1\nclients: [claude, cursor]\n"), 0o644))
	if rep, err := Conform(context.Background(), []string{root}, opts); err != nil || rep.Failed() {
		t.Fatalf("%v %+v", err, rep.Repositories[0])
	}
	body := mustRead(t, path)
	var doc struct {
		Version int                         `json:"version"`
		Hooks   map[string][]map[string]any `json:"hooks"`
	}
	if err := json.Unmarshal(body, &doc); err != nil || doc.Version != 1 {
		t.Fatalf("not Cursor's schema (%v):\n%s", err, body)
	}
	if !strings.HasPrefix(string(body), "{\n  \"version\": 1,\n  \"hooks\": {\n    \"beforeShellExecution\": [\n      { \"command\": \"./hooks/audit.sh\", \"timeout\": 5 },\n") {
		t.Fatalf("the operator's handler is not kept first, byte for byte:\n%s", body)
	}
	for ev, want := range map[string]string{"beforeShellExecution": "pre-tool", "stop": "stop"} {
		cmd, err := templates.RegistrationCommand("cursor", want)
		if err != nil {
			t.Fatal(err)
		}
		hs := doc.Hooks[ev]
		if len(hs) == 0 || hs[len(hs)-1]["command"] != cmd || hs[len(hs)-1]["matcher"] != nil {
			t.Errorf("%s: our handler is not the last flat handler running %q: %v", ev, cmd, hs)
		}
	}

	rep, err := Conform(context.Background(), []string{root}, opts)
	if err != nil || rep.Failed() {
		t.Fatalf("%v %+v", err, rep.Repositories[0])
	}
	if f := fileReport(rep.Repositories[0], ".cursor/hooks.json"); f != nil && f.Action != ActionUnchanged {
		t.Fatalf("conform changed a served file: %+v", f)
	}

	must(t, os.WriteFile(filepath.Join(root, ManifestFile), []byte("version: 1\nclients: [claude]\n"), 0o644))
	if rep, err := Conform(context.Background(), []string{root}, opts); err != nil || rep.Failed() {
		t.Fatalf("%v %+v", err, rep.Repositories[0])
	}
	if got := string(mustRead(t, path)); got != foreign {
		t.Fatalf("conform without cursor did not give back the operator's bytes:\n%s", got)
	}
}
