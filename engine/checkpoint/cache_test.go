package checkpoint

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// cachedRepo makes a repository with one commit (an hour old) and n
// untracked files, evaluates it once (which stores the cache) and returns
// its directory.
func cachedRepo(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	setupGit(t, dir, time.Time{}, false, "init", "-q", "-b", "main", ".")
	writeFile(t, filepath.Join(dir, "base.txt"), "base\n")
	setupGit(t, dir, time.Time{}, false, "add", "-A")
	setupGit(t, dir, time.Now().Add(-time.Hour), false, "commit", "-q", "-m", "base")
	for i := range n {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("new%02d.txt", i)), "x\n")
	}
	if _, err := Evaluate(context.Background(), dir, DefaultConfig(), false); err != nil {
		t.Fatal(err)
	}
	return dir
}

// noGit empties PATH, so any answer must come from the cache.
func noGit(t *testing.T) { t.Setenv("PATH", t.TempDir()) }

// TestCachedAnswerStartsNoProcess: a fresh cache answers with git gone from
// PATH (no process on the pre-edit and stop path), with the same result.
func TestCachedAnswerStartsNoProcess(t *testing.T) {
	dir := cachedRepo(t, 3)
	cfg := Config{CommitAfterMinutes: 600, CommitAfterFiles: 20}
	want, err := Evaluate(context.Background(), dir, cfg, false)
	if err != nil {
		t.Fatal(err)
	}
	noGit(t)
	got, err := EvaluateCached(context.Background(), filepath.Join(dir), cfg, false)
	if err != nil {
		t.Fatalf("EvaluateCached with a fresh cache ran git: %v", err)
	}
	if fmt.Sprint(got.Files, got.Root, got.HasCommit, got.LastCommit.Unix()) != fmt.Sprint(want.Files, want.Root, want.HasCommit, want.LastCommit.Unix()) {
		t.Fatalf("cached %+v, fresh %+v", got, want)
	}
}

// TestNotedEditCountsAtOnce: the agent's own allowed edits are counted by a
// cached answer, so 19 changes plus one noted edit make the checkpoint due
// without a new scan (a deny is never lost to the cache).
func TestNotedEditCountsAtOnce(t *testing.T) {
	dir := cachedRepo(t, 19)
	cfg := Config{CommitAfterMinutes: 600, CommitAfterFiles: 20}
	noGit(t)
	r, err := EvaluateCached(context.Background(), dir, cfg, false)
	if err != nil || r.Due {
		t.Fatalf("19 files: due=%v err=%v, want not due", r.Due, err)
	}
	NoteEdit(dir, r.Root, "sub/twenty.txt")
	r, err = EvaluateCached(context.Background(), dir, cfg, false)
	if err != nil || !r.Due || !r.InChangeSet("sub/twenty.txt") {
		t.Fatalf("after a noted edit: due=%v inSet=%v err=%v, want due with the file in the change set", r.Due, r.InChangeSet("sub/twenty.txt"), err)
	}
}

// TestCacheKeysInvalidate: staging (the index), a commit (HEAD's ref), a
// branch switch (HEAD) and an older entry each force a fresh status.
func TestCacheKeysInvalidate(t *testing.T) {
	cfg := Config{CommitAfterMinutes: 600, CommitAfterFiles: 20}
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, dir string)
	}{
		{"index", func(t *testing.T, dir string) {
			setupGit(t, dir, time.Time{}, false, "add", "new00.txt")
		}},
		{"commit", func(t *testing.T, dir string) {
			setupGit(t, dir, time.Time{}, false, "add", "-A")
			setupGit(t, dir, time.Time{}, false, "commit", "-q", "-m", "two")
		}},
		{"head", func(t *testing.T, dir string) {
			setupGit(t, dir, time.Time{}, false, "checkout", "-q", "-b", "other")
		}},
		{"age", func(t *testing.T, dir string) { ageEntry(t, dir, MaxCacheAge+time.Second) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := cachedRepo(t, 2)
			tc.change(t, dir)
			path := os.Getenv("PATH")
			noGit(t)
			if _, err := EvaluateCached(context.Background(), dir, cfg, false); err == nil {
				t.Fatal("EvaluateCached answered from the cache after the change")
			}
			t.Setenv("PATH", path)
			if _, err := EvaluateCached(context.Background(), dir, cfg, false); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestCacheIgnoredInsideGitDir: a cwd inside the git directory is left to
// git (not a work tree), never answered from the cache.
func TestCacheIgnoredInsideGitDir(t *testing.T) {
	dir := cachedRepo(t, 1)
	_, err := EvaluateCached(context.Background(), filepath.Join(dir, ".git"), DefaultConfig(), false)
	if err == nil {
		t.Fatal("EvaluateCached inside .git answered")
	}
}

// ageEntry rewrites dir's stored entry as if its scan had started d ago.
func ageEntry(t *testing.T, dir string, d time.Duration) {
	t.Helper()
	e := readEntry(t, dir)
	e.ScanStart = time.Now().Add(-d).UnixNano()
	data, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, ".git", "hookwarden", "checkpoint.json"), string(data))
}

// readEntry returns dir's stored entry.
func readEntry(t *testing.T, dir string) cacheEntry {
	t.Helper()
	var e cacheEntry
	data, err := os.ReadFile(filepath.Join(dir, ".git", "hookwarden", "checkpoint.json"))
	if err == nil {
		err = json.Unmarshal(data, &e)
	}
	if err != nil {
		t.Fatal(err)
	}
	return e
}
