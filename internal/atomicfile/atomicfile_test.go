package atomicfile

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"
)

// TestWriteFileReplaces: an existing file is replaced whole, with the bits
// asked for, and no temporary is left beside it.
func TestWriteFileReplaces(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(p, []byte("old bytes, longer than the new ones"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(p)
	if err != nil || string(got) != "new" {
		t.Fatalf("read back %q, %v; want new", got, err)
	}
	fi, _ := os.Stat(p)
	want := os.FileMode(0o600)
	if runtime.GOOS == "windows" {
		want = 0o666 // only the read-only attribute exists there
	}
	if fi.Mode().Perm() != want {
		t.Errorf("mode %v, want %v", fi.Mode().Perm(), want)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("directory holds %d entries after the replace, want 1", len(ents))
	}
}

// TestTemporaryBesideTarget: the temporary lives in the target's directory
// and is named "." + name + digits (what safewrite's leftover scan finds),
// and Cleanup removes it when the replace is abandoned.
func TestTemporaryBesideTarget(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "hooks.json")
	pf, err := New(p, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	name := pf.File().Name()
	if filepath.Dir(name) != dir {
		t.Errorf("temporary in %s, want %s", filepath.Dir(name), dir)
	}
	if !regexp.MustCompile(`^\.hooks\.json[0-9]+$`).MatchString(filepath.Base(name)) {
		t.Errorf("temporary named %q, want .hooks.json + digits", filepath.Base(name))
	}
	if _, err := pf.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := pf.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(name); !os.IsNotExist(err) {
		t.Errorf("temporary %s still there after Cleanup: %v", name, err)
	}
	if _, err := os.Lstat(p); !os.IsNotExist(err) {
		t.Errorf("target created by an abandoned write: %v", err)
	}
}

// TestReadOnlyTargetRefused: a target the user made read-only is not
// silently replaced on Windows (MoveFileEx refuses); elsewhere the
// directory's permissions decide and the replace goes through.
func TestReadOnlyTargetRefused(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "ro.json")
	if err := os.WriteFile(p, []byte("old"), 0o444); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(p, []byte("new"), 0o444)
	got, _ := os.ReadFile(p)
	if runtime.GOOS == "windows" {
		if err == nil || string(got) != "old" {
			t.Fatalf("read-only target: err %v, content %q; want a refusal and the old bytes", err, got)
		}
		return
	}
	if err != nil || string(got) != "new" {
		t.Fatalf("err %v, content %q; want new", err, got)
	}
}
