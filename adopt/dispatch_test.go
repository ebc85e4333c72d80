package adopt

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDispatchRowsFollowTheSection: conform registers the agent-traffic rows
// (claude pre-dispatch … post-return, codex pre-dispatch and post-return,
// gemini pre-dispatch) only while .hookwarden.yaml has a dispatch:
// section, whatever hooks.events lists, and retracts them when the section
// goes; Claude's PermissionDenied handlers come with dispatch-abort and
// handback-abort.
func TestDispatchRowsFollowTheSection(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	base := "version: 1\nclients: [claude, codex, gemini, agy]\nhooks:\n  events: [pre-tool, pre-dispatch]\n"
	makeRepo(t, root, true, map[string]string{ManifestFile: base}, nil)
	opts := testOptions(t)
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if _, err := Adopt(context.Background(), []string{root}, opts); err != nil {
		t.Fatal(err)
	}
	if got := read(".claude/settings.json"); strings.Contains(got, "pre-dispatch") || !strings.Contains(got, "claude pre-tool") {
		t.Fatalf("without a dispatch section the rows are:\n%s", got)
	}
	if got := read(".agents/plugins/hookwarden/hooks.json"); strings.Contains(got, "pre-dispatch") {
		t.Fatalf("without a dispatch section the agy plugin holds the dispatch row:\n%s", got)
	}
	if err := os.WriteFile(filepath.Join(root, ManifestFile), []byte(base+"dispatch:\n  tasks: [review]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Conform(context.Background(), []string{root}, opts); err != nil {
		t.Fatal(err)
	}
	claude := read(".claude/settings.json")
	for _, want := range []string{"claude pre-dispatch", "claude dispatch-receipt", "claude dispatch-abort", "claude subagent-start", "claude post-return",
		`"PermissionDenied"`, `"PostToolUseFailure"`, `"SubagentStart"`, `"SubagentStop"`, `"^Agent$"`, "claude pre-handback", `"^SubagentHandback$"`,
		"claude handback-receipt", "claude handback-abort"} {
		if !strings.Contains(claude, want) {
			t.Errorf(".claude/settings.json lacks %s:\n%s", want, claude)
		}
	}
	if n := strings.Count(claude, "claude dispatch-abort"); n != 2 {
		t.Errorf("dispatch-abort registered %d times, want 2 (PostToolUseFailure, PermissionDenied)", n)
	}
	if n := strings.Count(claude, "claude handback-abort"); n != 2 {
		t.Errorf("handback-abort registered %d times, want 2 (PostToolUseFailure, PermissionDenied)", n)
	}
	if got := read(".codex/hooks.json"); !strings.Contains(got, "codex pre-dispatch") || !strings.Contains(got, "codex post-return") || !strings.Contains(got, "^spawn_agent$") {
		t.Errorf(".codex/hooks.json:\n%s", got)
	}
	if got := read(".gemini/settings.json"); !strings.Contains(got, "gemini pre-dispatch") || !strings.Contains(got, "^invoke_agent$") {
		t.Errorf(".gemini/settings.json:\n%s", got)
	}
	if got := read(".agents/plugins/hookwarden/hooks.json"); !strings.Contains(got, "agy pre-dispatch") || !strings.Contains(got, "^invoke_subagent$") {
		t.Errorf("the agy plugin lacks the dispatch row:\n%s", got)
	}
	// Idempotent with the section, then retracted without it.
	rep, err := Conform(context.Background(), []string{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if s := rep.Repositories[0].Status; s != StatusUnchanged {
		t.Errorf("second conform: status %s, want unchanged", s)
	}
	if err := os.WriteFile(filepath.Join(root, ManifestFile), []byte(base), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Conform(context.Background(), []string{root}, opts); err != nil {
		t.Fatal(err)
	}
	if got := read(".claude/settings.json"); strings.Contains(got, "dispatch") || strings.Contains(got, "handback") || strings.Contains(got, "PermissionDenied") || !strings.Contains(got, "claude pre-tool") {
		t.Errorf("after the section went, .claude/settings.json:\n%s", got)
	}
	if got := read(".agents/plugins/hookwarden/hooks.json"); strings.Contains(got, "pre-dispatch") {
		t.Errorf("after the section went, the agy plugin still holds the dispatch row:\n%s", got)
	}
}
