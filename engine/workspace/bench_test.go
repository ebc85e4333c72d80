package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/policy"
)

// BenchmarkLocateDirectoryOperands is the directory scan of a command with
// policy.MaxTargetOperands operands, at the bound: `cd a; ` repeated then
// `ls`, and one git with as many -C operands (issue 28 item 7: at least 256
// answered well under 100 ms). go test ./engine/workspace -run '^$' -bench LocateDirectoryOperands
func BenchmarkLocateDirectoryOperands(b *testing.B) {
	dir := b.TempDir()
	for name, cmd := range map[string]string{
		"cd":    strings.Repeat("cd a; ", policy.MaxTargetOperands) + "ls",
		"git-C": "git" + strings.Repeat(" -C a", policy.MaxTargetOperands) + " status",
	} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Locate([]string{dir}, policy.NewCommand(cmd), ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLocateBelowPaths is the workspace scan of an ordinary command
// naming relative paths below a governed repository's root (Scan.Below,
// each resolved to look for a nested governed repository): what the check
// of relative paths adds to a call. go test ./engine/workspace -run '^$'
// -bench LocateBelowPaths
func BenchmarkLocateBelowPaths(b *testing.B) {
	repo := b.TempDir()
	for _, d := range []string{".git", "src/pkg", "docs"} {
		if err := os.MkdirAll(filepath.Join(repo, d), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, ".hookwarden.yaml"), []byte("version: 1\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	for name, cmd := range map[string]string{
		"none":  "git status",
		"five":  "git add src/pkg/a.go src/pkg/b.go src/c.go docs/x.md docs/y.md && git commit -m wip",
		"sixty": "git add" + strings.Repeat(" src/pkg/f.go docs/g.md", 30),
	} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Locate([]string{repo}, policy.NewCommand(cmd), ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
