package policy

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hookwarden/hookwarden/settings"
)

func TestOperatorPatterns(t *testing.T) {
	p, err := New([]settings.Pattern{
		{Layer: "fleet /etc/hw.yaml", Pattern: `terraform\s+destroy`, Name: "fleet", Line: 4},
		{Layer: "repository .hookwarden.yaml", Pattern: `^make deploy`},
		{Layer: "repository .hookwarden.yaml", Pattern: `rm -rf /$`},
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		cmd, rule string
	}{
		{"terraform   destroy -auto-approve", "operator:fleet:4"}, // issue 15: the layer briefly and the pattern's line
		{"make deploy ENV=prod", "operator:repository .hookwarden.yaml:0"},
		{"rm -rf \\\n/", "operator:repository .hookwarden.yaml:1"},         // matched in the normalised text
		{"git commit --no-verify -m 'terraform destroy'", RuleGitNoVerify}, // built-ins come first
		{"echo make deploy", ""},
		{"terraform plan", ""},
	}
	for _, tc := range tests {
		d := p.Judge(tc.cmd)
		if d.RuleID != tc.rule || d.Allowed != (tc.rule == "") {
			t.Errorf("%q: got %+v, want rule %q", tc.cmd, d, tc.rule)
			continue
		}
		if tc.rule != "" && !strings.HasPrefix(d.Reason, "[BLOCKED BY hookwarden:"+tc.rule+"] ") {
			t.Errorf("%q: reason %q", tc.cmd, d.Reason)
		}
		if tc.rule != "" && strings.Contains(d.Reason, tc.cmd) {
			t.Errorf("%q: reason echoes the command", tc.cmd)
		}
		if dt := p.JudgeText(tc.cmd); tc.rule != RuleGitNoVerify && dt.RuleID != tc.rule {
			t.Errorf("JudgeText %q: got %q, want %q", tc.cmd, dt.RuleID, tc.rule)
		}
	}
}

func TestOperatorPatternErrors(t *testing.T) {
	many := func(layer string, n int) []settings.Pattern {
		var out []settings.Pattern
		for i := range n {
			out = append(out, settings.Pattern{Layer: layer, Pattern: fmt.Sprintf("cmd%d", i)})
		}
		return out
	}
	tests := []struct {
		name string
		ops  []settings.Pattern
		want string // substring of the error; "" means New succeeds
	}{
		{"bad regexp", []settings.Pattern{{Layer: "fleet", Pattern: "ok"}, {Layer: "workstation", Pattern: "a("}}, "operator layer workstation pattern 0"},
		{"index within layer", []settings.Pattern{{Layer: "repo", Pattern: "x"}, {Layer: "repo", Pattern: "[z-a]"}}, "operator layer repo pattern 1"},
		{"too long", []settings.Pattern{{Layer: "fleet", Pattern: strings.Repeat("a", 513)}}, "operator layer fleet pattern 0: 513 bytes"},
		{"512 is fine", []settings.Pattern{{Layer: "fleet", Pattern: strings.Repeat("a", 512)}}, ""},
		{"65 in a layer", many("fleet", 65), "operator layer fleet pattern 64"},
		{"64 in each of two layers", append(many("fleet", 64), many("repo", 64)...), ""},
		{"empty pattern", []settings.Pattern{{Layer: "repo", Pattern: "  "}}, "operator layer repo pattern 0: empty"},
		{"Perl lookahead is not RE2", []settings.Pattern{{Layer: "repo", Pattern: "git(?!hub)"}}, "operator layer repo pattern 0"},
	}
	for _, tc := range tests {
		_, err := New(tc.ops)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: unexpected error %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

func TestReasonCap(t *testing.T) {
	layer := strings.Repeat("é", 3000) // 6000 bytes of two-byte runes
	p, err := New([]settings.Pattern{{Layer: layer, Pattern: "deploy"}})
	if err != nil {
		t.Fatal(err)
	}
	d := p.Judge("deploy now")
	if d.Allowed || len(d.Reason) > MaxReasonBytes || !utf8.ValidString(d.Reason) {
		t.Fatalf("reason of %d bytes, valid UTF-8 %v, allowed %v", len(d.Reason), utf8.ValidString(d.Reason), d.Allowed)
	}
}

func TestCheckEnvironment(t *testing.T) {
	tests := []struct {
		env  map[string]string
		deny bool
	}{
		{map[string]string{}, false},
		{map[string]string{"LEFTHOOK": "0"}, true},
		{map[string]string{"LEFTHOOK": "false"}, true},
		{map[string]string{"LEFTHOOK": "1"}, false},
		{map[string]string{"LEFTHOOK": "true"}, false},
		{map[string]string{"LEFTHOOK_EXCLUDE": "lint"}, true},
		{map[string]string{"LEFTHOOK_EXCLUDE": ""}, true},
		{map[string]string{"HUSKY": "0"}, false}, // the command rules judge HUSKY in front of git
		{map[string]string{"PATH": "/usr/bin"}, false},
	}
	for _, tc := range tests {
		d := CheckEnvironment(func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
		if d.Allowed == tc.deny {
			t.Errorf("%v: allowed=%v", tc.env, d.Allowed)
		}
		if tc.deny && (d.RuleID != RuleEnvLefthookDisabled || !strings.HasPrefix(d.Reason, "[BLOCKED BY hookwarden:env-lefthook-disabled] ")) {
			t.Errorf("%v: %+v", tc.env, d)
		}
		if !tc.deny && (d.RuleID != "" || d.Reason != "") {
			t.Errorf("%v: allow with %+v", tc.env, d)
		}
	}
}

// TestSeedDenyVariants: every deny case of the corpus still denies when
// wrapped in whitespace and when any word boundary is split with a
// backslash-newline continuation (the shell joins it back).
func TestSeedDenyVariants(t *testing.T) {
	p, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range loadCorpus(t) {
		if c.Verdict != "deny" || c.Literal == nil || c.IsHookOnly() {
			continue
		}
		cmd := *c.Literal
		for _, v := range denyVariants(cmd) {
			if d := p.Judge(v); d.Allowed {
				t.Errorf("%s: variant %q allowed", c.ID, v)
			}
		}
	}
}

// denyVariants returns cmd wrapped in whitespace and, for every boundary
// between a word and a following blank outside quotes, cmd split there by a
// backslash-newline.
func denyVariants(cmd string) []string {
	out := []string{"  " + cmd + "  ", "\n\t" + cmd + "\n", " \t " + cmd}
	var quote byte
	for i := 1; i < len(cmd); i++ {
		c := cmd[i-1]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		}
		if quote == 0 && cmd[i] == ' ' && c != ' ' && c != '\\' && c != '\n' {
			out = append(out, cmd[:i]+"\\\n"+cmd[i:])
		}
	}
	return out
}

// FuzzJudge: no panic; reasons are bounded, well-formed and never echo the
// command; a deny (other than a scan bound) survives whitespace wrapping and
// backslash-newline splits at word boundaries.
func FuzzJudge(f *testing.F) {
	for _, c := range loadCorpus(f) {
		if c.Literal != nil {
			f.Add(*c.Literal)
		}
	}
	p, err := New(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		d, recovered := p.judgeRecover(NewCommand(cmd), "", nil)
		if recovered != nil {
			t.Fatalf("Judge panicked (denied by the safety net): %v", recovered)
		}
		if d.Allowed != (d.RuleID == "") || d.Allowed != (d.Reason == "") {
			t.Fatalf("inconsistent decision %+v", d)
		}
		if d.Allowed {
			return
		}
		if len(d.Reason) > MaxReasonBytes || !strings.HasPrefix(d.Reason, "[BLOCKED BY hookwarden:"+d.RuleID+"] ") {
			t.Fatalf("bad reason %q", d.Reason)
		}
		if len(cmd) >= 24 && strings.Contains(d.Reason, cmd) {
			t.Fatalf("reason echoes the command")
		}
		if d.RuleID == RuleScanBoundCommand || d.RuleID == RuleScanBoundLine || strings.ContainsAny(cmd, "\r\x00") ||
			strings.HasSuffix(cmd, "\\") {
			return // a trailing backslash would escape the appended blank and change the command
		}
		for _, v := range denyVariants(cmd)[:3] {
			if p.Judge(v).Allowed {
				t.Fatalf("whitespace variant %q of a denied command is allowed", v)
			}
		}
	})
}

// TestConcurrentJudge: one Policy judged from many goroutines (the parser
// pool and the lazily compiled text layer) gives the same answers as serially.
func TestConcurrentJudge(t *testing.T) {
	p, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	cmds := []string{"git commit -n -m x", "git status", "echo 'unbalanced", "git commit --no-verify -m 'unbalanced", "sudo ls"}
	want := make([]Decision, len(cmds))
	serial, _ := New(nil)
	for i, c := range cmds {
		want[i] = serial.Judge(c)
	}
	done := make(chan error)
	for g := 0; g < 8; g++ {
		go func() {
			for k := 0; k < 50; k++ {
				for i, c := range cmds {
					if d := p.Judge(c); d != want[i] {
						done <- fmt.Errorf("%q: %+v, want %+v", c, d, want[i])
						return
					}
				}
			}
			done <- nil
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// TestRuleIDConstants keeps the exported ids and rules.json in step, in
// priority order.
func TestRuleIDConstants(t *testing.T) {
	want := ruleOrder[:]
	got := RuleIDs()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("rules.json ids %v, constants %v", got, want)
	}
	for _, id := range got {
		r, ok := Refusal(id)
		if !ok || len(r) > MaxReasonBytes {
			t.Errorf("%s: refusal %q", id, r)
		}
		// "; " separates why from instead exactly once, so a reader can split.
		if strings.Count(r, "; ") != 1 {
			t.Errorf("%s: refusal %q must hold exactly one \"; \"", id, r)
		}
	}
	if _, ok := Refusal("no-such-rule"); ok {
		t.Error("Refusal accepted an unknown id")
	}
}
