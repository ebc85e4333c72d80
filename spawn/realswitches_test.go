package spawn

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRealClaudeHookSwitches measures the Claude Code 2.1.328 switches
// whose --help says they turn hooks off (--bare: "skip hooks (those
// defined in settings …)", sets CLAUDE_CODE_SIMPLE=1; --safe-mode: "all
// customizations (… hooks …) disabled"): the pinned claude, run directly
// with a PreToolUse hook in --settings (as the spawn render passes it),
// runs the hook without a switch and the test logs whether it runs with
// each, with CLAUDE_CODE_SAFE_MODE=1 and CLAUDE_CODE_PERSONAL_HOOKS_OFF
// (also read by the bundle) besides (2026-12-01: the hook ran under none
// of the first four and under both PERSONAL_HOOKS_OFF values). Every row
// in which the hook did not run must be refused by spawn exec
// (caller-hooks; fixtures caller-claude-bare, -safe-mode, -simple-env,
// -safe-mode-env); the test fails if the control run does not run the
// hook, which would make the other rows meaningless.
func TestRealClaudeHookSwitches(t *testing.T) {
	bin := needClient(t, "claude")
	w := newRealWorld(t)
	hook := filepath.Join(w.work, "hook.sh")
	os.WriteFile(hook, []byte("#!/bin/sh\ncat > "+shq(w.out)+"/ran.$1\nexit 0\n"), 0o755)
	for _, mode := range []string{"control", "--bare", "--safe-mode", "CLAUDE_CODE_SIMPLE=1", "CLAUDE_CODE_SAFE_MODE=1",
		"CLAUDE_CODE_PERSONAL_HOOKS_OFF=launch", "CLAUDE_CODE_PERSONAL_HOOKS_OFF=all"} {
		port, _ := startMock(t, "anthropic", t.TempDir())
		args, env := w.mockClient("claude", bin, port)
		base := slices.Clone(args)
		tag := strings.NewReplacer("=", "_", "-", "_").Replace(mode)
		settings := fmt.Sprintf(`{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":%q,"timeout":10}]}]}}`, hook+" "+tag)
		args = append(args, "--setting-sources", "", "--settings", settings)
		switch mode {
		case "--bare", "--safe-mode":
			args = append(args, mode)
		case "control":
		default:
			env = append(env, mode)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, filepath.Join(bin, "claude"), args[1:]...)
		var out bytes.Buffer
		cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = w.repo, env, &out, &out
		err := cmd.Run()
		cancel()
		ran := w.marker("ran." + tag)
		t.Logf("%-22s exit %v; the settings hook ran: %v", mode, err, ran)
		if mode == "control" && !ran {
			t.Fatalf("control: the settings hook did not run:\n%s", out.String())
		}
		if mode != "control" && !ran {
			// every switch that kept the hook from running must be refused
			if strings.HasPrefix(mode, "--") {
				base = append(base, mode)
			}
			code, err := Exec(context.Background(), ExecOptions{Argv: base, Home: w.home, Gateway: mcpProxyBin(t), Cwd: w.repo, Env: env})
			if r := AsRefusal(err); r == nil || r.Reason != ReasonCallerHooks || code != RefusedExit {
				t.Errorf("%s turns the render's hooks off, but spawn exec did not refuse it: %d %v", mode, code, err)
			}
		}
	}
}
