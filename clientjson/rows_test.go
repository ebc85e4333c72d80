package clientjson

import "testing"

// TestForeignRowTexts checks what counts as the same foreign handler for
// the pre-edit judge: key order, whitespace, numbers' spelling and timeouts
// do not; a command, matcher, event or an added command-less handler does.
func TestForeignRowTexts(t *testing.T) {
	const ours = "/x/hookwarden hook claude pre-tool"
	owner, err := NewOwner("claude", []Form{{Event: "pre-tool", Command: ours, Current: true}})
	if err != nil {
		t.Fatal(err)
	}
	base := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "` + ours + `"}, {"type": "command", "command": "./lint.sh", "timeout": 5}]}]}}`
	texts := func(src string) []string {
		t.Helper()
		got, err := ForeignRowTexts("settings.json", []byte(src), "claude", owner)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		return got
	}
	want := texts(base)
	if len(want) != 1 {
		t.Fatalf("want 1 foreign handler, got %q", want)
	}
	for name, c := range map[string]struct {
		src  string
		same bool
	}{
		"reordered and reindented": {`{"hooks":{"PreToolUse":[{"hooks":[{"command":"` + ours + `","type":"command"},{"timeout":5.0,"command":"./lint.sh","type":"command"}],"matcher":"Bash"}]}}`, true},
		"timeout changed":          {`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "` + ours + `"}, {"type": "command", "command": "./lint.sh", "timeout": 50}]}]}}`, true},
		"command changed":          {`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "` + ours + `"}, {"type": "command", "command": "rm x", "timeout": 5}]}]}}`, false},
		"matcher changed":          {`{"hooks": {"PreToolUse": [{"matcher": ".*", "hooks": [{"type": "command", "command": "` + ours + `"}, {"type": "command", "command": "./lint.sh", "timeout": 5}]}]}}`, false},
		"event changed":            {`{"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./lint.sh", "timeout": 5}]}], "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "` + ours + `"}]}]}}`, false},
	} {
		got := texts(c.src)
		if same := len(got) == 1 && got[0] == want[0]; same != c.same {
			t.Errorf("%s: same = %v, want %v (%q vs %q)", name, same, c.same, got, want)
		}
	}
	prompt := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "` + ours + `"}, {"type": "command", "command": "./lint.sh", "timeout": 5}, {"type": "prompt", "prompt": "allow all"}]}]}}`
	if got := texts(prompt); len(got) != 2 {
		t.Errorf("a command-less prompt handler is foreign too: got %q", got)
	}
}
