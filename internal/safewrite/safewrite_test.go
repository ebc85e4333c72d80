package safewrite

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hookwarden/hookwarden/internal/posixtest"
)

func mustWrite(t *testing.T, path, body string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func TestWriteReplacesAndKeepsMode(t *testing.T) {
	root := t.TempDir()
	mustWrite(t, filepath.Join(root, ".claude/settings.json"), "{}\n", 0o600)
	snap, err := Preflight(root, ".claude/settings.json")
	if err != nil {
		t.Fatal(err)
	}
	if !snap.Exists || string(snap.Data) != "{}\n" || snap.Mode != posixtest.Perm(0o600) {
		t.Fatalf("snapshot = %+v", snap)
	}
	if err := Write(snap, []byte(`{"hooks":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(snap.Abs())
	if string(got) != `{"hooks":{}}` {
		t.Fatalf("content = %q", got)
	}
	fi, _ := os.Stat(snap.Abs())
	if fi.Mode().Perm() != posixtest.Perm(0o600) {
		t.Fatalf("mode = %v, want the file's own %v kept", fi.Mode().Perm(), posixtest.Perm(0o600))
	}
	ents, _ := os.ReadDir(filepath.Dir(snap.Abs()))
	if len(ents) != 1 {
		t.Fatalf("temporary file left behind: %v", ents)
	}
}

func TestWriteCreatesDirsAndNewMode(t *testing.T) {
	root := t.TempDir()
	snap, err := Preflight(root, ".hookwarden/hook.py")
	if err != nil || snap.Exists {
		t.Fatalf("snap=%+v err=%v", snap, err)
	}
	if err := Write(snap, []byte("#!/usr/bin/env python3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(snap.Abs())
	// Windows has no execute bit (Perm(0o755)&0o100 is 0 there).
	if err != nil || fi.Mode().Perm()&posixtest.Perm(0o755)&0o100 != posixtest.Perm(0o755)&0o100 {
		t.Fatalf("new file not executable: %v %v", fi, err)
	}
}

func TestRefusals(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, root string)
		rel   string
	}{
		{"symlinked file", func(t *testing.T, root string) {
			mustWrite(t, filepath.Join(root, "elsewhere.json"), "{}", 0o644)
			os.MkdirAll(filepath.Join(root, ".claude"), 0o755)
			posixtest.Symlink(t, "../elsewhere.json", filepath.Join(root, ".claude/settings.json"))
		}, ".claude/settings.json"},
		{"dangling symlinked file", func(t *testing.T, root string) {
			os.MkdirAll(filepath.Join(root, ".claude"), 0o755)
			posixtest.Symlink(t, "/nonexistent/x", filepath.Join(root, ".claude/settings.json"))
		}, ".claude/settings.json"},
		{"symlinked directory", func(t *testing.T, root string) {
			other := t.TempDir()
			posixtest.Symlink(t, other, filepath.Join(root, ".claude"))
		}, ".claude/settings.json"},
		{"symlinked .hookwarden", func(t *testing.T, root string) {
			other := t.TempDir()
			posixtest.Symlink(t, other, filepath.Join(root, ".hookwarden"))
		}, ".hookwarden/backups/20260101T000000Z/.gitignore"},
		{"fifo", func(t *testing.T, root string) {
			posixtest.Mkfifo(t, filepath.Join(root, ".gitignore"), 0o644)
		}, ".gitignore"},
		{"directory where file belongs", func(t *testing.T, root string) {
			os.MkdirAll(filepath.Join(root, ".gitignore"), 0o755)
		}, ".gitignore"},
		{"file where directory belongs", func(t *testing.T, root string) {
			mustWrite(t, filepath.Join(root, ".claude"), "x", 0o644)
		}, ".claude/settings.json"},
		{"dot-dot", func(t *testing.T, root string) {}, "../x"},
		{"absolute", func(t *testing.T, root string) {}, "/etc/passwd"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			c.setup(t, root)
			_, err := Preflight(root, c.rel)
			if !errors.Is(err, ErrRefused) {
				t.Fatalf("Preflight(%s) err = %v, want ErrRefused", c.rel, err)
			}
			// Write must refuse too, even with a snapshot forged as absent.
			err = Write(Snapshot{Root: root, Rel: c.rel}, []byte("x"), 0o644)
			if err == nil {
				t.Fatalf("Write(%s) succeeded", c.rel)
			}
		})
	}
}

func TestCompareAndSwap(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, ".gitignore")
	mustWrite(t, p, "node_modules/\n", 0o644)
	snap, err := Preflight(root, ".gitignore")
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, p, "node_modules/\ndist/\n", 0o644) // someone edits after planning
	err = Write(snap, []byte("ours\n"), 0o644)
	if !errors.Is(err, ErrConflict) {
		t.Fatalf("err = %v, want ErrConflict", err)
	}
	got, _ := os.ReadFile(p)
	if string(got) != "node_modules/\ndist/\n" {
		t.Fatalf("the operator's edit was overwritten: %q", got)
	}

	// Absent at planning, created since: refused too.
	snap2, _ := Preflight(root, "new.txt")
	mustWrite(t, filepath.Join(root, "new.txt"), "theirs", 0o644)
	if err := Write(snap2, []byte("ours"), 0o644); !errors.Is(err, ErrConflict) {
		t.Fatalf("err = %v, want ErrConflict", err)
	}
	// Present at planning, removed since: refused.
	snap3, _ := Preflight(root, "new.txt")
	os.Remove(filepath.Join(root, "new.txt"))
	if err := Write(snap3, []byte("ours"), 0o644); !errors.Is(err, ErrConflict) {
		t.Fatalf("err = %v, want ErrConflict", err)
	}
	if _, err := os.Stat(filepath.Join(root, "new.txt")); err == nil {
		t.Fatal("a removed file was recreated")
	}
}

// TestPreflightReadsOnce: reading a file 100 bytes short of 128 KiB
// allocates about the file once, not a doubled copy (bytes.Buffer.ReadFrom
// doubles a buffer that has less than bytes.MinRead free before its last
// read, and the allocation of size+1 bytes rounds up to 128 KiB; a fleet
// audit reads the 120-135 KiB interceptor and plugin of every repository).
func TestPreflightReadsOnce(t *testing.T) {
	root := t.TempDir()
	const size = 128<<10 - 100
	if err := os.WriteFile(filepath.Join(root, "big"), bytes.Repeat([]byte("x"), size), 0o644); err != nil {
		t.Fatal(err)
	}
	const runs = 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		s, err := Preflight(root, "big")
		if err != nil || len(s.Data) != size {
			t.Fatalf("Preflight: %d bytes, %v", len(s.Data), err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > size*5/4 {
		t.Errorf("Preflight of a %d-byte file allocated %d bytes a read; want at most %d (one buffer, not a doubled one)", size, per, size*5/4)
	}
}

// TestReaderReadsOnce: a Reader answers a second Preflight of a file, and
// the leftovers of a directory it listed, as of its first read (one moment
// for a plan and the audit that checks it), refuses what Preflight refuses,
// and a new Reader sees the files as they are now.
func TestReaderReadsOnce(t *testing.T) {
	root := t.TempDir()
	mustWrite(t, filepath.Join(root, "d", "a"), "one", 0o644)
	mustWrite(t, filepath.Join(root, "d", "b"), "b", 0o644)
	rd := NewReader(root)
	if s, err := rd.Preflight("d/a"); err != nil || string(s.Data) != "one" || len(s.Leftovers) != 0 {
		t.Fatalf("first read: %q %v %v", s.Data, s.Leftovers, err)
	}
	mustWrite(t, filepath.Join(root, "d", "a"), "two", 0o644)
	mustWrite(t, filepath.Join(root, "d", ".b123"), "tmp", 0o644)
	if s, _ := rd.Preflight("d/a"); string(s.Data) != "one" {
		t.Errorf("second read through the Reader: %q, want the first read's %q", s.Data, "one")
	}
	if s, _ := rd.Preflight("d/b"); len(s.Leftovers) != 0 {
		t.Errorf("leftovers of b after d was listed: %v, want none (listed once)", s.Leftovers)
	}
	fresh := NewReader(root)
	if s, _ := fresh.Preflight("d/a"); string(s.Data) != "two" {
		t.Errorf("a new Reader read %q, want %q", s.Data, "two")
	}
	if s, _ := fresh.Preflight("d/b"); len(s.Leftovers) != 1 || s.Leftovers[0] != "d/.b123" {
		t.Errorf("a new Reader's leftovers of b: %v, want [d/.b123]", s.Leftovers)
	}
	posixtest.Symlink(t, filepath.Join(root, "d"), filepath.Join(root, "l"))
	for range 2 {
		if _, err := fresh.Preflight("l/a"); !errors.Is(err, ErrRefused) {
			t.Errorf("read through a symlinked directory: %v, want ErrRefused", err)
		}
	}
}

// TestReaderExists: Exists finds what os.Lstat finds (a file, a directory,
// a symbolic link, dangling or not) from one listing of the directory, and
// nothing absent, below a missing or non-directory component, or outside
// the root.
func TestReaderExists(t *testing.T) {
	root := t.TempDir()
	mustWrite(t, filepath.Join(root, ".config", "lefthook.yml"), "x", 0o644)
	mustWrite(t, filepath.Join(root, "file"), "x", 0o644)
	check := func(rd *Reader, cases map[string]bool) {
		t.Helper()
		for rel, want := range cases {
			_, lerr := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
			if got := rd.Exists(rel); got != want || (rel != "../x" && got != (lerr == nil)) {
				t.Errorf("Exists(%q) = %v, want %v (os.Lstat: %v)", rel, got, want, lerr)
			}
		}
	}
	check(NewReader(root), map[string]bool{
		".config/lefthook.yml": true, ".config": true, "file": true,
		"absent": false, ".config/absent": false, "missing/lefthook.yml": false, "file/x": false, "../x": false,
	})
	posixtest.Symlink(t, "nowhere", filepath.Join(root, "dangling"))
	check(NewReader(root), map[string]bool{"dangling": true})
}
