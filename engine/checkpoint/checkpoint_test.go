package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hookwarden/hookwarden/internal/posixtest"
	"github.com/hookwarden/hookwarden/internal/testbin"
)

// scenario is one case of testdata/checkpoint/cases.json.
type scenario struct {
	Name   string  `json:"name"`
	NoRepo bool    `json:"no_repo"`
	Steps  []step  `json:"steps"`
	Cwd    string  `json:"cwd"`
	Config *Config `json:"config"`
	AtStop bool    `json:"at_stop"`
	Want   struct {
		Due        bool      `json:"due"`
		Trigger    string    `json:"trigger"`
		Root       string    `json:"root"`
		Files      *[]string `json:"files"`
		FilesCount *int      `json:"files_count"`
		HasCommit  *bool     `json:"has_commit"`
		Error      string    `json:"error"`
	} `json:"want"`
}

type step struct {
	Write *struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	} `json:"write"`
	Remove *struct {
		Path string `json:"path"`
	} `json:"remove"`
	Many *struct {
		Dir   string `json:"dir"`
		Count int    `json:"count"`
	} `json:"many"`
	Git *struct {
		Args    []string `json:"args"`
		Dir     string   `json:"dir"`
		MayFail bool     `json:"may_fail"`
	} `json:"git"`
	Commit *struct {
		Message    string `json:"message"`
		AgeMinutes int    `json:"age_minutes"`
		Dir        string `json:"dir"`
	} `json:"commit"`
}

// setupGit runs git for a test fixture in dir, with a scrubbed environment,
// a fixed identity and no user or system config; date, when non-zero, is
// the author and committer date.
func setupGit(tb testing.TB, dir string, date time.Time, mayFail bool, args ...string) {
	tb.Helper()
	testbin.Need(tb, "git")
	cmd := exec.Command("git", append([]string{"-c", "user.name=hookwarden test", "-c", "user.email=test@example.invalid",
		"-c", "commit.gpgsign=false", "-c", "core.autocrlf=false"}, args...)...)
	cmd.Dir = dir
	env := []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME=" + dir, "PATH=" + os.Getenv("PATH")}
	if !date.IsZero() {
		d := fmt.Sprintf("%d +0000", date.Unix())
		env = append(env, "GIT_AUTHOR_DATE="+d, "GIT_COMMITTER_DATE="+d)
	}
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil && !mayFail {
		tb.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
	}
}

func writeFile(tb testing.TB, p, content string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

func loadScenarios(t *testing.T) []scenario {
	t.Helper()
	raw, err := os.ReadFile("../../testdata/checkpoint/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []scenario `json:"cases"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("testdata/checkpoint/cases.json: %v", err)
	}
	if len(doc.Cases) == 0 {
		t.Fatal("testdata/checkpoint/cases.json: no cases")
	}
	return doc.Cases
}

// TestEvaluateScenarios replays every scenario of
// testdata/checkpoint/cases.json on a fresh repository.
func TestEvaluateScenarios(t *testing.T) {
	for _, sc := range loadScenarios(t) {
		t.Run(sc.Name, func(t *testing.T) {
			testbin.Need(t, "git") // Evaluate asks git, also where no repository is set up
			base := t.TempDir()
			if !sc.NoRepo {
				setupGit(t, base, time.Time{}, false, "init", "-q", "-b", "main", "repo")
			}
			for _, st := range sc.Steps {
				switch {
				case st.Write != nil:
					writeFile(t, filepath.Join(base, st.Write.Path), st.Write.Content)
				case st.Remove != nil:
					if err := os.Remove(filepath.Join(base, st.Remove.Path)); err != nil {
						t.Fatal(err)
					}
				case st.Many != nil:
					for i := range st.Many.Count {
						writeFile(t, filepath.Join(base, st.Many.Dir, fmt.Sprintf("f%03d.txt", i)), "x\n")
					}
				case st.Git != nil:
					setupGit(t, filepath.Join(base, or(st.Git.Dir, "repo")), time.Time{}, st.Git.MayFail, st.Git.Args...)
				case st.Commit != nil:
					dir := filepath.Join(base, or(st.Commit.Dir, "repo"))
					date := time.Now().Add(-time.Duration(st.Commit.AgeMinutes) * time.Minute)
					setupGit(t, dir, time.Time{}, false, "add", "-A")
					setupGit(t, dir, date, false, "commit", "-q", "-m", st.Commit.Message)
				default:
					t.Fatalf("empty step in %q", sc.Name)
				}
			}
			cfg := DefaultConfig()
			if sc.Config != nil {
				cfg = *sc.Config
			}
			cwd := filepath.Join(base, or(sc.Cwd, "repo"))
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res, err := Evaluate(ctx, cwd, cfg, sc.AtStop)
			if sc.Want.Error != "" {
				if sc.Want.Error != "not-repository" || !errors.Is(err, ErrNotRepository) {
					t.Fatalf("Evaluate error = %v, want %s", err, sc.Want.Error)
				}
				return
			}
			if err != nil {
				t.Fatalf("Evaluate: %v", err)
			}
			if res.Due != sc.Want.Due {
				t.Errorf("Due = %v, want %v (reason %q)", res.Due, sc.Want.Due, res.Reason)
			}
			if sc.Want.Trigger != "" && res.Trigger.String() != sc.Want.Trigger {
				t.Errorf("Trigger = %s, want %s (reason %q)", res.Trigger, sc.Want.Trigger, res.Reason)
			}
			if sc.Want.Root != "" {
				want, err := filepath.EvalSymlinks(filepath.Join(base, sc.Want.Root))
				if err != nil {
					t.Fatal(err)
				}
				if res.Root != want {
					t.Errorf("Root = %q, want %q", res.Root, want)
				}
			}
			if sc.Want.Files != nil {
				want := *sc.Want.Files
				if want == nil {
					want = []string{}
				}
				got := res.Files
				if got == nil {
					got = []string{}
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("Files (-want +got):\n%s", d)
				}
			}
			if sc.Want.FilesCount != nil && len(res.Files) != *sc.Want.FilesCount {
				t.Errorf("len(Files) = %d, want %d", len(res.Files), *sc.Want.FilesCount)
			}
			if sc.Want.HasCommit != nil && res.HasCommit != *sc.Want.HasCommit {
				t.Errorf("HasCommit = %v, want %v", res.HasCommit, *sc.Want.HasCommit)
			}
			if res.Reason == "" {
				t.Error("empty Reason")
			}
			if res.Due != (res.Actions() != "") {
				t.Errorf("Actions() = %q with Due %v", res.Actions(), res.Due)
			}
		})
	}
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// TestEvaluateSlowGitDeadline runs Evaluate against a git that never answers
// and expects an error wrapping context.DeadlineExceeded well before git
// would have finished.
func TestEvaluateSlowGitDeadline(t *testing.T) {
	posixtest.SkipOnWindows(t, "the stand-in git is a #!/bin/sh script, which Windows does not run")
	sleep := testbin.Need(t, "sleep")
	bin := t.TempDir()
	writeFile(t, filepath.Join(bin, "git"), "#!/bin/sh\nexec "+sleep+" 30\n")
	if err := os.Chmod(filepath.Join(bin, "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Evaluate(ctx, t.TempDir(), DefaultConfig(), true)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Evaluate error = %v, want one wrapping context.DeadlineExceeded", err)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Fatalf("Evaluate took %v after a 300ms deadline", el)
	}
}

// TestEvaluateMissingGit: no git on PATH is an error, never a clean tree.
func TestEvaluateMissingGit(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Evaluate(context.Background(), t.TempDir(), DefaultConfig(), true)
	if !errors.Is(err, ErrNoGit) {
		t.Fatalf("Evaluate without git: %v, want ErrNoGit", err)
	}
}

// TestEvaluateRelativeCwd: a relative cwd is refused rather than resolved
// against the engine's own working directory.
func TestEvaluateRelativeCwd(t *testing.T) {
	if _, err := Evaluate(context.Background(), "repo", DefaultConfig(), true); err == nil {
		t.Fatal("Evaluate with a relative cwd succeeded")
	}
}

// TestEvaluateIgnoresInheritedGitEnv: an inherited GIT_DIR or GIT_WORK_TREE
// (e.g. the agent was started from a git hook) must not redirect the
// judgement away from cwd.
func TestEvaluateIgnoresInheritedGitEnv(t *testing.T) {
	base := t.TempDir()
	setupGit(t, base, time.Time{}, false, "init", "-q", "-b", "main", "repo")
	setupGit(t, base, time.Time{}, false, "init", "-q", "-b", "main", "other")
	writeFile(t, filepath.Join(base, "repo", "dirty.txt"), "x\n")
	t.Setenv("GIT_DIR", filepath.Join(base, "other", ".git"))
	t.Setenv("GIT_WORK_TREE", filepath.Join(base, "other"))
	res, err := Evaluate(context.Background(), filepath.Join(base, "repo"), DefaultConfig(), false)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Due || len(res.Files) != 1 || res.Files[0] != "dirty.txt" {
		t.Fatalf("judged the wrong checkout: due %v files %v", res.Due, res.Files)
	}
}

// TestActionsListsAtMost16 checks the action text a user reads: 16 names and
// a count of the rest, and a newline in a file name quoted.
func TestActionsListsAtMost16(t *testing.T) {
	base := t.TempDir()
	setupGit(t, base, time.Time{}, false, "init", "-q", "-b", "main", "repo")
	for i := range 20 {
		writeFile(t, filepath.Join(base, "repo", fmt.Sprintf("f%02d.txt", i)), "x\n")
	}
	writeFile(t, filepath.Join(base, "repo", "evil\nname.txt"), "x\n")
	res, err := Evaluate(context.Background(), filepath.Join(base, "repo"), DefaultConfig(), false)
	if err != nil {
		t.Fatal(err)
	}
	act := res.Actions()
	if !strings.Contains(act, "and 5 more") {
		t.Errorf("Actions() = %q, want 'and 5 more' for 21 files", act)
	}
	listed, more := res.Listed()
	if len(listed) != MaxListed || more != 5 {
		t.Errorf("Listed() = %d names, %d more; want 16, 5", len(listed), more)
	}
	if strings.Contains(act, "\n") {
		t.Errorf("Actions() holds a raw newline: %q", act)
	}
	if !strings.Contains(act, `"evil\nname.txt"`) {
		t.Errorf("Actions() = %q, want the newline name quoted", act)
	}
	for _, f := range listed {
		if !strings.Contains(act, printable(f)) {
			t.Errorf("Actions() does not name %q", f)
		}
	}
	if !res.InChangeSet("f00.txt") || res.InChangeSet("f99.txt") || !res.InChangeSet("./f01.txt") {
		t.Error("InChangeSet disagrees with Files")
	}
}

func TestParsePorcelainV2(t *testing.T) {
	out := "# branch.oid 0123456789abcdef0123456789abcdef01234567\x00# branch.head main\x00" +
		"1 .M N... 100644 100644 100644 aaaa bbbb a b.txt\x00" +
		"2 R. N... 100644 100644 100644 aaaa bbbb R100 new name.txt\x00old.txt\x00" +
		"u UU N... 100644 100644 100644 100644 a b c conflict.txt\x00" +
		"? untracked dir/x.txt\x00! ignored.log\x00"
	oid, files, err := parsePorcelainV2([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if oid != "0123456789abcdef0123456789abcdef01234567" {
		t.Errorf("oid = %q", oid)
	}
	want := []string{"a b.txt", "new name.txt", "old.txt", "conflict.txt", "untracked dir/x.txt"}
	if d := cmp.Diff(want, files); d != "" {
		t.Errorf("files (-want +got):\n%s", d)
	}
	if oid, _, _ := parsePorcelainV2([]byte("# branch.oid (initial)\x00")); oid != "" {
		t.Errorf("(initial) gave oid %q", oid)
	}
	if _, _, err := parsePorcelainV2([]byte("1 short\x00")); err == nil {
		t.Error("malformed entry accepted")
	}
}
