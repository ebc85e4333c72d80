//go:build windows

package editguard

import (
	"context"
	"path/filepath"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/hookwarden/hookwarden/protocol/verdict"
)

// TestWindowsNameForms: on Windows an edit names a guard file also by a
// trailing dot or space (dropped by Win32) and by an 8.3 short name of a
// directory on its way; each is judged as the file it opens, including a
// guard file that does not exist yet (.claude/settings.local.json, where
// the identity check has nothing to compare).
func TestWindowsNameForms(t *testing.T) {
	repo, owner := governedRepo(t)
	short := func(p string) string {
		u, err := windows.UTF16PtrFromString(p)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]uint16, windows.MAX_LONG_PATH)
		n, err := windows.GetShortPathName(u, &buf[0], uint32(len(buf)))
		if err != nil || n == 0 {
			t.Skipf("no 8.3 short names on this volume (%v)", err)
		}
		return windows.UTF16ToString(buf[:n])
	}
	claudeShort := short(filepath.Join(repo, ".claude"))
	if filepath.Base(claudeShort) == ".claude" {
		t.Skipf("the volume gives .claude no other short name (%s)", claudeShort)
	}
	for _, c := range []struct{ path, rule string }{
		{".hookwarden.yaml.", RuleGuardFile},
		{".hookwarden.yaml ", RuleGuardFile},
		{".hookwarden.yaml. . ", RuleGuardFile},
		{".hookwarden.yaml::$DATA", RuleGuardFile},
		{filepath.Join(".claude", "settings.local.json::$DATA"), ""},
		{filepath.Join(".claude", "settings.local.json."), ""},
		{filepath.Join(claudeShort, "settings.local.json"), ""},
		{filepath.Join(claudeShort, "settings.json"), ""},
	} {
		v := Judge(context.Background(), input(repo, owner, "Write", c.path, map[string]any{"content": `{"disableAllHooks": true}`}))
		if v.Kind != verdict.Deny || (c.rule != "" && v.RuleID != c.rule) {
			t.Errorf("Write %q: got %v %s (%s), want a deny %s", c.path, v.Kind, v.RuleID, v.Reason, c.rule)
		}
	}
	if v := Judge(context.Background(), input(repo, owner, "Write", "notes.txt.", map[string]any{"content": "x"})); v.Kind != verdict.Allow {
		t.Errorf("Write notes.txt.: got %v %s, want allow", v.Kind, v.Reason)
	}
}
