package adopt

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCLI runs the built binary: exit codes (0 ok, 1 a failed repository or
// conform --strict on an ungoverned one, 2 usage), the --json schema
// version, and --fleet discovery.
func TestCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := buildBinary(t)
	base := t.TempDir()
	good, bad, plain := filepath.Join(base, "fleet", "good"), filepath.Join(base, "fleet", "bad"), filepath.Join(base, "plain")
	makeRepo(t, good, true, nil, nil)
	makeRepo(t, bad, true, map[string]string{".gitignore": "# END hookwarden\n"}, nil)
	makeRepo(t, plain, true, nil, nil)
	env := append(os.Environ(), "CODEX_HOME="+t.TempDir())
	run := binRunner(t, bin, env)

	out, errOut, code := run("adopt", "--json", "--fleet", filepath.Join(base, "fleet"))
	if code != 1 {
		t.Fatalf("adopt of a fleet with a broken repository: exit %d, want 1\n%s", code, errOut)
	}
	var rep Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.SchemaVersion != 1 || rep.Summary.Repositories != 2 || rep.Summary.Failed != 1 {
		t.Fatalf("json report: %v %+v\n%s", err, rep.Summary, out)
	}
	if strings.Contains(errOut, bad) {
		t.Fatalf("stderr repeats the report's error (issue 15: every error was printed twice): %s", errOut)
	}
	// The text report of a fleet ends with the failing repositories, each
	// with its first error; stderr stays empty.
	out, errOut, _ = run("adopt", "--dry-run", "--fleet", filepath.Join(base, "fleet"))
	if i := strings.Index(out, "failed repositories:\n  "+bad+": "); i < 0 || errOut != "" {
		t.Fatalf("fleet summary does not list the failed repository, or stderr is not empty (%q):\n%s", errOut, out)
	}
	// A dry run shows shared files' diffs in full and one line per rendered
	// file; --diff=all shows every diff.
	out, _, _ = run("adopt", "--dry-run", plain)
	if !strings.Contains(out, "+++ b/.claude/settings.json\n") || !strings.Contains(out, ": created .hookwarden/interceptor.py (") || strings.Contains(out, "+++ b/.hookwarden/interceptor.py") {
		t.Fatalf("dry run output: settings diffs in full, rendered files summarised:\n%s", out)
	}
	all, _, _ := run("adopt", "--dry-run", "--diff=all", plain)
	if !strings.Contains(all, "+++ b/.hookwarden/interceptor.py") {
		t.Fatalf("--diff=all lacks the rendered file's diff:\n%.2000s", all)
	}
	if len(out)*4 > len(all) {
		t.Fatalf("summarised dry run (%d bytes) is not a fraction of --diff=all (%d)", len(out), len(all))
	}
	if _, _, code := run("adopt", "--dry-run", "--diff=some", good); code != 2 {
		t.Fatalf("--diff=some: exit %d, want 2", code)
	}
	if _, _, code := run("adopt", "--decline", "nope", good); code != 2 {
		t.Fatalf("unknown decline step: exit %d, want 2", code)
	}
	if _, _, code := run("adopt", "--clients", "claude,zed", good); code != 2 {
		t.Fatalf("unknown client: exit %d, want 2", code)
	}
	if out, _, code := run("conform", plain); code != 0 || !strings.Contains(out, "not-governed") {
		t.Fatalf("conform on an ungoverned repository: exit %d\n%s", code, out)
	}
	if _, _, code := run("conform", "--strict", plain); code != 1 {
		t.Fatalf("conform --strict on an ungoverned repository: exit %d, want 1", code)
	}
	if out, _, code := run("conform", good); code != 0 || !strings.Contains(out, good+": unchanged") {
		t.Fatalf("conform on an adopted repository: exit %d\n%s", code, out)
	}
	out, _, code = run("adopt", "--dry-run", plain)
	if code != 0 || !strings.Contains(out, "--- a/.gitignore\n+++ b/.gitignore\n") || !strings.Contains(out, "(dry run) "+plain+": changed") {
		t.Fatalf("dry run: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(plain, ManifestFile)); err == nil {
		t.Fatal("dry run wrote the manifest")
	}

	// Flags after the paths mean what they say (issue 15): a trailing
	// --dry-run is a dry run, a trailing --json a JSON report.
	out, _, code = run("adopt", plain, "--dry-run")
	if code != 0 || !strings.Contains(out, "(dry run) "+plain+": changed") {
		t.Fatalf("adopt PATH --dry-run: exit %d\n%s", code, out)
	}
	if entries, _ := os.ReadDir(plain); len(entries) != 1 {
		t.Fatalf("adopt PATH --dry-run wrote into the repository: %v", entries)
	}
	for _, verb := range []string{"conform", "audit"} {
		out, errOut, _ := run(verb, good, "--json")
		var v struct {
			SchemaVersion int `json:"schema_version"`
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil || v.SchemaVersion != 1 {
			t.Fatalf("%s PATH --json: not a JSON report (%v)\n%s\n%s", verb, err, out, errOut)
		}
	}
	// After "--" every word is a path.
	if out, _, code := run("adopt", "--json", "--dry-run", "--", "--force"); code != 1 || !strings.Contains(out, `"path": "--force"`) {
		t.Fatalf("adopt -- --force: exit %d, want 1 naming the path --force\n%s", code, out)
	}
	// An empty fleet is a usage error for every verb.
	empty := t.TempDir()
	for _, verb := range []string{"adopt", "conform", "audit"} {
		if _, errOut, code := run(verb, "--fleet", empty); code != 2 {
			t.Fatalf("%s --fleet EMPTY: exit %d, want 2\n%s", verb, code, errOut)
		}
		// An empty --fleet value (an unset variable) is a usage error, not
		// the current directory (run in a scratch repository, so a
		// regression adopts that one and fails here).
		cmd := exec.Command(bin, verb, "--fleet", "")
		cmd.Env, cmd.Dir = env, plain
		if out, err := cmd.CombinedOutput(); cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 2 {
			t.Fatalf("%s --fleet '' in a repository: %v, want exit 2\n%s", verb, err, out)
		}
	}
}

// TestConformCheck runs `conform --check` (issue 22): exit 0 and no diff
// on a repository conform would leave as it is; exit 1, the diff of each
// change and a line on stderr when conform would change it (here a row
// removed by hand); nothing written either way; exit 1 for a repository
// that fails, 2 for a usage error, as audit.
func TestConformCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := buildBinary(t)
	repo := filepath.Join(t.TempDir(), "repo")
	makeRepo(t, repo, true, nil, nil)
	run := binRunner(t, bin, append(os.Environ(), "CODEX_HOME="+t.TempDir()))
	if _, errOut, code := run("adopt", repo); code != 0 {
		t.Fatalf("adopt: exit %d\n%s", code, errOut)
	}
	if out, errOut, code := run("conform", "--check", repo); code != 0 || strings.Contains(out, "+++ ") || errOut != "" {
		t.Fatalf("conform --check on a freshly adopted repository: exit %d, want 0 and no diff\n%s\n%s", code, out, errOut)
	}
	settingsPath := filepath.Join(repo, ".claude", "settings.json")
	before, err := os.ReadFile(settingsPath)
	if err != nil {
		t.Fatal(err)
	}
	// Drop our rows from Claude's file: what conform repairs.
	if err := os.WriteFile(settingsPath, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	snap := tree(t, repo)
	out, errOut, code := run("conform", repo, "--check")
	if code != 1 || !strings.Contains(out, "--- a/.claude/settings.json\n+++ b/.claude/settings.json\n") || !strings.Contains(errOut, "conform --check: 1 of 1 repositories are not as conform would leave them") {
		t.Fatalf("conform --check on a drifted repository: exit %d, want 1 with the settings diff\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "(dry run) "+repo+": changed") {
		t.Fatalf("conform --check does not report the repository as one conform would change:\n%s", out)
	}
	if diff := cmp.Diff(snap, tree(t, repo)); diff != "" {
		t.Fatalf("conform --check wrote into the repository:\n%s", diff)
	}
	if _, _, code := run("conform", repo); code != 0 {
		t.Fatalf("conform: exit %d", code)
	}
	if after, _ := os.ReadFile(settingsPath); !strings.Contains(string(after), "hookwarden") || len(after) == 0 {
		t.Fatalf("conform did not restore our rows: %s (was %s)", after, before)
	}
	if _, _, code := run("conform", "--check", repo); code != 0 {
		t.Fatalf("conform --check after conform: exit %d, want 0", code)
	}
	// A repository conform cannot plan fails the check (exit 1), as it
	// fails conform; a usage error stays 2.
	broken := filepath.Join(t.TempDir(), "broken")
	makeRepo(t, broken, true, map[string]string{ManifestFile: "version: 1\n", ".gitignore": "# END hookwarden\n"}, nil)
	if out, _, code := run("conform", "--check", broken); code != 1 {
		t.Fatalf("conform --check on a repository conform fails on: exit %d, want 1\n%s", code, out)
	}
	if _, _, code := run("conform", "--check", "--diff=some", repo); code != 2 {
		t.Fatalf("conform --check --diff=some: exit %d, want 2", code)
	}
}

// binRunner returns a function that runs bin with args and env and returns
// its stdout, stderr and exit code; a failure to start it fails the test.
func binRunner(t *testing.T, bin string, env []string) func(args ...string) (string, string, int) {
	return func(args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		var so, se strings.Builder
		cmd.Stdout, cmd.Stderr = &so, &se
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return so.String(), se.String(), ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return so.String(), se.String(), 0
	}
}
