package policy

import (
	"fmt"
	"strings"
	"testing"
)

var typicalCommands = []string{
	"git status",
	"git commit -m 'feat: add the parser' && git push origin HEAD",
	"go test ./... 2>&1 | tail -20",
	"rm -rf dist && npm run build",
	"git commit --no-verify -m wip",
}

// BenchmarkJudgeTypical: one Judge call on everyday commands (ns/op is the
// per-call cost of the policy in the hook process).
func BenchmarkJudgeTypical(b *testing.B) {
	p, err := New(nil)
	if err != nil {
		b.Fatal(err)
	}
	for i, cmd := range typicalCommands {
		b.Run(fmt.Sprintf("cmd%d", i), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p.Judge(cmd)
			}
		})
	}
}

// scanInput builds a command of exactly n bytes out of short benign lines
// that still exercise the parser and the git judge.
func scanInput(n int) string {
	line := "git status && git log -n 1 --oneline | cat\n"
	s := strings.Repeat(line, n/len(line)+1)
	s = s[:n-1] + "\n"
	return s
}

// BenchmarkJudgeScanBound: Judge (shell layer) and JudgeText (text layer) on
// commands from 1 KiB up to the 64 KiB bound; MB/s staying flat across the
// sizes shows the cost is linear.
func BenchmarkJudgeScanBound(b *testing.B) {
	p, err := New(nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, kib := range []int{1, 4, 16, 64} {
		cmd := scanInput(kib * 1024)
		if d := p.Judge(cmd); !d.Allowed {
			b.Fatalf("benchmark input denied: %s", d.RuleID)
		}
		b.Run(fmt.Sprintf("shell/%dKiB", kib), func(b *testing.B) {
			b.SetBytes(int64(len(cmd)))
			for b.Loop() {
				p.Judge(cmd)
			}
		})
		b.Run(fmt.Sprintf("text/%dKiB", kib), func(b *testing.B) {
			b.SetBytes(int64(len(cmd)))
			for b.Loop() {
				p.JudgeText(cmd)
			}
		})
	}
}

// BenchmarkNew: building a Policy (once per hook process).
func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		if _, err := New(nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCatalogParse: parsing the embedded rules file (the wording every
// deny needs), paid once per process on the first New with operator
// patterns, deny or TextRules.
func BenchmarkCatalogParse(b *testing.B) {
	for b.Loop() {
		if _, err := parseCatalog(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCatalogExpand: parsing the rules file and expanding every text
// pattern, paid once per process that needs the text layer (a command the
// shell parser rejects, interpreter code, TextRules).
func BenchmarkCatalogExpand(b *testing.B) {
	for b.Loop() {
		c, err := parseCatalog()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.expanded(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkColdHookPath: what one hook process pays for the policy on a
// typical command: New (catalog already parsed) plus one Judge.
func BenchmarkColdHookPath(b *testing.B) {
	for b.Loop() {
		p, err := New(nil)
		if err != nil {
			b.Fatal(err)
		}
		p.Judge("git commit -m 'feat: add the parser' && git push origin HEAD")
	}
}

// BenchmarkColdInterpreterCode: New plus one Judge of interpreter code,
// which the text rules search (issue 14 item 4). A text rule is compiled
// only when a line holds one of its required literals: code naming none
// costs what an ordinary command costs; code naming git commit compiles the
// rules that need it (catalog expansion already paid, as after the first
// call in a process).
func BenchmarkColdInterpreterCode(b *testing.B) {
	for name, cmd := range map[string]string{"print": "python3 -c 'print(1)'", "git-commit": `python3 -c "import os; os.system('git commit -m x')"`} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				p, err := New(nil)
				if err != nil {
					b.Fatal(err)
				}
				p.Judge(cmd)
			}
		})
	}
}
