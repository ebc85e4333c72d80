package agentcontext

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/internal/fileowner"
	"github.com/hookwarden/hookwarden/internal/posixtest"
)

const sampleAgents = "# Sample\n\nRun `make test`.\n\n## Git\n\n- Never `git push --force`.\n- Commit often.\n"

func newRepo(t *testing.T, agents string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte(agents), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func compileApply(t *testing.T, dir string) Plan {
	t.Helper()
	plan, err := Compile(context.Background(), Options{TargetDir: dir, Version: testVersion})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	if _, err := Apply(context.Background(), plan); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	return plan
}

// TestVerifyRoundTrip: compile, verify clean; edit the source, verify names
// every stale file with a diff showing the edit; delete a file, verify calls
// it missing. Verify never writes.
func TestVerifyRoundTrip(t *testing.T) {
	dir := newRepo(t, sampleAgents)
	compileApply(t, dir)
	plan, err := Compile(context.Background(), Options{TargetDir: dir, Version: testVersion})
	if err != nil {
		t.Fatal(err)
	}
	if f := Verify(plan); len(f) != 0 {
		t.Fatalf("fresh compile not clean: %+v", f)
	}

	edited := strings.Replace(sampleAgents, "Run `make test`.", "Run `make check`.", 1)
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, ReadonlyPath))
	plan, err = Compile(context.Background(), Options{TargetDir: dir, Version: testVersion})
	if err != nil {
		t.Fatal(err)
	}
	findings := Verify(plan)
	byPath := map[string]Finding{}
	for _, f := range findings {
		byPath[f.Path] = f
	}
	// Every file that copies the source is stale; CLAUDE.md and GEMINI.md
	// only import it and stay as they are (issue 15: they went stale on
	// every AGENTS.md edit).
	for _, p := range []string{ReadonlyPath, CopilotPath, CursorPath} {
		f, ok := byPath[p]
		if !ok || f.Problem != "stale" {
			t.Errorf("%s: finding %+v, want stale", p, f)
		}
	}
	for _, p := range []string{ClaudePath, GeminiPath} {
		if f, ok := byPath[p]; ok {
			t.Errorf("%s imports AGENTS.md but is reported %+v after an AGENTS.md edit", p, f)
		}
	}
	ro := byPath[ReadonlyPath].Diff
	if !strings.Contains(ro, "-Run `make test`.") || !strings.Contains(ro, "+Run `make check`.") || !strings.Contains(ro, "--- a/"+ReadonlyPath) {
		t.Errorf("readonly diff does not show the edit:\n%s", ro)
	}
	after, _ := os.ReadFile(filepath.Join(dir, ReadonlyPath))
	if string(before) != string(after) {
		t.Error("Verify changed a file")
	}

	if err := os.Remove(filepath.Join(dir, CopilotPath)); err != nil {
		t.Fatal(err)
	}
	plan, _ = Compile(context.Background(), Options{TargetDir: dir, Version: testVersion})
	for _, f := range Verify(plan) {
		if f.Path == CopilotPath && (f.Problem != "missing" || !strings.HasPrefix(f.Diff, "--- /dev/null\n+++ b/"+CopilotPath)) {
			t.Errorf("deleted file: %+v", f)
		}
	}
	compileApply(t, dir)
	plan, _ = Compile(context.Background(), Options{TargetDir: dir, Version: testVersion})
	if f := Verify(plan); len(f) != 0 {
		t.Fatalf("after re-apply not clean: %+v", f)
	}
}

// TestSymlinkTargetRefused: CLAUDE.md as a symlink to AGENTS.md (a common
// hand setup) is refused with the reason, and nothing at all is written, least
// of all through the link into AGENTS.md.
func TestSymlinkTargetRefused(t *testing.T) {
	dir := newRepo(t, sampleAgents)
	if err := os.Symlink("AGENTS.md", filepath.Join(dir, ClaudePath)); err != nil {
		t.Fatal(err)
	}
	plan, err := Compile(context.Background(), Options{TargetDir: dir, Version: testVersion})
	if err != nil {
		t.Fatal(err)
	}
	ref := plan.Refusals()
	if len(ref) != 1 || ref[0].Path != ClaudePath || !strings.Contains(ref[0].Refusal, "CLAUDE.md is a symlink to AGENTS.md") {
		t.Fatalf("refusals = %+v", ref)
	}
	if _, err := Apply(context.Background(), plan); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("Apply error = %v, want a symlink refusal", err)
	}
	src, _ := os.ReadFile(filepath.Join(dir, "AGENTS.md"))
	if string(src) != sampleAgents {
		t.Error("AGENTS.md changed through the symlink")
	}
	if _, err := os.Stat(filepath.Join(dir, ReadonlyPath)); !errors.Is(err, os.ErrNotExist) {
		t.Error("Apply wrote other files although one was refused")
	}
	reported := false
	for _, f := range Verify(plan) {
		reported = reported || f.Path == ClaudePath && f.Problem == "refused" && strings.Contains(f.Reason, "symlink")
	}
	if !reported {
		t.Error("Verify does not report the refused symlink")
	}
}

// refusalsOf compiles dir and returns the plan and its refusals by path.
func refusalsOf(t *testing.T, dir string) (Plan, map[string]string) {
	t.Helper()
	plan, err := Compile(context.Background(), Options{TargetDir: dir, Version: testVersion})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range plan.Refusals() {
		got[f.Path] = f.Refusal
	}
	return plan, got
}

// TestNotAFileRefused: a regular file where a directory belongs (.github)
// and a directory where the file belongs (CLAUDE.md) are refused with what
// each is, and Apply writes nothing.
func TestNotAFileRefused(t *testing.T) {
	dir := newRepo(t, sampleAgents)
	if err := os.WriteFile(filepath.Join(dir, ".github"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, ClaudePath), 0o755); err != nil {
		t.Fatal(err)
	}
	plan, got := refusalsOf(t, dir)
	if r := got[CopilotPath]; r != ".github is not a directory" {
		t.Errorf("copilot refusal = %q", r)
	}
	if r := got[ClaudePath]; r != "CLAUDE.md is not a regular file" {
		t.Errorf("claude refusal = %q", r)
	}
	if _, err := Apply(context.Background(), plan); err == nil {
		t.Fatal("Apply accepted a plan with refused files")
	}
	if _, err := os.Stat(filepath.Join(dir, ReadonlyPath)); !errors.Is(err, os.ErrNotExist) {
		t.Error("Apply wrote other files although some were refused")
	}
}

// TestSymlinkParentRefused: .github and .cursor as symlinks to directories
// outside the repository are refused, and nothing lands in those directories.
func TestSymlinkParentRefused(t *testing.T) {
	dir := newRepo(t, sampleAgents)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, ".github")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(outside, "cursor", "rules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "cursor"), filepath.Join(dir, ".cursor")); err != nil {
		t.Fatal(err)
	}
	plan, got := refusalsOf(t, dir)
	if r := got[CopilotPath]; !strings.Contains(r, "parent directory .github is a symlink") {
		t.Errorf("copilot refusal = %q", r)
	}
	if r := got[CursorPath]; !strings.Contains(r, "parent directory .cursor is a symlink") {
		t.Errorf("cursor refusal = %q", r)
	}
	if _, err := Apply(context.Background(), plan); err == nil {
		t.Fatal("Apply accepted a plan with symlinked parents")
	}
	for _, p := range []string{"copilot-instructions.md", filepath.Join("cursor", "rules", "agents.mdc")} {
		if _, err := os.Stat(filepath.Join(outside, p)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s was written outside the repository", p)
		}
	}
}

// TestHandWrittenRefused: a CLAUDE.md without our header is never overwritten
// and the refusal says how to hand it over; adding the header hands it over.
func TestHandWrittenRefused(t *testing.T) {
	dir := newRepo(t, sampleAgents)
	mine := "# My notes\n\nUse staging.\n"
	if err := os.WriteFile(filepath.Join(dir, ClaudePath), []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, err := Compile(context.Background(), Options{TargetDir: dir, Clients: []string{"claude"}, Version: testVersion})
	if err != nil {
		t.Fatal(err)
	}
	ref := plan.Refusals()
	if len(ref) != 1 || !strings.Contains(ref[0].Refusal, "not generated by hookwarden") || !strings.Contains(ref[0].Refusal, "delete the file") {
		t.Fatalf("refusals = %+v", ref)
	}
	if _, err := Apply(context.Background(), plan); err == nil {
		t.Fatal("Apply overwrote a hand-written file")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ClaudePath)); string(b) != mine {
		t.Fatal("hand-written CLAUDE.md changed")
	}
	if err := os.WriteFile(filepath.Join(dir, ClaudePath), []byte(HeaderPrefix+" -->\n"+mine), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, _ = Compile(context.Background(), Options{TargetDir: dir, Clients: []string{"claude"}, Version: testVersion})
	if len(plan.Refusals()) != 0 {
		t.Fatalf("file with the header still refused: %+v", plan.Refusals())
	}
	if _, err := Apply(context.Background(), plan); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ClaudePath)); !strings.Contains(string(b), "@AGENTS.md") {
		t.Fatal("handed-over CLAUDE.md not replaced")
	}
}

// TestKeepsMode: replacing a generated file keeps its permission bits.
func TestKeepsMode(t *testing.T) {
	dir := newRepo(t, sampleAgents)
	compileApply(t, dir)
	p := filepath.Join(dir, CopilotPath)
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte(sampleAgents+"\nMore.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := compileApply(t, dir)
	written := false
	for _, f := range plan.Files {
		written = written || f.Path == CopilotPath && f.Status == StatusChanged
	}
	if !written {
		t.Fatal("copilot file was not rewritten")
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(p); !strings.HasSuffix(string(b), "More.\n") {
		t.Error("content not updated")
	}
}

// TestKeepsOwner: run as root over a user's repository, compile-context
// leaves every file the user's: a replaced file keeps its owner and group,
// and a new file and a directory made for it take their directory's (the
// same internal/safewrite writer adopt uses).
func TestKeepsOwner(t *testing.T) {
	posixtest.SkipOnWindows(t, "no uid/gid owner to keep (a file's owner is a SID, the account that creates it)")
	if os.Geteuid() != 0 {
		if os.Getenv("HOOKWARDEN_E2E") == "require" {
			t.Fatal("needs root (chown) and HOOKWARDEN_E2E=require")
		}
		t.Skip("needs root: chown")
	}
	const uid, gid = 4242, 4343
	dir := newRepo(t, sampleAgents)
	compileApply(t, dir)
	if err := os.RemoveAll(filepath.Join(dir, ".github")); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte(sampleAgents+"\nMore.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	compileApply(t, dir)
	for _, rel := range []string{ClaudePath, CopilotPath, ".github"} {
		fi, err := os.Stat(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		if u, g := fileowner.Of(fi); u != uid || g != gid {
			t.Errorf("%s: owner %d:%d, want %d:%d", rel, u, g, uid, gid)
		}
	}
}

// TestApplyDetectsConcurrentEdit: a file changed between Compile and Apply is
// not overwritten.
func TestApplyDetectsConcurrentEdit(t *testing.T) {
	dir := newRepo(t, sampleAgents)
	compileApply(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte(sampleAgents+"\nMore.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, err := Compile(context.Background(), Options{TargetDir: dir, Clients: []string{"copilot"}, Version: testVersion})
	if err != nil {
		t.Fatal(err)
	}
	edit := HeaderPrefix + " -->\nedited meanwhile\n"
	if err := os.WriteFile(filepath.Join(dir, CopilotPath), []byte(edit), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Apply(context.Background(), plan)
	if err == nil || !strings.Contains(err.Error(), "changed on disk") {
		t.Fatalf("Apply error = %v, want changed on disk", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, CopilotPath)); string(b) != edit {
		t.Error("concurrent edit overwritten")
	}
}

// TestCompileErrors: unknown clients, a missing source, a source that is also
// a target, and a generated file over budget fail with a clear error.
func TestCompileErrors(t *testing.T) {
	dir := newRepo(t, sampleAgents)
	ctx := context.Background()
	if _, err := Compile(ctx, Options{TargetDir: dir, Clients: []string{"claude,vim"}}); err == nil || !strings.Contains(err.Error(), `unknown client "vim"`) {
		t.Errorf("unknown client: %v", err)
	}
	if _, err := Compile(ctx, Options{TargetDir: dir, Source: "NOPE.md"}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing source: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "CLAUDE.md"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Compile(ctx, Options{TargetDir: dir, Source: "CLAUDE.md"}); err == nil || !strings.Contains(err.Error(), "also a generated target") {
		t.Errorf("source as target: %v", err)
	}
	// The cursor file adds 7 lines to the 8-line source: 15 lines, over a
	// budget of 12 from line 13, inside "## Git"; the projection (11 lines) and
	// the source fit.
	_, err := Compile(ctx, Options{TargetDir: dir, Clients: []string{"cursor"}, LineBudget: 12})
	var be *BudgetError
	if !errors.As(err, &be) || be.Path != CursorPath || be.Section != "## Git" || be.Line != 13 || be.Lines != 15 {
		t.Errorf("budget error = %#v", err)
	}
	if err != nil && !strings.Contains(err.Error(), `in section "## Git"`) {
		t.Errorf("budget message %q does not name the section", err)
	}
	if _, err := Compile(ctx, Options{TargetDir: dir, Clients: []string{"cursor"}, LineBudget: -1}); err != nil {
		t.Errorf("negative budget must disable the check: %v", err)
	}
}

// TestBudgetIgnoresFencedHeadings: a "# comment" inside a code block is not a
// section heading.
func TestBudgetIgnoresFencedHeadings(t *testing.T) {
	lines := []string{"# Top", "## Shell", "```sh", "# not a heading", "echo", "```", "a", "b"}
	err := checkBudget("x.md", lines, 6)
	var be *BudgetError
	if !errors.As(err, &be) || be.Section != "## Shell" {
		t.Fatalf("got %#v", err)
	}
}

// TestIsGenerated covers the header positions: first line, after MDC front
// matter, with CRLF, and a header buried deeper (not ours).
func TestIsGenerated(t *testing.T) {
	for _, tc := range []struct {
		body string
		want bool
	}{
		{HeaderPrefix + " x -->\nbody\n", true},
		{HeaderPrefix + " x -->\r\nbody\r\n", true},
		{"---\r\nalwaysApply: true\r\n---\r\n" + HeaderPrefix + " x -->\r\n", true},
		{"---\nalwaysApply: true\n---\n" + HeaderPrefix + " x -->\n", true},
		{"# Title\n" + HeaderPrefix + " x -->\n", false},
		{"", false},
	} {
		if got := IsGenerated([]byte(tc.body)); got != tc.want {
			t.Errorf("IsGenerated(%q) = %v, want %v", tc.body, got, tc.want)
		}
	}
}

// TestParseHeaderDetectsHandEdits: a generated file edited by hand (CRLF and
// MDC front matter included) reports Edited; a file without a complete header
// is not parsed.
func TestParseHeaderDetectsHandEdits(t *testing.T) {
	dir := newRepo(t, strings.ReplaceAll(sampleAgents, "\n", "\r\n"))
	compileApply(t, dir)
	for _, rel := range []string{CursorPath, ClaudePath, ReadonlyPath} {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		if h, ok := ParseHeader(b); !ok || h.Edited {
			t.Fatalf("%s: fresh file: %+v ok=%v", rel, h, ok)
		}
		edited := []byte(strings.Replace(string(b), "\r\n\r\n", "\r\nsneaky line\r\n\r\n", 1))
		if h, ok := ParseHeader(edited); !ok || !h.Edited {
			t.Errorf("%s: edited file: %+v ok=%v, want Edited", rel, h, ok)
		}
	}
	if _, ok := ParseHeader([]byte(HeaderPrefix + " -->\nhanded over\n")); ok {
		t.Error("a bare handed-over header parsed as complete")
	}
	if _, ok := ParseHeader(nil); ok {
		t.Error("empty file parsed")
	}
}

// TestHandEditedGeneratedRefused: a generated file edited by hand is not
// overwritten (the edit would be lost); deleting it hands it back.
func TestHandEditedGeneratedRefused(t *testing.T) {
	dir := newRepo(t, sampleAgents)
	compileApply(t, dir)
	p := filepath.Join(dir, CopilotPath)
	b, _ := os.ReadFile(p)
	edited := string(b) + "- Staging is at staging.example.com.\n"
	if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, err := Compile(context.Background(), Options{TargetDir: dir, Version: testVersion})
	if err != nil {
		t.Fatal(err)
	}
	ref := plan.Refusals()
	if len(ref) != 1 || ref[0].Path != CopilotPath || !strings.Contains(ref[0].Refusal, "edited by hand") {
		t.Fatalf("refusals = %+v", ref)
	}
	if _, err := Apply(context.Background(), plan); err == nil {
		t.Fatal("Apply overwrote a hand edit")
	}
	if got, _ := os.ReadFile(p); string(got) != edited {
		t.Fatal("hand edit lost")
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	compileApply(t, dir)
	if got, _ := os.ReadFile(p); string(got) != string(b) {
		t.Fatal("deleted file not generated again")
	}
}
