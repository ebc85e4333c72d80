package gitdisc

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestConfigValue reads core.hooksPath the way git-config(1) "Syntax"
// spells it.
func TestConfigValue(t *testing.T) {
	for _, tc := range []struct {
		src, want string
		found     bool
	}{
		{"[core]\n\thooksPath = .githooks\n", ".githooks", true},
		{"[Core]\n\tHOOKSPATH=ci/hooks ; comment\n", "ci/hooks", true},
		{"[core]\n\thooksPath = \"a b\" # c\n", "a b", true},
		{"[core]\n\thooksPath = a\n[core]\n\thooksPath = b\n", "b", true},
		{"[core \"x\"]\n\thooksPath = a\n", "", false},
		{"[user]\n\thooksPath = a\n", "", false},
		{"[core] hooksPath = inline\n", "inline", true},
		{"[core]\n\thooksPath = long\\\n-name\n", "long-name", true},
		{"[core]\n\tbare = true\n", "", false},
	} {
		got, found := configValue([]byte(tc.src), "core", "hookspath")
		if got != tc.want || found != tc.found {
			t.Errorf("%q: got %q %v, want %q %v", tc.src, got, found, tc.want, tc.found)
		}
	}
}

// TestHooksDirs: the common directory's hooks, plus core.hooksPath relative
// to the work tree; a linked worktree reads its common directory's config.
func TestHooksDirs(t *testing.T) {
	root := t.TempDir()
	main := filepath.Join(root, "main")
	if err := os.MkdirAll(filepath.Join(main, ".git", "worktrees", "wt"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(main, ".git", "config"), []byte("[core]\n\thooksPath = ci/hooks\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := Repo{WorkTree: main, GitDir: filepath.Join(main, ".git")}
	got, err := HooksDirs(r, "/home/u")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(main, ".git", "hooks"), filepath.Join(main, "ci", "hooks")}; !cmp.Equal(got, want) {
		t.Errorf("main: %q, want %q", got, want)
	}
	wtGit := filepath.Join(main, ".git", "worktrees", "wt")
	if err := os.WriteFile(filepath.Join(wtGit, "commondir"), []byte("../..\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wt := Repo{WorkTree: filepath.Join(root, "wt"), GitDir: wtGit, Linked: true}
	got, err = HooksDirs(wt, "/home/u")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(main, ".git", "hooks"), filepath.Join(root, "wt", "ci", "hooks")}; !cmp.Equal(got, want) {
		t.Errorf("linked worktree: %q, want %q", got, want)
	}
}

func TestConfigSettings(t *testing.T) {
	data := []byte("[alias]\n\tci = commit\n[include]\n\tpath = a.config\n[includeIf \"gitdir:~/w/\"]\n\tpath = \"b.config\"\n[alias \"x\"]\n\tci = no\n[ALIAS]\n\tCI = commit --no-verify # skip\n")
	got := ConfigSettings(data, "alias", "ci")
	want := []ConfigSetting{{Value: "commit"}, {Include: true, Value: "a.config"}, {Include: true, Conditional: true, Value: "b.config"}, {Value: "commit --no-verify"}}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("setting %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}
