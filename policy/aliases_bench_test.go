package policy

import (
	"strconv"
	"strings"
	"testing"
)

// aliasOptionsCommand is one git call with n -c alias.N=1 options (N in
// base 36, so 4,400 fit in MaxCommandBytes), forty to
// a line joined by backslash-newlines (so no line passes MaxLineBytes), then
// the subcommand sub.
func aliasOptionsCommand(n int, sub string) string {
	var b strings.Builder
	b.WriteString("git")
	for i := 0; i < n; i++ {
		if i%40 == 0 {
			b.WriteString(" \\\n")
		}
		b.WriteString(" -c alias." + strconv.FormatInt(int64(i), 36) + "=1")
	}
	b.WriteString(" " + sub)
	return b.String()
}

// TestAliasOptionsLinear: 4,400 -c alias options (issue 28 item 7's shape,
// 2-3 s when each option copied the alias map) are judged, and the alias
// they define last still resolves: allowed for status, denied when the
// last alias is commit -n.
func TestAliasOptionsLinear(t *testing.T) {
	p, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	cmd := aliasOptionsCommand(4400, "status")
	if len(cmd) > MaxCommandBytes {
		t.Fatalf("%d bytes, past the command bound", len(cmd))
	}
	if d := p.Judge(cmd); !d.Allowed {
		t.Errorf("4,400 alias options then status: %s", d.Reason)
	}
	if d := p.Judge(strings.Replace(cmd, " status", " -c alias.ci='commit -n' ci -m x", 1)); d.Allowed || d.RuleID != RuleGitNoVerifyShort {
		t.Errorf("4,400 alias options then ci = commit -n: allowed=%v rule=%s", d.Allowed, d.RuleID)
	}
}

// BenchmarkGitAliasOptions judges one git call with 4,400 -c alias options.
// go test ./policy -run '^$' -bench GitAliasOptions
func BenchmarkGitAliasOptions(b *testing.B) {
	p, err := New(nil)
	if err != nil {
		b.Fatal(err)
	}
	cmd := aliasOptionsCommand(4400, "status")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p.Judge(cmd)
	}
}
