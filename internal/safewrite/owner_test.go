//go:build linux

package safewrite

import (
	"errors"
	"github.com/hookwarden/hookwarden/internal/testbin"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// needRoot skips a test that changes owners, file flags or mounts when not
// run as root; under HOOKWARDEN_E2E=require (CI, which runs as root) a
// missing privilege is a failure, not a skip.
func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("HOOKWARDEN_E2E") == "require" {
			t.Fatal("needs root (chown, chattr, mount) and HOOKWARDEN_E2E=require")
		}
		t.Skip("needs root: chown, chattr, mount")
	}
}

func ownerMode(t *testing.T, p string) (int, int, os.FileMode) {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return int(st.Uid), int(st.Gid), fi.Mode().Perm()
}

// TestWriteKeepsOwnerGroupMode: issue 15 — run as root over a user's
// repository, adopt replaced a mode 600 settings file owned by the user
// with a root-owned one the user could no longer read.
func TestWriteKeepsOwnerGroupMode(t *testing.T) {
	needRoot(t)
	root := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, ".claude"), 0o755))
	must(os.Chown(filepath.Join(root, ".claude"), 1234, 2345))
	p := filepath.Join(root, ".claude", "settings.json")
	must(os.WriteFile(p, []byte("{}\n"), 0o600))
	must(os.Chown(p, 1234, 2345))
	must(os.Chmod(p, 0o600))
	snap, err := Preflight(root, ".claude/settings.json")
	must(err)
	if snap.UID != 1234 || snap.GID != 2345 {
		t.Fatalf("snapshot owner %d:%d", snap.UID, snap.GID)
	}
	must(CheckWritable(snap, 10))
	must(Write(snap, []byte("{\"a\":1}\n"), 0o644))
	if u, g, m := ownerMode(t, p); u != 1234 || g != 2345 || m != 0o600 {
		t.Fatalf("after replace: %d:%d %v, want 1234:2345 -rw-------", u, g, m)
	}

	// A new file, and the directories created for it, take the owner and
	// group of the nearest existing directory.
	snap, err = Preflight(root, ".claude/hooks/deep/new.json")
	must(err)
	must(Write(snap, []byte("{}\n"), 0o644))
	for _, q := range []string{".claude/hooks", ".claude/hooks/deep", ".claude/hooks/deep/new.json"} {
		if u, g, _ := ownerMode(t, filepath.Join(root, q)); u != 1234 || g != 2345 {
			t.Errorf("%s: owner %d:%d, want the directory's 1234:2345", q, u, g)
		}
	}
}

// TestCheckWritableRefuses: issue 15 — with an immutable settings file or
// on a read-only mount, adopt wrote 8 of 12 files and stopped. Each is now
// refused by the preflight, naming the file.
func TestCheckWritableRefuses(t *testing.T) {
	needRoot(t)
	testbin.Need(t, "chattr")
	testbin.Need(t, "mount")
	root := t.TempDir()
	p := filepath.Join(root, "settings.json")
	if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("chattr", "+i", p).CombinedOutput(); err != nil {
		t.Fatalf("chattr +i: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", p).Run() })
	snap, err := Preflight(root, "settings.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckWritable(snap, 10); !errors.Is(err, ErrNotWritable) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "immutable") {
		t.Fatalf("immutable file: %v", err)
	}

	// append-only: access(2) says writable, the rename would fail.
	a := filepath.Join(root, "append.json")
	os.WriteFile(a, []byte("{}\n"), 0o644)
	if out, err := exec.Command("chattr", "+a", a).CombinedOutput(); err != nil {
		t.Fatalf("chattr +a: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-a", a).Run() })
	snap, _ = Preflight(root, "append.json")
	if err := CheckWritable(snap, 10); !errors.Is(err, ErrNotWritable) || !strings.Contains(err.Error(), "append-only") {
		t.Fatalf("append-only file: %v", err)
	}

	ro := filepath.Join(root, "ro")
	small := filepath.Join(root, "small")
	for _, d := range []string{ro, small} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", ro).CombinedOutput(); err != nil {
		t.Fatalf("mount: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", ro).Run() })
	snap, _ = Preflight(root, "ro/.gemini/settings.json")
	if err := CheckWritable(snap, 10); !errors.Is(err, ErrNotWritable) || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("read-only mount: %v", err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", small).CombinedOutput(); err != nil {
		t.Fatalf("mount: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", small).Run() })
	snap, _ = Preflight(root, "small/big.json")
	if err := CheckWritable(snap, 1<<20); !errors.Is(err, ErrNotWritable) || !strings.Contains(err.Error(), "bytes free") {
		t.Fatalf("full file system: %v", err)
	}
	if err := CheckWritable(snap, 1<<10); err != nil {
		t.Fatalf("room for a small file: %v", err)
	}
}

// TestLeftoversFoundAndRemoved: a temporary of an interrupted write
// ("." + name + digits) is listed by Preflight and removed by
// RemoveLeftovers; look-alikes are not ours and stay.
func TestLeftoversFoundAndRemoved(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, ".claude")
	os.MkdirAll(dir, 0o755)
	for _, n := range []string{"settings.json", ".settings.json8471", ".settings.jsonx1", ".settings.json", "settings.json123", ".other.json55"} {
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644)
	}
	snap, err := Preflight(root, ".claude/settings.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Leftovers) != 1 || snap.Leftovers[0] != ".claude/.settings.json8471" {
		t.Fatalf("leftovers %q", snap.Leftovers)
	}
	n := 0
	if err := RemoveLeftovers(root, snap.Leftovers, func(string) { n++ }); err != nil || n != 1 {
		t.Fatalf("remove: %v (%d probes)", err, n)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 5 {
		t.Fatalf("left %d entries, want the 5 that are not ours", len(ents))
	}
}
