package spawn

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRealClaudePreToolFailClosed injects the failures ADR-0134 D6 names
// for pre_tool.fail_closed into a registry pre_tool hook run by the pinned
// Claude Code under spawn exec (whose render sets "onFailure":"block" on
// PreToolUse): a hook that crashes (SIGSEGV), one that sleeps past its
// timeout, one that exits 1, one whose argv[0] is gone, and one that prints
// garbage and exits 0. Each row says whether the guarded Bash call ran.
// The capability is in the claude-2.1.328 table only if no injected
// failure let the call through; the test fails when the table and the
// observation disagree.
func TestRealClaudePreToolFailClosed(t *testing.T) {
	bin := needClient(t, "claude")
	cases := []struct {
		name, script, timeout string
		gone                  bool
	}{
		{"crash", "#!/bin/sh\nkill -SEGV $$\n", "15", false},
		{"timeout", "#!/bin/sh\nsleep 30\n", "2", false},
		{"exit 1", "#!/bin/sh\necho failed >&2\nexit 1\n", "15", false},
		{"argv0 gone", "#!/bin/sh\nexit 0\n", "15", true},
		{"garbage on stdout, exit 0", "#!/bin/sh\nprintf '{not json'\nexit 0\n", "15", false},
	}
	// one after another, on the test's goroutine: startMock skips or fails
	// the test, which only the test's goroutine may do
	ran := make([]bool, len(cases))
	for i, tc := range cases {
		ran[i] = runFailingPreTool(t, bin, tc.script, tc.timeout, tc.gone)
	}
	table, err := LoadTable(Tables(), "claude", "2.1.328")
	if err != nil {
		t.Fatal(err)
	}
	_, granted := table.Capabilities["pre_tool.fail_closed"]
	anyRan := false
	for i, tc := range cases {
		t.Logf("%-28s the guarded Bash call ran: %v", tc.name, ran[i])
		anyRan = anyRan || ran[i]
	}
	for i, tc := range cases[:4] {
		if ran[i] {
			t.Errorf("%s: the guarded call ran although the render sets onFailure block", tc.name)
		}
	}
	if granted == anyRan {
		t.Errorf("claude-2.1.328 lists pre_tool.fail_closed = %v, but an injected failure let the call through = %v", granted, anyRan)
	}
}

// runFailingPreTool spawns the real claude with one required pre_tool hook
// (Bash) running script, and reports whether the model's `touch
// e2e_tool_ran.txt` ran.
func runFailingPreTool(t *testing.T, bin, script, timeout string, gone bool) bool {
	w := newRealWorld(t)
	hook := filepath.Join(w.home, "bin", "inject.sh")
	os.WriteFile(hook, []byte(script), 0o755)
	d, _ := fileDigest(hook)
	writeJSONFile(t, filepath.Join(w.home, LibraryFile), library{Version: 1, Entries: map[string]Entry{
		"inject": {Argv: []string{hook}, Pin: map[string]string{hook: d}, Timeout: json.RawMessage(timeout)}}})
	writeJSONFile(t, filepath.Join(w.home, RegistryFile), Layer{Version: 1, Attachments: []Attachment{
		{Hook: "inject", Event: "pre_tool", Matcher: "Bash", Required: true}}})
	if err := Approve(w.home, [][]string{{hook}}); err != nil {
		t.Error(err)
		return true
	}
	port, _ := startMock(t, "anthropic", w.work)
	argv, env := w.mockClient("claude", bin, port)
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	started := false
	_, err := Exec(ctx, ExecOptions{Argv: argv,
		Home: w.home, Cwd: w.repo, Env: env, Stdout: &out, Stderr: &out,
		Started: func(r *Render, _ []string) {
			started = true
			if b, _ := os.ReadFile(r.Files[0]); !strings.Contains(string(b), `"onFailure": "block"`) {
				t.Errorf("the run file lacks onFailure block: %s", b)
			}
			if gone {
				os.Remove(hook)
			}
		}})
	if err != nil || !started {
		t.Errorf("spawn exec: %v\n%s", err, out.String())
		return true
	}
	_, statErr := os.Stat(filepath.Join(w.repo, "e2e_tool_ran.txt"))
	return statErr == nil
}
