package live

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/hookwarden/hookwarden/engine/hook"
	"github.com/hookwarden/hookwarden/protocol/verdict"
)

// TestClaudePowerShellToolThroughHook: a Claude Code PreToolUse call of its
// PowerShell tool (tool_name "PowerShell", Claude Code 2.1.332) is judged
// as PowerShell code (policy/powershell.go), not as a POSIX command line:
// $env:HUSKY=0, a backtick-escaped -n, a splat and an expression that
// builds git's words are refused; ordinary PowerShell stays allowed.
func TestClaudePowerShellToolThroughHook(t *testing.T) {
	repo, lookup := governedRepo(t)
	deps, err := Deps()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ command, rule string }{
		{`$env:HUSKY=0; git commit -m wip`, "hook-manager-env"},
		{"git commit `-n -m wip", "git-no-verify-short"},
		{`$a = @("commit","-n","-m","x"); git @a`, "powershell-dynamic"},
		{`git commit ("--no-" + "verify") -m wip`, "powershell-dynamic"},
		{`Start-Process git -ArgumentList "commit","--no-verify","-m","x"`, "git-no-verify"},
		{`Remove-Item .hookwarden.yaml`, "self-protect"},
		{`git status`, ""},
		{`Get-ChildItem -Recurse *.go | Select-String TODO`, ""},
		{`$v = git rev-parse HEAD; Write-Host $v`, ""},
		{`git commit -m "fix: parse dates"`, ""},
		// a backslash is PowerShell's path separator, not an escape
		{`Add-Content $HOME\.bashrc 'export HUSKY=0'`, "shell-startup-write"},
		{`Add-Content "$env:USERPROFILE\.bashrc" 'export HUSKY=0'`, "shell-startup-write"},
		{`Remove-Item .claude\settings.json`, "self-protect-client-hooks"},
		{`Remove-Item "C:\work\build\" -Recurse; git status`, ""},
		{`Copy-Item .\src\a.txt .\dst\`, ""},
	} {
		payload, err := json.Marshal(map[string]any{"session_id": "s", "cwd": repo, "hook_event_name": "PreToolUse",
			"tool_name": "PowerShell", "tool_input": map[string]any{"command": c.command}})
		if err != nil {
			t.Fatal(err)
		}
		resp := hook.Run(context.Background(), deps, hook.Request{Client: "claude", Event: "pre-tool",
			Stdin: bytes.NewReader(payload), LookupEnv: lookup})
		v := resp.Verdict
		if c.rule == "" && v.Kind != verdict.Allow || c.rule != "" && (v.Kind != verdict.Deny || v.RuleID != c.rule) {
			t.Errorf("PowerShell %q: got %v %q (%s), want rule %q", c.command, v.Kind, v.RuleID, v.Reason, c.rule)
		}
	}
}
