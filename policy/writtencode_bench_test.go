package policy

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkJudgeWrittenCode measures the judgement of code written to a
// file (JudgeWrittenCode: the pre-edit code-edit check does it for the file
// after the edit, and for the file before when the result is refused) on
// Python files of about 64 KiB and 256 KiB made of ordinary subprocess
// calls, which it allows.
func BenchmarkJudgeWrittenCode(b *testing.B) {
	p, err := New(nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, kib := range []int{64, 256} {
		var sb strings.Builder
		sb.WriteString("import subprocess\n")
		for i := 0; sb.Len() < kib<<10; i++ {
			fmt.Fprintf(&sb, "def f%d(x):\n    return subprocess.run(['ls', '-la', str(x)], check=True)\n\n", i)
		}
		src := sb.String()
		b.Run(fmt.Sprintf("python-%dKiB", kib), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if d := p.JudgeWrittenCode("big.py", src, Site{}); !d.Allowed {
					b.Fatalf("denied: %s", d.RuleID)
				}
			}
		})
	}
}
