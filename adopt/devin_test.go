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

// TestAdoptDevin: Devin CLI (client devin, opt-in) reads
// .devin/hooks.v1.json, Claude's matcher groups with the events at the top
// level and no "hooks" key (docs.devin.ai/cli/extensibility/hooks/overview).
// The default clients leave the operator's file alone; a manifest naming
// devin makes conform add our ^exec$ group after the operator's groups, at
// the top level, byte for byte around them; conform is then a no-op; and a
// manifest that drops devin gives back the operator's bytes exactly.
func TestAdoptDevin(t *testing.T) {
	const file = ".devin/hooks.v1.json"
	foreign := "{\n  \"PreToolUse\": [\n    { \"matcher\": \"exec\", \"hooks\": [ { \"type\": \"command\", \"command\": \"./scripts/check-command.sh\" } ] }\n  ],\n" +
		"  \"PostToolUse\": [\n    { \"matcher\": \"exec\", \"hooks\": [ { \"type\": \"command\", \"command\": \"sh -c 'cat >> ~/.devin-command-log'\" } ] }\n  ]\n}\n"
	root := filepath.Join(t.TempDir(), "repo")
	makeRepo(t, root, true, map[string]string{file: foreign}, nil)
	path := filepath.Join(root, filepath.FromSlash(file))
	opts := testOptions(t)
	if rep, err := Adopt(context.Background(), []string{root}, opts); err != nil || rep.Failed() {
		t.Fatalf("%v %+v", err, rep.Repositories[0])
	}
	if got := string(mustRead(t, path)); got != foreign {
		t.Fatalf("adopt with the default clients changed %s:\n%s", file, got)
	}

	must(t, os.WriteFile(filepath.Join(root, ManifestFile), []byte("version: 1\nclients: [claude, devin]\n"), 0o644))
	if rep, err := Conform(context.Background(), []string{root}, opts); err != nil || rep.Failed() {
		t.Fatalf("%v %+v", err, rep.Repositories[0])
	}
	body := mustRead(t, path)
	var doc map[string][]struct {
		Matcher string           `json:"matcher"`
		Hooks   []map[string]any `json:"hooks"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatalf("%v:\n%s", err, body)
	}
	if _, ok := doc["hooks"]; ok || len(doc) != 2 {
		t.Fatalf("the events must stay at the top level (no \"hooks\" key, PreToolUse and PostToolUse only):\n%s", body)
	}
	if !strings.HasPrefix(string(body), foreign[:strings.Index(foreign, "\n  ],")]) {
		t.Fatalf("the operator's group is not kept first, byte for byte:\n%s", body)
	}
	cmd, err := templates.RegistrationCommand("devin", "pre-tool")
	if err != nil {
		t.Fatal(err)
	}
	groups := doc["PreToolUse"]
	last := groups[len(groups)-1]
	if len(groups) != 2 || last.Matcher != "^exec$" || len(last.Hooks) != 1 || last.Hooks[0]["command"] != cmd || last.Hooks[0]["timeout"] != float64(15) {
		t.Fatalf("our group is not the last PreToolUse group, ^exec$ running %q with timeout 15:\n%s", cmd, body)
	}
	if !strings.Contains(string(body), "\"PostToolUse\": [\n    { \"matcher\": \"exec\", \"hooks\": [ { \"type\": \"command\", \"command\": \"sh -c 'cat >> ~/.devin-command-log'\" } ] }\n  ]\n}\n") {
		t.Fatalf("the operator's PostToolUse list changed:\n%s", body)
	}

	rep, err := Conform(context.Background(), []string{root}, opts)
	if err != nil || rep.Failed() {
		t.Fatalf("%v %+v", err, rep.Repositories[0])
	}
	if f := fileReport(rep.Repositories[0], file); f != nil && f.Action != ActionUnchanged {
		t.Fatalf("conform changed a served file: %+v", f)
	}

	must(t, os.WriteFile(filepath.Join(root, ManifestFile), []byte("version: 1\nclients: [claude]\n"), 0o644))
	if rep, err := Conform(context.Background(), []string{root}, opts); err != nil || rep.Failed() {
		t.Fatalf("%v %+v", err, rep.Repositories[0])
	}
	if got := string(mustRead(t, path)); got != foreign {
		t.Fatalf("conform without devin did not give back the operator's bytes:\n%s", got)
	}
}
