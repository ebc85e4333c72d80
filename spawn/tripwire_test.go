package spawn

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestFileMention: an @-mention of an existing path in the prompt is
// found in each form Claude Code expands (bare, quoted, with a line range
// or trailing punctuation, under ~/); an address, a missing file and an
// @ inside a word are not mentions.
func TestFileMention(t *testing.T) {
	cwd, home := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(cwd, "secret.txt"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(cwd, "my file.txt"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(home, "notes.md"), []byte("x"), 0o644)
	os.Mkdir(filepath.Join(cwd, "src"), 0o755)
	for text, want := range map[string]string{
		"summarize @secret.txt":           "@secret.txt",
		"@secret.txt first":               "@secret.txt",
		`read @"my file.txt" please`:      "@my file.txt",
		"see @secret.txt#L1-3":            "@secret.txt",
		"is it in @secret.txt?":           "@secret.txt",
		"list @src":                       "@src",
		"look at @~/notes.md":             "@~/notes.md",
		"mail a@secret.txt or me@host.io": "",
		"summarize @missing.txt":          "",
		"plain prompt":                    "",
	} {
		got, ok := fileMention(text, cwd, home)
		if got != want || ok != (want != "") {
			t.Errorf("%q: got %q %v, want %q", text, got, ok, want)
		}
	}
}

// TestClaudeUpstream: the gateway's upstream is the caller's
// ANTHROPIC_BASE_URL or the Anthropic API; a cloud provider switch or a
// base URL that is not a plain http(s) URL refuses (redaction-upstream);
// the engine's environment points at the gateway with the git status
// context off and 127.0.0.1 kept off the caller's proxy.
func TestClaudeUpstream(t *testing.T) {
	u, err := claudeUpstream([]string{"HOME=/h"})
	if err != nil || u.String() != claudeDefaultBaseURL {
		t.Errorf("default: %v %v", u, err)
	}
	u, err = claudeUpstream([]string{"ANTHROPIC_BASE_URL=http://127.0.0.1:9/p"})
	if err != nil || u.String() != "http://127.0.0.1:9/p" {
		t.Errorf("caller's: %v %v", u, err)
	}
	for _, env := range [][]string{{"CLAUDE_CODE_USE_BEDROCK=1"}, {"CLAUDE_CODE_USE_VERTEX=true"}, {"CLAUDE_CODE_USE_GATEWAY=yes"},
		{"ANTHROPIC_BASE_URL=unix:///sock"}, {"ANTHROPIC_BASE_URL=https://u:p@host"}, {"ANTHROPIC_BASE_URL=/relative"}} {
		if _, err := claudeUpstream(env); AsRefusal(err) == nil || AsRefusal(err).Reason != ReasonRedactionUpstream {
			t.Errorf("%v: want a redaction-upstream refusal, got %v", env, err)
		}
	}
	if _, err := claudeUpstream([]string{"CLAUDE_CODE_USE_BEDROCK=0"}); err != nil {
		t.Errorf("a switch set off refused: %v", err)
	}
	env := tripwireEnv([]string{"ANTHROPIC_BASE_URL=https://x", "CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS=0", "NO_PROXY=corp"}, "http://127.0.0.1:5")
	for _, want := range []string{"ANTHROPIC_BASE_URL=http://127.0.0.1:5", "CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS=1"} {
		if !slices.Contains(env, want) {
			t.Errorf("engine env %q lacks %s", env, want)
		}
	}
	if getenvFrom(env, "ANTHROPIC_BASE_URL") != "http://127.0.0.1:5" || getenvFrom(env, "NO_PROXY") != "corp,127.0.0.1" || getenvFrom(env, "no_proxy") != "127.0.0.1" {
		t.Errorf("engine env %q", env)
	}
}
