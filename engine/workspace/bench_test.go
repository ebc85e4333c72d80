package workspace

import (
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
