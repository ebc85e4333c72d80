package hookplan

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/adopt/codextrust"
	"github.com/hookwarden/hookwarden/internal/posixtest"
)

// copyMeasured copies the measured tree src into dst with subst applied to
// every file's text (the placeholders of its absolute paths), leaving out
// the files named skip.
func copyMeasured(t *testing.T, src, dst string, subst measuredSubst, skip ...string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || slices.Contains(skip, filepath.Base(p)) {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, []byte(subst.in(p, string(data))), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// measuredSubst puts this run's directories in place of the $NAME markers
// of a measured file: pairs are old, new as for strings.NewReplacer. In a
// .json or .toml file the new text sits inside a quoted string, where a
// backslash starts an escape in both (JSON; TOML basic strings), so a
// Windows path's separators are written escaped there.
type measuredSubst []string

// in returns text with the markers replaced as the file named name needs.
func (m measuredSubst) in(name, text string) string {
	pairs := append([]string(nil), m...)
	if ext := filepath.Ext(name); ext == ".json" || ext == ".toml" {
		for i := 1; i < len(pairs); i += 2 {
			pairs[i] = strings.ReplaceAll(pairs[i], `\`, `\\`)
		}
	}
	return strings.NewReplacer(pairs...).Replace(text)
}

// realTemp returns a new temporary directory with its symlinks resolved
// (the plan's root is symlink-resolved, and so are the clients' keys).
func realTemp(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// readMeasured reads the measured results at path into results (a map
// of case name to outcome) and fails the test when there is none.
func readMeasured[M ~map[string]V, V any](t *testing.T, path string, results *M) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, results); err != nil || len(*results) == 0 {
		t.Fatalf("%s: no measured cases (%v)", path, err)
	}
}

// recordedHook is one entry of Codex's hooks/list answer.
type recordedHook struct {
	Key         string `json:"key"`
	Command     string `json:"command"`
	SourcePath  string `json:"sourcePath"`
	Enabled     bool   `json:"enabled"`
	IsManaged   bool   `json:"isManaged"`
	CurrentHash string `json:"currentHash"`
	TrustStatus string `json:"trustStatus"`
}

// TestCodexPlanMatchesRecordedHooksList replays the layer scenarios recorded
// on the real Codex CLI 0.169.0 (testdata/clients/codex/0.169.0/plan-layers,
// `codex app-server` hooks/list for a session started in pkg/): the plan of
// the same tree must list every hook Codex lists with the same verdict
// (enabled and trusted: fires; enabled = false: hooks-disabled; untrusted:
// codex-trust-required), compute Codex's key and hash for it (inline
// config.toml hooks included), and skip as untrusted exactly the hooks of
// the layers Codex did not load (or, under allow_managed_hooks_only, as
// managed-only: s3 gives those hooks their trusted_hash, so only the
// requirement can keep them from running). s3 and s4 lay the case's
// system/ over /etc (the managed /etc/codex layer, hooks.json and inline
// config.toml, both listed as managed; s3 adds requirements.toml).
func TestCodexPlanMatchesRecordedHooksList(t *testing.T) {
	posixtest.SkipOnWindows(t, "the recording is Codex CLI 0.169.0 on Linux: its hook keys and trust entries are Linux paths and its system layer is /etc/codex, which a Windows Codex does not read (the plan reads no machine-wide Codex directory there)")
	base := filepath.Join("..", "..", "testdata", "clients", "codex", "0.169.0", "plan-layers")
	for _, sc := range []string{"s1", "s2", "s3", "s4"} {
		t.Run(sc, func(t *testing.T) {
			tmp := realTemp(t)
			root, home := filepath.Join(tmp, "repo"), filepath.Join(tmp, "home")
			sys := filepath.Join(tmp, "system")
			subst := measuredSubst{"$ROOT", root, "$HOME", home, "$SYS", sys}
			src := filepath.Join(base, sc)
			copyMeasured(t, src, tmp, subst, "hooks-list.json")
			if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(filepath.Join(src, "hooks-list.json"))
			if err != nil {
				t.Fatal(err)
			}
			var answer struct {
				Result struct {
					Data []struct {
						Hooks []recordedHook `json:"hooks"`
					} `json:"data"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(subst.in("hooks-list.json", string(raw))), &answer); err != nil || len(answer.Result.Data) != 1 {
				t.Fatalf("hooks-list.json: %v", err)
			}
			recorded := map[string]recordedHook{}
			for _, h := range answer.Result.Data[0].Hooks {
				recorded[h.Command] = h
			}
			env := map[string]string{"HOME": home, "CODEX_HOME": home}
			p, err := Build(root, Options{Getenv: func(k string) string { return env[k] }, Workstation: true,
				Start: filepath.Join(root, "pkg"), SystemRoot: sys})
			if err != nil {
				t.Fatal(err)
			}
			var planned []Hook
			for _, c := range p.Clients {
				if c.Client == "codex" {
					planned = c.Hooks
				}
			}
			seen := map[string]bool{}
			for _, h := range planned {
				r, listed := recorded[h.Command]
				seen[h.Command] = listed
				var want string
				switch {
				case !listed && h.ReasonID == ReasonManagedOnly:
					want = ReasonManagedOnly // Codex admits managed hooks only
				case !listed:
					want = ReasonUntrusted // a layer Codex did not load
				case !r.Enabled:
					want = ReasonDisabled
				case r.TrustStatus != "trusted" && !r.IsManaged:
					want = ReasonUntrusted
				}
				if got := h.ReasonID; h.Fires != (want == "") || got != want {
					t.Errorf("%s (%s:%d): fires %v reason %q, Codex: listed %v %+v", h.Command, h.File, h.Line, h.Fires, got, listed, r)
				}
				if !listed && want == ReasonUntrusted && !strings.Contains(h.Why, "does not trust") {
					t.Errorf("%s: skipped for %q, want the layer's trust", h.Command, h.Why)
				}
			}
			for cmd, r := range recorded {
				if !seen[cmd] {
					t.Errorf("Codex lists %s (%s), the plan does not", cmd, r.Key)
				}
				data, err := os.ReadFile(r.SourcePath)
				if err != nil {
					t.Fatal(err)
				}
				if filepath.Base(r.SourcePath) == "config.toml" {
					if data, err = codexHooksView(data); err != nil {
						t.Fatal(err)
					}
				}
				entries, err := codextrust.Entries(r.SourcePath, data, nil)
				if err != nil {
					t.Fatal(err)
				}
				found := false
				for _, e := range entries {
					if e.Key == r.Key {
						found = true
						if e.Hash != r.CurrentHash {
							t.Errorf("%s: hash %s, Codex %s", r.Key, e.Hash, r.CurrentHash)
						}
					}
				}
				if !found {
					t.Errorf("Codex key %s: not among the plan's keys for %s", r.Key, r.SourcePath)
				}
			}
		})
	}
}

// TestCodexManagedConfigMeasured replays the two runs of the real Codex CLI
// 0.169.0 with a legacy /etc/codex/managed_config.toml
// (testdata/clients/codex/0.169.0/managed-config): with [features] hooks =
// false there the project's hook did not run, without it it did; the plan
// of a trusted repository must switch Codex off exactly then.
func TestCodexManagedConfigMeasured(t *testing.T) {
	posixtest.SkipOnWindows(t, "the fixture lays out the Linux machine-wide files the recording was made with (/etc/claude-code, /etc/codex); on Windows the plan reads C:\\Program Files\\ClaudeCode and no /etc/codex")
	base := filepath.Join("..", "..", "testdata", "clients", "codex", "0.169.0", "managed-config")
	var results map[string]struct {
		HookRan bool `json:"hook_ran"`
	}
	readMeasured(t, filepath.Join(base, "results.json"), &results)
	for name, want := range results {
		t.Run(name, func(t *testing.T) {
			tmp := realTemp(t)
			root, home := filepath.Join(tmp, "repo"), filepath.Join(tmp, "home")
			hooks := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "record-and-deny"}]}]}}`
			for p, text := range map[string]string{
				filepath.Join(root, ".codex", "hooks.json"): hooks,
				filepath.Join(home, "config.toml"):          "[projects.\"" + root + "\"]\ntrust_level = \"trusted\"\n",
			} {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			caseDir, err := filepath.Abs(filepath.Join(base, name))
			if err != nil {
				t.Fatal(err)
			}
			env := map[string]string{"HOME": home, "CODEX_HOME": home}
			p, err := Build(root, Options{Getenv: func(k string) string { return env[k] }, Workstation: true, SystemRoot: caseDir})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range p.Clients {
				if c.Client == "codex" && (c.Off == "") != want.HookRan {
					t.Errorf("plan: Codex off %q; the real Codex ran the hook: %v", c.Off, want.HookRan)
				}
			}
		})
	}
}
