package workspace

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hookwarden/hookwarden/internal/posixtest"
	"github.com/hookwarden/hookwarden/policy"
)

func mkRepo(t *testing.T, dir string, governed bool) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if governed {
		if err := os.WriteFile(filepath.Join(dir, ".hookwarden.yaml"), []byte("version: 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLocate(t *testing.T) {
	root := t.TempDir()
	gov := filepath.Join(root, "gov")
	plain := filepath.Join(root, "plain")
	other := filepath.Join(root, "other")
	mkRepo(t, gov, true)
	mkRepo(t, plain, false)
	mkRepo(t, other, true)
	if err := os.MkdirAll(filepath.Join(gov, "src", "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	nowhere := filepath.Join(root, "nowhere")
	if err := os.MkdirAll(nowhere, 0o755); err != nil {
		t.Fatal(err)
	}
	// A command text names paths with forward slashes, as a Windows user's
	// Git Bash command does (backslashes are escapes to the shell).
	sh := filepath.ToSlash
	cases := []struct {
		name       string
		candidates []string
		command    string
		wantBase   string
		wantRoots  []string
		wantGov    bool
	}{
		{"inside governed subdir", []string{filepath.Join(gov, "src", "pkg")}, "git commit -n", gov, []string{gov}, true},
		{"ungoverned repo", []string{plain}, "git commit -n", plain, nil, false},
		{"no repository", []string{nowhere}, "ls", "", nil, false},
		{"ungoverned cwd targets governed repo", []string{plain}, "git -C " + sh(gov) + " commit -n", plain, []string{gov}, false},
		{"cd into a not-yet-existing subdir of a governed repo", []string{nowhere}, "mkdir -p " + sh(gov) + "/new && cd " + sh(gov) + "/new && git commit -n", "", []string{gov}, false},
		{"governed cwd plus another governed target", []string{gov}, "cd " + sh(other) + " && git commit -n", gov, []string{gov, other}, true},
		{"agy: first governed workspace wins", []string{nowhere, plain, gov, other}, "ls", gov, []string{gov}, true},
		{"agy: none governed, first is base", []string{plain, nowhere}, "ls", plain, nil, false},
		{"agy: an earlier entry that does not exist does not hide the governed one", []string{filepath.Join(root, "gone"), gov}, "ls", gov, []string{gov}, true},
		{"agy: a missing first entry, none governed: the first existing one is the base", []string{filepath.Join(root, "gone"), plain}, "ls", plain, nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Locate(tc.candidates, commandOf(tc.command), "")
			if err != nil {
				t.Fatal(err)
			}
			if got.Base.RepoRoot != tc.wantBase || got.Base.Governed != tc.wantGov {
				t.Errorf("base = %+v, want repo %q governed %v", got.Base, tc.wantBase, tc.wantGov)
			}
			if d := cmp.Diff(tc.wantRoots, got.Roots); d != "" {
				t.Errorf("roots (-want +got):\n%s", d)
			}
		})
	}
}

// notExistText is a part of this platform's error for a missing
// directory: ENOENT's text on Unix; on Windows the message differs between
// releases (and wine), so the call that failed is matched instead.
var notExistText = map[bool]string{false: "no such file", true: "GetFileAttributesEx"}[runtime.GOOS == "windows"]

func TestLocateErrors(t *testing.T) {
	root := t.TempDir()
	brokenWT := filepath.Join(root, "wt")
	if err := os.MkdirAll(brokenWT, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(brokenWT, ".git"), []byte("gitdir: /nonexistent/x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name       string
		candidates []string
		command    string
		want       string
	}{
		{"no candidates", nil, "", "no working directory"},
		{"cwd missing", []string{filepath.Join(root, "missing")}, "", notExistText},
		{"every agy entry missing", []string{filepath.Join(root, "missing"), filepath.Join(root, "gone")}, "", notExistText},
		{"relative cwd", []string{"rel"}, "", "not absolute"},
		{"broken worktree file", []string{brokenWT}, "", filepath.FromSlash("nonexistent/x")},
		{"target with broken worktree file", []string{root}, "git -C " + filepath.ToSlash(brokenWT) + " commit", "a directory the command targets could not be inspected"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Locate(tc.candidates, commandOf(tc.command), "")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want containing %q", err, tc.want)
			}
		})
	}
}

// commandOf is the policy.Command of a case's command text (nil for none,
// a call without a command).
func commandOf(text string) *policy.Command {
	if text == "" {
		return nil
	}
	return policy.NewCommand(text)
}

// TestGovernedChildren: the governed repositories that are entries of a
// directory (a folder of repositories), a symbolic link to one included;
// an ungoverned repository, a plain directory and a file are not.
func TestGovernedChildren(t *testing.T) {
	posixtest.SkipOnWindows(t, "makes a symbolic link")
	dir := t.TempDir()
	mkRepo(t, filepath.Join(dir, "gov"), true)
	mkRepo(t, filepath.Join(dir, "free"), false)
	if err := os.Mkdir(filepath.Join(dir, "plain"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "gov"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	got, err := GovernedChildren(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, "gov"), filepath.Join(dir, "link")}; !slices.Equal(sorted(got), want) {
		t.Errorf("GovernedChildren = %v, want %v", got, want)
	}
	for _, d := range []string{filepath.Join(dir, "plain"), filepath.Join(dir, "missing"), filepath.Join(dir, "notes.txt")} {
		if got, err := GovernedChildren(d); err != nil || len(got) != 0 {
			t.Errorf("GovernedChildren(%s) = %v, %v; want none", d, got, err)
		}
	}
}

func sorted(l []string) []string {
	l = slices.Clone(l)
	slices.Sort(l)
	return l
}

// TestLocateBrokenManifest: a `.hookwarden.yaml` that is a directory or a
// symbolic link leading nowhere marks its repository governed
// (governed.Manifest), for the base and for a folder's entry alike: the
// hook then reads it as a settings layer, which fails and refuses the call
// (engine/hook/live testdata/nested.json, layout broken-manifest), where
// "ungoverned" would have let every call through unjudged.
func TestLocateBrokenManifest(t *testing.T) {
	root := t.TempDir()
	dirMarker := filepath.Join(root, "dir")
	mkRepo(t, dirMarker, false)
	if err := os.Mkdir(filepath.Join(dirMarker, ".hookwarden.yaml"), 0o755); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(root, "dangling")
	mkRepo(t, dangling, false)
	posixtest.Symlink(t, filepath.Join(root, "nowhere.yaml"), filepath.Join(dangling, ".hookwarden.yaml"))
	for _, repo := range []string{dirMarker, dangling} {
		got, err := Locate([]string{repo}, commandOf("ls"), "")
		if err != nil || !got.Base.Governed || !slices.Equal(got.Roots, []string{repo}) {
			t.Errorf("Locate(%s) = %+v, %v; want governed, roots [%s]", repo, got, err, repo)
		}
	}
	folder, err := Locate([]string{root}, commandOf("ls"), "")
	if err != nil || !slices.Equal(sorted(folder.Holds), []string{dangling, dirMarker}) {
		t.Errorf("Locate(folder) = %+v, %v; want holds both repositories", folder, err)
	}
}
