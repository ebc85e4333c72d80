package policy

import "testing"

// TestLookupGuardPath: the guard's own files and everything under its
// directories are guard paths in any spelling of the same relative path;
// neighbours, parents, paths outside the root and other case (unless fold)
// are not.
func TestLookupGuardPath(t *testing.T) {
	for _, c := range []struct {
		rel           string
		fold          bool
		guard, client bool
	}{
		{".hookwarden.yaml", false, true, false},
		{"./.hookwarden.yaml", false, true, false},
		{"src/../.hookwarden.yaml", false, true, false},
		{".hookwarden", false, true, false},
		{".hookwarden/hook.sh", false, true, false},
		{".hookwarden/backups/20260102T030405Z/.claude/settings.json", false, true, false},
		{`.hookwarden\interceptor.py`, false, true, false},
		{".agents/plugins/hookwarden", false, true, false},
		{".agents/plugins/hookwarden/hooks.json", false, true, false},
		{".opencode/plugins/hookwarden.js", false, true, false},
		{".claude/settings.json", false, true, true},
		{".codex/hooks.json", false, true, true},
		{".gemini/settings.json", false, true, true},
		{".Claude/Settings.json", true, true, true},
		{".HOOKWARDEN.YAML", true, true, false},
		{".HOOKWARDEN.YAML", false, false, false},
		{".clinerules/hooks/PreToolUse", false, true, false},
		{".clinerules/hooks/pretooluse", true, true, false},
		{".CLINERULES/HOOKS/PRETOOLUSE", true, true, false},
		{".clinerules/hooks/pretooluse", false, false, false},
		{".hookwarden.yml", false, false, false},
		{".hookwardenx/a", false, false, false},
		{".claude/settings.local.json", false, false, false},
		{".claude", false, false, false},
		{".agents/plugins/other/hooks.json", false, false, false},
		{".opencode/plugins/other.js", false, false, false},
		{"src/.hookwarden.yaml", false, false, false},
		{"../.hookwarden.yaml", false, false, false},
		{"/repo/.hookwarden.yaml", false, false, false},
		{".", false, false, false},
	} {
		guard, client := IsGuardPath(c.rel, c.fold)
		if guard != c.guard || client != c.client {
			t.Errorf("IsGuardPath(%q, %v) = %v, %v; want %v, %v", c.rel, c.fold, guard, client, c.guard, c.client)
		}
	}
	g := GuardPaths()
	g[0].Path = "changed"
	if GuardPaths()[0].Path != ".hookwarden.yaml" {
		t.Error("GuardPaths shares its backing array with callers")
	}
}

// TestGuardKeysCoverGuardPaths: the prefilter of classifyPath skips a path
// holding none of guardKeys, so every guard path must hold one.
func TestGuardKeysCoverGuardPaths(t *testing.T) {
	for _, g := range guardTables().shellList {
		if !containsGuardKey(g.Path) {
			t.Errorf("%s holds none of guardKeys %v", g.Path, guardKeys)
		}
	}
}
