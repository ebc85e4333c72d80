package live

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookwarden/hookwarden/engine/hook"
	"github.com/hookwarden/hookwarden/protocol/verdict"
)

// wrappers are the growth shapes of issue 14 item 1 as functions of the
// command they wrap: each runs its inner command as a shell would (quoting
// kept through eval, bash -c and alias), or, for a branch that does not run,
// is still judged as if it did. A wrapper that puts a launcher before a
// compound command makes a script the parser rejects, which the text rules
// judge.
var wrappers = []func(inner string) string{
	func(s string) string { return "cd a; " + s },
	func(s string) string { return "cd .. && " + s },
	func(s string) string { return "pushd a >/dev/null; " + s },
	func(s string) string { return "git -C a status; " + s },
	func(s string) string { return "git --git-dir=.git log -1; " + s },
	func(s string) string { return "env " + s },
	func(s string) string { return "nice -n 5 " + s },
	func(s string) string { return "timeout 30 " + s },
	func(s string) string { return "nohup " + s },
	func(s string) string { return "command " + s },
	func(s string) string { return "stdbuf -oL " + s },
	func(s string) string { return "( " + s + " )" },
	func(s string) string { return "{ " + s + "; }" },
	func(s string) string { return "echo $( " + s + " )" },
	func(s string) string { return "ls | " + s },
	func(s string) string { return s + " | cat" },
	func(s string) string { return "true && " + s },
	func(s string) string { return "false || " + s },
	func(s string) string { return "if true; then " + s + "; fi" },
	func(s string) string { return "if test -d a; then cd a; else cd b; fi; " + s },
	func(s string) string { return "for i in 1 2; do " + s + "; done" },
	func(s string) string { return "eval '" + strings.ReplaceAll(s, "'", `'\''`) + "'" },
	func(s string) string { return "bash -c '" + strings.ReplaceAll(s, "'", `'\''`) + "'" },
	func(s string) string { return "alias g='" + strings.ReplaceAll(s, "'", `'\''`) + "'; g" },
	// Runs of one shape, so that compositions reach the bounds.
	func(s string) string { return strings.Repeat("cd a; ", 5) + s },
	func(s string) string { return "git -C a -C a -C a -C a status; " + s },
	func(s string) string { return strings.Repeat("env ", 12) + s },
	func(s string) string {
		for range 3 {
			s = "eval '" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
		return s
	},
}

// TestPropertyGrowthCompositions composes random growth shapes (up to 20
// wrappers, so compositions reach and pass the scan bounds) around a core
// command and replays each through the hook in every dialect, from a
// directory above the governed repository (the core names the repository
// by absolute path, so the directory scan must find it through every
// wrapper). Properties: a composition holding a denied core
// (`git commit --no-verify`, `git push --no-verify`) is never allowed; every
// composition is answered, never with the budget's own deny, and inside
// the row's budget. The seed is fixed so a failure reproduces; set
// HOOKWARDEN_PROPERTY_SEED to explore others.
func TestPropertyGrowthCompositions(t *testing.T) {
	deps, err := Deps()
	if err != nil {
		t.Fatal(err)
	}
	repo, lookup := governedRepo(t)
	parent := filepath.Dir(repo)
	for _, d := range []string{filepath.Join(parent, "a"), filepath.Join(parent, "b"), filepath.Join(repo, "a")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	seed := uint64(14)
	if s := os.Getenv("HOOKWARDEN_PROPERTY_SEED"); s != "" {
		for _, c := range s {
			seed = seed*31 + uint64(c)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	denied := []string{
		"git -C " + repo + " commit --no-verify -m x",
		"cd " + repo + " && git push --no-verify origin HEAD",
	}
	benign := []string{"git -C " + repo + " status", "ls"}
	const n = 300
	rules := map[string]int{}
	for i := 0; i < n; i++ {
		deny := i%2 == 0
		core := benign[rng.IntN(len(benign))]
		if deny {
			core = denied[rng.IntN(len(denied))]
		}
		cmd := core
		// Quoting wrappers grow a command fourfold each; past 256 KiB it is
		// over every bound already (and the payload over 1 MiB).
		for k := rng.IntN(21); k > 0 && len(cmd) < 256<<10; k-- {
			cmd = wrappers[rng.IntN(len(wrappers))](cmd)
		}
		for _, client := range acceptanceClients {
			row, _ := deps.Table.Lookup(client, "pre-tool")
			start := time.Now()
			resp := hook.Run(context.Background(), deps, hook.Request{Client: client, Event: "pre-tool",
				Stdin: strings.NewReader(string(payloadFor(t, client, cmd, parent))), LookupEnv: lookup})
			elapsed := time.Since(start)
			rules[resp.Verdict.Kind.String()+":"+resp.Verdict.RuleID]++
			switch {
			case deny && resp.Verdict.Kind != verdict.Deny:
				t.Fatalf("case %d %s: a composition with a denied core was answered %v: %q", i, client, resp.Verdict.Kind, cmd)
			case resp.Verdict.RuleID == hook.RuleBudget || elapsed >= row.Budget():
				t.Fatalf("case %d %s: answered after %v (budget %v, rule %q): %q", i, client, elapsed, row.Budget(), resp.Verdict.RuleID, cmd)
			case resp.Verdict.Kind != verdict.Allow && resp.Verdict.Kind != verdict.Deny && resp.Verdict.Kind != verdict.Skip:
				t.Fatalf("case %d %s: verdict %v", i, client, resp.Verdict.Kind)
			}
		}
	}
	t.Logf("seed %d: %d compositions x %d clients; answers by rule: %v", seed, n, len(acceptanceClients), rules)
}
