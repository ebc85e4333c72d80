package gitdisc

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// layout builds a tree under root: entries ending in "/" are directories,
// others are files with the given content.
func layout(t *testing.T, root string, entries map[string]string) {
	t.Helper()
	for p, content := range entries {
		full := filepath.Join(root, p)
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// notExistText is a part of this platform's error for a missing start
// directory: ENOENT's text on Unix; on Windows the message differs between
// releases (and wine), so the call that failed is matched instead.
var notExistText = map[bool]string{false: "no such file", true: "GetFileAttributesEx"}[runtime.GOOS == "windows"]

func TestFind(t *testing.T) {
	cases := []struct {
		name      string
		entries   map[string]string
		start     string
		wantFound bool
		wantTree  string
		wantGit   string
		wantErr   string
	}{
		{name: "clone root", entries: map[string]string{"r/.git/": ""}, start: "r", wantFound: true, wantTree: "r", wantGit: "r/.git"},
		{name: "deep subdirectory", entries: map[string]string{"r/.git/": "", "r/a/b/c/": ""}, start: "r/a/b/c", wantFound: true, wantTree: "r", wantGit: "r/.git"},
		{name: "nearest wins", entries: map[string]string{"r/.git/": "", "r/inner/.git/": "", "r/inner/x/": ""}, start: "r/inner/x", wantFound: true, wantTree: "r/inner", wantGit: "r/inner/.git"},
		{name: "worktree relative gitdir", entries: map[string]string{"main/.git/worktrees/wt/": "", "wt/.git": "gitdir: ../main/.git/worktrees/wt\n", "wt/src/": ""}, start: "wt/src", wantFound: true, wantTree: "wt", wantGit: "main/.git/worktrees/wt"},
		{name: "submodule gitdir with CRLF", entries: map[string]string{"sup/.git/modules/sub/": "", "sup/sub/.git": "gitdir: ../.git/modules/sub\r\n"}, start: "sup/sub", wantFound: true, wantTree: "sup/sub", wantGit: "sup/.git/modules/sub"},
		{name: "no repository", entries: map[string]string{"plain/a/": ""}, start: "plain/a", wantFound: false},
		{name: "gitdir file without prefix", entries: map[string]string{"r/.git": "hello\n"}, start: "r", wantErr: "no \"gitdir:\" line"},
		{name: "gitdir points nowhere", entries: map[string]string{"r/.git": "gitdir: /nonexistent/hookwarden/x\n"}, start: "r", wantErr: filepath.FromSlash("nonexistent/hookwarden/x")},
		{name: "gitdir empty", entries: map[string]string{"r/.git": "gitdir: \n"}, start: "r", wantErr: "empty gitdir"},
		{name: "gitdir file too large", entries: map[string]string{"r/.git": "gitdir: " + strings.Repeat("x", 5000)}, start: "r", wantErr: "larger than 4096"},
		{name: "start missing", entries: map[string]string{"r/.git/": ""}, start: "r/missing", wantErr: notExistText},
		{name: "start is a file", entries: map[string]string{"r/.git/": "", "r/f": "x"}, start: "r/f", wantErr: "not a directory"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			layout(t, root, tc.entries)
			// A stray inherited GIT_DIR must not change the answer.
			t.Setenv("GIT_DIR", filepath.Join(root, "elsewhere"))
			t.Setenv("GIT_WORK_TREE", root)
			repo, found, err := Find(filepath.Join(root, tc.start))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if found != tc.wantFound {
				t.Fatalf("found = %v, want %v", found, tc.wantFound)
			}
			if !found {
				return
			}
			if want := filepath.Join(root, tc.wantTree); repo.WorkTree != want {
				t.Errorf("WorkTree = %s, want %s", repo.WorkTree, want)
			}
			if want := filepath.Join(root, tc.wantGit); repo.GitDir != want {
				t.Errorf("GitDir = %s, want %s", repo.GitDir, want)
			}
		})
	}
}

func TestFindRelativeStartRefused(t *testing.T) {
	if _, _, err := Find("relative/dir"); err == nil {
		t.Fatal("relative start accepted")
	}
}
