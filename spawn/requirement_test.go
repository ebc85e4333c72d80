package spawn

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// twoHomes returns home A (the base: a required, pinned, approved guard)
// and home B (no registry), both sharing one fake engine dir and start log,
// plus a requirement file outside both that names A's registry and the guard.
func twoHomes(t *testing.T) (a, b *world, req string) {
	t.Helper()
	a = materialise(t, filepath.Join("..", "testdata", "spawn", "base"))
	for _, e := range []string{"claude", "codex"} {
		fakeEngine(t, a.engineDir, e, defaultVersion(e), a.startLog)
	}
	a.approveAll(t, "", "")
	b = &world{work: a.work, home: filepath.Join(a.work, "home-b"), repo: a.repo, engineDir: a.engineDir, startLog: a.startLog}
	if err := os.MkdirAll(b.home, 0o700); err != nil {
		t.Fatal(err)
	}
	req = filepath.Join(a.work, "deploy", "requirement.json")
	writeJSONFile(t, req, Requirement{Version: 1, Registry: filepath.Join(a.home, RegistryFile),
		Mandatory: []Attachment{{Hook: "guard", Event: "pre_tool", Matcher: "Bash"}}})
	return a, b, req
}

// TestRequirementAcrossTwoHomes: with the requirement, home A runs with the
// guard and the child sees the requirement; home B (another registry
// location) is refused; without it, home B compiles an empty hook set under
// full isolation and says so.
func TestRequirementAcrossTwoHomes(t *testing.T) {
	a, b, req := twoHomes(t)
	res := a.exec(t, "claude", "", "", EnvRequirement+"="+req)
	if res.err != nil || res.code != 0 {
		t.Fatalf("home A: %v", res.err)
	}
	if !strings.Contains(a.started(t), "requirement="+req) {
		t.Fatalf("child env lacks the requirement: %q", a.started(t))
	}
	if len(res.render.Hooks) != 1 || res.render.RequirementPath != req {
		t.Fatalf("render: %+v", res.render)
	}
	a.resetStarts(t)

	res = b.exec(t, "claude", "", "", EnvRequirement+"="+req)
	if res.refusal == nil || res.refusal.Reason != ReasonRequirementElsewhere {
		t.Fatalf("home B with the requirement: want %s, got %v", ReasonRequirementElsewhere, res.err)
	}
	if b.started(t) != "" {
		t.Fatal("engine started for home B")
	}

	res = b.exec(t, "codex", "", "")
	if res.err != nil {
		t.Fatalf("home B without requirement: %v", res.err)
	}
	if len(res.render.Hooks) != 0 || !slices.Contains(res.argv, "--ignore-user-config") {
		t.Fatalf("want an empty hook set under isolation, argv %q hooks %+v", res.argv, res.render.Hooks)
	}
	if len(res.render.Notes) == 0 || !strings.Contains(res.render.Notes[0], "empty hook set under full isolation") {
		t.Fatalf("notes do not say so: %q", res.render.Notes)
	}
	if !strings.Contains(b.started(t), "requirement=unset") {
		t.Fatalf("child env carries a requirement it did not read: %q", b.started(t))
	}
	if _, err := os.Stat(filepath.Join(b.home, RegistryFile)); !os.IsNotExist(err) {
		t.Fatalf("a registry was created on first use: %v", err)
	}
}

// TestRequirementDroppedByAFilter: a nested spawn started from the child's
// environment after a filter removed HOOKWARDEN_HOOKS_REQUIREMENT. With the
// same home, the registry's required guard still compiles (the baseline is
// the home's, not the variable's); the render records that no requirement
// was read, and the grandchild does not inherit a stale one. A parent
// environment that carried another value has it replaced by the file read.
func TestRequirementDroppedByAFilter(t *testing.T) {
	a, _, req := twoHomes(t)
	parentEnv := append(a.env(), EnvRequirement+"="+req)
	filtered := slices.DeleteFunc(slices.Clone(parentEnv), func(kv string) bool { return strings.HasPrefix(kv, EnvRequirement+"=") })
	code, err := Exec(context.Background(), ExecOptions{Argv: []string{"claude", "-p", "nested"}, Home: a.home, Cwd: a.repo, Env: filtered,
		Started: func(r *Render, _ []string) {
			if r.RequirementPath != "" || len(r.Hooks) != 1 || !r.Hooks[0].Required {
				t.Errorf("nested render: requirement %q hooks %+v", r.RequirementPath, r.Hooks)
			}
		}})
	if err != nil || code != 0 {
		t.Fatalf("nested spawn: %v", err)
	}
	if !strings.Contains(a.started(t), "requirement=unset") {
		t.Fatalf("grandchild env: %q", a.started(t))
	}
}

// TestRegistryEditedWhileACallRuns: the call keeps its snapshot. The
// registry is emptied (and the approvals removed) while the engine runs;
// the run's settings file still holds the guard, and a compile given the
// earlier snapshot renders the same hooks and digest.
func TestRegistryEditedWhileACallRuns(t *testing.T) {
	a, _, _ := twoHomes(t)
	snap := TakeSnapshot(a.home)
	var during []byte
	res := execResultFrom(t, a, func(r *Render, _ []string) {
		writeJSONFile(t, filepath.Join(a.home, RegistryFile), Layer{Version: 1, Attachments: []Attachment{}})
		os.Remove(filepath.Join(a.home, ApprovalsFile))
		var err error
		during, err = os.ReadFile(r.Files[0])
		if err != nil {
			t.Errorf("run file: %v", err)
		}
	})
	if res.err != nil {
		t.Fatal(res.err)
	}
	if !strings.Contains(string(during), "guard.sh") {
		t.Fatalf("the run's settings lost the guard after the edit:\n%s", during)
	}
	r, err := Compile(context.Background(), Options{Engine: "codex", Binary: filepath.Join(a.engineDir, "codex"), Cwd: a.repo, Home: a.home, Snapshot: snap})
	if err != nil {
		t.Fatalf("compile from the earlier snapshot: %v", err)
	}
	if len(r.Hooks) != 1 || r.SnapshotDigest != snap.Digest() {
		t.Fatalf("snapshot compile: hooks %+v digest %s", r.Hooks, r.SnapshotDigest)
	}
	now, err := Compile(context.Background(), Options{Engine: "codex", Binary: filepath.Join(a.engineDir, "codex"), Cwd: a.repo, Home: a.home})
	if err != nil || len(now.Hooks) != 0 || now.SnapshotDigest == snap.Digest() {
		t.Fatalf("fresh compile after the edit: %+v %v", now, err)
	}
}

func execResultFrom(t *testing.T, w *world, started func(*Render, []string)) execResult {
	t.Helper()
	var res execResult
	res.code, res.err = Exec(context.Background(), ExecOptions{Argv: []string{"claude", "-p", "hi"}, Home: w.home, Cwd: w.repo,
		Env: w.env(), Started: started})
	return res
}
