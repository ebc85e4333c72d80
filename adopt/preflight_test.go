//go:build linux

package adopt

import (
	"context"
	"github.com/hookwarden/hookwarden/internal/testbin"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPreflightRefusesUnwritable: issue 15 — with an immutable settings
// file (chattr +i) or a read-only mount inside the repository, adopt wrote
// 8 of 12 files and stopped. Now the plan fails before the first write,
// naming the file, and the repository is left exactly as it was.
func TestPreflightRefusesUnwritable(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("HOOKWARDEN_E2E") == "require" {
			t.Fatal("needs root for chattr and mount (HOOKWARDEN_E2E=require)")
		}
		t.Skip("needs root for chattr and mount")
	}
	for _, c := range []struct {
		name, want string
		setup      func(t *testing.T, root string)
	}{
		{"immutable settings file", ".gemini/settings.json: cannot be written as planned: immutable", func(t *testing.T, root string) {
			testbin.Need(t, "chattr")
			p := filepath.Join(root, ".gemini", "settings.json")
			if out, err := exec.Command("chattr", "+i", p).CombinedOutput(); err != nil {
				t.Fatalf("chattr: %v %s", err, out)
			}
			t.Cleanup(func() { exec.Command("chattr", "-i", p).Run() })
		}},
		{"read-only mount", "on a read-only file system", func(t *testing.T, root string) {
			testbin.Need(t, "mount")
			d := filepath.Join(root, ".codex")
			os.Mkdir(d, 0o755)
			if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", d).CombinedOutput(); err != nil {
				t.Fatalf("mount: %v %s", err, out)
			}
			t.Cleanup(func() { exec.Command("umount", d).Run() })
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "repo")
			makeRepo(t, root, true, map[string]string{".gemini/settings.json": "{}\n", ".gitignore": "dist/\n"}, nil)
			c.setup(t, root)
			before := tree(t, root)
			for _, dry := range []bool{true, false} {
				opts := testOptions(t)
				opts.DryRun = dry
				rep, err := Adopt(context.Background(), []string{root}, opts)
				if err != nil {
					t.Fatal(err)
				}
				r := rep.Repositories[0]
				if r.Status != StatusFailed || len(r.Errors) != 1 || !strings.Contains(r.Errors[0], c.want) || !strings.Contains(r.Errors[0], "nothing written") {
					t.Fatalf("dry run %v: status %s, errors %q; want a failure containing %q", dry, r.Status, r.Errors, c.want)
				}
			}
			after := tree(t, root)
			if len(after) != len(before) {
				t.Fatalf("files written: before %d, after %d", len(before), len(after))
			}
			for p, c := range before {
				if after[p] != c {
					t.Fatalf("%s changed", p)
				}
			}
		})
	}
}
