package spawn

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestRealClaudeHookSwitches measures the Claude Code 2.1.328 switches
// whose --help says they turn hooks off (--bare: "skip hooks (those
// defined in settings …)", sets CLAUDE_CODE_SIMPLE=1; --safe-mode: "all
// customizations (… hooks …) disabled"): the pinned claude, run directly
// with a PreToolUse hook in --settings (as the spawn render passes it),
// runs the hook without a switch and the test logs whether it runs with
// each (2026-12-01: none of the three ran it). spawn exec refuses all
// three whatever the observation (fixtures caller-claude-bare,
// caller-claude-safe-mode, caller-claude-simple-env); the test fails if the control run does
// not run the hook, which would make the other rows meaningless.
func TestRealClaudeHookSwitches(t *testing.T) {
	bin := needClient(t, "claude")
	w := newRealWorld(t)
	hook := filepath.Join(w.work, "hook.sh")
	os.WriteFile(hook, []byte("#!/bin/sh\ncat > "+shq(w.out)+"/ran.$1\nexit 0\n"), 0o755)
	for _, mode := range []string{"control", "--bare", "--safe-mode", "CLAUDE_CODE_SIMPLE=1"} {
		port, _ := startMock(t, "anthropic", t.TempDir())
		args, env := w.mockClient("claude", bin, port)
		settings := fmt.Sprintf(`{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":%q,"timeout":10}]}]}}`, hook+" "+filepath.Base(mode))
		args = append(args, "--setting-sources", "", "--settings", settings)
		switch mode {
		case "--bare", "--safe-mode":
			args = append(args, mode)
		case "CLAUDE_CODE_SIMPLE=1":
			env = append(env, mode)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, filepath.Join(bin, "claude"), args[1:]...)
		var out bytes.Buffer
		cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = w.repo, env, &out, &out
		err := cmd.Run()
		cancel()
		ran := w.marker("ran." + filepath.Base(mode))
		t.Logf("%-22s exit %v; the settings hook ran: %v", mode, err, ran)
		if mode == "control" && !ran {
			t.Fatalf("control: the settings hook did not run:\n%s", out.String())
		}
	}
}
