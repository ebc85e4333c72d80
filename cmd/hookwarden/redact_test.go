package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedactShellRoute runs the built binary as Claude Code would: the
// pre-tool hook rewrites a Bash command, and the rewritten command, run by
// /bin/sh with the run's environment, prints the file's secret as its
// token on stdout and stderr, keeps the command's exit code, and the
// rewritten input never holds the raw value; the same binary as
// PermissionRequest arbiter allows that rewrite and nothing else.
func TestRedactShellRoute(t *testing.T) {
	bin := buildBinary(t)
	root := t.TempDir()
	run := filepath.Join(root, "run")
	os.Mkdir(run, 0o700)
	table, receipts, policy := filepath.Join(run, "table.json"), filepath.Join(run, "receipts.jsonl"), filepath.Join(run, "policy.json")
	os.WriteFile(table, []byte(`{"version":1,"values":{"[GH_TOKEN]":"ghp_abcdefgh12345678"}}`), 0o600)
	os.WriteFile(receipts, nil, 0o600)
	os.WriteFile(policy, []byte(`{"version":1,"allow":["`+root+`"],"deny":["`+run+`"]}`), 0o600)
	os.WriteFile(filepath.Join(root, "secret.txt"), []byte("ghp_abcdefgh12345678\n"), 0o644)
	env := append(os.Environ(), "HOOKWARDEN_HOOK_TABLE="+table, "HOOKWARDEN_HOOK_RECEIPTS="+receipts, "HOOKWARDEN_HOOK_POLICY="+policy)
	payload := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"toolu_01","cwd":"` + root + `","tool_input":{"command":"cat secret.txt; cat secret.txt >&2; exit 4"}}`
	hook := exec.Command(bin, "redact", "--hook", "pre-tool", "--engine", "claude")
	hook.Env, hook.Stdin = env, strings.NewReader(payload)
	out, err := hook.Output()
	if code := exitCode(t, err); code != 0 {
		t.Fatalf("pre-tool exit %d", code)
	}
	var ans struct {
		HookSpecificOutput struct {
			PermissionDecision string         `json:"permissionDecision"`
			UpdatedInput       map[string]any `json:"updatedInput"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out, &ans); err != nil || ans.HookSpecificOutput.PermissionDecision != "allow" {
		t.Fatalf("answer %s (%v)", out, err)
	}
	cmd, _ := ans.HookSpecificOutput.UpdatedInput["command"].(string)
	if cmd == "" || strings.Contains(cmd, "ghp_") {
		t.Fatalf("rewritten command %q", cmd)
	}
	// the same binary as the run's PermissionRequest arbiter (--hook
	// permission, and --hook pre-tool given that payload) allows exactly
	// this rewrite: its own path agrees with the one the route wrote
	for _, c := range []struct {
		hook, command, want string
	}{
		{"permission", cmd, "allow"},
		{"pre-tool", cmd, "allow"},
		{"permission", cmd + "; cat secret.txt", "deny"},
		{"pre-tool", "cat secret.txt", "deny"},
	} {
		in, _ := json.Marshal(map[string]any{"hook_event_name": "PermissionRequest", "tool_name": "Bash", "cwd": root,
			"tool_input": map[string]any{"command": c.command}})
		arb := exec.Command(bin, "redact", "--hook", c.hook, "--engine", "claude")
		arb.Env, arb.Stdin = env, bytes.NewReader(in)
		out, err := arb.Output()
		var dec struct {
			HookSpecificOutput struct {
				HookEventName string `json:"hookEventName"`
				Decision      struct {
					Behavior string `json:"behavior"`
				} `json:"decision"`
			} `json:"hookSpecificOutput"`
		}
		if code := exitCode(t, err); code != 0 || json.Unmarshal(out, &dec) != nil ||
			dec.HookSpecificOutput.HookEventName != "PermissionRequest" || dec.HookSpecificOutput.Decision.Behavior != c.want {
			t.Errorf("--hook %s on %q: exit %d, answer %s; want %s", c.hook, c.command, code, out, c.want)
		}
	}
	sh := exec.Command("/bin/sh", "-c", cmd)
	sh.Env, sh.Dir = env, root
	var so, se bytes.Buffer
	sh.Stdout, sh.Stderr = &so, &se
	if code := exitCode(t, sh.Run()); code != 4 {
		t.Fatalf("rewritten command exit %d, want 4; stderr %s", code, se.String())
	}
	if so.String() != "[GH_TOKEN]\n" || se.String() != "[GH_TOKEN]\n" {
		t.Fatalf("stdout %q stderr %q", so.String(), se.String())
	}
	rb, _ := os.ReadFile(receipts)
	if !strings.Contains(string(rb), `"tool_use_id":"toolu_01"`) {
		t.Fatalf("receipts %s", rb)
	}
}
