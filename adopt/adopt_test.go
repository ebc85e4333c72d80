package adopt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hookwarden/hookwarden/internal/posixtest"
	"github.com/hookwarden/hookwarden/internal/safewrite"
	"github.com/hookwarden/hookwarden/internal/testbin"
	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/settings"
	"github.com/hookwarden/hookwarden/templates"
)

// operatorFiles are shapes real repositories carry: 4-space and tab indents,
// CRLF, foreign hooks, JSONC comments.
var operatorFiles = map[string]string{
	".gitignore":            "node_modules/\r\n.env\r\n",
	".claude/settings.json": "{\n    \"permissions\": {\"allow\": [\"Bash(npm test)\"]},\n    \"hooks\": {\n        \"PreToolUse\": [\n            {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"./scripts/guard.sh\", \"timeout\": 5}]}\n        ]\n    }\n}\n",
	".codex/hooks.json":     "{\n\t\"hooks\": {}\n}",
	".gemini/settings.json": "{\n  // team settings\n  \"theme\": \"dark\"\n}\n",
}

// TestIdempotent: adopt twice = adopt once, byte for byte, across the whole
// tree; the second run reports every repository and file unchanged.
func TestIdempotent(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	makeRepo(t, root, true, operatorFiles, nil)
	opts := testOptions(t)
	rep, err := Adopt(context.Background(), []string{root}, opts)
	if err != nil || rep.Failed() {
		t.Fatalf("first run: %v %+v", err, rep.Repositories[0])
	}
	once := tree(t, root)
	if len(once) <= len(operatorFiles) {
		t.Fatalf("first run wrote nothing: %v", once)
	}
	rep2, err := Adopt(context.Background(), []string{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(once, tree(t, root)); diff != "" {
		t.Fatalf("second adopt changed the tree:\n%s", diff)
	}
	r := rep2.Repositories[0]
	if r.Status != StatusUnchanged {
		t.Fatalf("second run status %s: %+v", r.Status, r)
	}
	for _, f := range r.Files {
		if f.Action != ActionUnchanged {
			t.Errorf("second run: %s %s", f.Action, f.Path)
		}
	}
	// conform on the adopted repository changes nothing either.
	rep3, _ := Conform(context.Background(), []string{root}, opts)
	if rep3.Repositories[0].Status != StatusUnchanged {
		t.Fatalf("conform after adopt: %+v", rep3.Repositories[0])
	}
	if diff := cmp.Diff(once, tree(t, root)); diff != "" {
		t.Fatalf("conform changed an adopted tree:\n%s", diff)
	}
	// The created manifest reads back as what was selected.
	f, err := settings.ReadRepoFile(filepath.Join(root, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(f.Clients, templates.DefaultClients()) || !cmp.Equal(f.Hooks.Events, templates.DefaultEvents()) || len(f.Decline) != 0 {
		t.Fatalf("manifest reads back as %+v", f)
	}
}

// TestDryRun: a dry run writes nothing, its report equals the real run's,
// and its diffs turn the old files into exactly the files the real run writes.
func TestDryRun(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	makeRepo(t, a, true, operatorFiles, nil)
	before := tree(t, a)
	opts := testOptions(t)
	opts.DryRun = true
	dry, err := Adopt(context.Background(), []string{a}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, tree(t, a)); diff != "" {
		t.Fatalf("dry run wrote:\n%s", diff)
	}
	opts.DryRun = false
	real, err := Adopt(context.Background(), []string{a}, opts)
	if err != nil {
		t.Fatal(err)
	}
	var dj, rj bytes.Buffer
	dry.DryRun = false // the one field that says which run it was
	dry.WriteJSON(&dj)
	real.WriteJSON(&rj)
	if diff := cmp.Diff(rj.String(), dj.String()); diff != "" {
		t.Fatalf("dry-run report differs from the real run's (-real +dry):\n%s", diff)
	}
	diffs := dry.Repositories[0].Diffs()
	if len(diffs) == 0 {
		t.Fatal("dry run produced no diff")
	}
	after := tree(t, a)
	for _, d := range diffs {
		if !strings.HasPrefix(d.Unified, "--- a/"+d.Path+"\n+++ b/"+d.Path+"\n@@") {
			t.Errorf("%s: not a unified diff:\n%s", d.Path, d.Unified)
		}
		got := after[d.Path]
		for _, line := range strings.Split(d.Unified, "\n") {
			if strings.HasPrefix(line, "+") && !strings.HasPrefix(line, "+++") && !strings.Contains(got, strings.TrimPrefix(line, "+")) {
				t.Errorf("%s: the dry-run diff adds %q which the real run did not write", d.Path, line)
			}
		}
	}
	_ = b
}

// TestCASConflict: a file changed between planning and writing is refused,
// not overwritten, and the report says so.
func TestCASConflict(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	makeRepo(t, root, true, map[string]string{".claude/settings.json": "{}\n"}, nil)
	opts := testOptions(t)
	opts.files = realClientFiles(nil)
	table, _ := registration.Default()
	p := planRepo(context.Background(), root, &opts, false, table, fixedStamp, nil)
	if p.rep.Status != StatusChanged {
		t.Fatalf("plan: %+v", p.rep)
	}
	edited := "{\"model\": \"edited meanwhile\"}\n"
	os.WriteFile(filepath.Join(root, ".claude/settings.json"), []byte(edited), 0o644)
	applyPlan(context.Background(), p, nil)
	if p.rep.Status != StatusFailed || !anyContains(p.rep.Errors, "changed since it was planned") {
		t.Fatalf("status %s errors %v", p.rep.Status, p.rep.Errors)
	}
	if f := fileReport(p.rep, ".claude/settings.json"); f == nil || f.Action != ActionSkipped {
		t.Fatalf("report for the refused file: %+v", f)
	}
	if f := fileReport(p.rep, ManifestFile); f == nil || f.Action != ActionSkipped {
		t.Fatalf("report for the manifest not written: %+v", f)
	}
	got, _ := os.ReadFile(filepath.Join(root, ".claude/settings.json"))
	if string(got) != edited {
		t.Fatalf("the concurrent edit was overwritten: %q", got)
	}
	if _, err := os.Stat(filepath.Join(root, ManifestFile)); err == nil {
		t.Fatal("the manifest was written although the run stopped: the repository must not look governed")
	}
	// A rerun plans against the new content and converges.
	rep, _ := Adopt(context.Background(), []string{root}, opts)
	if rep.Repositories[0].Status != StatusChanged {
		t.Fatalf("rerun: %+v", rep.Repositories[0])
	}
	got, _ = os.ReadFile(filepath.Join(root, ".claude/settings.json"))
	if !strings.Contains(string(got), "edited meanwhile") || !strings.Contains(string(got), "hook.sh") {
		t.Fatalf("rerun result: %s", got)
	}
}

// TestFIFORefused: a FIFO where a client file belongs fails the repository
// at planning (no write at all) instead of blocking on it.
func TestFIFORefused(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	makeRepo(t, root, true, nil, nil)
	os.MkdirAll(filepath.Join(root, ".codex"), 0o755)
	posixtest.Mkfifo(t, filepath.Join(root, ".codex/hooks.json"), 0o644)
	before := tree(t, root)
	rep, err := Adopt(context.Background(), []string{root}, testOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Repositories[0]
	if r.Status != StatusFailed || !anyContains(r.Errors, "FIFO") {
		t.Fatalf("%+v", r)
	}
	if diff := cmp.Diff(before, tree(t, root)); diff != "" {
		t.Fatalf("wrote despite the refusal:\n%s", diff)
	}
}

// TestConformRepairsDrift: conform restores a deleted row, fixes our stale
// timeout, retracts our row for an event no longer selected, keeps foreign
// rows, and reports the repair.
func TestConformRepairsDrift(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	makeRepo(t, root, true, map[string]string{
		ManifestFile: "version: 1\nclients: [claude]\nhooks:\n  events: [pre-tool]\n",
		".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "python3 \"${CLAUDE_PROJECT_DIR}/.hookwarden/hook.py\" claude stop", "timeout": 30}]}],` +
			` "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./mine.sh"}]}]}}` + "\n",
	}, nil)
	opts := testOptions(t)
	rep, err := Conform(context.Background(), []string{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Repositories[0]
	f := fileReport(r, ".claude/settings.json")
	if r.Status != StatusChanged || f == nil || f.Action != ActionMerged {
		t.Fatalf("%+v / %+v", r, f)
	}
	got, _ := os.ReadFile(filepath.Join(root, ".claude/settings.json"))
	if strings.Contains(string(got), "claude stop") {
		t.Errorf("our stop row survived although stop is no longer selected:\n%s", got)
	}
	if !strings.Contains(string(got), "claude pre-tool") || !strings.Contains(string(got), "./mine.sh") {
		t.Errorf("pre-tool row missing or foreign row lost:\n%s", got)
	}
	if !anyContains(f.Changes, "retracted Stop") || !anyContains(f.Changes, "added PreToolUse") {
		t.Errorf("changes %v", f.Changes)
	}
}

// TestConformDeselectedClient: a client dropped from the manifest loses our
// rows (foreign rows stay) and its leftover plugin files are reported.
func TestConformDeselectedClient(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	makeRepo(t, root, true, nil, nil)
	opts := testOptions(t)
	if rep, _ := Adopt(context.Background(), []string{root}, opts); rep.Failed() {
		t.Fatalf("%+v", rep.Repositories[0])
	}
	codexPath := filepath.Join(root, ".codex/hooks.json")
	adopted, _ := os.ReadFile(codexPath)
	withForeign := strings.Replace(string(adopted), `"hooks": {`, `"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "./hello.sh"}]}], `, 1)
	os.WriteFile(codexPath, []byte(withForeign), 0o644)
	os.WriteFile(filepath.Join(root, ManifestFile), []byte("version: 1\nclients: [claude]\n"), 0o644)
	rep, err := Conform(context.Background(), []string{root}, opts)
	if err != nil || rep.Failed() {
		t.Fatalf("%v %+v", err, rep.Repositories[0])
	}
	r := rep.Repositories[0]
	f := fileReport(r, ".codex/hooks.json")
	if f == nil || f.Action != ActionMerged || !anyContains(f.Changes, "retracted PreToolUse") {
		t.Fatalf("codex file: %+v", f)
	}
	got, _ := os.ReadFile(codexPath)
	if oursInFile(t, "codex", got) || !strings.Contains(string(got), "./hello.sh") {
		t.Fatalf("after conform:\n%s", got)
	}
	if !anyContains(r.Warnings, "opencode is no longer selected") || !anyContains(r.Warnings, "agy is no longer selected") {
		t.Fatalf("warnings %v", r.Warnings)
	}
}

// TestOneFailureDoesNotStopTheFleet: one broken repository fails alone.
func TestOneFailureDoesNotStopTheFleet(t *testing.T) {
	base := t.TempDir()
	var paths []string
	for i := 0; i < 5; i++ {
		p := filepath.Join(base, fmt.Sprintf("r%d", i))
		files := map[string]string{}
		if i == 2 {
			files[".claude/settings.json"] = "{,}"
		}
		makeRepo(t, p, true, files, nil)
		paths = append(paths, p)
	}
	rep, err := Adopt(context.Background(), paths, testOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Failed != 1 || rep.Summary.Changed != 4 || !rep.Failed() {
		t.Fatalf("summary %+v", rep.Summary)
	}
	if _, err := os.Stat(filepath.Join(paths[2], ManifestFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the failed repository got a manifest")
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	for _, want := range []string{"failed", "changed", "total", paths[2] + ": failed"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}
}

// TestSameRepositoryTwice: two arguments naming one repository adopt it once.
func TestSameRepositoryTwice(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	makeRepo(t, root, true, nil, nil)
	rep, _ := Adopt(context.Background(), []string{root, root + "/."}, testOptions(t))
	if rep.Repositories[0].Status != StatusChanged || rep.Repositories[1].Status != StatusFailed {
		t.Fatalf("%+v %+v", rep.Repositories[0], rep.Repositories[1])
	}
}

func TestDiscover(t *testing.T) {
	base := t.TempDir()
	makeRepo(t, filepath.Join(base, "a"), true, nil, nil)
	makeRepo(t, filepath.Join(base, "group", "b"), true, nil, nil)
	makeRepo(t, filepath.Join(base, "a", "nested"), true, nil, nil) // inside a: not descended into
	makeRepo(t, filepath.Join(base, "plain"), false, nil, nil)
	makeRepo(t, filepath.Join(base, ".hidden", "c"), true, nil, nil)
	got, err := Discover(base, 1)
	if err != nil || !cmp.Equal(got, []string{filepath.Join(base, "a")}) {
		t.Fatalf("depth 1: %v %v", got, err)
	}
	got, _ = Discover(base, 2)
	if !cmp.Equal(got, []string{filepath.Join(base, "a"), filepath.Join(base, "group", "b")}) {
		t.Fatalf("depth 2: %v", got)
	}
	if _, err := Discover(base, 0); err == nil {
		t.Fatal("depth 0 accepted")
	}
}

var _ = safewrite.ErrConflict

// TestBackupsInNestedAndLinkedRepositories: a directory below a work tree's
// root is refused, and a linked worktree reads info/exclude from its common
// git directory.
func TestBackupsInNestedAndLinkedRepositories(t *testing.T) {
	testbin.Need(t, "git") // adopt writes a backup only where git confirms it is ignored
	base := t.TempDir()
	// A subdirectory of a git work tree is refused: the engine reads
	// .hookwarden.yaml only at the repository root, so it would guard nothing.
	mono := filepath.Join(base, "mono")
	makeRepo(t, mono, true, map[string]string{"pkg/app/.claude/settings.json": "{}\n"}, nil)
	opts := testOptions(t)
	opts.Clients = []string{"claude"}
	rep, _ := Adopt(context.Background(), []string{filepath.Join(mono, "pkg/app")}, opts)
	if r := rep.Repositories[0]; r.Status != StatusFailed || !anyContains(r.Errors, "inside the git repository") {
		t.Fatalf("nested: status %s errors %v", r.Status, r.Errors)
	}

	// A linked worktree whose backups are ignored only by the common
	// directory's info/exclude (git-ignore step declined).
	common := filepath.Join(base, "main.git")
	gitdir := filepath.Join(common, "worktrees", "wt")
	os.MkdirAll(filepath.Join(common, "info"), 0o755)
	os.MkdirAll(gitdir, 0o755)
	os.WriteFile(filepath.Join(common, "info", "exclude"), []byte("/.hookwarden/\n"), 0o644)
	os.WriteFile(filepath.Join(gitdir, "commondir"), []byte("../..\n"), 0o644)
	wt := filepath.Join(base, "wt")
	makeRepo(t, wt, false, map[string]string{".git": "gitdir: " + gitdir + "\n", ".claude/settings.json": "{}\n"}, nil)
	opts.Decline = []string{StepGitIgnore}
	rep, _ = Adopt(context.Background(), []string{wt}, opts)
	if f := fileReport(rep.Repositories[0], ".claude/settings.json"); f == nil || f.Backup == "" {
		t.Fatalf("linked worktree: %+v warnings %v errors %v", f, rep.Repositories[0].Warnings, rep.Repositories[0].Errors)
	}
}
