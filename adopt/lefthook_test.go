package adopt

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hookwarden/hookwarden/internal/fileowner"
)

// TestLefthookOffered: the first adopt of a repository holding a
// lefthook.yml, lefthook not selected, offers hookwarden's lefthook jobs in
// a warning and leaves lefthook.yml as it was; conform (the manifest
// exists) does not repeat it; with lefthook selected the jobs are written
// (the block in lefthook.yml, the rendered jobs file) and nothing is
// offered.
func TestLefthookOffered(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	user := "pre-commit:\n  jobs:\n    - run: make lint\n"
	makeRepo(t, root, true, map[string]string{"lefthook.yml": user}, nil)
	opts := testOptions(t)
	rep, err := Adopt(context.Background(), []string{root}, opts)
	if err != nil || rep.Failed() {
		t.Fatalf("adopt: %v %+v", err, rep)
	}
	if !anyContains(rep.Repositories[0].Warnings, "lefthook: lefthook.yml found; hookwarden's lefthook jobs") {
		t.Errorf("first adopt: no lefthook offer in %q", rep.Repositories[0].Warnings)
	}
	if got := tree(t, root)["lefthook.yml"]; !strings.HasSuffix(got, "\n"+user) {
		t.Errorf("lefthook.yml changed: %q", got)
	}
	if _, ok := tree(t, root)[".hookwarden/lefthook.yml"]; ok {
		t.Errorf("the jobs file was written with lefthook not selected")
	}
	rep, err = Conform(context.Background(), []string{root}, opts)
	if err != nil || rep.Failed() {
		t.Fatalf("conform: %v %+v", err, rep)
	}
	if anyContains(rep.Repositories[0].Warnings, "lefthook.yml found") {
		t.Errorf("conform repeats the offer: %q", rep.Repositories[0].Warnings)
	}
	root2 := filepath.Join(t.TempDir(), "repo")
	makeRepo(t, root2, true, map[string]string{"lefthook.yml": user, ManifestFile: "version: 1\nclients: [claude, lefthook]\n"}, nil)
	rep, err = Adopt(context.Background(), []string{root2}, opts)
	if err != nil || rep.Failed() {
		t.Fatalf("adopt with lefthook: %v %+v", err, rep)
	}
	if w := rep.Repositories[0].Warnings; anyContains(w, "lefthook") {
		t.Errorf("adopt with lefthook selected: warnings %q", w)
	}
	after := tree(t, root2)
	if !strings.Contains(after["lefthook.yml"], "\n"+user+BlockBegin+"\n") || !strings.Contains(after[".hookwarden/lefthook.yml"], "name: hookwarden pre-tool") {
		t.Errorf("adopt with lefthook selected: lefthook.yml %q, jobs file %q", after["lefthook.yml"], after[".hookwarden/lefthook.yml"])
	}
}

// TestLefthookDryRunOwnerMode: a dry run with lefthook selected writes
// nothing and shows the block it would append as a diff; the real run
// keeps lefthook.yml's mode (0640) and, run as root, its owner (uid 1234,
// gid 2345), and only appends the block.
func TestLefthookDryRunOwnerMode(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	user := "pre-commit:\n  jobs:\n    - run: make lint\n"
	makeRepo(t, root, true, map[string]string{"lefthook.yml": user}, nil)
	p := filepath.Join(root, "lefthook.yml")
	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	root0 := os.Geteuid() == 0
	if root0 {
		if err := os.Chown(p, 1234, 2345); err != nil {
			t.Fatal(err)
		}
	}
	before := tree(t, root)
	opts := testOptions(t)
	opts.Clients, opts.DryRun = []string{"claude", "lefthook"}, true
	rep, err := Adopt(context.Background(), []string{root}, opts)
	if err != nil || rep.Failed() {
		t.Fatalf("dry run: %v %+v", err, rep)
	}
	if diff := cmp.Diff(before, tree(t, root)); diff != "" {
		t.Fatalf("the dry run wrote (-before +after):\n%s", diff)
	}
	var shown bool
	for _, d := range rep.Repositories[0].Diffs() {
		if d.Path == "lefthook.yml" && strings.Contains(d.Unified, "+  - .hookwarden/lefthook.yml") {
			shown = true
		}
	}
	if !shown {
		t.Errorf("the dry run's diffs do not show the block for lefthook.yml")
	}
	// The user's lefthook.yml is a shared file: its diff is printed, the
	// rendered jobs file is one summary line.
	for _, d := range rep.Repositories[0].Diffs() {
		if want := d.Path == ".hookwarden/lefthook.yml"; (d.Path == "lefthook.yml" || want) && d.Rendered() != want {
			t.Errorf("%s: Rendered() %v, want %v", d.Path, d.Rendered(), want)
		}
	}
	opts.DryRun = false
	if rep, err = Adopt(context.Background(), []string{root}, opts); err != nil || rep.Failed() {
		t.Fatalf("adopt: %v %+v", err, rep)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o640 && runtime.GOOS != "windows" { // Windows: no mode bits but read-only
		t.Errorf("mode %v, want 0640 kept", fi.Mode().Perm())
	}
	if uid, gid := fileowner.Of(fi); root0 && (uid != 1234 || gid != 2345) {
		t.Errorf("owner %d:%d, want 1234:2345 kept", uid, gid)
	}
	data, _ := os.ReadFile(p)
	if want := user + managedBlock(lefthookBlockBody, "\n"); string(data) != want {
		t.Errorf("lefthook.yml = %q, want the user's bytes and the block %q", data, want)
	}
}

// TestRealLefthookAdopted runs the real lefthook (npm lefthook@2.2.2,
// pinned in .ci/run, from $HOOKWARDEN_CLIENTS_DIR) in a git repository
// adopted with --clients claude,lefthook whose lefthook.yml had jobs of the
// user's own: `lefthook run pre-tool` fed Claude pre-tool payloads runs our
// job through the extends block, denying `git commit --no-verify` (exit 1,
// the refusal shown) and allowing `git status` (exit 0, the allow marker);
// `lefthook run pre-commit` with a file staged runs the user's job and our
// environment job. A job of the user's named `hookwarden pre-tool` with
// `skip: true`, or `skip: true` on the pre-tool hook itself (the findings
// adopt reports), makes lefthook skip ours: the reason the findings exist. Without HOOKWARDEN_CLIENTS_DIR a stated skip
// (a failure under HOOKWARDEN_E2E=require).
func TestRealLefthookAdopted(t *testing.T) {
	dir := os.Getenv("HOOKWARDEN_CLIENTS_DIR")
	if dir == "" {
		if os.Getenv("HOOKWARDEN_E2E") == "require" {
			t.Fatal("HOOKWARDEN_CLIENTS_DIR is not set and HOOKWARDEN_E2E=require")
		}
		t.Skip("stated skip: HOOKWARDEN_CLIENTS_DIR is not set, so lefthook cannot be found (HOOKWARDEN_E2E=require makes this a failure)")
	}
	bins, _ := filepath.Glob(filepath.Join(dir, "node_modules", "lefthook-*", "bin", "lefthook"))
	if len(bins) == 0 {
		t.Fatalf("lefthook is not installed in %s (.ci/run pins lefthook@2.2.2)", dir)
	}
	lh, eng := bins[0], buildBinary(t)
	root := filepath.Join(t.TempDir(), "repo")
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	user := "pre-commit:\n  jobs:\n    - name: user lint\n      run: echo user-lint-ran\n"
	if err := os.WriteFile(filepath.Join(root, "lefthook.yml"), []byte(user), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := testOptions(t)
	opts.Clients = []string{"claude", "lefthook"}
	if rep, err := Adopt(context.Background(), []string{root}, opts); err != nil || rep.Failed() {
		t.Fatalf("adopt: %v %+v", err, rep)
	}
	env := append(os.Environ(), "HOOKWARDEN_BIN="+eng, "NO_COLOR=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
	run := func(stdin string, args ...string) (int, string) {
		t.Helper()
		cmd := exec.Command(lh, args...)
		cmd.Dir, cmd.Env, cmd.Stdin = root, env, strings.NewReader(stdin)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), out.String()
		} else if err != nil {
			t.Fatalf("lefthook %v: %v", args, err)
		}
		return 0, out.String()
	}
	pre := func(command string) string {
		b, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": root, "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": command}})
		return string(b)
	}
	if code, out := run(pre("git commit --no-verify -m x"), "run", "pre-tool"); code != 1 || !strings.Contains(out, "[BLOCKED BY hookwarden:git-no-verify]") {
		t.Errorf("deny payload: lefthook exit %d, want 1 with the refusal:\n%s", code, out)
	}
	if code, out := run(pre("git status"), "run", "pre-tool"); code != 0 || !strings.Contains(out, "hookwarden: allow") {
		t.Errorf("allow payload: lefthook exit %d, want 0 with the allow marker:\n%s", code, out)
	}
	if out, err := exec.Command("git", "-C", root, "add", "lefthook.yml").CombinedOutput(); err != nil {
		t.Fatalf("git add: %v %s", err, out)
	}
	if code, out := run("", "run", "pre-commit"); code != 0 || !strings.Contains(out, "user-lint-ran") || !strings.Contains(out, "hookwarden environment") {
		t.Errorf("pre-commit: lefthook exit %d, want 0 with the user's job and ours run:\n%s", code, out)
	}
	foreign := "pre-tool:\n  jobs:\n    - name: hookwarden pre-tool\n      skip: true\n"
	data, _ := os.ReadFile(filepath.Join(root, "lefthook.yml"))
	if err := os.WriteFile(filepath.Join(root, "lefthook.yml"), append([]byte(foreign), data...), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Conform(context.Background(), []string{root}, opts)
	if err != nil || !anyContains(rep.Repositories[0].Warnings, `a job named "hookwarden pre-tool" under pre-tool is not hookwarden's`) {
		t.Errorf("conform with a foreign job: %v, warnings %q", err, rep.Repositories[0].Warnings)
	}
	if code, out := run(pre("git commit --no-verify -m x"), "run", "pre-tool"); code != 0 || !strings.Contains(out, "(skip)") {
		t.Errorf("foreign skip job: lefthook exit %d, want 0 with our job skipped (what the finding warns of):\n%s", code, out)
	}
	// A hook-level skip: skips every job of the hook, ours included.
	if err := os.WriteFile(filepath.Join(root, "lefthook.yml"), append([]byte("pre-tool:\n  skip: true\n"), data...), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = Conform(context.Background(), []string{root}, opts)
	if err != nil || !anyContains(rep.Repositories[0].Warnings, "the pre-tool hook sets skip:") {
		t.Errorf("conform with a hook-level skip: %v, warnings %q", err, rep.Repositories[0].Warnings)
	}
	if code, out := run(pre("git commit --no-verify -m x"), "run", "pre-tool"); code != 0 || strings.Contains(out, "BLOCKED") {
		t.Errorf("hook-level skip: lefthook exit %d, want 0 with nothing run (what the finding warns of):\n%s", code, out)
	}
}
