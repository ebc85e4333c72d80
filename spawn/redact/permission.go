package redact

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/hookwarden/hookwarden/internal/shellquote"
)

// HookPermission is `hookwarden redact --hook permission`: the run's
// PermissionRequest arbiter on its own. Under the entry spawn
// renders the PermissionRequest handler with the pre_tool attachment's
// argv (--hook pre-tool), which answers a PermissionRequest payload the
// same way, so the arbiter needs no approval of its own.
const HookPermission = "permission"

// claudePermissionEvent is the hook_event_name of Claude Code 2.1.328's
// PermissionRequest payload (its bundle: executePermissionRequestHooks
// builds {…, hook_event_name: "PermissionRequest", tool_name, tool_input,
// permission_suggestions, mcp_server for an MCP tool}; no tool_use_id;
// recorded in testdata/clients/claude/2.1.328/permission-request.*.json).
const claudePermissionEvent = "PermissionRequest"

// shellRewrite is the shell route's rewritten command: cmd run by
// `<self> redact --hook run --engine <engine> -- /bin/sh -c <cmd>`, one
// shell line (shellquote.Join), so its stdout and stderr pass the
// redactor.
func shellRewrite(self, engine, cmd string) string {
	return shellquote.Join([]string{self, "redact", "--hook", HookRun, "--engine", engine, "--", "/bin/sh", "-c", cmd})
}

// unwrapRewrite returns the command inside command when command is
// exactly shellRewrite(self, engine, inner) for some inner: the fixed
// prefix, then one word in Join's own quoting and nothing after it (the
// word re-quoted must give back the same bytes, so a "; cat secret" or a
// second word after the quoted command does not match, and neither does a
// quoting that another shell would split differently).
func unwrapRewrite(self, engine, command string) (string, bool) {
	prefix := shellRewrite(self, engine, "")
	prefix = strings.TrimSuffix(prefix, "''") // the empty word's quoting
	rest, ok := strings.CutPrefix(command, prefix)
	if !ok || rest == "" {
		return "", false
	}
	inner := rest
	if rest[0] == '\'' {
		if len(rest) < 2 || rest[len(rest)-1] != '\'' {
			return "", false
		}
		inner = strings.ReplaceAll(rest[1:len(rest)-1], `'\''`, "'")
	}
	if inner == "" || shellquote.Word(inner) != rest {
		return "", false
	}
	return inner, true
}

// claudeBashInputKeys are the members of a Bash tool_input the arbiter
// lets through with a rewritten command: the command and Claude Code
// 2.1.328's description and timeout (sdk-tools.d.ts BashInput). Anything
// else (run_in_background, whose output the model reads through another
// tool; dangerouslyDisableSandbox) is denied: the shell route was built
// and measured for a foreground command.
var claudeBashInputKeys = []string{"command", "description", "timeout"}

// Permission is the PermissionRequest arbiter of a Claude run under the
// redaction entry (`--hook permission`; --hook pre-tool answers a
// PermissionRequest payload the same way). Under the entry's posture
// (default permission mode, permissions.ask ["*"]) Claude Code 2.1.328
// asks it about every call that reaches its permission check: the pre-tool
// hook's allow of a rewritten shell command (whose rule check meets the
// ask rule), a call the pre-tool hook let through with no decision (an MCP
// call of the run's proxies), and a call whose pre-tool hook exited 0
// without a decision (TestRealClaudePermissionRequestArbiter). It allows
// exactly the shell route's rewrite of a command holding no table value
// (unwrapRewrite) and the MCP calls the pre-tool route admits (the payload
// carries mcp_server as PreToolUse's does), and denies everything else
// with a reason; an unreadable payload, table or read policy denies. It
// writes no receipt: the payload carries no tool_use_id.
func Permission(e Env) error {
	p, m, err := toolCall(e)
	return permissionAnswer(e, p, m, err)
}

// permissionAnswer judges one PermissionRequest payload p (read with
// table m, or loadErr) and prints the answer.
func permissionAnswer(e Env, p ToolPayload, m *Matcher, loadErr error) error {
	reason := ""
	switch {
	case loadErr != nil:
		reason = loadErr.Error()
	case e.Engine != "claude":
		reason = fmt.Sprintf("hookwarden redact: the permission arbiter answers Claude Code only, not %s", e.Engine)
	case p.HookEventName != "" && p.HookEventName != claudePermissionEvent:
		reason = fmt.Sprintf("hookwarden redact: the permission arbiter got a %q payload", p.HookEventName)
	case p.ToolName == "Bash":
		reason = admitRewrite(e, p, m)
	case isClaudeMCPRoute(p.ToolName):
		if err := admitMCPRoute(e, p); err != nil {
			reason = err.Error()
		}
	default:
		reason = fmt.Sprintf("hookwarden redact: %s is not a mediated route under the redaction entry; only the pre-tool hook's routes are allowed", p.ToolName)
	}
	if reason == "" {
		return permissionDecision(e.Stdout, "allow", "")
	}
	return permissionDecision(e.Stdout, "deny", reason)
}

// admitRewrite returns "" when the Bash call is the shell route's rewrite
// of a command with no table value, else the reason it is not.
func admitRewrite(e Env, p ToolPayload, m *Matcher) string {
	var in map[string]json.RawMessage
	if err := json.Unmarshal(p.ToolInput, &in); err != nil {
		return "hookwarden redact: unreadable Bash input"
	}
	for k := range in {
		if !slices.Contains(claudeBashInputKeys, k) {
			return fmt.Sprintf("hookwarden redact: a Bash call with %q is not the shell route", k)
		}
	}
	var cmd string
	json.Unmarshal(in["command"], &cmd)
	if e.Self == "" {
		return "hookwarden redact: the redactor's own path is unknown"
	}
	if _, ok := unwrapRewrite(e.Self, e.Engine, cmd); !ok {
		return "hookwarden redact: only the shell route's rewritten command runs under the redaction entry (the pre-tool hook did not rewrite this one)"
	}
	if m.Contains([]byte(cmd)) {
		return "hookwarden redact: the command holds a redacted value"
	}
	return ""
}

// permissionDecision prints Claude Code's PermissionRequest answer
// {"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":
// {"behavior":"allow"|"deny","message"?}}} (the shape the 2.1.328 run
// honoured in TestRealClaudePermissionRequestArbiter).
func permissionDecision(w io.Writer, behavior, message string) error {
	d := map[string]any{"behavior": behavior}
	if message != "" {
		d["message"] = message
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": claudePermissionEvent, "decision": d}})
}

// isClaudeMCPRoute reports whether a Claude tool belongs to the MCP route:
// an MCP tool (mcp__…), a resource tool (claudeMCPResourceTools) or
// ToolSearch.
func isClaudeMCPRoute(tool string) bool {
	return tool == claudeToolSearch || slices.Contains(claudeMCPResourceTools, tool) || strings.HasPrefix(tool, "mcp__")
}

// admitMCPRoute returns nil when a Claude call of the MCP route may go on
// with no decision: ToolSearch in a run with proxied servers, a resource
// tool naming one (admitMCPResource), an MCP tool of one (admitMCP).
func admitMCPRoute(e Env, p ToolPayload) error {
	switch {
	case p.ToolName == claudeToolSearch:
		pol, _, err := readPolicy(e)
		if err != nil {
			return err
		}
		if len(pol.MCPServers) == 0 {
			return fail("%s is admitted only in a run with proxied MCP servers, whose tool schemas it loads", p.ToolName)
		}
		return nil
	case slices.Contains(claudeMCPResourceTools, p.ToolName):
		return admitMCPResource(e, p)
	default:
		return admitMCP(e, p)
	}
}
