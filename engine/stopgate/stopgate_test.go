package stopgate

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hookwarden/hookwarden/engine/checkpoint"
	"github.com/hookwarden/hookwarden/internal/posixtest"
	"github.com/hookwarden/hookwarden/internal/testbin"
	"github.com/hookwarden/hookwarden/protocol/verdict"
)

// git runs git for a fixture in dir with a fixed identity, no user or
// system config, and date (when non-zero) as author and committer date.
func git(tb testing.TB, dir string, date time.Time, args ...string) {
	tb.Helper()
	testbin.Need(tb, "git")
	cmd := exec.Command("git", append([]string{"-c", "user.name=hookwarden test", "-c", "user.email=test@example.invalid",
		"-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME=" + dir, "PATH=" + os.Getenv("PATH")}
	if !date.IsZero() {
		d := fmt.Sprintf("%d +0000", date.Unix())
		cmd.Env = append(cmd.Env, "GIT_AUTHOR_DATE="+d, "GIT_COMMITTER_DATE="+d)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func write(tb testing.TB, p, content string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// newRepo makes a repository holding a.txt and b.txt, committed age ago,
// and returns its root.
func newRepo(tb testing.TB, age time.Duration) string {
	tb.Helper()
	base := tb.TempDir()
	git(tb, base, time.Time{}, "init", "-q", "-b", "main", "repo")
	root := filepath.Join(base, "repo")
	write(tb, filepath.Join(root, "a.txt"), "a\n")
	write(tb, filepath.Join(root, "b.txt"), "b\n")
	git(tb, root, time.Time{}, "add", "-A")
	git(tb, root, time.Now().Add(-age), "commit", "-q", "-m", "init")
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		tb.Fatal(err)
	}
	return real
}

// slowGit puts a git on PATH that never answers.
func slowGit(t *testing.T) {
	t.Helper()
	posixtest.SkipOnWindows(t, "the stand-in git is a #!/bin/sh script, which Windows does not run")
	sleep := testbin.Need(t, "sleep")
	bin := t.TempDir()
	write(t, filepath.Join(bin, "git"), "#!/bin/sh\nexec "+sleep+" 30\n")
	if err := os.Chmod(filepath.Join(bin, "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
}

type questionCorpus struct {
	Tools map[string]string `json:"tools"`
	Cases []struct {
		Name    string `json:"name"`
		Message string `json:"message"`
		Want    string `json:"want"`
	} `json:"cases"`
}

func loadQuestions(t *testing.T) questionCorpus {
	t.Helper()
	raw, err := os.ReadFile("../../testdata/stopgate/questions.json")
	if err != nil {
		t.Fatal(err)
	}
	var c questionCorpus
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatalf("testdata/stopgate/questions.json: %v", err)
	}
	if len(c.Cases) < 60 || len(c.Tools) < 4 {
		t.Fatalf("testdata/stopgate/questions.json: %d cases, %d tools; want at least 60 and 4", len(c.Cases), len(c.Tools))
	}
	return c
}

// TestQuestionCorpus replays testdata/stopgate/questions.json through
// JudgeStop for every client on a clean repository: a closing question is a
// deny naming the client's question tool, anything else an allow, an empty
// message a stated skip; and on a repeated pass nothing is denied.
func TestQuestionCorpus(t *testing.T) {
	c := loadQuestions(t)
	root := newRepo(t, time.Minute)
	clients := make([]string, 0, len(c.Tools))
	for cl := range c.Tools {
		clients = append(clients, cl)
	}
	sort.Strings(clients)
	for _, cl := range clients {
		tool := c.Tools[cl]
		t.Run(cl, func(t *testing.T) {
			for _, tc := range c.Cases {
				t.Run(tc.Name, func(t *testing.T) {
					v := JudgeStop(context.Background(), StopInput{Client: cl, Cwd: root, RepoRoot: root,
						LastMessage: tc.Message, Config: checkpoint.DefaultConfig()})
					switch tc.Want {
					case "question":
						if v.Kind != verdict.Deny || v.RuleID != RuleProseQuestion {
							t.Fatalf("got %s %q (%q), want deny %s", v.Kind, v.RuleID, v.Reason, RuleProseQuestion)
						}
						if !strings.Contains(v.Reason, tool) {
							t.Errorf("reason %q does not name %s", v.Reason, tool)
						}
						if strings.Contains(v.Reason, strings.TrimSpace(tc.Message)) {
							t.Errorf("reason quotes the message: %q", v.Reason)
						}
					case "none":
						if v.Kind != verdict.Allow {
							t.Fatalf("got %s %q (%q), want allow", v.Kind, v.RuleID, v.Reason)
						}
					case "empty":
						if v.Kind != verdict.Skip || !strings.Contains(v.Reason, "empty") {
							t.Fatalf("got %s (%q), want a stated skip for an empty message", v.Kind, v.Reason)
						}
					default:
						t.Fatalf("unknown want %q", tc.Want)
					}
					rep := JudgeStop(context.Background(), StopInput{Client: cl, Cwd: root, LastMessage: tc.Message,
						Repeated: true, Config: checkpoint.DefaultConfig()})
					if rep.Kind != verdict.Skip || !strings.Contains(rep.Reason, "repeated") {
						t.Errorf("repeated pass: got %s (%q), want a stated skip", rep.Kind, rep.Reason)
					}
				})
			}
		})
	}
}

// TestUnknownClientAdviceNamesNoTool: a client without a known question
// tool still gets the deny, without a made-up tool name.
func TestUnknownClientAdviceNamesNoTool(t *testing.T) {
	root := newRepo(t, time.Minute)
	v := JudgeStop(context.Background(), StopInput{Client: "opencode", Cwd: root, LastMessage: "Shall I go on?", Config: checkpoint.DefaultConfig()})
	if v.Kind != verdict.Deny {
		t.Fatalf("got %s, want deny", v.Kind)
	}
	for _, tool := range loadQuestions(t).Tools {
		if strings.Contains(v.Reason, tool) {
			t.Errorf("reason for opencode names %s: %q", tool, v.Reason)
		}
	}
}

func TestJudgeStopCheckpoint(t *testing.T) {
	cfg := checkpoint.DefaultConfig()
	old := newRepo(t, 2*time.Hour)
	write(t, filepath.Join(old, "a.txt"), "changed\n")
	write(t, filepath.Join(old, "new.txt"), "new\n")
	fresh := newRepo(t, time.Minute)
	write(t, filepath.Join(fresh, "a.txt"), "changed\n")
	plain := t.TempDir()

	cases := []struct {
		name      string
		cwd       string
		msg       string
		repeated  bool
		cfg       checkpoint.Config
		kind      verdict.Kind
		rule      string
		reasonHas []string
	}{
		{"due checkpoint denies with reason and files", old, "All done.", false, cfg, verdict.Deny, RuleCheckpointDue,
			[]string{"checkpoint is due", "2 uncommitted files", "limit 30 minutes", "a.txt", "new.txt", "git commit"}},
		{"question and due checkpoint: one deny lists both", old, "Shall I commit?", false, cfg, verdict.Deny,
			RuleProseQuestion + "," + RuleCheckpointDue, []string{RuleProseQuestion + ":", RuleCheckpointDue + ":", "AskUserQuestion", "a.txt"}},
		{"empty message and due checkpoint: deny for the checkpoint", old, "", false, cfg, verdict.Deny, RuleCheckpointDue, []string{"a.txt"}},
		{"repeated pass with a due checkpoint halts", old, "Shall I commit?", true, cfg, verdict.Halt, RuleCheckpointDue,
			[]string{"still due", "a.txt"}},
		{"repeated pass with nothing due is a stated skip", fresh, "Shall I commit?", true, cfg, verdict.Skip, "", []string{"repeated"}},
		{"fresh small change passes", fresh, "All done.", false, cfg, verdict.Allow, "", nil},
		{"on_stop makes a fresh change due at stop", fresh, "All done.", false,
			checkpoint.Config{CommitAfterMinutes: 30, CommitAfterFiles: 20, OnStop: true}, verdict.Deny, RuleCheckpointDue, []string{"on_stop", "a.txt"}},
		{"no git work tree: stated skip", plain, "All done.", false, cfg, verdict.Skip, "", []string{"not inside a git work tree"}},
		{"no git work tree and a question: the question still denies", plain, "Shall I go on?", false, cfg, verdict.Deny, RuleProseQuestion, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := JudgeStop(context.Background(), StopInput{Client: "claude", Cwd: tc.cwd, LastMessage: tc.msg, Repeated: tc.repeated, Config: tc.cfg})
			if v.Kind != tc.kind || v.RuleID != tc.rule {
				t.Fatalf("got %s %q (%q), want %s %q", v.Kind, v.RuleID, v.Reason, tc.kind, tc.rule)
			}
			for _, s := range tc.reasonHas {
				if !strings.Contains(v.Reason, s) {
					t.Errorf("reason %q lacks %q", v.Reason, s)
				}
			}
		})
	}
}

// TestJudgeStopUsesRepoRootWithoutCwd: a payload without cwd falls back to
// the governed repository's root.
func TestJudgeStopUsesRepoRootWithoutCwd(t *testing.T) {
	old := newRepo(t, 2*time.Hour)
	write(t, filepath.Join(old, "a.txt"), "changed\n")
	v := JudgeStop(context.Background(), StopInput{Client: "codex", RepoRoot: old, LastMessage: "done", Config: checkpoint.DefaultConfig()})
	if v.Kind != verdict.Deny || v.RuleID != RuleCheckpointDue {
		t.Fatalf("got %s %q, want deny %s", v.Kind, v.RuleID, RuleCheckpointDue)
	}
	v = JudgeStop(context.Background(), StopInput{Client: "codex", LastMessage: "done", Config: checkpoint.DefaultConfig()})
	if v.Kind != verdict.Deny || v.RuleID != RuleCheckpointUnavailable {
		t.Fatalf("no directory at all: got %s %q, want deny %s", v.Kind, v.RuleID, RuleCheckpointUnavailable)
	}
}

// TestSlowGitBudgets: git outliving the event's budget is a deny at stop
// and pre-edit, a stated skip at post-tool and on a repeated stop pass, and
// every judge returns soon after the deadline.
func TestSlowGitBudgets(t *testing.T) {
	root := t.TempDir()
	slowGit(t)
	cfg := checkpoint.DefaultConfig()
	check := func(name string, want verdict.Kind, rule string, judge func(ctx context.Context) verdict.Verdict) {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			start := time.Now()
			v := judge(ctx)
			if el := time.Since(start); el > 3*time.Second {
				t.Errorf("took %v with a 300ms budget", el)
			}
			if v.Kind != want || v.RuleID != rule {
				t.Fatalf("got %s %q (%q), want %s %q", v.Kind, v.RuleID, v.Reason, want, rule)
			}
			if !strings.Contains(v.Reason, "deadline exceeded") {
				t.Errorf("reason %q does not say the budget ran out", v.Reason)
			}
		})
	}
	check("stop", verdict.Deny, RuleCheckpointUnavailable, func(ctx context.Context) verdict.Verdict {
		return JudgeStop(ctx, StopInput{Client: "claude", Cwd: root, LastMessage: "done", Config: cfg})
	})
	check("stop repeated", verdict.Skip, "", func(ctx context.Context) verdict.Verdict {
		return JudgeStop(ctx, StopInput{Client: "claude", Cwd: root, LastMessage: "done", Repeated: true, Config: cfg})
	})
	check("post-tool", verdict.Skip, "", func(ctx context.Context) verdict.Verdict {
		return JudgePostTool(ctx, PostToolInput{Client: "claude", Cwd: root, Config: cfg})
	})
	check("pre-edit", verdict.Deny, RuleCheckpointUnavailable, func(ctx context.Context) verdict.Verdict {
		return JudgeEdit(ctx, EditInput{Client: "claude", Cwd: root, FilePath: filepath.Join(root, "a.txt"), Config: cfg})
	})
}

// TestNoGitIsStatedSkip: without git on PATH every judge states a skip (the
// agent cannot install git; denying would only cost turns), and the stop
// gate still denies a closing question.
func TestNoGitIsStatedSkip(t *testing.T) {
	root := t.TempDir()
	t.Setenv("PATH", t.TempDir())
	cfg := checkpoint.DefaultConfig()
	for name, v := range map[string]verdict.Verdict{
		"stop":      JudgeStop(context.Background(), StopInput{Client: "claude", Cwd: root, LastMessage: "done", Config: cfg}),
		"post-tool": JudgePostTool(context.Background(), PostToolInput{Client: "claude", Cwd: root, Config: cfg}),
		"pre-edit":  JudgeEdit(context.Background(), EditInput{Client: "claude", Cwd: root, FilePath: "a.txt", Config: cfg}),
	} {
		if v.Kind != verdict.Skip || !strings.Contains(v.Reason, "git is not installed") {
			t.Errorf("%s: got %s (%q), want a stated skip naming the missing git", name, v.Kind, v.Reason)
		}
	}
	v := JudgeStop(context.Background(), StopInput{Client: "gemini", Cwd: root, LastMessage: "Shall I?", Config: cfg})
	if v.Kind != verdict.Deny || v.RuleID != RuleProseQuestion {
		t.Errorf("question without git: got %s %q, want deny %s", v.Kind, v.RuleID, RuleProseQuestion)
	}
}

func TestJudgePostTool(t *testing.T) {
	cfg := checkpoint.DefaultConfig()
	old := newRepo(t, 2*time.Hour)
	write(t, filepath.Join(old, "a.txt"), "changed\n")
	v := JudgePostTool(context.Background(), PostToolInput{Client: "gemini", Cwd: old, Config: cfg})
	if v.Kind != verdict.Context || v.RuleID != RuleCheckpointDue || !strings.Contains(v.Reason, "a.txt") {
		t.Fatalf("due: got %s %q (%q), want context naming a.txt", v.Kind, v.RuleID, v.Reason)
	}
	clean := newRepo(t, 2*time.Hour)
	if v := JudgePostTool(context.Background(), PostToolInput{Client: "gemini", Cwd: clean, Config: cfg}); v.Kind != verdict.Allow {
		t.Fatalf("clean: got %s (%q), want allow", v.Kind, v.Reason)
	}
	if v := JudgePostTool(context.Background(), PostToolInput{Client: "gemini", Cwd: t.TempDir(), Config: cfg}); v.Kind != verdict.Skip || v.Reason == "" {
		t.Fatalf("no repo: got %s (%q), want a stated skip", v.Kind, v.Reason)
	}
}

func TestJudgeEdit(t *testing.T) {
	cfg := checkpoint.DefaultConfig()
	due := newRepo(t, 2*time.Hour)
	write(t, filepath.Join(due, "a.txt"), "changed\n")
	write(t, filepath.Join(due, "sub", "new.txt"), "new\n")
	fresh := newRepo(t, time.Minute)
	write(t, filepath.Join(fresh, "a.txt"), "changed\n")
	git(t, due, time.Time{}, "worktree", "add", "-q", "-b", "feature", "../wt")
	wt := filepath.Join(filepath.Dir(due), "wt")
	write(t, filepath.Join(wt, "b.txt"), "changed in the worktree\n")
	// wt's HEAD is the 2-hour-old commit, so its checkpoint is due too.

	cases := []struct {
		name string
		cwd  string
		file string
		kind verdict.Kind
		rule string
	}{
		{"due: edit a changed file (absolute)", due, filepath.Join(due, "a.txt"), verdict.Allow, ""},
		{"due: edit a changed file (relative to cwd)", due, "a.txt", verdict.Allow, ""},
		{"due: edit an untracked new file", due, "sub/new.txt", verdict.Allow, ""},
		{"due: edit from a subdirectory cwd, relative path", filepath.Join(due, "sub"), "new.txt", verdict.Allow, ""},
		{"due: edit an unchanged file", due, filepath.Join(due, "b.txt"), verdict.Deny, RuleCheckpointDue},
		{"due: create a new file", due, filepath.Join(due, "c.txt"), verdict.Deny, RuleCheckpointDue},
		{"due: edit outside the repository", due, "/etc/hostname", verdict.Deny, RuleCheckpointDue},
		{"due: dot-dot out of the repository", due, "../outside.txt", verdict.Deny, RuleCheckpointDue},
		{"due: edit inside .git", due, filepath.Join(due, ".git", "config"), verdict.Deny, RuleCheckpointDue},
		{"due: no file path", due, "", verdict.Deny, RuleInvalidInput},
		{"not due: edit anything", fresh, filepath.Join(fresh, "b.txt"), verdict.Allow, ""},
		{"not due: edit outside the repository", fresh, "/etc/hostname", verdict.Allow, ""},
		{"worktree cwd: edit its own changed file", wt, filepath.Join(wt, "b.txt"), verdict.Allow, ""},
		{"worktree cwd: edit the main checkout's changed file is outside", wt, filepath.Join(due, "a.txt"), verdict.Deny, RuleCheckpointDue},
		{"no git work tree: stated skip", t.TempDir(), "x.txt", verdict.Skip, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := JudgeEdit(context.Background(), EditInput{Client: "claude", Cwd: tc.cwd, FilePath: tc.file, Config: cfg})
			if v.Kind != tc.kind || v.RuleID != tc.rule {
				t.Fatalf("got %s %q (%q), want %s %q", v.Kind, v.RuleID, v.Reason, tc.kind, tc.rule)
			}
			if v.Kind == verdict.Deny && tc.file != "" && strings.Contains(v.Reason, filepath.Base(tc.file)) && filepath.Base(tc.file) != "a.txt" {
				t.Errorf("deny reason names the edited file: %q", v.Reason)
			}
		})
	}
}

// TestEditThroughSymlinkedDir: a path reaching the repository through a
// symbolic link is judged as the file it names.
func TestEditThroughSymlinkedDir(t *testing.T) {
	due := newRepo(t, 2*time.Hour)
	write(t, filepath.Join(due, "a.txt"), "changed\n")
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(due, link); err != nil {
		t.Fatal(err)
	}
	v := JudgeEdit(context.Background(), EditInput{Client: "claude", Cwd: link, FilePath: filepath.Join(link, "a.txt"), Config: checkpoint.DefaultConfig()})
	if v.Kind != verdict.Allow {
		t.Fatalf("got %s (%q), want allow", v.Kind, v.Reason)
	}
}

// TestReasonCapped: a due checkpoint with long file names still yields a
// reason within verdict.MaxReasonBytes.
func TestReasonCapped(t *testing.T) {
	old := newRepo(t, 2*time.Hour)
	for i := range 40 {
		write(t, filepath.Join(old, fmt.Sprintf("%03d-%s.txt", i, strings.Repeat("long-name-", 20))), "x\n")
	}
	v := JudgeStop(context.Background(), StopInput{Client: "claude", Cwd: old, LastMessage: "Shall I?", Config: checkpoint.DefaultConfig()})
	if v.Kind != verdict.Deny {
		t.Fatalf("got %s, want deny", v.Kind)
	}
	if len(v.Reason) > verdict.MaxReasonBytes {
		t.Fatalf("reason is %d bytes, cap %d", len(v.Reason), verdict.MaxReasonBytes)
	}
	if !strings.Contains(v.Reason, RuleProseQuestion) {
		t.Errorf("capped reason lost the first check: %q", v.Reason[:200])
	}
}

// TestEditRelativeToRepoRootWithoutCwd: a payload without cwd resolves a
// relative file path against the governed repository's root.
func TestEditRelativeToRepoRootWithoutCwd(t *testing.T) {
	due := newRepo(t, 2*time.Hour)
	write(t, filepath.Join(due, "a.txt"), "changed\n")
	cfg := checkpoint.DefaultConfig()
	if v := JudgeEdit(context.Background(), EditInput{Client: "gemini", RepoRoot: due, FilePath: "a.txt", Config: cfg}); v.Kind != verdict.Allow {
		t.Errorf("changed file: got %s (%q), want allow", v.Kind, v.Reason)
	}
	if v := JudgeEdit(context.Background(), EditInput{Client: "gemini", RepoRoot: due, FilePath: "b.txt", Config: cfg}); v.Kind != verdict.Deny {
		t.Errorf("unchanged file: got %s (%q), want deny", v.Kind, v.Reason)
	}
}

// TestEditCacheKeepsTheDeny: with 18 changed files cached and git gone from
// PATH, two allowed edits of new files are noted, so the third new file is
// denied (20 changed) from the cache alone: the cache never loses the
// agent's own edits.
func TestEditCacheKeepsTheDeny(t *testing.T) {
	dir := newRepo(t, time.Minute)
	for i := range 18 {
		write(t, filepath.Join(dir, fmt.Sprintf("f%02d.txt", i)), "x\n")
	}
	cfg := checkpoint.Config{CommitAfterMinutes: 600, CommitAfterFiles: 20}
	if _, err := checkpoint.Evaluate(context.Background(), dir, cfg, false); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	for _, f := range []string{"a.txt", "b.txt"} {
		if v := JudgeEdit(context.Background(), EditInput{Client: "claude", Cwd: dir, FilePath: f, Config: cfg}); v.Kind != verdict.Allow {
			t.Fatalf("edit %s: %+v, want allow from the cache", f, v)
		}
	}
	v := JudgeEdit(context.Background(), EditInput{Client: "claude", Cwd: dir, FilePath: "c.txt", Config: cfg})
	if v.Kind != verdict.Deny || v.RuleID != RuleCheckpointDue {
		t.Fatalf("third new file: %+v, want deny %s", v, RuleCheckpointDue)
	}
	if v := JudgeEdit(context.Background(), EditInput{Client: "claude", Cwd: dir, FilePath: "a.txt", Config: cfg}); v.Kind != verdict.Allow {
		t.Fatalf("a noted file is in the change set: %+v, want allow", v)
	}
}

// TestPostToolAfterCountedEditUsesCache: post-tool after an edit of a file
// the cached status already counts answers from the cache (no git); after
// an edit of any other file, or a shell command, it scans (here: git is
// gone, so a stated skip).
func TestPostToolAfterCountedEditUsesCache(t *testing.T) {
	dir := newRepo(t, time.Minute)
	write(t, filepath.Join(dir, "a.txt"), "changed\n")
	cfg := checkpoint.Config{CommitAfterMinutes: 600, CommitAfterFiles: 1}
	if _, err := checkpoint.Evaluate(context.Background(), dir, cfg, false); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	if v := JudgePostTool(context.Background(), PostToolInput{Client: "claude", Cwd: dir, Config: cfg, EditedFile: "a.txt"}); v.Kind != verdict.Context {
		t.Fatalf("after an edit of a counted file: %+v, want the cached due annotation", v)
	}
	for _, in := range []PostToolInput{
		{Client: "claude", Cwd: dir, Config: cfg, EditedFile: "b.txt"},
		{Client: "claude", Cwd: dir, Config: cfg},
	} {
		if v := JudgePostTool(context.Background(), in); v.Kind != verdict.Skip {
			t.Fatalf("post-tool %+v: %+v, want a fresh scan (a skip without git)", in, v)
		}
	}
}
