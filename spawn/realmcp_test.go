package spawn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookwarden/hookwarden/internal/posixtest"
)

// mcpUpstreamEnv switches this test binary into the stdio MCP upstream of
// TestRealClaudeMCPProxyRun; mcpCountEnv names the file its mutating tool
// appends one line to per run.
const (
	mcpUpstreamEnv = "HOOKWARDEN_SPAWN_TEST_MCP_UPSTREAM"
	mcpCountEnv    = "HOOKWARDEN_SPAWN_TEST_MCP_COUNT"
	mcpMethodsEnv  = "HOOKWARDEN_SPAWN_TEST_MCP_METHODS"
)

// testMCPServer is the upstream written for the test (the official Go
// SDK): "lookup" is read-only and returns an account record holding the
// secret as text and as structured content, its description holds the
// secret too; "rotate" is mutating: it appends a line to $mcpCountEnv,
// then, when killProxy is set, kills its parent (the proxy) before it
// answers. With raw (a function writing one JSON-RPC line on the
// upstream's stdout; the stdio upstream) it also has "watch", which,
// during the call, sends a notification holding the secret in each form
// (TestRealClaudeMCPNotifications): notifications/progress on the call's
// progress token ("checking key <secret>"), notifications/message
// and notifications/resources/updated written raw (as an SDK that does not
// wait for logging/setLevel or a subscription sends them), and a
// tools/list_changed by adding the tool "revoke" whose description holds
// the secret; it records the progress token it received in
// $mcpMethodsEnv and answers "watched".
func testMCPServer(name string, killProxy bool, raw func(line string)) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1"}, nil)
	if f := os.Getenv(mcpMethodsEnv); f != "" {
		// every method the upstream receives, one per line (what the
		// engine asked for through the proxy)
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if w, err := os.OpenFile(f, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err == nil {
					fmt.Fprintln(w, name, method)
					w.Close()
				}
				return next(ctx, method, req)
			}
		})
	}
	s.AddTool(&mcp.Tool{Name: "lookup", Description: "the account record; the service key is " + realRaw,
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"user": map[string]any{"type": "string"}}}},
		func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			rec := map[string]any{"user": "ada", "plan": "team", "key": realRaw, "server": name}
			b, _ := json.Marshal(rec)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: rec}, nil
		})
	s.AddResource(&mcp.Resource{Name: "config", URI: name + "://config", MIMEType: "text/plain", Description: "service configuration"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: name + "://config", MIMEType: "text/plain",
				Text: "region=eu\nservice_key=" + realRaw + "\n"}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "profile", Description: "the account profile", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			// the secret in the structured content only
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "profile of ada"}},
				StructuredContent: map[string]any{"user": "ada", "key": realRaw}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "audit", Description: "checks the key", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, fmt.Errorf("audit refused: key %s is revoked", realRaw)
		})
	if raw != nil {
		s.AddTool(&mcp.Tool{Name: "watch", Description: "watches the key", InputSchema: map[string]any{"type": "object"}},
			func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if f := os.Getenv(mcpMethodsEnv); f != "" {
					if w, err := os.OpenFile(f, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err == nil {
						fmt.Fprintf(w, "vault progressToken=%v\n", r.Params.GetProgressToken())
						w.Close()
					}
				}
				if tok := r.Params.GetProgressToken(); tok != nil {
					r.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 2, Message: "checking key " + realRaw})
				}
				raw(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","logger":"vault","data":"watch: key ` + realRaw + ` seen"}}`)
				raw(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"vault://config?key=` + realRaw + `"}}`)
				s.AddTool(&mcp.Tool{Name: "revoke", Description: "revokes key " + realRaw, InputSchema: map[string]any{"type": "object"}},
					func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
						return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "revoked"}}}, nil
					})
				time.Sleep(500 * time.Millisecond)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "watched"}}}, nil
			})
	}
	s.AddTool(&mcp.Tool{Name: "rotate", Description: "rotates the key (mutating)", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			f, err := os.OpenFile(os.Getenv(mcpCountEnv), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
			if err != nil {
				return nil, err
			}
			fmt.Fprintln(f, "rotated")
			f.Close()
			if killProxy {
				posixtest.Kill(os.Getppid())
				time.Sleep(time.Second)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "rotated; the new key is " + realRaw}}}, nil
		})
	return s
}

// serveTestMCPUpstream runs testMCPServer on stdin and stdout (this test
// binary started by the proxy) and returns the exit code. Every message
// it writes goes out in 7-byte writes a millisecond apart, so the proxy
// reads each (and the secret in it) in pieces.
func serveTestMCPUpstream() int {
	fmt.Fprintln(os.Stderr, "upstream up; key", realRaw)
	w := &trickle{f: os.Stdout}
	t := &mcp.IOTransport{Reader: os.Stdin, Writer: w}
	raw := func(line string) { w.Write([]byte(line + "\n")) }
	if err := testMCPServer("vault", os.Getenv(mcpUpstreamEnv) == "kill", raw).Run(context.Background(), t); err != nil {
		return 1
	}
	return 0
}

// trickle writes to f in 7-byte pieces a millisecond apart, one message
// (one Write) at a time.
type trickle struct {
	mu sync.Mutex
	f  *os.File
}

func (w *trickle) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := 0; i < len(p); i += 7 {
		if _, err := w.f.Write(p[i:min(i+7, len(p))]); err != nil {
			return i, err
		}
		time.Sleep(time.Millisecond)
	}
	return len(p), nil
}

func (w *trickle) Close() error { return w.f.Close() }

// TestRealClaudeMCPProxyRun is A3's MCP part on the pinned Claude Code
// under spawn exec with the redaction entry under the shipped capability table (the
// default Tables()): the caller passes
// a stdio server ("vault", this test binary as an SDK server writing each
// message in 7-byte pieces: split transport chunks) and a streamable HTTP
// server ("web", an SDK server on 127.0.0.1 that demands
// the caller's Authorization header) with --mcp-config; spawn exec puts
// both behind hookwarden-mcp-proxy. The scripted model calls vault's
// read-only lookup, web's lookup, web's audit (an error holding the
// secret), web's profile (the secret only in its structuredContent; Claude
// Code 2.1.328 hands the model that JSON, not the text), Claude's ReadMcpResourceTool on web's config resource (its text
// holds the secret), vault's mutating rotate, whose upstream kills the proxy after
// it ran, and vault's lookup again (logged: what Claude does with a dead
// server). The upstream prints the secret on stderr, which Claude Code
// keeps in its MCP log: it is there as the token. The model receives each record with the secret as [GH_TOKEN]
// and its other fields intact, the error's and the resource's text
// tokenized and the tool
// descriptions tokenized, the profile's structured record with the token
// and its other field; rotate ran exactly once; the model received no
// raw value in any request, the client's files hold none, run/hooks is
// empty, and the run passes (a representative MCP task to completion).
// The PreToolUse payloads of the MCP calls are recorded: they carry
// mcp_server {name, source "dynamic"} (the identity the pre-tool hook
// checks; one is kept as testdata/clients/claude/2.1.328/pre-tool.mcp-proxy.json),
// and so do the PermissionRequest payloads the entry's arbiter answered
// for them (permission-request.mcp-proxy.json): the calls run under the
// entry's posture with no --allowedTools.
// Measured 2026-12-01: the killed proxy's call came back to the model as
// "Connection closed" and Claude Code did not send it again.
func TestRealClaudeMCPProxyRun(t *testing.T) {
	bin := needClient(t, "claude")
	mcpProxyBin(t)
	w := newRedactWorld(t, map[string]string{"[GH_TOKEN]": realRaw}, "", "", "")
	self, _ := os.Executable()
	count := filepath.Join(w.work, "rotations")
	rec := filepath.Join(w.work, "payloads")
	os.Mkdir(rec, 0o700)

	web := testMCPServer("web", false, nil)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return web }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer web-secret-header" {
			http.Error(rw, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(rw, r)
	}))
	t.Cleanup(ts.Close)
	cfg := map[string]any{"mcpServers": map[string]any{
		"vault": map[string]any{"command": self, "env": map[string]string{mcpUpstreamEnv: "kill", mcpCountEnv: count, mcpMethodsEnv: filepath.Join(w.work, "methods")}},
		"web":   map[string]any{"type": "http", "url": ts.URL, "headers": map[string]string{"Authorization": "Bearer web-secret-header"}},
	}}
	cb, _ := json.Marshal(cfg)
	cfgPath := filepath.Join(w.work, "mcp.json")
	os.WriteFile(cfgPath, cb, 0o600)

	raws := []string{realRaw, "sk-test-dummy"}
	dur := &duringRun{w: w, raws: raws}
	model := startScriptedModel(t, []scriptedCall{
		{"mcp__vault__lookup", map[string]any{"user": "ada"}},
		{"mcp__web__lookup", map[string]any{"user": "ada"}},
		{"mcp__web__audit", map[string]any{}},
		{"mcp__web__profile", map[string]any{}},
		{"ReadMcpResourceTool", map[string]any{"server": "web", "uri": "web://config"}},
		{"mcp__vault__rotate", map[string]any{}},
		{"mcp__vault__lookup", map[string]any{"user": "bob"}},
	}, dur.inspect)
	argv := []string{"claude", "-p", "look up ada's account and rotate its key", "--output-format", "json",
		"--mcp-config", cfgPath}
	_, env := w.mockClient("claude", bin, model.port)
	// Claude Code 2.1.328 defers MCP tools behind ToolSearch by default
	// (their schemas are not in the request until loaded,
	// TestRealClaudeMCPToolSearch); with tool search off the tools and
	// their descriptions are in every request, where the test reads them
	env = append(env, "HW_RECORD="+rec, "ENABLE_TOOL_SEARCH=false")
	var childArgv []string
	log, calls, out := execMCP(t, w, model, argv, env, filepath.Join(filepath.Dir(w.hw), MCPProxyName),
		func(r *Render, a []string) { childArgv = a })
	results := map[string]string{}
	for _, c := range calls {
		if _, ok := results[c.Tool]; !ok {
			results[c.Tool] = c.Result
		}
	}
	if r := results["mcp__web__audit"]; !strings.Contains(r, "audit refused: key [GH_TOKEN] is revoked") {
		t.Errorf("the upstream's error reached the model as %q; want its text with the token", r)
	}
	if r := results["ReadMcpResourceTool"]; !strings.Contains(r, "service_key=[GH_TOKEN]") || !strings.Contains(r, "region=eu") {
		t.Errorf("the resource reached the model as %q; want its text with the token", r)
	}
	// Claude Code 2.1.328 hands the model a result's structuredContent
	// (as JSON) in place of its text (2026-12-02: "profile of ada" is not
	// in the result)
	if r := results["mcp__web__profile"]; !strings.Contains(r, `"key":"[GH_TOKEN]"`) || !strings.Contains(r, `"user":"ada"`) {
		t.Errorf("profile (the secret in structuredContent only) reached the model as %q; want the structured record with the token", r)
	}
	if len(calls) >= 7 {
		t.Logf("vault lookup after its proxy was killed: the model received %q", calls[6].Result)
	}
	for _, tool := range []string{"mcp__vault__lookup", "mcp__web__lookup"} {
		r := results[tool]
		for _, want := range []string{`"user":"ada"`, `"plan":"team"`, `"key":"[GH_TOKEN]"`} {
			if !strings.Contains(r, want) {
				t.Errorf("%s: the model received %q, without %s", tool, r, want)
			}
		}
	}
	if !strings.Contains(log, "the service key is [GH_TOKEN]") {
		t.Errorf("the model's tool list lacks the tokenized description")
	}
	rb, _ := os.ReadFile(count)
	if n := strings.Count(string(rb), "rotated"); n != 1 {
		t.Errorf("the mutating call ran %d times upstream; want exactly 1", n)
	}
	t.Logf("rotate after the proxy was killed: the model received %q", results["mcp__vault__rotate"])
	mb, _ := os.ReadFile(filepath.Join(w.work, "methods"))
	t.Logf("methods vault received through its proxies: %q", strings.Fields(strings.ReplaceAll(string(mb), "vault ", "")))
	noRawValues(t, w, log, dur.found(), out, raws)
	if strings.Contains(strings.Join(childArgv, "\x00"), "web-secret-header") || strings.Contains(strings.Join(childArgv, "\x00"), cfgPath) {
		t.Errorf("the engine's argv holds the caller's MCP configuration: %q", childArgv)
	}
	noRunFiles(t, w)
	// Claude Code keeps each stdio server's stderr under
	// $HOME/.cache/claude-cli-nodejs/<project>/mcp-logs-<server>/: the
	// upstream's line holding the secret is there as the token
	var stderrLog []string
	filepath.WalkDir(w.clientHome, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(p, "mcp-logs-vault") {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte("upstream up; key [GH_TOKEN]")) {
				stderrLog = append(stderrLog, p)
			}
		}
		return nil
	})
	if len(stderrLog) == 0 {
		t.Errorf("the upstream's stderr line did not reach Claude's MCP log as the token")
	}

	// the recorded PreToolUse payloads of the MCP calls, and the
	// PermissionRequest payloads the entry's arbiter answered for them
	// (the same handler argv: recorded under the same name)
	es, _ := os.ReadDir(rec)
	seen, asked := 0, 0
	for _, e := range es {
		if !strings.HasPrefix(e.Name(), "pre-tool.") {
			continue
		}
		b, _ := os.ReadFile(filepath.Join(rec, e.Name()))
		var p struct {
			Event     string `json:"hook_event_name"`
			ToolName  string `json:"tool_name"`
			MCPServer *struct {
				Name   string `json:"name"`
				Source string `json:"source"`
			} `json:"mcp_server"`
		}
		json.Unmarshal(b, &p)
		if !strings.HasPrefix(p.ToolName, "mcp__") {
			continue
		}
		if p.Event == "PermissionRequest" {
			asked++
		} else {
			seen++
		}
		t.Logf("%s payload: %s", p.Event, b)
		want := strings.Split(p.ToolName, "__")[1]
		if p.MCPServer == nil || p.MCPServer.Name != want || p.MCPServer.Source != "dynamic" {
			t.Errorf("%s: mcp_server %+v, want {%s dynamic}", p.ToolName, p.MCPServer, want)
		}
	}
	if seen == 0 || asked == 0 {
		t.Errorf("PreToolUse payloads of MCP calls recorded: %d, PermissionRequest payloads: %d; want both", seen, asked)
	}
}

// TestRealClaudeMCPToolSearch: with Claude Code 2.1.328's default tool
// search (MCP tools deferred: the request names them and says to load them
// through ToolSearch), under the same entry and a stdio server behind the
// proxy, the scripted model loads vault's lookup with ToolSearch (admitted
// by the pre-tool hook in a run with proxied servers), then calls it: the
// loaded schema's description and the result reach the model with the
// token, no request holds the raw value, and the run passes.
func TestRealClaudeMCPToolSearch(t *testing.T) {
	bin := needClient(t, "claude")
	mcpProxyBin(t)
	w := newRedactWorld(t, map[string]string{"[GH_TOKEN]": realRaw}, "", "", "")
	self, _ := os.Executable()
	cb, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"vault": map[string]any{"command": self, "env": map[string]string{mcpUpstreamEnv: "1", mcpCountEnv: filepath.Join(w.work, "rotations")}}}})
	cfgPath := filepath.Join(w.work, "mcp.json")
	os.WriteFile(cfgPath, cb, 0o600)
	model := startScriptedModel(t, []scriptedCall{
		{"ToolSearch", map[string]any{"query": "select:mcp__vault__lookup", "max_results": 5}},
		{"mcp__vault__lookup", map[string]any{"user": "ada"}},
	}, nil)
	_, env := w.mockClient("claude", bin, model.port)
	log, _, out := execMCP(t, w, model, []string{"claude", "-p", "look up ada", "--output-format", "json",
		"--mcp-config", cfgPath}, env, filepath.Join(filepath.Dir(w.hw), MCPProxyName), nil)
	if !strings.Contains(log, "mcp__vault__lookup") || !strings.Contains(log, "the service key is [GH_TOKEN]") {
		t.Errorf("the model never received vault's lookup schema with the tokenized description")
	}
	if !strings.Contains(log, `\"key\":\"[GH_TOKEN]\"`) {
		t.Errorf("the model never received the lookup's result with the token")
	}
	noRawValues(t, w, log, nil, out, []string{realRaw})
	noRunFiles(t, w)
}

// TestRealClaudeMCPNotifications is A3's notification case on the pinned
// Claude Code 2.1.328 under spawn exec with the redaction entry: the
// scripted model calls vault's "watch", whose upstream sends, during the
// call, a notification of each kind holding the secret (testMCPServer),
// then calls "revoke", the tool that notification announced. The proxy's
// stdout (Claude's end of the stdio pipe) is tapped by a wrapper that
// tees it to a file, so the test reads the bytes Claude received.
//
// What Claude Code 2.1.328 does with each, from its bundle
// (node_modules/@anthropic-ai/claude-code/bin/claude.exe, strings) and
// measured here on 2026-12-02:
//   - notifications/progress: Claude sends _meta.progressToken on every
//     tools/call (the call passes an onprogress callback, which also
//     resets the call's timeout, resetTimeoutOnProgress) and turns each
//     progress into a tool progress message {type "mcp_progress",
//     progressMessage}, an ephemeral one ("bash_progress",
//     "mcp_progress" … replace the last progress message): it reaches
//     Claude as "checking key [GH_TOKEN]" and lands nowhere the test can
//     read (not in the transcript, the MCP log, the stream-json output or
//     any model request); the interactive UI shows it as the call's
//     progress line.
//   - notifications/tools/list_changed: Claude logs "Received
//     tools/list_changed notification, refreshing tools" in its MCP log
//     ($HOME/.cache/claude-cli-nodejs/<project>/mcp-logs-<server>/),
//     lists the tools again through the proxy, and the next model request
//     carries the new tool with its description tokenized; the model can
//     call it.
//   - notifications/message: the bundle's MCP client registers no handler
//     for it (its setNotificationHandler calls name cancelled, progress,
//     the three list_changed and elicitation/complete; the SDK's
//     _onnotification returns when no handler and no fallback is set) and
//     Claude never sends logging/setLevel, so the proxy, whose SDK server
//     sends no log message before the engine set a level, forwards none:
//     nothing reaches Claude.
//   - notifications/resources/updated: Claude never sends
//     resources/subscribe, and the proxy forwards an update only to an
//     engine session subscribed to its URI: nothing reaches Claude.
//
// The raw value is nowhere: not in the tap, the model's requests, the
// client's files or spawn exec's output.
func TestRealClaudeMCPNotifications(t *testing.T) {
	bin := needClient(t, "claude")
	proxy := mcpProxyBin(t)
	w := newRedactWorld(t, map[string]string{"[GH_TOKEN]": realRaw}, "", "", "")
	self, _ := os.Executable()
	tap := filepath.Join(w.work, "tap.jsonl")
	wrapper := filepath.Join(w.work, "proxy-tap.sh")
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\n"+shq(proxy)+` "$@" | tee -a `+shq(tap)+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	methods := filepath.Join(w.work, "methods")
	cb, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"vault": map[string]any{"command": self, "env": map[string]string{mcpUpstreamEnv: "1",
			mcpCountEnv: filepath.Join(w.work, "rotations"), mcpMethodsEnv: methods}}}})
	cfgPath := filepath.Join(w.work, "mcp.json")
	os.WriteFile(cfgPath, cb, 0o600)
	raws := []string{realRaw}
	dur := &duringRun{w: w, raws: raws}
	model := startScriptedModel(t, []scriptedCall{
		{"mcp__vault__watch", map[string]any{}},
		{"mcp__vault__revoke", map[string]any{}},
	}, dur.inspect)
	_, env := w.mockClient("claude", bin, model.port)
	env = append(env, "ENABLE_TOOL_SEARCH=false") // the tool list in every request (TestRealClaudeMCPProxyRun)
	log, calls, out := execMCP(t, w, model, []string{"claude", "-p", "watch the key", "--output-format", "stream-json", "--verbose",
		"--mcp-config", cfgPath}, env, wrapper, nil)

	// what the upstream received through the proxy
	mb, _ := os.ReadFile(methods)
	got := string(mb)
	t.Logf("vault received: %q", strings.Split(strings.TrimSpace(got), "\n"))
	if !strings.Contains(got, "vault progressToken=") || strings.Contains(got, "vault progressToken=<nil>") {
		t.Errorf("watch ran without a progress token from Claude (or never ran): %q", got)
	}
	for _, m := range []string{"logging/setLevel", "resources/subscribe"} {
		if strings.Contains(got, m) {
			t.Errorf("Claude sent %s; the doc says Claude Code 2.1.328 never does", m)
		}
	}
	if strings.Count(got, "vault tools/list") < 2 {
		t.Errorf("Claude did not list the tools again after tools/list_changed: %q", got)
	}

	// what Claude received: the proxy's stdout
	tb, _ := os.ReadFile(tap)
	byMethod := map[string][]json.RawMessage{}
	for _, line := range bytes.Split(tb, []byte("\n")) {
		var m struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(line, &m) == nil && m.Method != "" {
			byMethod[m.Method] = append(byMethod[m.Method], m.Params)
		}
	}
	t.Logf("notifications Claude received from vault's proxy: %d progress, %d tools/list_changed, %d message, %d resources/updated",
		len(byMethod["notifications/progress"]), len(byMethod["notifications/tools/list_changed"]),
		len(byMethod["notifications/message"]), len(byMethod["notifications/resources/updated"]))
	progress := false
	for _, p := range byMethod["notifications/progress"] {
		var pp struct {
			Message       string `json:"message"`
			ProgressToken any    `json:"progressToken"`
		}
		json.Unmarshal(p, &pp)
		progress = progress || pp.Message == "checking key [GH_TOKEN]" && pp.ProgressToken != nil
	}
	if !progress {
		t.Errorf("Claude never received the progress notification as \"checking key [GH_TOKEN]\" (%d progress notifications)", len(byMethod["notifications/progress"]))
	}
	if len(byMethod["notifications/tools/list_changed"]) == 0 {
		t.Errorf("Claude never received tools/list_changed")
	}
	for _, m := range []string{"notifications/message", "notifications/resources/updated"} {
		if len(byMethod[m]) > 0 {
			t.Errorf("the proxy sent Claude %s %s; the doc says it sends none without a level or a subscription", m, byMethod[m])
		}
	}
	if f := rawIn(tb, raws); len(f) > 0 {
		t.Errorf("Claude received the raw value from the proxy")
	}

	// where the notifications landed in Claude
	var mcpLog []byte
	filepath.WalkDir(w.clientHome, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(p, "mcp-logs-vault") {
			b, _ := os.ReadFile(p)
			mcpLog = append(mcpLog, b...)
		}
		return nil
	})
	if !bytes.Contains(mcpLog, []byte("Received tools/list_changed notification, refreshing tools")) {
		t.Errorf("Claude's MCP log does not record the tools/list_changed notification")
	}
	if !strings.Contains(log, `"name":"mcp__vault__revoke","description":"revokes key [GH_TOKEN]"`) {
		t.Errorf("no model request lists the announced tool with its description tokenized")
	}
	if len(calls) < 2 || calls[1].Tool != "mcp__vault__revoke" || calls[1].Result != "revoked" {
		t.Errorf("the model's call of the announced tool: %+v", calls)
	}
	for where, b := range map[string][]byte{"the client's files": []byte(strings.Join(scanTree(w.clientHome, []string{"checking key"}), "\n")),
		"the model's requests": []byte(log), "spawn exec's output": out} {
		if bytes.Contains(b, []byte("checking key")) {
			t.Errorf("the progress message is in %s; the doc says Claude Code 2.1.328 keeps it nowhere", where)
		}
	}
	noRawValues(t, w, log, dur.found(), out, raws)
	noRunFiles(t, w)
}

// execMCP runs spawn exec with argv and env in w under the shipped capability
// tables with proxy as the MCP proxy and started as
// ExecOptions.Started, bounded at 3 minutes; it logs each call the
// scripted model made, fails t unless the run passed, and returns the
// model's request log, its calls and spawn exec's output.
func execMCP(t *testing.T, w *redactWorld, model *scriptedModel, argv, env []string, proxy string, started func(*Render, []string)) (string, []modelCall, []byte) {
	t.Helper()
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	code, err := Exec(ctx, ExecOptions{Argv: argv, Home: w.home, Gateway: mcpProxyBin(t), Cwd: w.repo, Env: env, Stdout: &out, Stderr: &out,
		MCPProxy: proxy, Started: started})
	log := model.log()
	calls := modelCalls(log)
	for _, c := range calls {
		t.Logf("model call %s %s -> %.300s", c.ID, c.Tool, c.Result)
	}
	if err != nil || code != 0 {
		t.Errorf("spawn exec: code %d err %v\n%s", code, err, out.String())
	}
	return log, calls, out.Bytes()
}
