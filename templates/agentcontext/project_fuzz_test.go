package agentcontext

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzProject: the projection never panics, never adds a line that is not in
// the input (kept lines are input lines or shortened input lines), and is
// idempotent: projecting the projection changes nothing.
func FuzzProject(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "context", "cases", "*", "in", "AGENTS.md"))
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err == nil {
			f.Add(string(b))
		}
	}
	f.Add("- a\n\t- `b\n```\n~~~\n> c <!-- d\n| e |\n|---|\n| commit |\n")
	rules, err := DefaultRules()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src string) {
		lines, _ := splitDoc([]byte(src))
		out := Project(rules, lines)
		if len(out) > len(lines) {
			t.Fatalf("projection has %d lines, input %d", len(out), len(lines))
		}
		in := map[string]bool{}
		for _, l := range lines {
			in[l] = true
		}
		for _, l := range out {
			if in[l] {
				continue
			}
			found := false
			for _, o := range lines {
				if len(l) < len(o) && sharesPrefix(o, l) {
					found = true
					break
				}
			}
			if !found {
				t.Fatalf("output line %q is not an input line or a cut of one", l)
			}
		}
		again := Project(rules, out)
		if strings.Join(again, "\n") != strings.Join(out, "\n") {
			t.Fatalf("not idempotent:\nfirst:\n%s\nsecond:\n%s", strings.Join(out, "\n"), strings.Join(again, "\n"))
		}
	})
}

// sharesPrefix reports whether cut starts like orig (a cut keeps the
// container prefix and the first surviving byte of the line, or is the tail
// of it).
func sharesPrefix(orig, cut string) bool {
	if cut == "" {
		return true
	}
	return orig[0] == cut[0] || strings.Contains(orig, strings.TrimSpace(cut[:min(len(cut), 8)]))
}

// BenchmarkProject projects all fixture inputs concatenated (about 600 lines).
func BenchmarkProject(b *testing.B) {
	seeds, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "context", "cases", "*", "in", "AGENTS.md"))
	var all strings.Builder
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			b.Fatal(err)
		}
		all.Write(data)
		all.WriteByte('\n')
	}
	lines, _ := splitDoc([]byte(all.String()))
	rules, err := DefaultRules()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(lines)), "lines")
	b.ResetTimer()
	for b.Loop() {
		Project(rules, lines)
	}
}
