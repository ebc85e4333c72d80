package clientjson

import (
	"strings"
	"testing"
)

// TestOnFailure: a wanted handler with OnFailure is written with the
// member; conform (Retract) inserts it into a serving handler that lacks
// it, in the file's layout, and replaces another value; every other byte
// stays; Registered reports it.
func TestOnFailure(t *testing.T) {
	cmd := `sh "${CLAUDE_PROJECT_DIR}/.hookwarden/hook.sh" claude pre-tool`
	want := []Handler{{NativeEvent: "PreToolUse", Matcher: "^Bash$", Command: cmd, Timeout: 15, OnFailure: "block"}}
	owner, err := NewOwner("claude", []Form{{Event: "pre-tool", Command: cmd, Current: true}})
	if err != nil {
		t.Fatal(err)
	}
	row := func(extra string) string {
		return "{\n  \"model\": \"x\",\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"^Bash$\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": " + quote(cmd) + ",\n            \"timeout\": 15" + extra + "\n          }\n        ]\n      }\n    ]\n  }\n}\n"
	}
	wantOut := row(",\n            \"onFailure\": \"block\"")
	for _, tc := range []struct{ name, src string }{
		{"new file", ""},
		{"served without the member", row("")},
		{"served with continue", row(",\n            \"onFailure\": \"continue\"")},
		{"served with a number", row(",\n            \"onFailure\": 1")},
	} {
		src := tc.src
		if src == "" {
			src = "{\n  \"model\": \"x\"\n}\n"
		}
		res, err := Merge(".claude/settings.json", []byte(src), "claude", want, Options{Owner: owner, Retract: true})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if string(res.Out) != wantOut {
			t.Errorf("%s: merged\n%s\nwant\n%s", tc.name, res.Out, wantOut)
		}
		found, err := Registered(".claude/settings.json", res.Out, "claude", owner)
		if err != nil || len(found) != 1 || found[0].OnFailure != "block" {
			t.Errorf("%s: Registered %+v %v, want onFailure block", tc.name, found, err)
		}
	}
	// Already right: nothing changes.
	res, err := Merge(".claude/settings.json", []byte(wantOut), "claude", want, Options{Owner: owner, Retract: true})
	if err != nil || string(res.Out) != wantOut || len(res.Changes) != 1 || res.Changes[0].Kind != "served" {
		t.Errorf("a file already right changed: %v %+v", err, res.Changes)
	}
	// A one-line handler gets the member on the same line.
	one := strings.ReplaceAll(row(""), "{\n            \"type\": \"command\",\n            \"command\": "+quote(cmd)+",\n            \"timeout\": 15\n          }", `{"type": "command", "command": `+quote(cmd)+`, "timeout": 15}`)
	res, err = Merge(".claude/settings.json", []byte(one), "claude", want, Options{Owner: owner, Retract: true})
	if err != nil || !strings.Contains(string(res.Out), `"timeout": 15, "onFailure": "block"}`) {
		t.Errorf("one-line handler: %v\n%s", err, res.Out)
	}
}
