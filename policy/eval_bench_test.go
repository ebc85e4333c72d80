package policy

import (
	"strings"
	"testing"
	"time"

	"github.com/hookwarden/hookwarden/policy/policycases"
)

// evaluatorShapes are the evaluator's commands at its bounds and ordinary
// ones that reach it (issue 28 acceptance: each well under 100 ms).
var evaluatorShapes = map[string]string{
	"ordinary-var":        `msg="fix: x"; git commit -m "$msg" && git push origin "$BRANCH"`,
	"ordinary-loop":       `for f in a b c; do echo "$f"; done`,
	"xargs-echo":          `echo --no-verify | xargs git commit -m wip`,
	"procsubst-source":    `source <(printf 'git commit --no-verify')`,
	"loop-at-step-bound":  `for i in {1..4000}; do :; done`,
	"loop-past-bound":     `while :; do :; done`,
	"doubling-loop":       `x=a; for i in {1..40}; do x=$x$x; done`,
	"cd-256":              strings.Repeat("cd a; ", 256) + "ls",
	"git-C-256":           "git" + strings.Repeat(" -C a", 256) + " status",
	"recursion":           "f() { git status; f; }; f",
	"git-c-alias-4400":    "git" + strings.Repeat(strings.Repeat(" -c alias.x=1", 100)+" \\\n", 44) + " status",
	"nested-bash-c-8":     strings.Repeat("bash -c 'eval \"", 4) + "git status" + strings.Repeat("\"'", 4),
	"eval-printf-nesting": `eval "$(printf 'eval "$(printf %s git\\ status)"')"`,
}

// BenchmarkEvaluator: one JudgeAt call per shape (the static walk and both
// symbolic runs), in an empty repository as the hook judges it.
// go test ./policy -run '^$' -bench Evaluator
func BenchmarkEvaluator(b *testing.B) {
	p, err := New(nil)
	if err != nil {
		b.Fatal(err)
	}
	site := testSite(b, emptyRepo(b))
	for name, cmd := range evaluatorShapes {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p.JudgeAt(cmd, site)
			}
		})
	}
}

// BenchmarkSlowestCorpusCase finds the corpus case JudgeAt (in an empty
// repository, as the hook judges) takes longest on (one timing pass) and
// benchmarks it. go test ./policy -run '^$' -bench SlowestCorpusCase
func BenchmarkSlowestCorpusCase(b *testing.B) {
	p, err := New(nil)
	if err != nil {
		b.Fatal(err)
	}
	cases, err := policycases.LoadCorpus("../testdata/policy")
	if err != nil {
		b.Fatal(err)
	}
	site := testSite(b, emptyRepo(b))
	slowest, worst := "", time.Duration(0)
	id := ""
	for _, c := range cases {
		t0 := time.Now()
		p.JudgeAt(c.Command(), site)
		if d := time.Since(t0); d > worst {
			slowest, worst, id = c.Command(), d, c.ID
		}
	}
	b.Logf("slowest corpus case: %s (%d bytes, %v in the timing pass)", id, len(slowest), worst)
	b.ResetTimer()
	for b.Loop() {
		p.JudgeAt(slowest, site)
	}
}
