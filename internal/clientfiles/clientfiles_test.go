package clientfiles

import (
	"path"
	"slices"
	"testing"

	"github.com/hookwarden/hookwarden/internal/clientname"
)

// TestTableIsWellFormed holds the table to what its readers assume: every
// entry names a known client and a clean, relative, slash-separated path
// that no other entry names; each client has at most one file adopt writes
// into; Found and Scope are one of their constants; a file the plan reads
// holds hooks.
func TestTableIsWellFormed(t *testing.T) {
	seen := map[string]bool{}
	path1 := func(client, p string) {
		t.Helper()
		if !clientname.Known(client) {
			t.Errorf("%s: unknown client %q", p, client)
		}
		if p == "" || path.IsAbs(p) || path.Clean(p) != p || p[0] == '.' && len(p) > 1 && p[1] == '.' {
			t.Errorf("%s: not a clean repository-relative path", p)
		}
		if seen[p] {
			t.Errorf("%s: listed twice", p)
		}
		seen[p] = true
	}
	for _, r := range Rendered() {
		path1(r.Client, r.Path)
	}
	written := map[string]string{}
	for _, f := range HookFiles() {
		path1(f.Client, f.Path)
		if f.Found != FoundRoot && f.Found != FoundStart {
			t.Errorf("%s: Found %q", f.Path, f.Found)
		}
		if f.Scope != ScopeProject && f.Scope != ScopeLocal {
			t.Errorf("%s: Scope %q", f.Path, f.Scope)
		}
		if f.Format != "" && !f.Hooks {
			t.Errorf("%s: the plan reads it (format %s) but it holds no hooks", f.Path, f.Format)
		}
		if f.Written {
			if prev, ok := written[f.Client]; ok {
				t.Errorf("%s: adopt writes %s rows into %s already", f.Path, f.Client, prev)
			}
			written[f.Client] = f.Path
		}
	}
	for _, c := range []string{"claude", "codex", "gemini"} {
		if p, ok := SettingsFile(c); !ok || p != written[c] {
			t.Errorf("SettingsFile(%s) = %q, %v", c, p, ok)
		}
	}
	if p, ok := SettingsFile("opencode"); ok {
		t.Errorf("SettingsFile(opencode) = %q: opencode has a rendered plugin, no settings file", p)
	}
}

// TestPlannedKeepsTheClientsOrder: the plan reads a client's repository
// files in the order the client collects hooks from them (Claude Code
// 2.1.328: projectSettings before localSettings; Codex CLI 0.169.0:
// .codex/hooks.json before .codex/config.toml), and not a file the plan
// does not read (Droid's .factory/hooks.json).
func TestPlannedKeepsTheClientsOrder(t *testing.T) {
	for client, want := range map[string][]string{
		"claude": {ClaudeSettings, ".claude/settings.local.json"},
		"codex":  {CodexHooks, ".codex/config.toml"},
		"droid":  {".factory/settings.json", ".factory/settings.local.json"},
		"agy":    nil,
	} {
		var got []string
		for _, f := range Planned(client) {
			got = append(got, f.Path)
		}
		if !slices.Equal(got, want) {
			t.Errorf("Planned(%s) = %v, want %v", client, got, want)
		}
	}
}
