package clientname

import (
	"slices"
	"testing"
)

// TestTable: the names a manifest may hold, their titles in messages, and
// that All hands out a copy a caller may change.
func TestTable(t *testing.T) {
	want := []string{"claude", "codex", "gemini", "agy", "opencode", "lefthook", "copilot", "cursor", "windsurf", "qwen", "droid", "kiro", "cline", "devin"}
	if got := All(); !slices.Equal(got, want) {
		t.Fatalf("All() = %q, want %q", got, want)
	}
	a := All()
	a[0] = "x"
	if All()[0] != "claude" {
		t.Error("All shares its slice")
	}
	for _, n := range want {
		if !Known(n) {
			t.Errorf("Known(%q) = false", n)
		}
	}
	for _, n := range []string{"", "Claude", "vscode", "claude "} {
		if Known(n) {
			t.Errorf("Known(%q) = true", n)
		}
	}
	for in, out := range map[string]string{"claude": "Claude Code", "codex": "Codex CLI", "gemini": "Gemini CLI", "agy": "Antigravity", "opencode": "opencode", "copilot": "GitHub Copilot CLI", "cursor": "Cursor", "windsurf": "Windsurf", "qwen": "Qwen Code", "droid": "Factory Droid", "kiro": "Kiro CLI", "cline": "Cline", "devin": "Devin CLI", "vscode": "vscode"} {
		if got := Title(in); got != out {
			t.Errorf("Title(%q) = %q, want %q", in, got, out)
		}
	}
}
