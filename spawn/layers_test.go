package spawn

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

type layerCase struct {
	Name     string          `json:"name"`
	Engine   string          `json:"engine"`
	Version  string          `json:"version"`
	Table    json.RawMessage `json:"table"`
	Registry []Attachment    `json:"registry"`
	Profile  []Attachment    `json:"profile"`
	Operator []Attachment    `json:"operator"`
	Want     []string        `json:"want"`
	Reason   Reason          `json:"reason"`
}

// TestLayerCases replays testdata/spawn/layers.json through Compile.
func TestLayerCases(t *testing.T) {
	var corpus struct {
		About string      `json:"about"`
		Cases []layerCase `json:"cases"`
	}
	readJSON(t, filepath.Join("..", "testdata", "spawn", "layers.json"), &corpus)
	for _, c := range corpus.Cases {
		t.Run(c.Name, func(t *testing.T) {
			w := materialise(t, filepath.Join("..", "testdata", "spawn", "base"))
			bin := fakeEngine(t, w.engineDir, c.Engine, defaultVersion(c.Engine), w.startLog)
			guard := filepath.Join(w.home, "bin", "guard.sh")
			d, _ := fileDigest(guard)
			lib := library{Version: 1, Entries: map[string]Entry{}}
			for _, n := range []string{"a", "b", "c"} {
				lib.Entries[n] = Entry{Argv: []string{guard}, Pin: map[string]string{guard: d}, Timeout: json.RawMessage("10")}
			}
			writeJSONFile(t, filepath.Join(w.home, LibraryFile), lib)
			if c.Registry == nil {
				c.Registry = []Attachment{}
			}
			writeJSONFile(t, filepath.Join(w.home, RegistryFile), Layer{Version: 1, Attachments: c.Registry})
			var profile, operator string
			if c.Profile != nil {
				profile = filepath.Join(w.work, "profile.json")
				writeJSONFile(t, profile, Layer{Version: 1, Attachments: c.Profile})
			}
			if c.Operator != nil {
				operator = filepath.Join(w.work, "operator.json")
				writeJSONFile(t, operator, Layer{Version: 1, Attachments: c.Operator})
			}
			if _, err := TrustList(w.home, profile, operator); err == nil {
				w.approveAll(t, profile, operator)
			}
			version := c.Version
			if version == "" {
				version = map[string]string{"claude": "2.1.328", "codex": "0.169.0"}[c.Engine]
			}
			opts := Options{Engine: c.Engine, Binary: bin, Version: version, Cwd: w.repo, Home: w.home, ProfilePath: profile, OperatorPath: operator}
			if c.Table != nil {
				var tab map[string]any
				json.Unmarshal(c.Table, &tab)
				tab["engine"], tab["version"] = c.Engine, version
				b, _ := json.Marshal(tab)
				opts.Tables = fstest.MapFS{c.Engine + "-" + version + ".json": {Data: b}}
			}
			r, err := Compile(context.Background(), opts)
			if c.Reason != "" {
				if rf := AsRefusal(err); rf == nil || rf.Reason != c.Reason {
					t.Fatalf("want %s, got %v", c.Reason, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer r.Cleanup()
			got := []string{}
			for _, h := range r.Hooks {
				s := h.Layer + ":" + h.Hook + "@" + h.Event
				if len(h.Argv) > 1 {
					s += " " + strings.Join(h.Argv[1:], " ")
				}
				got = append(got, s)
			}
			if c.Want == nil {
				c.Want = []string{}
			}
			if d := cmp.Diff(c.Want, got); d != "" {
				t.Fatalf("hooks (-want +got):\n%s", d)
			}
			if c.Engine == "claude" {
				var settings struct {
					Hooks map[string][]json.RawMessage `json:"hooks"`
				}
				readJSON(t, r.Files[0], &settings)
				n := 0
				for _, g := range settings.Hooks {
					n += len(g)
				}
				if n != len(r.Hooks) {
					t.Fatalf("settings file has %d groups for %d hooks", n, len(r.Hooks))
				}
				fi, _ := os.Stat(r.Files[0])
				if fi.Mode().Perm() != 0o600 {
					t.Fatalf("run file mode %v", fi.Mode().Perm())
				}
			}
		})
	}
}
