package hookplan

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGeminiTrustLevel replays Gemini CLI 0.61.0's isPathTrusted rules
// (bundle chunk-JDPZ4CE3.js) on a real directory tree.
func TestGeminiTrustLevel(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(base, "work", "repo")
	sub := filepath.Join(repo, "pkg")
	for _, d := range []string{sub, filepath.Join(base, "work", "repo2"), filepath.Join(base, "link-target")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(base, "work"), filepath.Join(base, "alias")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		rules map[string]any
		start string
		want  string
		bad   string
	}{
		{"no rules", map[string]any{}, repo, "", ""},
		{"folder itself", map[string]any{repo: "TRUST_FOLDER"}, repo, "TRUST_FOLDER", ""},
		{"folder covers below", map[string]any{repo: "TRUST_FOLDER"}, sub, "TRUST_FOLDER", ""},
		{"sibling with a common prefix is not covered", map[string]any{repo: "TRUST_FOLDER"}, filepath.Join(base, "work", "repo2"), "", ""},
		{"trust parent covers the parent's other children", map[string]any{filepath.Join(base, "work", "repo2"): "TRUST_PARENT"}, sub, "TRUST_PARENT", ""},
		{"longest rule wins: do-not-trust below a trusted parent", map[string]any{base: "TRUST_FOLDER", repo: "DO_NOT_TRUST"}, sub, "DO_NOT_TRUST", ""},
		{"longest rule wins: trusted below a do-not-trust parent", map[string]any{base: "DO_NOT_TRUST", repo: "TRUST_FOLDER"}, repo, "TRUST_FOLDER", ""},
		{"rule through a symlink", map[string]any{filepath.Join(base, "alias", "repo"): "TRUST_FOLDER"}, repo, "TRUST_FOLDER", ""},
		{"invalid level", map[string]any{repo: "YES"}, repo, "", repo},
	}
	// A rule through the symlink can only be judged where the platform
	// resolves a directory link (Gemini CLI's getRealPath is
	// fs.realpathSync); wine 8.0, where scripts/windows-tests runs this,
	// creates the link but EvalSymlinks does not follow it.
	linkResolves := realPath(filepath.Join(base, "alias", "repo")) == repo
	for _, c := range cases {
		if c.name == "rule through a symlink" && !linkResolves {
			t.Logf("%s: not judged: this platform does not resolve %s to %s", c.name, filepath.Join(base, "alias", "repo"), repo)
			continue
		}
		got, bad := geminiTrustLevel(c.rules, c.start)
		if got != c.want || bad != c.bad {
			t.Errorf("%s: got (%q, %q), want (%q, %q)", c.name, got, bad, c.want, c.bad)
		}
	}
}

// TestGeminiSystemPaths checks the system files per platform and their
// variables (Gemini CLI 0.61.0 getSystemSettingsPath, getSystemDefaultsPath).
func TestGeminiSystemPaths(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	s, d := geminiSystemPaths(env(nil), "linux")
	if s != "/etc/gemini-cli/settings.json" || d != filepath.Join("/etc/gemini-cli", "system-defaults.json") {
		t.Errorf("linux: %q %q", s, d)
	}
	if s, _ := geminiSystemPaths(env(nil), "darwin"); s != "/Library/Application Support/GeminiCli/settings.json" {
		t.Errorf("darwin: %q", s)
	}
	s, d = geminiSystemPaths(env(map[string]string{"GEMINI_CLI_SYSTEM_SETTINGS_PATH": "/x/s.json"}), "linux")
	if s != "/x/s.json" || d != filepath.Join("/x", "system-defaults.json") {
		t.Errorf("settings variable: %q %q", s, d)
	}
	if _, d := geminiSystemPaths(env(map[string]string{"GEMINI_CLI_SYSTEM_DEFAULTS_PATH": "/y/d.json"}), "linux"); d != "/y/d.json" {
		t.Errorf("defaults variable: %q", d)
	}
}
