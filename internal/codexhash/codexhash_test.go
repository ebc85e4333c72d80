package codexhash

import "testing"

// TestSnakeEvent checks every event name of Codex 0.169.0's hook events
// (../shared/e2e/tools/codex_trust_hooks.py EVENTS) and that a snake-case
// name passes through unchanged.
func TestSnakeEvent(t *testing.T) {
	for in, want := range map[string]string{
		"PreToolUse": "pre_tool_use", "PostToolUse": "post_tool_use", "PermissionRequest": "permission_request",
		"Stop": "stop", "SubagentStop": "subagent_stop", "SubagentStart": "subagent_start",
		"UserPromptSubmit": "user_prompt_submit", "SessionStart": "session_start", "SessionEnd": "session_end",
		"PreCompact": "pre_compact", "PostCompact": "post_compact", "pre_tool_use": "pre_tool_use",
	} {
		if got := SnakeEvent(in); got != want {
			t.Errorf("SnakeEvent(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestHashMatchesCodex replays hashes that codex-cli 0.169.0's own
// `codex app-server` hooks/list reported (testdata/adopt/codextrust/
// shapes.expected.json, recorded 2026-11-29): an anchored matcher, an empty
// matcher with non-ASCII, escapes and a statusMessage and the default
// timeout, an async handler without a matcher, and a stop handler.
func TestHashMatchesCodex(t *testing.T) {
	str := func(s string) *string { return &s }
	cases := []struct {
		name string
		h    Handler
		want string
	}{
		{"pre_tool_use:0:0", Handler{Event: "PreToolUse", Matcher: str("^Bash$"), TimeoutSeconds: 15,
			Command: `python3 "$(git rev-parse --show-toplevel)/.hookwarden/hook.py" codex pre-tool`},
			"sha256:b4f8ae2c0a6e3de0aeab5945751aa6959b24ef54d09f2758dd21a810f89ce9bd"},
		{"pre_tool_use:1:0", Handler{Event: "PreToolUse", Matcher: str(""), TimeoutSeconds: DefaultTimeoutSeconds,
			Command: "echo ünï \\ \"q\"\t", StatusMessage: str("hi")},
			"sha256:ab26150aad2e29b969d5a5399ac14f494600c3006e0ab26b99331766884f649d"},
		{"post_tool_use:0:0", Handler{Event: "PostToolUse", Command: "y", TimeoutSeconds: 16, Async: true},
			"sha256:c77466423bbc7ce28e473e902f918105b58a7d405b6e9247987c6695bb670243"},
		{"stop:0:0", Handler{Event: "Stop", Command: "x", TimeoutSeconds: 30},
			"sha256:61c906c35e5f5de922f007a4803ac0b91da8ac65c5a40fec667e83e89272493a"},
	}
	for _, c := range cases {
		if got := Hash(c.h); got != c.want {
			t.Errorf("%s: Hash = %s, want %s", c.name, got, c.want)
		}
	}
	if got := Key("/r/.codex/hooks.json", "PreToolUse", 1, 2); got != "/r/.codex/hooks.json:pre_tool_use:1:2" {
		t.Errorf("Key = %q", got)
	}
}
