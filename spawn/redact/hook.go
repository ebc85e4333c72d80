package redact

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hookwarden/hookwarden/internal/atomicfile"
	"github.com/hookwarden/hookwarden/internal/fileowner"
	"github.com/hookwarden/hookwarden/internal/regread"
)

// Hook names of `hookwarden redact --hook`. Prompt, PreTool, PostTool,
// Stop and Exit are the redaction entry's events (ADR-0134 D7); Run is the
// shell route's redactor, the program a rewritten shell command runs.
const (
	HookPrompt   = "prompt"
	HookPreTool  = "pre-tool"
	HookPostTool = "post-tool"
	HookStop     = "stop"
	HookExit     = "exit"
	HookRun      = "run"
)

// Bounds of what the hook reads: a hook payload, a file read for the model
// (larger files are denied, not truncated), a transcript, and a shell
// command's combined output (past it the command is killed and its
// redacted output ends with a notice).
const (
	MaxPayloadBytes    = 16 << 20
	MaxReadBytes       = 4 << 20
	MaxTranscriptBytes = 512 << 20
	MaxOutputBytes     = 16 << 20
)

// Env is what one hook process sees: its argv choices, its environment and
// its streams.
type Env struct {
	Engine     string // claude or codex
	ValuesPath string // the configured values file (--values)
	Self       string // absolute path of this hookwarden binary (for the shell route)
	Getenv     func(string) string
	Stdin      io.Reader
	Stdout     io.Writer
	Stderr     io.Writer
}

// Failure is a hook outcome that fails the run or refuses the spawn; the
// command prints it on stderr and exits 1.
type Failure struct{ Reason string }

func (f *Failure) Error() string { return "hookwarden redact: " + f.Reason }

func fail(format string, a ...any) error { return &Failure{Reason: fmt.Sprintf(format, a...)} }

// ErrBlock is PreTool's answer for Codex: the reason is on stderr and the
// command exits 2, which codex-cli 0.169.0 takes as a deny ("Command
// blocked by PreToolUse hook: <stderr>", ../shared/e2e README section 2).
var ErrBlock = errors.New("blocked")

func readPayload(r io.Reader, v any) error {
	b, err := io.ReadAll(io.LimitReader(r, MaxPayloadBytes+1))
	if err != nil {
		return fail("read payload: %v", err)
	}
	if len(b) > MaxPayloadBytes {
		return fail("payload larger than %d bytes", MaxPayloadBytes)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fail("payload is not the expected JSON: %v", err)
	}
	return nil
}

// loadRunTable reads the run's table from HOOKWARDEN_HOOK_TABLE (mode 0600,
// this account's).
func loadRunTable(e Env) (*Matcher, []byte, error) {
	p := e.Getenv(EnvTable)
	if p == "" || !filepath.IsAbs(p) {
		return nil, nil, fail("%s is not set to an absolute path", EnvTable)
	}
	_, m, b, err := LoadTable(p)
	if err != nil {
		return nil, nil, fail("table: %v", err)
	}
	return m, b, nil
}

// Receipt is one line of the run's receipts file (HOOKWARDEN_HOOK_RECEIPTS):
// the event, the engine's id for the tool call, the tool, the route taken
// ("read", "shell", "deny", "block", "pass") and, for a stop scan, the
// count (-1 when the transcript could not be scanned) and the transcript
// path the engine named.
type Receipt struct {
	Event      string `json:"event"`
	Engine     string `json:"engine"`
	ToolUseID  string `json:"tool_use_id,omitempty"`
	Tool       string `json:"tool,omitempty"`
	Route      string `json:"route,omitempty"`
	Count      *int   `json:"count,omitempty"`
	Transcript string `json:"transcript_path,omitempty"`
}

// AppendReceipt is appendReceipt for the MCP route's proxy
// (spawn/mcpproxy): one receipt line in the file HOOKWARDEN_HOOK_RECEIPTS
// names.
func AppendReceipt(e Env, r Receipt) error { return appendReceipt(e, r) }

// RunMatcher returns the matcher of the run's table HOOKWARDEN_HOOK_TABLE
// names (this account's 0600 file), or a *Failure.
func RunMatcher(e Env) (*Matcher, error) {
	m, _, err := loadRunTable(e)
	return m, err
}

// appendReceipt appends one JSON line to the receipts file, which must
// already exist as this account's 0600 regular file (spawn exec creates
// it); it is opened without following a link and non-blocking.
func appendReceipt(e Env, r Receipt) error {
	p := e.Getenv(EnvReceipts)
	if p == "" || !filepath.IsAbs(p) {
		return fail("%s is not set to an absolute path", EnvReceipts)
	}
	f, err := openReceipts(p)
	if err != nil {
		return fail("receipts: %v", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 != 0 || !fileowner.Self(fi) {
		return fail("receipts %s: not this account's 0600 regular file", p)
	}
	b, _ := json.Marshal(r)
	if _, err := f.Write(append(b, '\n')); err != nil {
		return fail("receipts %s: %v", p, err)
	}
	return nil
}

// PromptText is one channel of agent_prompt's texts.
type PromptText struct {
	Channel string `json:"channel"`
	Text    string `json:"text"`
}

// PromptPayload is agent_prompt's stdin:
// {"version":1,"run_id","engine","child":n,"texts":[{channel,text}]}.
type PromptPayload struct {
	Version int          `json:"version"`
	RunID   string       `json:"run_id"`
	Engine  string       `json:"engine"`
	Child   int          `json:"child"`
	Texts   []PromptText `json:"texts"`
}

// Prompt is the agent_prompt hook: it reads the configured values file
// (ReadPrivate: this account's, mode 0600), at child 1 writes them whole as
// the run's table (WriteRunFile at HOOKWARDEN_HOOK_TABLE; a later child
// writes nothing), and prints {"texts":[…]} with every channel, in order,
// each value replaced by its token.
func Prompt(e Env) error {
	var p PromptPayload
	if err := readPayload(e.Stdin, &p); err != nil {
		return err
	}
	if p.Version != 1 || p.Child < 1 {
		return fail("agent_prompt payload: want version 1 and child >= 1")
	}
	b, err := ReadPrivate(e.ValuesPath)
	if err != nil {
		return fail("values: %v", err)
	}
	t, m, err := ParseTable(b)
	if err != nil {
		return fail("values %s: %v", e.ValuesPath, err)
	}
	if p.Child == 1 {
		tp := e.Getenv(EnvTable)
		if tp == "" || !filepath.IsAbs(tp) {
			return fail("%s is not set to an absolute path", EnvTable)
		}
		body, err := t.Marshal()
		if err != nil {
			return fail("table: %v", err)
		}
		if err := WriteRunFile(tp, body); err != nil {
			return fail("table: %v", err)
		}
	}
	out := struct {
		Texts []PromptText `json:"texts"`
	}{Texts: make([]PromptText, len(p.Texts))}
	for i, x := range p.Texts {
		r, _, err := m.Redact([]byte(x.Text))
		if err != nil {
			return fail("channel %s: %v", x.Channel, err)
		}
		out.Texts[i] = PromptText{Channel: x.Channel, Text: string(r)}
	}
	enc := json.NewEncoder(e.Stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// ToolPayload is the part of a PreToolUse / PostToolUse / Stop payload the
// hook reads; the fields are those Claude Code 2.1.328 and codex-cli
// 0.169.0 send (recorded in testdata/clients/claude/2.1.328/pre-tool.json,
// post-tool.deny-allow.json, stop.json and
// testdata/clients/codex/0.169.0/pre-tool.exit2.json).
type ToolPayload struct {
	// HookEventName is the event Claude Code names (PreToolUse,
	// PermissionRequest, …); PreTool answers a PermissionRequest payload
	// as the permission arbiter (Permission).
	HookEventName  string          `json:"hook_event_name"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolResponse   json.RawMessage `json:"tool_response"`
	ToolUseID      string          `json:"tool_use_id"`
	// Error is a failed tool call's error text (Claude Code 2.1.328's
	// PostToolUseFailure payload: "error", the text the model receives).
	Error string `json:"error"`
	// MCPServer is Claude Code 2.1.328's identity of an MCP tool's server:
	// {"name": the configured name, "source": "plugin", "sdk", a scope, or
	// "dynamic" for a server of --mcp-config} (its bundle, the PreToolUse
	// input built as {…, tool_name, tool_input, tool_use_id, mcp_server:
	// {name: serverName, source: …}}); absent for other tools.
	MCPServer *MCPServerID `json:"mcp_server"`
}

// MCPServerID is the mcp_server member of a Claude Code hook payload.
type MCPServerID struct {
	Name   string `json:"name"`
	Source string `json:"source"`
}

// MCPReceiptEvent is the receipts event the MCP route's proxy writes for
// each tools/call it sends upstream (spawn/mcpproxy), with the engine's
// tool-use id.
const MCPReceiptEvent = "mcp_call"

// claudeMCPSource is the source Claude Code 2.1.328 gives a server of
// --mcp-config (its bundle: scope "dynamic"; recorded in
// testdata/clients/claude/2.1.328/pre-tool-mcp.json by
// TestRealClaudeMCPProxyRun); every server of a run under the entry comes
// from the --mcp-config spawn exec writes.
const claudeMCPSource = "dynamic"

// claudeMCPToolPrefix returns the tool-name prefix Claude Code gives the
// tools of server name ("mcp__<name>__"; names spawn exec accepts are
// already in Claude's normalised alphabet).
func claudeMCPToolPrefix(name string) string { return "mcp__" + name + "__" }

// Policy is the run's read policy file (HOOKWARDEN_HOOK_POLICY):
// {"version":1,"allow":[abs dir…],"deny":[abs dir…],"mcp_servers":[name…]}. A read is admitted
// when the file's real path lies under an allowed directory and under no
// denied one; the directory of the run's table is always denied.
type Policy struct {
	Version int      `json:"version"`
	Allow   []string `json:"allow"`
	Deny    []string `json:"deny"`
	// MCPServers are the names of the run's MCP servers, each behind the
	// run's redacting proxy (spawn exec writes them; the pre-tool hook
	// admits an MCP call only for one of them).
	MCPServers []string `json:"mcp_servers,omitempty"`
}

func under(p, dir string) bool {
	dir = filepath.Clean(dir)
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator)) || dir == "/"
}

// readPolicy reads the run's read policy (HOOKWARDEN_HOOK_POLICY, this
// account's 0600 file, version 1, no unknown member) and returns it with
// its path.
func readPolicy(e Env) (*Policy, string, error) {
	pp := e.Getenv(EnvPolicy)
	if pp == "" || !filepath.IsAbs(pp) {
		return nil, "", fail("%s is not set to an absolute path", EnvPolicy)
	}
	b, err := ReadPrivate(pp)
	if err != nil {
		return nil, "", fail("read policy: %v", err)
	}
	var pol Policy
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&pol); err != nil || pol.Version != 1 {
		return nil, "", fail("read policy %s: not a version-1 policy", pp)
	}
	return &pol, pp, nil
}

// admitMCP returns nil when a Claude MCP call may go on: the payload names
// its server (mcp_server), with the source of a --mcp-config server, the
// name is one of the run's proxied servers (the read policy's
// mcp_servers), and the tool name carries that server's prefix. A server
// name alone is not proof of the route: a plugin's or connector's server
// under the same name has another source, and the post-tool hook and
// agent_exit also require the proxy's receipt of the call.
func admitMCP(e Env, p ToolPayload) error {
	pol, _, err := readPolicy(e)
	if err != nil {
		return err
	}
	s := p.MCPServer
	switch {
	case s == nil:
		return fail("%s: the payload names no MCP server; only the run's proxied servers are a mediated route", p.ToolName)
	case s.Source != claudeMCPSource:
		return fail("%s: its server %q comes from %q, not from the run's --mcp-config; only the run's proxied servers are a mediated route", p.ToolName, s.Name, s.Source)
	case !slices.Contains(pol.MCPServers, s.Name):
		return fail("%s: the server %q is not one of the run's proxied MCP servers", p.ToolName, s.Name)
	case !strings.HasPrefix(p.ToolName, claudeMCPToolPrefix(s.Name)):
		return fail("%s: the tool name does not belong to the server %q the payload names", p.ToolName, s.Name)
	}
	return nil
}

// claudeToolSearch is Claude Code 2.1.328's tool that loads the schemas
// of deferred tools (MCP tools are deferred by default: the request lists
// their names and says to load them "via ToolSearch"); its result is tool
// definitions only, Claude's own and, under the entry, those the run's
// proxies listed redacted (TestRealClaudeMCPToolSearch).
const claudeToolSearch = "ToolSearch"

// claudeMCPResourceTools are Claude Code 2.1.328's own tools that read an
// MCP server's resources (its sdk-tools.d.ts: ListMcpResourcesInput
// {server?}, ReadMcpResourceInput and ReadMcpResourceDirInput {server,
// uri}); the read goes to the named server, under the entry one of the
// run's proxies.
var claudeMCPResourceTools = []string{"ListMcpResourcesTool", "ReadMcpResourceTool", "ReadMcpResourceDirTool"}

// admitMCPResource returns nil when a Claude resource tool names, in its
// input's server, one of the run's proxied servers; a list of every
// server's resources (no server named) is refused, since it is not
// limited to the run's servers by anything the hook can check.
func admitMCPResource(e Env, p ToolPayload) error {
	pol, _, err := readPolicy(e)
	if err != nil {
		return err
	}
	var in struct {
		Server string `json:"server"`
	}
	json.Unmarshal(p.ToolInput, &in)
	if in.Server == "" || !slices.Contains(pol.MCPServers, in.Server) {
		return fail("%s: the server %q is not one of the run's proxied MCP servers (name one)", p.ToolName, in.Server)
	}
	return nil
}

// admitPath applies the run's read policy to real, the resolved path of
// file: under a denied directory (the policy's, the table's, the policy
// file's) is refused, under an allowed one admitted, anything else
// refused.
func admitPath(e Env, file, real string) error {
	pol, pp, err := readPolicy(e)
	if err != nil {
		return err
	}
	deny := append(slices.Clone(pol.Deny), filepath.Dir(e.Getenv(EnvTable)), filepath.Dir(pp))
	for _, dd := range deny {
		rd, err := filepath.EvalSymlinks(dd)
		if err != nil {
			rd = filepath.Clean(dd)
		}
		if under(real, rd) || under(real, filepath.Clean(dd)) {
			return fail("read %s: the read policy denies it", file)
		}
	}
	for _, a := range pol.Allow {
		ra, err := filepath.EvalSymlinks(a)
		if err == nil && under(real, ra) {
			return nil
		}
	}
	return fail("read %s: outside the read policy", file)
}

// preToolAnswer is Claude Code's PreToolUse JSON answer:
// {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":
// "allow"|"deny","permissionDecisionReason":…,"updatedInput":{…}}}
// (updatedInput appears in the 2.1.328 bundle's permission code: "updatedInput
// for <tool> failed schema validation").
func preToolAnswer(w io.Writer, decision, reason string, updated map[string]any) error {
	h := map[string]any{"hookEventName": "PreToolUse", "permissionDecision": decision}
	if reason != "" {
		h["permissionDecisionReason"] = reason
	}
	if updated != nil {
		h["updatedInput"] = updated
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(map[string]any{"hookSpecificOutput": h})
}

// PreTool is the pre_tool hook. Claude: a Read is performed by the hook
// under the read policy and its redacted text returned as the deny reason
// the model sees; a Bash command is rewritten to run under `hookwarden
// redact --hook run` so its stdout and stderr pass the redactor (a command
// that itself holds a table value is denied: the rewritten input never
// carries one); an MCP tool (mcp__…) of one of the run's proxied servers
// (admitMCP), Claude's resource tools naming one (admitMCPResource) and,
// in a run with proxied servers, ToolSearch go on with no decision, so the engine's own permissions apply; every other
// tool is denied. Codex: a Bash command is
// rewritten the same way (codex-cli 0.169.0 runs updatedInput,
// TestRealCodexPreToolRewrite); every other tool is denied by exit 2 (it
// has no file-read tool to mediate). Each call appends a
// receipt with the tool call's id first; when the receipt cannot be
// written the call is denied.
func PreTool(e Env) error {
	p, m, err := toolCall(e)
	if p.HookEventName == claudePermissionEvent {
		// the same handler argv is the run's PermissionRequest arbiter
		// (spawn renders it so under the entry): it answers as one
		return permissionAnswer(e, p, m, err)
	}
	if err != nil {
		return err
	}
	route, reason := "deny", ""
	var updated map[string]any
	switch {
	case e.Engine == "claude" && p.ToolName == "Read":
		var in struct {
			FilePath string `json:"file_path"`
		}
		json.Unmarshal(p.ToolInput, &in)
		b, err := readAdmitted(e, in.FilePath, p.Cwd)
		if err != nil {
			reason = err.Error()
			break
		}
		r, _, err := m.Redact(b)
		if err != nil {
			reason = "hookwarden redact: the file could not be redacted; not shown"
			break
		}
		route, reason = "read", fmt.Sprintf("hookwarden read %s for you (redacted):\n%s", in.FilePath, r)
	case p.ToolName == "Bash":
		var in map[string]any
		if err := json.Unmarshal(p.ToolInput, &in); err != nil {
			reason = "hookwarden redact: unreadable Bash input"
			break
		}
		cmd, _ := in["command"].(string)
		if cmd == "" || m.Contains([]byte(cmd)) {
			reason = "hookwarden redact: the command is empty or holds a redacted value; use the token's variable instead"
			break
		}
		if !filepath.IsAbs(e.Self) {
			reason = "hookwarden redact: the redactor's own path is unknown"
			break
		}
		in["command"] = shellRewrite(e.Self, e.Engine, cmd)
		route, updated = "shell", in
	case e.Engine == "claude" && isClaudeMCPRoute(p.ToolName):
		if err := admitMCPRoute(e, p); err != nil {
			reason = err.Error()
			break
		}
		// no decision: the call goes on under the engine's own permissions
		// (under the entry the permission arbiter, Permission), through the
		// run's proxy
		route = "mcp"
	default:
		reason = fmt.Sprintf("hookwarden redact: %s is not a mediated route under the redaction entry (file reads, shell commands and the run's proxied MCP servers are)", p.ToolName)
	}
	if err := appendReceipt(e, Receipt{Event: "pre_tool", Engine: e.Engine, ToolUseID: p.ToolUseID, Tool: p.ToolName, Route: route, Transcript: p.TranscriptPath}); err != nil {
		route, updated, reason = "deny", nil, err.Error()
	}
	if route == "mcp" {
		return nil
	}
	if route == "shell" {
		// Claude Code 2.1.328 and codex-cli 0.169.0 both run updatedInput
		// (TestRealClaudeRedactShellRoute, TestRealCodexPreToolRewrite);
		// Codex refuses a permissionDecisionReason beside allow, so none is
		// sent (its binary: "PreToolUse hook returned
		// permissionDecisionReason without permissionDecision" and
		// "unsupported permissionDecision:allow" without updatedInput)
		return preToolAnswer(e.Stdout, "allow", "", updated)
	}
	if e.Engine == "codex" {
		// codex-cli 0.169.0: exit 2 with the reason on stderr blocks the
		// call ("Command blocked by PreToolUse hook", e2e README section 2)
		fmt.Fprintln(e.Stderr, reason)
		return ErrBlock
	}
	return preToolAnswer(e.Stdout, "deny", reason, nil)
}

// PostTool is the post_tool hook: a tool result holding a table value (in
// any spelling) is blocked and the block receipted; any other result
// passes. The block is {"decision":"block","reason":…} (Claude Code's and
// codex-cli 0.169.0's PostToolUse form; Codex replaces the result the model
// receives with the reason, TestRealCodexPostToolBlock). For Claude the
// answer also carries hookSpecificOutput.updatedToolOutput: the tool
// result with every value replaced by its token, in the tool's own output
// shape (Claude Code 2.1.328's bundle: "Hook … replaced tool output"; a
// replacement that does not match the tool's output shape is dropped there
// with "using original output", so only a redaction that is still the same
// JSON shape is sent: token replacement inside JSON strings keeps it).
// A Claude MCP tool's result (mcp__…) whose call the run's proxy did not
// receipt is blocked whole: a result from anywhere but the proxy is
// replaced by a notice.
// TestRealClaudePostToolBlock measures that the model then receives the
// tokens, not the raw result.
func PostTool(e Env) error {
	p, m, err := toolCall(e)
	if err != nil {
		return err
	}
	if p.HookEventName == ClaudePostToolFailure {
		return postToolFailure(e, p, m)
	}
	route := "pass"
	if m.Contains(p.ToolResponse) {
		route = "block"
	}
	unproxied := e.Engine == "claude" && strings.HasPrefix(p.ToolName, "mcp__") && !proxyReceipted(e, p.ToolUseID)
	if unproxied {
		route = "block"
	}
	if err := appendReceipt(e, Receipt{Event: "post_tool", Engine: e.Engine, ToolUseID: p.ToolUseID, Tool: p.ToolName, Route: route}); err != nil {
		route = "block"
	}
	if route != "block" {
		return nil
	}
	out := map[string]any{"decision": "block", "reason": "hookwarden redact: the tool result held a redacted value and was withheld"}
	if unproxied {
		// the result came from a server the run's proxy did not receipt:
		// nothing of it is shown, in the shape Claude's MCP results have
		// (a text, or a list of content blocks)
		notice := "hookwarden redact: this MCP result did not pass the run's redacting proxy and was withheld"
		out["reason"] = notice
		var repl any = notice
		if t := bytes.TrimSpace(p.ToolResponse); len(t) > 0 && t[0] == '[' {
			repl = []map[string]string{{"type": "text", "text": notice}}
		}
		out["hookSpecificOutput"] = map[string]any{"hookEventName": "PostToolUse", "updatedToolOutput": repl}
	} else if e.Engine == "claude" {
		if red, _, err := m.Redact(p.ToolResponse); err == nil && json.Valid(red) && len(bytes.TrimSpace(red)) > 0 {
			out["hookSpecificOutput"] = map[string]any{"hookEventName": "PostToolUse", "updatedToolOutput": json.RawMessage(red)}
		}
	}
	enc := json.NewEncoder(e.Stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// ClaudePostToolFailure is Claude Code 2.1.328's event for a failed tool
// call, which the redaction entry's post-tool hook also serves.
const ClaudePostToolFailure = "PostToolUseFailure"

// RouteHalt is the receipt route of a failed tool call whose error held a
// table value: the session was ended before the model received it, and
// agent_exit fails the run.
const RouteHalt = "halt"

// postToolFailure answers a PostToolUseFailure payload: Claude Code
// 2.1.328 lets such a hook add context but not replace the error text
// (its bundle's PostToolUseFailure hookSpecificOutput has additionalContext
// only), so an error holding a table value (or a receipt that cannot be
// written) ends the session with {"continue":false,"stopReason"} before
// the model's next request, and the receipt (route RouteHalt) fails the
// run at agent_exit. A clean error passes with no answer.
func postToolFailure(e Env, p ToolPayload, m *Matcher) error {
	route := "pass"
	if m.Contains([]byte(p.Error)) || m.Contains(p.ToolResponse) {
		route = RouteHalt
	}
	if err := appendReceipt(e, Receipt{Event: "post_tool_failure", Engine: e.Engine, ToolUseID: p.ToolUseID, Tool: p.ToolName, Route: route}); err != nil {
		route = RouteHalt
	}
	if route != RouteHalt {
		return nil
	}
	enc := json.NewEncoder(e.Stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(map[string]any{"continue": false,
		"stopReason": "hookwarden redact: a failed tool call's error held a value of the run's table; the session was stopped"})
}

// proxyReceipted reports whether the run's receipts hold the MCP proxy's
// receipt (MCPReceiptEvent) of the tool call id; an unreadable receipts
// file counts as no.
func proxyReceipted(e Env, id string) bool {
	rp := e.Getenv(EnvReceipts)
	if id == "" || rp == "" {
		return false
	}
	rb, err := ReadPrivate(rp)
	if err != nil {
		return false
	}
	for _, ln := range bytes.Split(rb, []byte("\n")) {
		var r Receipt
		if json.Unmarshal(ln, &r) == nil && r.Event == MCPReceiptEvent && r.ToolUseID == id {
			return true
		}
	}
	return false
}

// toolCall reads an engine hook's payload and the run's table.
func toolCall(e Env) (ToolPayload, *Matcher, error) {
	var p ToolPayload
	if err := readPayload(e.Stdin, &p); err != nil {
		return p, nil, err
	}
	m, _, err := loadRunTable(e)
	return p, m, err
}

// readTranscript reads the transcript at path (regular file, bounded).
func readTranscript(path string) ([]byte, error) {
	return regread.File(path, MaxTranscriptBytes)
}

// TranscriptWait bounds how long Stop waits for a transcript that does
// not exist yet: Claude Code 2.1.328 writes its transcript behind the
// turn, and on a run with no tool call its Stop hook fired before the
// file was there (TestRealClaudeNoStdinRoute on CI, 2026-12-01: the
// count was -1 and the run failed at agent_exit). Polled every
// transcriptPoll; well inside the Stop hook's timeout.
const (
	TranscriptWait = 3 * time.Second
	transcriptPoll = 25 * time.Millisecond
)

// Stop is the engine's Stop hook: it counts table values in the
// transcript the engine names and appends the count (-1 when the
// transcript cannot be read, or does not exist within TranscriptWait) to
// the receipts; it never rewrites the transcript, which the engine may
// still append to, and never blocks the stop. A count other than zero
// fails the run at agent_exit.
func Stop(e Env) error {
	p, m, err := toolCall(e)
	if err != nil {
		return err
	}
	n := -1
	b, err := readTranscript(p.TranscriptPath)
	for end := time.Now().Add(TranscriptWait); errors.Is(err, fs.ErrNotExist) && time.Now().Before(end); {
		time.Sleep(transcriptPoll)
		b, err = readTranscript(p.TranscriptPath)
	}
	if err == nil {
		n = m.Count(b)
	}
	return appendReceipt(e, Receipt{Event: "stop", Engine: e.Engine, Count: &n, Transcript: p.TranscriptPath})
}

// ExitPayload is agent_exit's stdin: {"version":1,"run_id","engine",
// "child","table_sha256","exit":{"code"}|{"signal"},"session_id",
// "transcript"}.
type ExitPayload struct {
	Version     int             `json:"version"`
	RunID       string          `json:"run_id"`
	Engine      string          `json:"engine"`
	Child       int             `json:"child"`
	TableSHA256 string          `json:"table_sha256"`
	Exit        json.RawMessage `json:"exit"`
	SessionID   *string         `json:"session_id"`
	Transcript  *string         `json:"transcript"`
	// PreHookRefusals are the forms in which the engine's version refuses
	// a call before any hook runs, from its capability table (spawn exec
	// passes them; hookwarden's own member, beside ADR-0134's): a call
	// with no pre-tool receipt passes only in one of them
	// (refusedBeforeHooks). Absent, every such call fails the run.
	PreHookRefusals []RefusalForm `json:"pre_hook_refusals,omitempty"`
}

// ExitReport is what the exit hook prints on stdout.
type ExitReport struct {
	OK          bool     `json:"ok"`
	Found       int      `json:"found"`
	Scrubbed    bool     `json:"scrubbed"`
	StopCounts  []int    `json:"stop_counts"`
	Unreceipted []string `json:"unreceipted_tool_calls"`
	// RefusedBeforeHooks are the calls with no pre-tool receipt that the
	// engine refused before any hook, as "<id> <form>"; they did not run
	// and do not fail the run.
	RefusedBeforeHooks []string `json:"refused_before_hooks"`
	Problems           []string `json:"problems"`
}

// toolCallIDs returns the tool-call ids a JSONL transcript holds, in
// order, without repeats: every JSON object with "type":"tool_use" and an
// "id" (Claude Code's assistant content items; the field names of the
// tool_use_id in testdata/clients/claude/2.1.328/pre-tool.json), and every
// object whose "type" is function_call, custom_tool_call or
// local_shell_call with a "call_id" (the Responses API items Codex writes
// into its rollout; the rollout layout of codex-cli 0.169.0 is not yet
// recorded here). A line that is not JSON is reported as a problem, since
// a tool call in it could not be checked.
func toolCallIDs(transcript []byte) (ids []string, badLines int) {
	walk := func(v any) {
		eachObject(v, func(x map[string]any) {
			t, _ := x["type"].(string)
			id := ""
			switch t {
			case "tool_use":
				id, _ = x["id"].(string)
			case "function_call", "custom_tool_call", "local_shell_call":
				id, _ = x["call_id"].(string)
			}
			if id != "" && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		})
	}
	for _, ln := range bytes.Split(transcript, []byte("\n")) {
		if len(bytes.TrimSpace(ln)) == 0 {
			continue
		}
		var v any
		if err := json.Unmarshal(ln, &v); err != nil {
			badLines++
			continue
		}
		walk(v)
	}
	return ids, badLines
}

// eachObject calls visit with every JSON object in v (a decoded JSON
// value), v itself first, then the objects nested in its members and
// elements.
func eachObject(v any, visit func(map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		visit(x)
		for _, c := range x {
			eachObject(c, visit)
		}
	case []any:
		for _, c := range x {
			eachObject(c, visit)
		}
	}
}

// ScrubTranscript replaces every value m finds in b, the bytes of the
// transcript at path, by its token and writes the result over path
// (through a temporary file and a rename, keeping the file's mode; 0600
// when it cannot be read). It returns how many value occurrences it found
// (0: nothing is written) and an error when the text cannot be redacted or
// written.
func ScrubTranscript(path string, b []byte, m *Matcher) (int, error) {
	red, n, err := m.Redact(b)
	if err != nil || n == 0 {
		return n, err
	}
	mode := os.FileMode(0o600)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	return n, atomicfile.WriteFile(path, red, mode)
}

// Exit is the agent_exit hook: it reads the table once and fails when its
// SHA-256 differs from table_sha256; scans the transcript for every value
// and, when it finds one, rewrites the transcript with the values replaced
// (same mode, through a temporary file and a rename) and fails; fails on a
// stop count above zero or unscanned; and fails on a tool call in the
// transcript whose id has no pre_tool receipt, unless the engine refused
// it before any hook in one of the payload's pre_hook_refusals forms
// (refusedBeforeHooks: a call that never ran is not one a hook failed to
// see, ADR-0134 D7, but only on exact evidence). A payload without a
// transcript fails (the transcript is unidentified). It prints an
// ExitReport and returns a *Failure naming every problem.
func Exit(e Env) error {
	var p ExitPayload
	if err := readPayload(e.Stdin, &p); err != nil {
		return err
	}
	rep := ExitReport{StopCounts: []int{}, Unreceipted: []string{}, RefusedBeforeHooks: []string{}, Problems: []string{}}
	defer func() {
		enc := json.NewEncoder(e.Stdout)
		enc.Encode(rep)
	}()
	problem := func(f string, a ...any) { rep.Problems = append(rep.Problems, fmt.Sprintf(f, a...)) }
	m, b, err := loadRunTable(e)
	if err != nil {
		var f *Failure
		if errors.As(err, &f) {
			problem("%s", f.Reason)
		} else {
			problem("%v", err)
		}
		return fail("%s", strings.Join(rep.Problems, "; "))
	}
	if Digest(b) != strings.TrimPrefix(strings.ToLower(p.TableSHA256), "sha256:") {
		problem("the table's digest differs from table_sha256: it changed after the spawner wrote it")
	}
	var transcript []byte
	if p.Transcript == nil || *p.Transcript == "" {
		problem("the transcript is unidentified: nothing was scanned")
	} else if t, err := readTranscript(*p.Transcript); err != nil {
		problem("transcript: %v", err)
	} else {
		transcript = t
		n, err := ScrubTranscript(*p.Transcript, t, m)
		rep.Found = n
		switch {
		case n == 0 && err != nil:
			problem("transcript: %v", err)
		case n > 0:
			problem("the transcript held %d value occurrence(s)", n)
			if err != nil {
				problem("scrub %s: %v", *p.Transcript, err)
			} else {
				rep.Scrubbed = true
			}
		}
	}
	forms, err := compileRefusalForms(p.PreHookRefusals)
	if err != nil {
		problem("%v", err)
	}
	receipted, anyReceipt := map[string]bool{}, map[string]bool{}
	if rp := e.Getenv(EnvReceipts); rp == "" {
		problem("%s is not set", EnvReceipts)
	} else if rb, err := ReadPrivate(rp); err != nil {
		problem("receipts: %v", err)
	} else {
		for _, ln := range bytes.Split(rb, []byte("\n")) {
			if len(bytes.TrimSpace(ln)) == 0 {
				continue
			}
			var r Receipt
			if err := json.Unmarshal(ln, &r); err != nil {
				problem("receipts: a line is not JSON")
				continue
			}
			if r.ToolUseID != "" {
				anyReceipt[r.ToolUseID] = true
			}
			switch r.Event {
			case "post_tool_failure":
				if r.Route == RouteHalt {
					problem("the failed tool call %s's error held a table value (or its receipt failed); the session was halted", r.ToolUseID)
				}
			case "pre_tool":
				receipted[r.ToolUseID] = true
			case "stop":
				c := -1
				if r.Count != nil {
					c = *r.Count
				}
				rep.StopCounts = append(rep.StopCounts, c)
				if c != 0 {
					problem("a stop scan counted %d (−1: unscanned)", c)
				}
			}
		}
	}
	ids, bad := toolCallIDs(transcript)
	if bad > 0 {
		problem("%d transcript line(s) are not JSON; their tool calls could not be checked", bad)
	}
	var names map[string]string
	var results map[string][]claudeResult
	if len(forms) > 0 && e.Engine == "claude" {
		names, results = claudeTranscriptCalls(transcript)
	}
	for _, id := range ids {
		if receipted[id] {
			continue
		}
		if f := refusedBeforeHooks(id, forms, names, results, anyReceipt, m); f != "" {
			rep.RefusedBeforeHooks = append(rep.RefusedBeforeHooks, id+" "+f)
			continue
		}
		rep.Unreceipted = append(rep.Unreceipted, id)
	}
	if len(rep.Unreceipted) > 0 {
		problem("%d tool call(s) in the transcript have no pre_tool receipt", len(rep.Unreceipted))
	}
	rep.OK = len(rep.Problems) == 0
	if !rep.OK {
		return fail("%s", strings.Join(rep.Problems, "; "))
	}
	return nil
}

// Run is the shell route's redactor: it runs argv (the rewritten command,
// "/bin/sh -c <command>") with the caller's environment, collects its
// stdout and stderr (at most MaxOutputBytes together; past it the command
// is killed), and writes each redacted to its own stream, then exits with
// the command's code. Without a readable table it runs nothing and fails:
// output it cannot redact is never printed.
func Run(ctx context.Context, e Env, argv []string) (int, error) {
	if len(argv) == 0 {
		return 2, fail("run: no command")
	}
	m, _, err := loadRunTable(e)
	if err != nil {
		return 126, err
	}
	var out, errb capped
	out.limit, errb.limit = MaxOutputBytes, MaxOutputBytes
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin = e.Stdin
	cmd.Stdout, cmd.Stderr = &out, &errb
	out.cancel, errb.cancel = cancel, cancel
	runErr := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(runErr, &ee):
		code = ee.ExitCode()
		if code < 0 {
			code = 128 + 9
		}
	case runErr != nil:
		return 127, fail("run %s: %v", argv[0], runErr)
	}
	for _, s := range []struct {
		b *capped
		w io.Writer
	}{{&out, e.Stdout}, {&errb, e.Stderr}} {
		r, _, err := m.Redact(s.b.buf.Bytes())
		if err != nil {
			fmt.Fprintln(e.Stderr, "hookwarden redact: output withheld: it could not be redacted")
			return 1, nil
		}
		s.w.Write(r)
		if s.b.over {
			fmt.Fprintf(e.Stderr, "\nhookwarden redact: output past %d bytes was cut and the command stopped\n", MaxOutputBytes)
		}
	}
	return code, nil
}

// capped is an io.Writer keeping at most limit bytes; past it, it cancels
// the command and drops the rest.
type capped struct {
	buf    bytes.Buffer
	limit  int
	over   bool
	cancel func()
}

func (c *capped) Write(p []byte) (int, error) {
	room := c.limit - c.buf.Len()
	if len(p) > room {
		c.buf.Write(p[:max(room, 0)])
		if !c.over {
			c.over = true
			c.cancel()
		}
		return len(p), nil
	}
	return c.buf.Write(p)
}
