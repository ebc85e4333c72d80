package clientjson

import "testing"

// TestCommandWindows: a wanted Codex handler with CommandWindows is written
// with the member after the others; conform (Retract) inserts it into a
// serving handler that lacks it and replaces another value, so adopt and
// conform leave the same bytes; Registered reports it; the POSIX command
// is untouched.
func TestCommandWindows(t *testing.T) {
	cmd := `hw_d=$PWD; hw_self="$hw_d/.hookwarden/hook.sh"; set -- codex pre-tool; command . "$hw_self"`
	win := `cmd /d /c "hookwarden hook codex pre-tool || exit 2"`
	want := []Handler{{NativeEvent: "PreToolUse", Matcher: "^Bash$", Command: cmd, CommandWindows: win, Timeout: 15}}
	owner, err := NewOwner("codex", []Form{{Event: "pre-tool", Command: cmd, Current: true}})
	if err != nil {
		t.Fatal(err)
	}
	row := func(extra string) string {
		return "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"^Bash$\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": " + quote(cmd) + ",\n            \"timeout\": 15" + extra + "\n          }\n        ]\n      }\n    ]\n  }\n}\n"
	}
	wantOut := row(",\n            \"commandWindows\": " + quote(win))
	for _, tc := range []struct{ name, src string }{
		{"new file", "{}\n"},
		{"served without the member", row("")},
		{"served with another Windows command", row(",\n            \"commandWindows\": \"hook.cmd\"")},
		{"served with a number", row(",\n            \"commandWindows\": 1")},
	} {
		res, err := Merge(".codex/hooks.json", []byte(tc.src), "codex", want, Options{Owner: owner, Retract: true})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if string(res.Out) != wantOut {
			t.Errorf("%s: merged\n%s\nwant\n%s", tc.name, res.Out, wantOut)
		}
		found, err := Registered(".codex/hooks.json", res.Out, "codex", owner)
		if err != nil || len(found) != 1 || found[0].CommandWindows != win || found[0].Command != cmd {
			t.Errorf("%s: Registered %+v %v, want the POSIX command and commandWindows %q", tc.name, found, err, win)
		}
	}
	res, err := Merge(".codex/hooks.json", []byte(wantOut), "codex", want, Options{Owner: owner, Retract: true})
	if err != nil || string(res.Out) != wantOut || len(res.Changes) != 1 || res.Changes[0].Kind != "served" {
		t.Errorf("a file already right changed: %v %+v", err, res.Changes)
	}
}
