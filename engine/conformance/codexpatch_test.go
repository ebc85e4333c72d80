package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// codexPatch is the apply_patch envelope the scripted model sends: an
// ordinary file first, then `[features] hooks = false` into the project's
// .codex/config.toml (which would turn every Codex hook off).
const codexPatch = "*** Begin Patch\n*** Add File: notes.txt\n+ordinary\n*** Add File: .codex/config.toml\n+[features]\n+hooks = false\n*** End Patch"

// TestRealCodexApplyPatch: Codex 0.169.0 governed by the real `hookwarden
// adopt` (events [pre-tool], so pre-edit follows), model gpt-5.5 (its
// bundled catalog entry offers apply_patch as a freeform custom tool) and
// no sandbox (-s danger-full-access: Codex's own sandbox would reject a
// write under .codex/ by itself). The scripted model sends codexPatch as a
// custom_tool_call. The codex pre-edit row must refuse it: neither file is
// written and hookwarden's client-hooks-edit refusal reaches the model's
// next request; the user-level recorder sees PreToolUse with tool_name
// apply_patch and tool_input.command the patch.
func TestRealCodexApplyPatch(t *testing.T) {
	s := theSuite
	r := s.codexGovernedRun(t, "version: 1\nclients: [codex]\nhooks:\n  events: [pre-tool]\n", false,
		[]hookRow{{Native: "PreToolUse", Matcher: "apply_patch"}},
		Script{Call: &ToolCall{Name: "apply_patch", Freeform: codexPatch}},
		"-c", `model="gpt-5.5"`, "-s", "danger-full-access")
	called := false
	for _, q := range r.srv.Requests() {
		if q.Reply == "tool" && q.Tool == "apply_patch" {
			called = true
		}
	}
	if !called {
		t.Logf("client output:\n%s", r.res.Tail(3000))
		s.unavailable(t, "Codex "+r.version+" did not offer apply_patch to model gpt-5.5, so the pre-edit row could not be exercised")
	}
	r.wantExit(t, 0)
	for _, rel := range []string{"notes.txt", ".codex/config.toml"} {
		if b, err := os.ReadFile(filepath.Join(r.sb.Repo, rel)); err == nil && (rel == "notes.txt" || strings.Contains(string(b), "hooks = false")) {
			t.Errorf("%s was written although hookwarden denied the patch:\n%s", rel, b)
		}
	}
	r.wantCarried(t, "[BLOCKED BY hookwarden:client-hooks-edit]")
	ps := calls(t, r.user, "PreToolUse")
	if len(ps) == 0 || str(ps[0]["tool_name"]) != "apply_patch" || str(obj(ps[0]["tool_input"])["command"]) != codexPatch {
		t.Errorf("the user-level recorder saw %d PreToolUse calls, want apply_patch with the patch as tool_input.command: %v", len(ps), ps)
	}
	if t.Failed() {
		t.Logf("client output:\n%s", r.res.Tail(3000))
		return
	}
	s.observe(t, "codex", r.version, "pre-edit", "apply-patch-denied: an apply_patch custom tool call adding an ordinary file and `[features] hooks = false` in .codex/config.toml was refused by the adopted pre-edit row (client-hooks-edit); neither file was written and the refusal reached the model")
	s.recordPayloads(t, r.sb, r.user, "codex", r.version, "apply-patch-denied")
}
