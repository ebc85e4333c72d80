package branchcommit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hookwarden/hookwarden/adopt"
	"github.com/hookwarden/hookwarden/internal/fileowner"
)

// hermeticGit points git at no global or system config and gives it a
// commit identity, for this test process and the git it runs.
func hermeticGit(t *testing.T) {
	t.Helper()
	empty := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", empty)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		t.Setenv(k, "Fleet Test")
	}
	for _, k := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(k, "fleet@example.invalid")
	}
	t.Setenv("CODEX_HOME", t.TempDir())
}

// gitT runs git in dir and returns its trimmed stdout; an error fails the test.
func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := gitOut(dir, args...)
	if err != nil {
		t.Fatalf("git %s in %s: %v", strings.Join(args, " "), dir, err)
	}
	return out
}

func gitOut(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("%w: %s", err, ee.Stderr)
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// newRepo makes a git repository on branch main at dir holding files, all
// committed (no commit when files is nil).
func newRepo(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gitT(t, dir, "init", "-q", "-b", "main")
	if files == nil {
		return
	}
	for p, body := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		mode := fs.FileMode(0o644)
		if strings.HasPrefix(p, "bin/") {
			mode = 0o755
		}
		if err := os.WriteFile(full, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-q", "-m", "initial")
}

// snapshot is what a run must not change in a repository: every file of the
// work tree with its mode, the index, HEAD (symbolic and resolved), the
// branches and the worktree list.
func snapshot(t *testing.T, dir string) map[string]string {
	return snapshotExcept(t, dir, "")
}

// snapshotExcept is snapshot without the branch named skip (a run's own
// branch, checked on its own).
func snapshotExcept(t *testing.T, dir, skip string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, _ := d.Info()
		out["file "+filepath.ToSlash(rel)] = info.Mode().String() + "\n" + string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sym, _ := gitOut(dir, "symbolic-ref", "-q", "HEAD")
	head, _ := gitOut(dir, "rev-parse", "-q", "--verify", "HEAD")
	out["HEAD"] = sym + " " + head
	out["index"] = gitT(t, dir, "ls-files", "-s")
	out["status"] = gitT(t, dir, "status", "--porcelain")
	out["worktrees"] = gitT(t, dir, "worktree", "list", "--porcelain")
	var branches []string
	for _, l := range strings.Split(gitT(t, dir, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/"), "\n") {
		if skip == "" || !strings.HasPrefix(l, "refs/heads/"+skip+" ") {
			branches = append(branches, l)
		}
	}
	out["branches"] = strings.Join(branches, "\n")
	return out
}

// ourPath reports whether p is a file adopt may write (DESIGN.md, "Files in
// a governed repository").
func ourPath(p string) bool {
	switch p {
	case adopt.ManifestFile, ".gitignore", ".claude/settings.json", ".codex/hooks.json", ".gemini/settings.json", ".opencode/plugins/hookwarden.js":
		return true
	}
	return strings.HasPrefix(p, ".hookwarden/") && !strings.HasPrefix(p, adopt.BackupDir) || strings.HasPrefix(p, ".agents/plugins/hookwarden/")
}

// TestFleetCommit adopts a fleet of 50 repositories with --commit (issue
// 22): the clean ones get exactly one commit on the new branch, based on
// their current branch's commit, holding only our files and a message that
// lists them, and a pull-request command; dirty ones (a modified, a staged,
// an untracked file), detached HEADs, an unborn branch and one that has the
// branch already are skipped with the reason; an adopted one is unchanged;
// in none does the work tree, the index, HEAD or the worktree list change,
// no repository hook runs, no temporary is left and nothing is pushed.
func TestFleetCommit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	hermeticGit(t)
	tmpdir := t.TempDir()
	t.Setenv("TMPDIR", tmpdir)
	base := t.TempDir()
	marker := filepath.Join(t.TempDir(), "hook-ran")
	hook := "#!/bin/sh\necho \"$0\" >> " + marker + "\nexit 1\n"
	remote := filepath.Join(t.TempDir(), "remote.git")
	gitT(t, ".", "init", "-q", "--bare", remote)

	type kind int
	const (
		clean kind = iota
		dirtyModified
		dirtyStaged
		dirtyUntracked
		detached
		unborn
		branchExists
		governed
	)
	kinds := make([]kind, 50)
	for i := 40; i < 50; i++ {
		kinds[i] = []kind{dirtyModified, dirtyStaged, dirtyUntracked, dirtyUntracked, detached, detached, detached, unborn, branchExists, governed}[i-40]
	}
	const branch = "hookwarden/adopt"
	var paths []string
	before := map[string]map[string]string{}
	existing := ""
	for i, k := range kinds {
		dir := filepath.Join(base, fmt.Sprintf("repo%02d", i))
		paths = append(paths, dir)
		files := map[string]string{"README.md": fmt.Sprintf("repository %d\n", i), "bin/run": "#!/bin/sh\n"}
		if i%5 == 0 {
			// An operator's Claude file: merged, every byte of it kept.
			files[".claude/settings.json"] = "{\n  \"model\": \"x\",\n  \"permissions\": {\"allow\": [\"Bash(ls)\"]}\n}\n"
		}
		if i == 7 {
			// The repository ignores .opencode/: the plugin is not committed.
			files[".gitignore"] = ".opencode/\n"
		}
		if k == unborn {
			files = nil
		}
		newRepo(t, dir, files)
		if i == 3 {
			gitT(t, dir, "remote", "add", "upstream", remote)
			gitT(t, dir, "config", "branch.main.remote", "upstream")
			gitT(t, dir, "config", "branch.main.merge", "refs/heads/trunk")
		}
		switch k {
		case dirtyModified:
			os.WriteFile(filepath.Join(dir, "README.md"), []byte("edited\n"), 0o644)
		case dirtyStaged:
			os.WriteFile(filepath.Join(dir, "new.txt"), []byte("staged\n"), 0o644)
			gitT(t, dir, "add", "new.txt")
		case dirtyUntracked:
			// One untracked file where adopt would write: the branch's
			// checkout would trip over it.
			p := filepath.Join(dir, "notes.txt")
			if i == 43 {
				p = filepath.Join(dir, ".claude", "settings.json")
			}
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte("{}\n"), 0o644)
		case detached:
			gitT(t, dir, "checkout", "-q", "--detach")
		case branchExists:
			gitT(t, dir, "branch", branch)
			existing = gitT(t, dir, "rev-parse", branch)
		case governed:
			if _, err := adopt.Adopt(context.Background(), []string{dir}, adopt.Options{Jobs: 1}); err != nil {
				t.Fatal(err)
			}
			gitT(t, dir, "add", "-A")
			gitT(t, dir, "commit", "-q", "-m", "adopted")
		}
		if i%6 == 0 {
			// Hooks that would fail the commit and leave a trace: they must
			// not run.
			for _, h := range []string{"pre-commit", "commit-msg", "post-checkout", "post-commit", "prepare-commit-msg", "reference-transaction"} {
				if err := os.WriteFile(filepath.Join(dir, ".git", "hooks", h), []byte(hook), 0o755); err != nil {
					t.Fatal(err)
				}
			}
		}
		before[dir] = snapshotExcept(t, dir, branch)
	}

	rep, err := Run(context.Background(), "adopt", paths, Options{Branch: branch, Jobs: 4})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary != (Summary{Repositories: 50, Committed: 40, Unchanged: 1, Skipped: 9}) {
		t.Fatalf("summary %+v, want 40 committed, 1 unchanged, 9 skipped", rep.Summary)
	}
	for i, res := range rep.Repositories {
		dir := paths[i]
		if res.Path != dir {
			t.Fatalf("result %d is for %s, want %s", i, res.Path, dir)
		}
		if diff := cmp.Diff(before[dir], snapshotExcept(t, dir, branch)); diff != "" {
			t.Errorf("%s (%s): the run changed the repository (-before +after):\n%s", dir, res.Status, diff)
		}
		want := map[kind]string{dirtyModified: "uncommitted changes", dirtyStaged: "uncommitted changes", dirtyUntracked: "uncommitted changes",
			detached: "HEAD is detached", unborn: "no commit yet", branchExists: "already exists"}[kinds[i]]
		if want != "" {
			if res.Status != StatusSkipped || !strings.Contains(res.Reason, want) {
				t.Errorf("%s: %s %q, want skipped: %s", dir, res.Status, res.Reason, want)
			}
			got, _ := gitOut(dir, "rev-parse", "-q", "--verify", "refs/heads/"+branch)
			if kinds[i] == branchExists && got != existing || kinds[i] != branchExists && got != "" {
				t.Errorf("%s: branch %s is %q after a skip", dir, branch, got)
			}
			continue
		}
		if kinds[i] == governed {
			if res.Status != StatusUnchanged {
				t.Errorf("%s: adopted and committed before: %s %q, want unchanged", dir, res.Status, res.Reason)
			}
			if _, err := gitOut(dir, "rev-parse", "-q", "--verify", "refs/heads/"+branch); err == nil {
				t.Errorf("%s: unchanged, yet branch %s exists", dir, branch)
			}
			continue
		}
		if res.Status != StatusCommitted {
			t.Errorf("%s: %s %q, want committed", dir, res.Status, res.Reason)
			continue
		}
		head := strings.Fields(before[dir]["HEAD"])[1]
		if got := gitT(t, dir, "rev-parse", branch); got != res.Commit {
			t.Errorf("%s: branch at %s, report says %s", dir, got, res.Commit)
		}
		if parents := gitT(t, dir, "rev-list", "--parents", "-n", "1", branch); parents != res.Commit+" "+head {
			t.Errorf("%s: commit and parents %q, want one commit on %s", dir, parents, head)
		}
		files := strings.Split(gitT(t, dir, "diff-tree", "--no-commit-id", "--name-only", "-r", branch), "\n")
		var reported []string
		for _, f := range res.Report.Files {
			if f.Action == adopt.ActionCreated || f.Action == adopt.ActionMerged || f.Action == adopt.ActionUpdated {
				if i == 7 && strings.HasPrefix(f.Path, ".opencode/") {
					continue
				}
				reported = append(reported, f.Path)
			}
		}
		sort.Strings(reported)
		if !slices.Equal(files, reported) {
			t.Errorf("%s: commit holds %v, report's changed files %v", dir, files, reported)
		}
		msg := gitT(t, dir, "log", "-1", "--format=%B", branch)
		for _, f := range files {
			if !ourPath(f) {
				t.Errorf("%s: commit holds %s, not a file of ours", dir, f)
			}
			if !strings.Contains(msg, " "+f) {
				t.Errorf("%s: commit message does not list %s:\n%s", dir, f, msg)
			}
		}
		if !strings.HasPrefix(msg, "hookwarden adopt: ") {
			t.Errorf("%s: commit subject: %q", dir, msg)
		}
		if i%5 == 0 {
			got := gitT(t, dir, "show", branch+":.claude/settings.json")
			if !strings.HasPrefix(got, "{\n  \"model\": \"x\",\n  \"permissions\": {\"allow\": [\"Bash(ls)\"]}") || !strings.Contains(got, "hook") {
				t.Errorf("%s: the operator's Claude file on the branch is not theirs plus our rows:\n%s", dir, got)
			}
		}
		if i == 7 {
			if !slices.ContainsFunc(res.Report.Warnings, func(w string) bool { return strings.Contains(w, ".opencode/plugins/hookwarden.js not committed") }) {
				t.Errorf("%s: no warning that the ignored plugin is not committed: %v", dir, res.Report.Warnings)
			}
		}
		wantPR := "git -C " + dir + " push -u origin " + branch + " && (cd " + dir + " && gh pr create --base main --head " + branch + " --fill)"
		if i == 3 {
			wantPR = "git -C " + dir + " push -u upstream " + branch + " && (cd " + dir + " && gh pr create --base trunk --head " + branch + " --fill)"
		}
		if i != 3 && !strings.HasPrefix(res.PullRequest, "no git remote: ") || i == 3 && res.PullRequest != wantPR {
			t.Errorf("%s: pull request command %q (want %q, or the no-remote form)", dir, res.PullRequest, wantPR)
		}
	}
	if data, err := os.ReadFile(marker); err == nil {
		t.Errorf("a repository's git hook ran:\n%s", data)
	}
	if refs := gitT(t, remote, "for-each-ref"); refs != "" {
		t.Errorf("something was pushed to the remote: %s", refs)
	}
	if left, _ := os.ReadDir(tmpdir); len(left) != 0 {
		t.Errorf("temporaries left in TMPDIR: %v", left)
	}
	var text strings.Builder
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{paths[0] + ": committed ", "pull request: no git remote", paths[44] + ": skipped — HEAD is detached", "40 committed, 1 unchanged, 9 skipped, 0 failed"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%.3000s", want, text.String())
		}
	}
}

// TestSameRepositoryTwice: a repository named twice (once through a
// symlink) gets one commit; the second argument is skipped, not failed.
func TestSameRepositoryTwice(t *testing.T) {
	hermeticGit(t)
	dir := filepath.Join(t.TempDir(), "r")
	newRepo(t, dir, map[string]string{"a": "a\n"})
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), "adopt", []string{dir, link}, Options{Branch: "hw", Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := rep.Repositories[0], rep.Repositories[1]; a.Status != StatusCommitted || b.Status != StatusSkipped || !strings.Contains(b.Reason, "the same repository as argument 1") {
		t.Fatalf("first %s %q, second %s %q; want committed, then skipped as the same repository", a.Status, a.Reason, b.Status, b.Reason)
	}
	if n := gitT(t, dir, "rev-list", "--count", "main..hw"); n != "1" {
		t.Fatalf("%s commits on the branch, want 1", n)
	}
}

// TestOtherUsersRepository: as root, a repository owned by another user is
// skipped before git runs in it, and nothing in it changes owner.
func TestOtherUsersRepository(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a repository to another user")
	}
	hermeticGit(t)
	dir := filepath.Join(t.TempDir(), "r")
	newRepo(t, dir, map[string]string{"a": "a\n"})
	const uid = 4242
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			os.Lchown(p, uid, uid)
		}
		return err
	})
	rep, err := Run(context.Background(), "adopt", []string{dir}, Options{Branch: "hw", Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Repositories[0]; r.Status != StatusSkipped || !strings.Contains(r.Reason, "belongs to another user (uid 4242)") {
		t.Fatalf("%s %q, want skipped: belongs to another user", r.Status, r.Reason)
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if fi, _ := d.Info(); fi != nil {
			if u, _ := fileowner.Of(fi); u != uid {
				t.Errorf("%s: owner %d after the run, want %d", p, u, uid)
			}
		}
		return nil
	})
}

// TestAdoptFailureLeavesNothing: when adopt fails inside the temporary
// worktree (a committed .gitignore with a broken hookwarden block), the
// repository is reported failed with adopt's error, no branch is created,
// and the worktree list, the repository and TMPDIR are as before.
func TestAdoptFailureLeavesNothing(t *testing.T) {
	hermeticGit(t)
	tmpdir := t.TempDir()
	t.Setenv("TMPDIR", tmpdir)
	dir := filepath.Join(t.TempDir(), "r")
	newRepo(t, dir, map[string]string{".gitignore": "# END hookwarden\n"})
	snap := snapshot(t, dir)
	rep, err := Run(context.Background(), "adopt", []string{dir}, Options{Branch: "hw", Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Repositories[0]; r.Status != StatusFailed || !strings.HasPrefix(r.Reason, "adopt: ") || !rep.Failed() {
		t.Fatalf("%s %q, want failed with adopt's error", r.Status, r.Reason)
	}
	if diff := cmp.Diff(snap, snapshot(t, dir)); diff != "" {
		t.Errorf("a failed run changed the repository (-before +after):\n%s", diff)
	}
	if left, _ := os.ReadDir(tmpdir); len(left) != 0 {
		t.Errorf("temporaries left in TMPDIR: %v", left)
	}
}

// TestRunUsage: an invalid branch name or a dry run is refused before any
// repository is touched.
func TestRunUsage(t *testing.T) {
	hermeticGit(t)
	dir := filepath.Join(t.TempDir(), "r")
	newRepo(t, dir, map[string]string{"a": "a\n"})
	snap := snapshot(t, dir)
	for _, o := range []Options{{Branch: "a..b"}, {Branch: ""}, {Branch: "-x"}, {Branch: "ok", Run: adopt.Options{DryRun: true}}, {Branch: "ok", Run: adopt.Options{Decline: []string{"nope"}}}} {
		if _, err := Run(context.Background(), "adopt", []string{dir}, o); !errors.Is(err, ErrUsage) {
			t.Errorf("%+v: error %v, want ErrUsage", o, err)
		}
	}
	if diff := cmp.Diff(snap, snapshot(t, dir)); diff != "" {
		t.Errorf("a refused run changed the repository:\n%s", diff)
	}
}

// TestConformCommit: conform --commit on a repository whose committed
// Claude file lost our rows commits the repair on the branch; conform on an
// ungoverned repository is not-governed with no branch.
func TestConformCommit(t *testing.T) {
	hermeticGit(t)
	dir := filepath.Join(t.TempDir(), "r")
	plain := filepath.Join(t.TempDir(), "plain")
	newRepo(t, dir, map[string]string{"a": "a\n"})
	newRepo(t, plain, map[string]string{"a": "a\n"})
	if _, err := adopt.Adopt(context.Background(), []string{dir}, adopt.Options{Jobs: 1}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte("{}\n"), 0o644)
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-q", "-m", "adopted, then Claude's rows dropped")
	rep, err := Run(context.Background(), "conform", []string{dir, plain}, Options{Branch: "hw-conform", Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Repositories[0]; r.Status != StatusCommitted {
		t.Fatalf("drifted repository: %s %q", r.Status, r.Reason)
	}
	if files := gitT(t, dir, "diff-tree", "--no-commit-id", "--name-only", "-r", "hw-conform"); files != ".claude/settings.json" {
		t.Errorf("conform's commit holds %q, want .claude/settings.json only", files)
	}
	if msg := gitT(t, dir, "log", "-1", "--format=%s", "hw-conform"); !strings.HasPrefix(msg, "hookwarden conform: ") {
		t.Errorf("subject %q", msg)
	}
	if r := rep.Repositories[1]; r.Status != StatusNotGoverned {
		t.Errorf("ungoverned repository: %s, want not-governed", r.Status)
	}
	if _, err := gitOut(plain, "rev-parse", "-q", "--verify", "refs/heads/hw-conform"); err == nil {
		t.Error("a branch was created in the ungoverned repository")
	}
}
