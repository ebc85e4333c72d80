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

// TestAdoptFlatClients: Cursor and Windsurf are opt-in (the default clients
// leave their hooks.json alone); --clients …,CLIENT merges the client's rows
// into the operator's hooks.json as flat handlers after the operator's own
// (Cursor's with a timeout, Windsurf's without: it reads none), conform is
// then a no-op, and a manifest that drops the client makes conform retract
// our rows and give back the operator's bytes exactly.
func TestAdoptFlatClients(t *testing.T) {
	for _, tc := range []struct {
		client, file, foreign, keptPrefix string
		native                            map[string]string // native event -> our event
		timeout                           bool
	}{
		{client: "cursor", file: ".cursor/hooks.json",
			foreign:    "{\n  \"version\": 1,\n  \"hooks\": {\n    \"beforeShellExecution\": [\n      { \"command\": \"./hooks/audit.sh\", \"timeout\": 5 }\n    ]\n  }\n}\n",
			keptPrefix: "{\n  \"version\": 1,\n  \"hooks\": {\n    \"beforeShellExecution\": [\n      { \"command\": \"./hooks/audit.sh\", \"timeout\": 5 },\n",
			native:     map[string]string{"beforeShellExecution": "pre-tool", "stop": "stop"}, timeout: true},
		{client: "windsurf", file: ".windsurf/hooks.json",
			foreign:    "{\n  \"hooks\": {\n    \"pre_run_command\": [\n      { \"command\": \"./hooks/block-prod.sh\", \"show_output\": true }\n    ]\n  }\n}\n",
			keptPrefix: "{\n  \"hooks\": {\n    \"pre_run_command\": [\n      { \"command\": \"./hooks/block-prod.sh\", \"show_output\": true },\n",
			native:     map[string]string{"pre_run_command": "pre-tool", "pre_write_code": "pre-edit"}},
	} {
		t.Run(tc.client, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "repo")
			makeRepo(t, root, true, map[string]string{tc.file: tc.foreign}, nil)
			path := filepath.Join(root, filepath.FromSlash(tc.file))

			opts := testOptions(t)
			if rep, err := Adopt(context.Background(), []string{root}, opts); err != nil || rep.Failed() {
				t.Fatalf("%v %+v", err, rep.Repositories[0])
			}
			if got := string(mustRead(t, path)); got != tc.foreign {
				t.Fatalf("adopt with the default clients changed %s:\n%s", tc.file, got)
			}

			must(t, os.WriteFile(filepath.Join(root, ManifestFile), []byte("version: 1\nclients: [claude, "+tc.client+"]\n"), 0o644))
			if rep, err := Conform(context.Background(), []string{root}, opts); err != nil || rep.Failed() {
				t.Fatalf("%v %+v", err, rep.Repositories[0])
			}
			body := mustRead(t, path)
			var doc struct {
				Hooks map[string][]map[string]any `json:"hooks"`
			}
			if err := json.Unmarshal(body, &doc); err != nil {
				t.Fatalf("%v:\n%s", err, body)
			}
			if !strings.HasPrefix(string(body), tc.keptPrefix) {
				t.Fatalf("the operator's handler is not kept first, byte for byte:\n%s", body)
			}
			for ev, want := range tc.native {
				cmd, err := templates.RegistrationCommand(tc.client, want)
				if err != nil {
					t.Fatal(err)
				}
				hs := doc.Hooks[ev]
				if len(hs) == 0 || hs[len(hs)-1]["command"] != cmd || hs[len(hs)-1]["matcher"] != nil || (hs[len(hs)-1]["timeout"] != nil) != tc.timeout {
					t.Errorf("%s: our handler is not the last flat handler running %q (timeout written: %v): %v", ev, cmd, tc.timeout, hs)
				}
			}

			rep, err := Conform(context.Background(), []string{root}, opts)
			if err != nil || rep.Failed() {
				t.Fatalf("%v %+v", err, rep.Repositories[0])
			}
			if f := fileReport(rep.Repositories[0], tc.file); f != nil && f.Action != ActionUnchanged {
				t.Fatalf("conform changed a served file: %+v", f)
			}

			must(t, os.WriteFile(filepath.Join(root, ManifestFile), []byte("version: 1\nclients: [claude]\n"), 0o644))
			if rep, err := Conform(context.Background(), []string{root}, opts); err != nil || rep.Failed() {
				t.Fatalf("%v %+v", err, rep.Repositories[0])
			}
			if got := string(mustRead(t, path)); got != tc.foreign {
				t.Fatalf("conform without %s did not give back the operator's bytes:\n%s", tc.client, got)
			}
		})
	}
}
