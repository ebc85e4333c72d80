package execpath

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestFind: the first directory holding an executable regular file wins; a
// file without an execute bit, a directory of that name and a relative entry
// without an absolute dir are passed over.
func TestFind(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("windows: execute bits are not kept; Find is used on Windows only through PATH lookups that need none of these cases")
	}
	root := t.TempDir()
	a, b, c, rel := filepath.Join(root, "a"), filepath.Join(root, "b"), filepath.Join(root, "c"), filepath.Join(root, "rel")
	for _, d := range []string{a, b, c, rel, filepath.Join(a, "tool")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []struct {
		path string
		mode os.FileMode
	}{{filepath.Join(b, "tool"), 0o644}, {filepath.Join(c, "tool"), 0o755}, {filepath.Join(rel, "tool"), 0o755}} {
		if err := os.WriteFile(f.path, []byte("#!/bin/sh\n"), f.mode); err != nil {
			t.Fatal(err)
		}
	}
	list := filepath.Join(root, "missing") + string(os.PathListSeparator) + a + string(os.PathListSeparator) + b + string(os.PathListSeparator) + c
	if got, ok := Find("tool", list, ""); !ok || got != filepath.Join(c, "tool") {
		t.Errorf("Find = %q, %v; want %q (a holds a directory, b a file without x)", got, ok, filepath.Join(c, "tool"))
	}
	if got, ok := Find("tool", "rel", ""); ok {
		t.Errorf("relative entry without a dir: %q found", got)
	}
	if got, ok := Find("tool", "rel", root); !ok || got != filepath.Join(rel, "tool") {
		t.Errorf("relative entry in %s: %q, %v", root, got, ok)
	}
	if _, ok := Find("nothere", list, ""); ok {
		t.Error("a missing name was found")
	}
}

// TestFindWindowsRule: with Windows' rule (find's windows flag, the rule
// Find uses where GOOS is windows) a program is found by extension, not by
// execute bits: "hookwarden" finds hookwarden.exe (mode 0644), a name that
// already carries an extension is taken as it is, and a file without one of
// the program extensions is passed over.
func TestFindWindowsRule(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, d := range []string{a, b} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(a, "hookwarden"), filepath.Join(b, "hookwarden.exe"), filepath.Join(b, "tool.cmd")} {
		if err := os.WriteFile(f, []byte("MZ"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	list := a + string(os.PathListSeparator) + b
	if got, ok := find("hookwarden", list, "", true); !ok || got != filepath.Join(b, "hookwarden.exe") {
		t.Errorf("find(hookwarden) = %q, %v; want %q (a's file has no program extension)", got, ok, filepath.Join(b, "hookwarden.exe"))
	}
	if got, ok := find("hookwarden.exe", list, "", true); !ok || got != filepath.Join(b, "hookwarden.exe") {
		t.Errorf("find(hookwarden.exe) = %q, %v", got, ok)
	}
	if got, ok := find("tool", list, "", true); !ok || got != filepath.Join(b, "tool.cmd") {
		t.Errorf("find(tool) = %q, %v; want tool.cmd", got, ok)
	}
	if _, ok := find("hookwarden", list, "", false); ok {
		t.Error("Unix rule: a 0644 file was found")
	}
}
