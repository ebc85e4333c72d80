package adopt

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/templates"
)

// TestAdoptKiro: --clients kiro writes Kiro CLI's v3 hooks file
// .kiro/hooks/hookwarden.json (version "v1", one enabled command hook per
// kiro row, trigger PreToolUse with the shell-tool and the write-tool
// matcher, the render header), leaves an operator's own .kiro/hooks file and agent file byte for
// byte, conform is a no-op on it, an edit by hand (our hook switched off)
// is kept and reported (replaced with --force), and a manifest that drops
// kiro keeps the file with a warning (hookwarden deletes no file).
func TestAdoptKiro(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	foreign := "{\n  \"version\": \"v1\",\n  \"hooks\": [ { \"name\": \"lint\", \"trigger\": \"PostFileSave\", \"matcher\": \"\\\\.ts$\", \"action\": { \"type\": \"command\", \"command\": \"npm run lint\" } } ]\n}\n"
	agent := "{\"name\": \"dev\", \"tools\": [\"*\"], \"hooks\": {\"preToolUse\": [{\"command\": \"./check.sh\", \"matcher\": \"shell\"}]}}\n"
	makeRepo(t, root, true, map[string]string{".kiro/hooks/lint.json": foreign, ".kiro/agents/dev.json": agent}, nil)
	opts := testOptions(t)
	opts.Clients = []string{"kiro"}
	rep, err := Adopt(context.Background(), []string{root}, opts)
	if err != nil || rep.Failed() {
		t.Fatalf("%v %+v", err, rep.Repositories[0])
	}
	path := filepath.Join(root, filepath.FromSlash(templates.KiroHooksPath))
	body := mustRead(t, path)
	var doc struct {
		Version string `json:"version"`
		Hooks   []struct {
			Name    string  `json:"name"`
			Trigger string  `json:"trigger"`
			Matcher string  `json:"matcher"`
			Timeout float64 `json:"timeout"`
			Enabled bool    `json:"enabled"`
			Action  struct {
				Type    string `json:"type"`
				Command string `json:"command"`
			} `json:"action"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(body, &doc); err != nil || doc.Version != "v1" || len(doc.Hooks) != 2 {
		t.Fatalf("not Kiro's v3 hooks schema with our two hooks (%v):\n%s", err, body)
	}
	for i, want := range []struct{ event, matcher string }{{"pre-tool", "^(execute_bash|shell)$"}, {"pre-edit", "^(fs_write|write)$"}} {
		cmd, err := templates.RegistrationCommand("kiro", want.event)
		if err != nil {
			t.Fatal(err)
		}
		h := doc.Hooks[i]
		if h.Name != "hookwarden-"+want.event || h.Trigger != "PreToolUse" || h.Matcher != want.matcher || !h.Enabled || h.Timeout <= 0 || h.Action.Type != "command" || h.Action.Command != cmd {
			t.Fatalf("hook %d is not an enabled PreToolUse command hook matching %s running %q: %+v", i, want.matcher, cmd, h)
		}
	}
	if hd, ok := templates.ParseHeader(body); !ok || hd.Edited {
		t.Fatalf("render header %+v ok %v", hd, ok)
	}
	for rel, want := range map[string]string{".kiro/hooks/lint.json": foreign, ".kiro/agents/dev.json": agent} {
		if got := string(mustRead(t, filepath.Join(root, filepath.FromSlash(rel)))); got != want {
			t.Fatalf("the operator's %s changed:\n%s", rel, got)
		}
	}

	edited := strings.Replace(string(body), "\"enabled\": true", "\"enabled\": false", 1)
	checkRenderedLifecycle(t, root, opts, "kiro", templates.KiroHooksPath, body, edited)
}
