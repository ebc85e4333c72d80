package live

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/engine/hook"
	"github.com/hookwarden/hookwarden/internal/posixtest"
	"github.com/hookwarden/hookwarden/protocol/verdict"
)

// nestedCase is one entry of testdata/nested.json (its note is the schema).
type nestedCase struct {
	Name    string `json:"name"`
	Layout  string `json:"layout"`
	Command string `json:"command"`
	Tool    string `json:"tool"`
	Path    string `json:"path"`
	Content string `json:"content"`
	Expect  string `json:"expect"`
	Rule    string `json:"rule"`
	// RepoDeny are operator deny patterns written into the governed
	// repository's .hookwarden.yaml (policy.deny).
	RepoDeny []string `json:"repo_deny"`
}

// nestedLayout builds the case's layout around a fresh governed repository
// (a real git repository, made with git init, so a nested `git init` and a
// submodule's .git file are what git itself writes) and returns the repo,
// the outside directory and the call's cwd.
func nestedLayout(t *testing.T, layout string) (repo, out, cwd string) {
	t.Helper()
	repo, _ = governedRepo(t)
	out = filepath.Join(filepath.Dir(repo), "out")
	if err := os.RemoveAll(filepath.Join(repo, ".git")); err != nil {
		t.Fatal(err)
	}
	git := func(dir string, args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, b)
		}
	}
	for _, d := range []string{out, filepath.Join(repo, ".claude")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	git(repo, "init", "-q")
	switch layout {
	case "governed":
		return repo, out, repo
	case "history":
		historyLayout(t, repo, git)
		return repo, out, repo
	case "adopting":
		// A repository with a history, adopted a moment ago: a commit of
		// src/a.go on main, a branch old at it, and the guard's files
		// untracked, as adopt leaves them.
		if err := os.MkdirAll(filepath.Join(repo, "src"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, "src", "a.go"), []byte("package a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		git(repo, "add", "src/a.go")
		git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "before adoption")
		git(repo, "checkout", "-q", "-B", "main")
		git(repo, "branch", "old")
		return repo, out, repo
	case "dirty":
		// history, then a change to the tracked .claude/settings.json
		// left uncommitted (adopt's rows merged into a committed file)
		historyLayout(t, repo, git)
		if err := os.WriteFile(filepath.Join(repo, ".claude", "settings.json"), []byte("{\"hooks\": {}}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return repo, out, repo
	case "outside":
		return repo, out, out
	case "parent":
		// The folder that holds the repository, in no repository itself:
		// an agent started in a folder of repositories.
		return repo, out, filepath.Dir(repo)
	case "deep", "deep-out-link":
		// The parent layout with a second governed repository three levels
		// down a sibling folder (ws/team/proj, as ~/src/github.com/org/repo
		// lies below ~/src): a .git made by git init and a manifest.
		deep := filepath.Join(filepath.Dir(repo), "ws", "team", "proj")
		if err := os.MkdirAll(deep, 0o755); err != nil {
			t.Fatal(err)
		}
		git(deep, "init", "-q")
		if err := os.WriteFile(filepath.Join(deep, ".hookwarden.yaml"), []byte("version: 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if layout == "deep-out-link" {
			// $OUT/l: a symbolic link to ws/team, the folder holding the
			// second governed repository (chmod -R -L follows it).
			posixtest.Symlink(t, filepath.Dir(deep), filepath.Join(out, "l"))
		}
		return repo, out, filepath.Dir(repo)
	case "parent-node-modules":
		// The parent layout with $OUT/node_modules holding 16400 entries,
		// more than the holder search's budget (policy/holders.go).
		nm := filepath.Join(out, "node_modules")
		if err := os.MkdirAll(nm, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range 16400 {
			f, err := os.Create(filepath.Join(nm, fmt.Sprintf("p%d", i)))
			if err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
		return repo, out, filepath.Dir(repo)
	case "folder-deep", "repo-deep":
		// $OUT holds a governed repository three levels down (ws/team/proj)
		// and none among its own entries; repo-deep: $OUT is an ungoverned
		// repository of its own (the governed one untracked in it).
		deep := filepath.Join(out, "ws", "team", "proj")
		if err := os.MkdirAll(deep, 0o755); err != nil {
			t.Fatal(err)
		}
		git(deep, "init", "-q")
		if err := os.WriteFile(filepath.Join(deep, ".hookwarden.yaml"), []byte("version: 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if layout == "repo-deep" {
			git(out, "init", "-q")
		}
		return repo, out, out
	case "linked", "linked-cwd":
		// An ungoverned repository beside the governed one holding l, a
		// symbolic link to the governed repository's src: the kernel (and
		// git) take l/.. to the governed root, a lexical reading to out.
		// linked-cwd: the call's cwd is out/l itself (a client that
		// reports a logical directory).
		if err := os.MkdirAll(filepath.Join(repo, "src"), 0o755); err != nil {
			t.Fatal(err)
		}
		git(out, "init", "-q")
		posixtest.Symlink(t, filepath.Join(repo, "src"), filepath.Join(out, "l"))
		if layout == "linked-cwd" {
			return repo, out, filepath.Join(out, "l")
		}
		return repo, out, out
	case "deep-linked":
		// The governed repository holds vend/l, a symbolic link to src of
		// a second governed repository (ws/team/proj, as in deep):
		// vend/l/.. is that repository's root.
		deep := filepath.Join(filepath.Dir(repo), "ws", "team", "proj")
		if err := os.MkdirAll(filepath.Join(deep, "src"), 0o755); err != nil {
			t.Fatal(err)
		}
		git(deep, "init", "-q")
		if err := os.WriteFile(filepath.Join(deep, ".hookwarden.yaml"), []byte("version: 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(repo, "vend"), 0o755); err != nil {
			t.Fatal(err)
		}
		posixtest.Symlink(t, filepath.Join(deep, "src"), filepath.Join(repo, "vend", "l"))
		// list: a list of names beside the link's target (naming the
		// manifest) and, as decoy, beside the link (naming README.md).
		for p, body := range map[string]string{filepath.Join(deep, "list"): ".hookwarden.yaml\n", filepath.Join(repo, "vend", "list"): "README.md\n"} {
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return repo, out, repo
	case "nested":
		cwd = filepath.Join(repo, "x")
		if err := os.MkdirAll(cwd, 0o755); err != nil {
			t.Fatal(err)
		}
		git(cwd, "init", "-q")
		return repo, out, cwd
	case "broken-manifest":
		// The repository's manifest is a symbolic link that leads nowhere:
		// governed (settings/governed), and unreadable as a settings layer.
		link(t, filepath.Join(repo, ".hookwarden.yaml"))
		return repo, out, repo
	case "broken-child", "broken-outside":
		// A repository whose manifest is a symbolic link that leads
		// nowhere, and one whose manifest is a directory, inside the
		// governed repository or in the outside folder.
		at := map[string]string{"broken-child": repo, "broken-outside": out}[layout]
		for _, name := range []string{"vendored", "dirmark"} {
			if err := os.MkdirAll(filepath.Join(at, name), 0o755); err != nil {
				t.Fatal(err)
			}
			git(filepath.Join(at, name), "init", "-q")
		}
		link(t, filepath.Join(at, "vendored", ".hookwarden.yaml"))
		if err := os.Mkdir(filepath.Join(at, "dirmark", ".hookwarden.yaml"), 0o755); err != nil {
			t.Fatal(err)
		}
		return repo, out, at
	case "locked-holder":
		// The parent layout with ws/team/proj governed beside $REPO and
		// ws/team without read permission (0311): its entries cannot be
		// listed, though mv ws or chmod ws still reach proj.
		deep := filepath.Join(filepath.Dir(repo), "ws", "team", "proj")
		if err := os.MkdirAll(deep, 0o755); err != nil {
			t.Fatal(err)
		}
		git(deep, "init", "-q")
		if err := os.WriteFile(filepath.Join(deep, ".hookwarden.yaml"), []byte("version: 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		team := filepath.Dir(deep)
		if err := os.Chmod(team, 0o311); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(team, 0o755) })
		return repo, out, filepath.Dir(repo)
	case "locked", "locked-outside":
		// A directory without any permission (chmod 000) inside the
		// governed repository or in the outside folder: whether it holds
		// a governed repository cannot be inspected.
		at := map[string]string{"locked": repo, "locked-outside": out}[layout]
		locked := filepath.Join(at, "locked")
		if err := os.MkdirAll(filepath.Join(locked, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(locked, 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(locked, 0o755) })
		return repo, out, at
	case "submodule":
		// What `git submodule add` leaves in the work tree: a .git file
		// naming the module's git directory inside the superproject's.
		cwd = filepath.Join(repo, "sub")
		mod := filepath.Join(repo, ".git", "modules", "sub")
		for _, d := range []string{cwd, filepath.Dir(mod)} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		git(filepath.Dir(mod), "init", "-q", "--bare", "sub")
		if err := os.WriteFile(filepath.Join(cwd, ".git"), []byte("gitdir: ../.git/modules/sub\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return repo, out, cwd
	}
	t.Fatalf("layout %q", layout)
	return "", "", ""
}

// link makes p a symbolic link to a file that does not exist (the case is
// skipped where this system makes none).
func link(t *testing.T, p string) {
	t.Helper()
	if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	posixtest.Symlink(t, filepath.Join(filepath.Dir(p), "missing.yaml"), p)
}

// historyLayout commits the governed repository's history: src/a.go on
// branch old (before adoption), then the manifest and .claude/settings.json
// on main (branch same at that commit), and branch nogov whose last commit
// removes the manifest; main is checked out, its work tree clean.
func historyLayout(t *testing.T, repo string, git func(dir string, args ...string)) {
	t.Helper()
	for name, body := range map[string]string{"src/a.go": "package a\n", ".claude/settings.json": "{}\n"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(repo, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	id := []string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}
	git(repo, "add", "src/a.go")
	git(repo, append(id, "commit", "-q", "-m", "before adoption")...)
	git(repo, "checkout", "-q", "-B", "main")
	git(repo, "branch", "old")
	git(repo, "add", "-A")
	git(repo, append(id, "commit", "-q", "-m", "adopt hookwarden")...)
	git(repo, "branch", "same")
	git(repo, "checkout", "-q", "-b", "nogov")
	git(repo, "rm", "-q", ".hookwarden.yaml")
	git(repo, append(id, "commit", "-q", "-m", "drop the manifest")...)
	git(repo, "checkout", "-q", "main")
}

// TestNestedThroughHook replays testdata/nested.json through hook.Run: a
// nested repository, a submodule or a directory outside every repository
// does not take a call out of the governed tree it reaches (issue 29 item
// 1), in every client dialect.
func TestNestedThroughHook(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("HOOKWARDEN_E2E") == "require" {
			t.Fatal("git is required")
		}
		t.Skip("git not on PATH: the layouts are made with git init")
	}
	data, err := os.ReadFile("testdata/nested.json")
	if err != nil {
		t.Fatal(err)
	}
	var corpus struct {
		Cases []nestedCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &corpus); err != nil {
		t.Fatal(err)
	}
	deps, err := Deps()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range corpus.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			if strings.HasPrefix(tc.Layout, "locked") && (runtime.GOOS == "windows" || os.Geteuid() == 0) {
				t.Skip("skipped: a chmod 000 directory stops only an unprivileged user on a POSIX system (this run is root, or Windows)")
			}
			repo, out, cwd := nestedLayout(t, tc.Layout)
			if len(tc.RepoDeny) > 0 {
				plantDeny(t, repo, tc.RepoDeny)
			}
			_, lookup := governedRepo(t)
			sub := strings.NewReplacer("$REPO", repo, "$OUT", out).Replace
			clients, event := acceptanceClients, "pre-tool"
			if tc.Tool != "" {
				clients, event = []string{"claude", "gemini"}, "pre-edit"
			}
			for _, client := range clients {
				var payload []byte
				if tc.Tool == "" {
					payload = payloadFor(t, client, sub(tc.Command), cwd)
				} else {
					content := tc.Content
					payload = preEditPayload(t, client, cwd, preEditCase{Tool: tc.Tool, Path: tc.Path, Content: &content}, sub, func(s string) string { return s })
				}
				resp := hook.Run(context.Background(), deps, hook.Request{Client: client, Event: event,
					Stdin: bytes.NewReader(payload), LookupEnv: lookup})
				v := resp.Verdict
				want := map[string]verdict.Kind{"allow": verdict.Allow, "deny": verdict.Deny, "skip": verdict.Skip}[tc.Expect]
				if v.Kind != want || (want == verdict.Deny && v.RuleID != tc.Rule) {
					t.Errorf("%s: got %v %s, want %s %s: %s", client, v.Kind, v.RuleID, tc.Expect, tc.Rule, v.Reason)
				}
			}
		})
	}
}

// plantDeny writes patterns as the policy.deny list of repo's manifest (the
// one governedRepo writes, whose list is empty).
func plantDeny(t *testing.T, repo string, patterns []string) {
	t.Helper()
	p := filepath.Join(repo, ".hookwarden.yaml")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	list, err := json.Marshal(patterns) // a JSON list is a YAML flow sequence
	if err != nil {
		t.Fatal(err)
	}
	after := bytes.Replace(b, []byte("  deny: []\n"), []byte("  deny: "+string(list)+"\n"), 1)
	if bytes.Equal(after, b) {
		t.Fatal("the manifest has no empty policy.deny list to fill")
	}
	if err := os.WriteFile(p, after, 0o644); err != nil {
		t.Fatal(err)
	}
}
