//go:build linux

package adopt

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRefusesToChangeOwner: issue 15 item 4 — when the run cannot keep a
// file's owner (here uid 1234 adopting a world-writable repository whose
// settings belong to root), adopt refuses, naming the file, and writes
// nothing, instead of replacing the file with one the run's user owns.
func TestRefusesToChangeOwner(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	if os.Geteuid() != 0 {
		if os.Getenv("HOOKWARDEN_E2E") == "require" {
			t.Fatal("needs root to run adopt as another user (HOOKWARDEN_E2E=require)")
		}
		t.Skip("needs root to run adopt as another user")
	}
	shared, err := os.MkdirTemp("", "hookwarden-owner-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(shared) })
	bin := filepath.Join(shared, "hookwarden")
	data, err := os.ReadFile(buildBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(shared, "repo")
	makeRepo(t, root, true, map[string]string{".claude/settings.json": "{}\n"}, nil)
	for _, p := range []string{shared, root, filepath.Join(root, ".claude"), filepath.Join(root, ".git"), filepath.Join(root, ".git", "info")} {
		if err := os.Chmod(p, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	before := tree(t, root)
	cmd := exec.Command(bin, "adopt", "--clients", "claude", root)
	cmd.Env = []string{"HOME=" + shared, "CODEX_HOME=" + shared, "PATH=" + os.Getenv("PATH")}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 1234, Gid: 2345}}
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("adopt as uid 1234: %v, want exit 1\n%s", err, out)
	}
	if !strings.Contains(string(out), "owned by uid 0") || !strings.Contains(string(out), "nothing written") {
		t.Fatalf("the refusal does not name the owner it would change:\n%s", out)
	}
	after := tree(t, root)
	if len(after) != len(before) {
		t.Fatalf("adopt wrote files although it refused:\n%s", out)
	}
	for p, c := range before {
		if after[p] != c {
			t.Fatalf("%s changed although adopt refused", p)
		}
	}
}
