package editguard

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hookwarden/hookwarden/clientjson"
	"github.com/hookwarden/hookwarden/protocol/verdict"
)

// TestApplyClaude holds claudeApply to the Claude Code 2.1.328 edit
// semantics its doc comment sources.
func TestApplyClaude(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		exists        bool
		edits         []claudeEdit
		want, why     string
	}{
		{"first occurrence", "a b a", true, []claudeEdit{{old: "a", new: "x", replaceAll: true}}, "x b x", ""},
		{"ambiguous", "a b a", true, []claudeEdit{{old: "a", new: "x"}}, "", "old_string occurs 2 times and replace_all is false"},
		{"unique", "a b c", true, []claudeEdit{{old: "b", new: "$&$1"}}, "a $&$1 c", ""},
		{"delete takes the newline", "k\nv\n", true, []claudeEdit{{old: "k", new: ""}}, "v\n", ""},
		{"delete without newline after", "v\nk", true, []claudeEdit{{old: "k", new: ""}}, "v\n", ""},
		{"not verbatim", "“q”", true, []claudeEdit{{old: `"q"`, new: "x"}}, "", "old_string does not occur verbatim in the file"},
		{"create", "", false, []claudeEdit{{old: "", new: "new"}}, "new", ""},
		{"create over content", "x", true, []claudeEdit{{old: "", new: "new"}}, "", "an empty old_string on a file that is not empty (the client refuses to create a file that exists)"},
		{"create over blank", " \n", true, []claudeEdit{{old: "", new: "new"}}, "new", ""},
		{"missing file", "", false, []claudeEdit{{old: "a", new: "b"}}, "", "the file does not exist, and only an edit with an empty old_string creates one"},
		{"sequence", "a b", true, []claudeEdit{{old: "a", new: "c"}, {old: "b", new: "d"}}, "c d", ""},
		{"re-edit of a new_string", "a b", true, []claudeEdit{{old: "a", new: "c"}, {old: "c", new: "d"}}, "", "an old_string is a substring of an earlier edit's new_string"},
		{"no change", "a", true, []claudeEdit{{old: "a", new: "a"}}, "", "an edit changes nothing"},
	} {
		got, why := claudeApply(tc.content, tc.exists, tc.edits)
		if got != tc.want || why != tc.why {
			t.Errorf("%s: got %q, %q; want %q, %q", tc.name, got, why, tc.want, tc.why)
		}
	}
}

// TestApplyGemini holds geminiReplace to the Gemini CLI 0.61.0 replace
// semantics its doc comment sources.
func TestApplyGemini(t *testing.T) {
	in := func(old, nw string, multi bool) toolInput {
		m := map[string]any{"old_string": old, "new_string": nw}
		if multi {
			m["allow_multiple"] = true
		}
		b, _ := json.Marshal(m)
		ti, err := fields(b)
		if err != nil {
			t.Fatal(err)
		}
		return ti
	}
	for _, tc := range []struct {
		name, content string
		exists        bool
		in            toolInput
		want, why     string
	}{
		{"every occurrence with allow_multiple", "a a\n", true, in("a", "b", true), "b b\n", ""},
		{"ambiguous", "a a\n", true, in("a", "b", false), "", "old_string occurs 2 times and allow_multiple is not set"},
		{"dollar kept literally", "a\n", true, in("a", "$&", false), "$&\n", ""},
		{"final newline restored", "a\nb\n", true, in("b\n", "c", false), "a\nc\n", ""},
		{"final newline not added", "a\nb", true, in("b", "c\n", false), "a\nc", ""},
		{"CRLF read as LF", "a\r\nb\r\n", true, in("a\nb", "c", false), "c\n", ""},
		{"not verbatim", "  a  b\n", true, in("a b", "c", false), "", "old_string does not occur verbatim in the file (the client would fall back to fuzzy matching and model self-correction)"},
		{"create", "", false, in("", "x", false), "x", ""},
		{"create over a file", "y", true, in("", "x", false), "", "an empty old_string on a file that exists (the client refuses to create it)"},
		{"identical", "a\n", true, in("a", "a", false), "", "old_string and new_string are identical"},
	} {
		got, why := geminiReplace(tc.content, tc.exists, tc.in)
		if got != tc.want || why != tc.why {
			t.Errorf("%s: got %q, %q; want %q, %q", tc.name, got, why, tc.want, tc.why)
		}
	}
}

// governedRepo makes a governed repository with a Claude settings file holding
// one row whose command owner claims.
func governedRepo(t testing.TB) (string, func(string) (*clientjson.Owner, error)) {
	t.Helper()
	repo := t.TempDir()
	for _, d := range []string{".git", ".claude"} {
		if err := os.MkdirAll(filepath.Join(repo, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const cmd = `hookwarden hook claude pre-tool`
	files := map[string]string{
		".hookwarden.yaml":      "version: 1\n",
		".claude/settings.json": `{"permissions": {"allow": ["Bash(npm test)"]}, "hooks": {"PreToolUse": [{"matcher": "^Bash$", "hooks": [{"type": "command", "command": "` + cmd + `", "timeout": 15}]}]}}` + "\n",
	}
	for rel, body := range files {
		if err := os.WriteFile(filepath.Join(repo, rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	owner := func(client string) (*clientjson.Owner, error) {
		return clientjson.NewOwner(client, []clientjson.Form{{Event: "pre-tool", Command: cmd, Current: true}})
	}
	return repo, owner
}

func input(repo string, owner func(string) (*clientjson.Owner, error), tool, path string, ti map[string]any) Input {
	ti["file_path"] = path
	raw, _ := json.Marshal(ti)
	return Input{Client: "claude", Tool: tool, ToolInput: raw, FilePath: path, Dir: repo, RepoRoot: repo, Owner: owner}
}

// TestDeadline: a judgement whose context has ended is a deny, never an
// allow, even for an edit that would be allowed.
func TestDeadline(t *testing.T) {
	repo, owner := governedRepo(t)
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	v := Judge(ctx, input(repo, owner, "Write", "notes.txt", map[string]any{"content": "x"}))
	if v.Kind != verdict.Deny || v.RuleID != RuleUnjudged {
		t.Fatalf("got %v %s: %s", v.Kind, v.RuleID, v.Reason)
	}
}

// TestJudgeClientFile: an edit of the settings file that keeps the row is
// allowed, one that changes it is denied.
func TestJudgeClientFile(t *testing.T) {
	repo, owner := governedRepo(t)
	keep := Judge(context.Background(), input(repo, owner, "Edit", ".claude/settings.json", map[string]any{"old_string": `"Bash(npm test)"`, "new_string": `"Bash(make)"`}))
	change := Judge(context.Background(), input(repo, owner, "Edit", ".claude/settings.json", map[string]any{"old_string": `"timeout": 15`, "new_string": `"timeout": 1`}))
	if keep.Kind != verdict.Allow || change.Kind != verdict.Deny || change.RuleID != RuleClientHooks {
		t.Fatalf("keep %v %s; change %v %s", keep.Kind, keep.Reason, change.Kind, change.RuleID)
	}
}

// BenchmarkJudge measures the guard alone (warm, in process): an ordinary
// write it lets through, a write of the manifest it denies, and an Edit of
// the Claude settings file that keeps our row (the edit applied, both files
// parsed).
func BenchmarkJudge(b *testing.B) {
	repo, owner := governedRepo(b)
	for _, bc := range []struct {
		name string
		in   Input
		want verdict.Kind
	}{
		{"allow-ordinary", input(repo, owner, "Write", "src/main.go", map[string]any{"content": "package main\n"}), verdict.Allow},
		{"deny-manifest", input(repo, owner, "Write", ".hookwarden.yaml", map[string]any{"content": "x"}), verdict.Deny},
		{"allow-client-file", input(repo, owner, "Edit", ".claude/settings.json", map[string]any{"old_string": `"Bash(npm test)"`, "new_string": `"Bash(make)"`}), verdict.Allow},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if v := Judge(context.Background(), bc.in); v.Kind != bc.want {
					b.Fatalf("%v %s", v.Kind, v.Reason)
				}
			}
		})
	}
}

// TestStoreInSeparateGitDir: an edit inside hookwarden's dispatch
// correlation store is refused when the repository's git directory is not
// named .git (a gitfile to a --separate-git-dir), which the name check
// cannot see; a sibling of the store stays allowed.
func TestStoreInSeparateGitDir(t *testing.T) {
	repo, owner := governedRepo(t)
	sep := filepath.Join(t.TempDir(), "repo-state")
	if err := os.MkdirAll(filepath.Join(sep, "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sep, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(repo, ".git")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".git"), []byte("gitdir: "+sep+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	row := filepath.Join(sep, "hookwarden", "dispatch-correlations", "a.json")
	v := Judge(context.Background(), input(repo, owner, "Write", row, map[string]any{"content": "{}"}))
	if v.Kind != verdict.Deny || v.RuleID != RuleHooksDir {
		t.Fatalf("write of %s: %v %s %s, want a %s deny", row, v.Kind, v.RuleID, v.Reason, RuleHooksDir)
	}
	sib := filepath.Join(sep, "hookwardenx")
	if v := Judge(context.Background(), input(repo, owner, "Write", sib, map[string]any{"content": "x"})); v.Kind == verdict.Deny {
		t.Fatalf("write of %s: denied (%s %s), want it allowed", sib, v.RuleID, v.Reason)
	}
}
