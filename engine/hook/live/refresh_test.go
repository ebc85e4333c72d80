package live

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hookwarden/hookwarden/engine/checkpoint"
	"github.com/hookwarden/hookwarden/internal/testbin"
)

// TestPreEditRenewsAgingCheckpoint runs the built binary as Claude runs its
// pre-edit row: a call answered from a checkpoint entry older than
// checkpoint.RefreshAge is allowed at once and leaves a refresh running in
// the background, which stores a new entry (holding a file made after the
// old scan) and removes its lock, so the next edit finds a fresh entry
// instead of scanning inside the call.
func TestPreEditRenewsAgingCheckpoint(t *testing.T) {
	hw := testbin.Hookwarden(t)
	repo, _ := governedRepo(t)
	home := filepath.Join(filepath.Dir(repo), "home")
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM=1",
		"PATH=" + os.Getenv("PATH"), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "base"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = repo, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	payload, err := json.Marshal(map[string]any{
		"session_id": "s", "transcript_path": filepath.Join(home, "t.jsonl"), "cwd": repo,
		"hook_event_name": "PreToolUse", "tool_name": "Write",
		"tool_input": map[string]any{"file_path": filepath.Join(repo, "a.txt"), "content": "x\n"},
	})
	if err != nil {
		t.Fatal(err)
	}
	preEdit := func() {
		t.Helper()
		cmd := exec.Command(hw, "hook", "claude", "pre-edit")
		cmd.Dir, cmd.Env, cmd.Stdin = repo, env, bytes.NewReader(payload)
		out, err := cmd.CombinedOutput()
		if code := testbin.ExitCode(t, err); code != 0 {
			t.Fatalf("pre-edit exit %d: %s", code, out)
		}
	}
	entryPath := filepath.Join(repo, ".git", "hookwarden", "checkpoint.json")
	entry := func() (e struct {
		ScanStart int64    `json:"scan_start_ns"`
		Files     []string `json:"files"`
	}) {
		t.Helper()
		data, err := os.ReadFile(entryPath)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &e); err != nil {
			t.Fatal(err)
		}
		return e
	}

	preEdit() // no entry yet: scans inside the call and stores one
	var raw map[string]any
	data, err := os.ReadFile(entryPath)
	if err == nil {
		err = json.Unmarshal(data, &raw)
	}
	if err != nil {
		t.Fatalf("the first pre-edit stored no checkpoint entry: %v", err)
	}
	aged := time.Now().Add(-checkpoint.RefreshAge - time.Second).UnixNano()
	raw["scan_start_ns"] = aged
	if data, err = json.Marshal(raw); err == nil {
		err = os.WriteFile(entryPath, data, 0o600)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "later.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	preEdit() // answered from the aging entry; starts the refresh
	deadline := time.Now().Add(30 * time.Second)
	for {
		e := entry()
		_, lockErr := os.Stat(filepath.Join(repo, ".git", "hookwarden", "refresh.lock"))
		if e.ScanStart > aged && slices.Contains(e.Files, "later.txt") && os.IsNotExist(lockErr) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no background refresh within 30 s: entry scanned at %d (aged %d) holds %q; lock: %v", e.ScanStart, aged, e.Files, lockErr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
