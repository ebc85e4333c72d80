package hookplan

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/internal/posixtest"
)

// TestClaudeManagedMatchesMeasured replays the managed-settings cases run
// on the real Claude Code 2.1.328 (testdata/clients/claude/2.1.328/managed,
// results.json): with the case's etc/ as the system root's /etc and its
// home/ as CLAUDE_CONFIG_DIR, the plan must say the project PreToolUse hook
// and the managed one fire exactly when Claude Code ran them.
func TestClaudeManagedMatchesMeasured(t *testing.T) {
	posixtest.SkipOnWindows(t, "the fixture lays out the Linux machine-wide files the recording was made with (/etc/claude-code, /etc/codex); on Windows the plan reads C:\\Program Files\\ClaudeCode and no /etc/codex")
	base := filepath.Join("..", "..", "testdata", "clients", "claude", "2.1.328", "managed")
	var results map[string]struct {
		Project bool `json:"project_hook_ran"`
		Managed bool `json:"managed_hook_ran"`
	}
	readMeasured(t, filepath.Join(base, "results.json"), &results)
	for name, want := range results {
		t.Run(name, func(t *testing.T) {
			tmp := realTemp(t)
			root := filepath.Join(tmp, "repo")
			if err := os.MkdirAll(filepath.Join(root, ".claude"), 0o755); err != nil {
				t.Fatal(err)
			}
			// The harness's project settings: a PreToolUse hook on Bash.
			project := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "record-and-deny", "timeout": 15}]}]}}`
			if err := os.WriteFile(filepath.Join(root, ".claude", "settings.json"), []byte(project), 0o644); err != nil {
				t.Fatal(err)
			}
			caseDir, err := filepath.Abs(filepath.Join(base, name))
			if err != nil {
				t.Fatal(err)
			}
			home := filepath.Join(caseDir, "home")
			env := map[string]string{"HOME": tmp, "CLAUDE_CONFIG_DIR": home}
			p, err := Build(root, Options{Getenv: func(k string) string { return env[k] }, Workstation: true, SystemRoot: caseDir})
			if err != nil {
				t.Fatal(err)
			}
			var projectFires, managedFires, managedListed bool
			for _, c := range p.Clients {
				if c.Client != "claude" {
					continue
				}
				for _, h := range c.Hooks {
					switch {
					case h.Command == "record-and-deny":
						projectFires = h.Fires
					case strings.Contains(h.Command, "managed-fired"):
						managedListed, managedFires = true, h.Fires
					}
				}
			}
			if projectFires != want.Project {
				t.Errorf("project hook fires %v in the plan, ran %v on Claude Code 2.1.328", projectFires, want.Project)
			}
			if managedFires != want.Managed {
				t.Errorf("managed hook fires %v (listed %v) in the plan, ran %v on Claude Code 2.1.328", managedFires, managedListed, want.Managed)
			}
		})
	}
}

// TestClaudePluginDirectoryMarketplace replays the plugin measured on the
// real Claude Code 2.1.328 (testdata/clients/claude/2.1.328/plugins): a
// plugin of a directory marketplace ran the hooks/hooks.json of its source
// folder, so the plan must list that file's hook (it appends "source"),
// not the cache copy's at installPath (it appends "cache"), and have it
// fire.
func TestClaudePluginDirectoryMarketplace(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "clients", "claude", "2.1.328", "plugins")
	tmp := realTemp(t)
	copyMeasured(t, src, tmp, measuredSubst{"$BASE", tmp})
	root := filepath.Join(tmp, "run", "repo")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": tmp, "CLAUDE_CONFIG_DIR": filepath.Join(tmp, "run", "home")}
	p, err := Build(root, Options{Getenv: func(k string) string { return env[k] }, Workstation: true, SystemRoot: filepath.Join(tmp, "system")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range p.Clients {
		if c.Client != "claude" {
			continue
		}
		for _, h := range c.Hooks {
			if h.Scope == ScopePlugin {
				got = append(got, fmt.Sprintf("%s fires=%v %s", h.NativeEvent, h.Fires, h.Command))
			}
		}
	}
	if len(got) != 1 || !strings.Contains(got[0], "echo source") || !strings.Contains(got[0], "fires=true") {
		t.Errorf("plugin hooks in the plan: %q, want the source folder's PreToolUse hook firing", got)
	}
}

// TestClaudePluginsUnderManagedOnly replays the two runs of the real Claude
// Code 2.1.328 with allowManagedHooksOnly in the managed settings
// (testdata/clients/claude/2.1.328/plugins/managed-*, managed-results.json):
// the plugin's hook ran when the managed settings enabled the plugin and
// not when only the user's settings did, and the project hook ran in
// neither; the plan must say the same.
func TestClaudePluginsUnderManagedOnly(t *testing.T) {
	posixtest.SkipOnWindows(t, "the fixture lays out the Linux machine-wide files the recording was made with (/etc/claude-code, /etc/codex); on Windows the plan reads C:\\Program Files\\ClaudeCode and no /etc/codex")
	src := filepath.Join("..", "..", "testdata", "clients", "claude", "2.1.328", "plugins")
	var results map[string]struct {
		Plugin  bool `json:"plugin_hook_ran"`
		Project bool `json:"project_hook_ran"`
	}
	readMeasured(t, filepath.Join(src, "managed-results.json"), &results)
	for name, want := range results {
		t.Run(name, func(t *testing.T) {
			tmp := realTemp(t)
			subst := measuredSubst{"$BASE", tmp}
			copyMeasured(t, src, tmp, subst)
			settings, err := os.ReadFile(filepath.Join(src, name, "settings.json"))
			if err != nil {
				t.Fatal(err)
			}
			home := filepath.Join(tmp, "run", "home")
			if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(subst.in("settings.json", string(settings))), 0o644); err != nil {
				t.Fatal(err)
			}
			root := filepath.Join(tmp, "run", "repo")
			if err := os.MkdirAll(filepath.Join(root, ".claude"), 0o755); err != nil {
				t.Fatal(err)
			}
			project := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "record-and-deny"}]}]}}`
			if err := os.WriteFile(filepath.Join(root, ".claude", "settings.json"), []byte(project), 0o644); err != nil {
				t.Fatal(err)
			}
			env := map[string]string{"HOME": tmp, "CLAUDE_CONFIG_DIR": home}
			p, err := Build(root, Options{Getenv: func(k string) string { return env[k] }, Workstation: true, SystemRoot: filepath.Join(tmp, name)})
			if err != nil {
				t.Fatal(err)
			}
			plugin, projectFires := false, true
			listed := false
			for _, c := range p.Clients {
				if c.Client != "claude" {
					continue
				}
				for _, h := range c.Hooks {
					switch {
					case h.Scope == ScopePlugin:
						listed, plugin = true, h.Fires
					case h.Command == "record-and-deny":
						projectFires = h.Fires
					}
				}
			}
			if !listed || plugin != want.Plugin || projectFires != want.Project {
				t.Errorf("plan: plugin hook listed %v fires %v, project hook fires %v; Claude Code 2.1.328 ran the plugin's %v, the project's %v", listed, plugin, projectFires, want.Plugin, want.Project)
			}
		})
	}
}
