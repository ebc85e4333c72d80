// Package mcpproxy is the redaction entry's MCP route (ADR-0134 D7, issue
// 18): a proxy that stands, for one run, between the engine and one
// upstream MCP server, and redacts every message it forwards toward the
// engine with the run's table.
//
// The protocol is the official Go SDK's (github.com/modelcontextprotocol/go-sdk
// v1.8.0) on both sides: toward the engine an mcp.Server on the engine's
// transport (stdio when Claude Code starts the proxy), toward the upstream an
// mcp.Client over mcp.CommandTransport (stdio) or
// mcp.StreamableClientTransport (streamable HTTP, the caller's headers on
// every request). A receiving middleware answers each engine request the
// proxy forwards (tools/list, tools/call, resources/list,
// resources/templates/list, resources/read, resources/subscribe and
// unsubscribe, prompts/list, prompts/get, completion/complete,
// logging/setLevel) with the upstream's result redacted; every other
// request that would reach the upstream is refused with a JSON-RPC error.
// initialize answers with the upstream's server info, instructions and
// capabilities, redacted (experimental capabilities are dropped). A sending
// middleware redacts every notification and request the proxy sends the
// engine (log messages, progress, resource updates); list-changed
// notifications are forwarded by the SDK's own notification path. The SDK
// server sends a log message only once the engine has set a logging level
// and a resource update only to an engine subscribed to its URI, so an
// upstream's log messages and updates are dropped for Claude Code 2.1.328,
// which sends neither logging/setLevel nor resources/subscribe (and
// registers no handler for log messages: TestRealClaudeMCPNotifications in
// spawn).
//
// Redaction is typed: a message is encoded to its wire JSON, matched with
// the run's matcher (spawn/redact: exact bytes and every JSON-string
// spelling), and the redacted JSON decoded back into the same SDK type.
// Transport chunks are reassembled by the SDK's transports before a message
// exists, so a value split across chunks is matched whole. A message that
// cannot be redacted into its own shape (a value in base64 data, a value
// whose replacement breaks the JSON, a structuredContent that no longer
// validates against the tool's outputSchema) and a form the proxy does not
// forward (multi round-trip input requests, sampling, elicitation) become a
// sanitized failure: a tool error result or a JSON-RPC error naming what
// was withheld, never the value.
//
// A failure never connects the engine to the upstream (the engine knows
// only the proxy) and never repeats a call: each engine request is sent
// upstream at most once, the SDK client's multi round-trip retry is off, a
// streamable HTTP upstream is not reconnected after a failed POST, and a
// call whose upstream failed is answered with an error saying it was not
// repeated. Each tools/call is receipted (event mcp_call, the engine's
// tool-use id from _meta "claudecode/toolUseId", Claude Code 2.1.328's
// bundle) before it is sent; a call that cannot be receipted is not sent.
package mcpproxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookwarden/hookwarden/spawn/mcpconfig"
	"github.com/hookwarden/hookwarden/spawn/redact"
)

// ToolUseIDMeta is the _meta key under which Claude Code 2.1.328 sends the
// engine's tool-use id on every tools/call (its bundle: params._meta
// {"claudecode/toolUseId": id}); the same id is the tool_use_id of its
// PreToolUse and PostToolUse payloads.
const ToolUseIDMeta = "claudecode/toolUseId"

// UpstreamProtocol is the MCP version the proxy asks its upstream for:
// the newest session-based one, and the newest Claude Code 2.1.328 offers
// (its bundle's supported list starts "2025-11-25","2025-06-18"), so
// logging levels, subscriptions and list-changed notifications mean the
// same on both sides.
const UpstreamProtocol = "2025-11-25"

// ReceiptEvent is the receipts file event of a tools/call the proxy sent
// upstream.
const ReceiptEvent = redact.MCPReceiptEvent

// Options configure one proxy.
type Options struct {
	// Server is the server's name in the caller's configuration (the name
	// the engine gives it); it appears in receipts and failure texts.
	Server string
	// Upstream is the server as configured; ignored when UpstreamTransport
	// is set.
	Upstream mcpconfig.Upstream
	// UpstreamTransport, when set, replaces the transport built from
	// Upstream (tests use an in-memory one).
	UpstreamTransport mcp.Transport
	// Engine is the engine's side (mcp.StdioTransport when the engine
	// started the proxy).
	Engine mcp.Transport
	// Matcher holds the run's table.
	Matcher *redact.Matcher
	// Receipt appends one line to the run's receipts; nil writes none.
	Receipt func(redact.Receipt) error
	// EngineName is "claude" or "codex" (for receipts).
	EngineName string
	// Stderr receives the proxy's diagnostics and the upstream process's
	// stderr, redacted; nil discards them.
	Stderr io.Writer
	// Version is hookwarden's version, sent as the proxy's client and
	// server version.
	Version string
}

// proxy is one running proxy.
type proxy struct {
	opts   Options
	m      *redact.Matcher
	cs     *mcp.ClientSession
	server *mcp.Server
	stderr io.Writer

	mu      sync.Mutex
	schemas map[string]any // tool name -> outputSchema, as last listed (redacted)
	ss      *mcp.ServerSession
	ready   chan struct{}

	// inflight counts engine requests being answered: when the upstream
	// ends, their errors are sent before the engine's session closes
	inflight sync.WaitGroup
}

// Serve runs the proxy until the engine or the upstream ends the session
// or ctx is cancelled. It connects the upstream first (its initialize
// result is what the engine is offered), then serves the engine. It
// returns an error naming the server when the upstream cannot be reached
// or its initialize result cannot be redacted; errors never hold a table
// value.
func Serve(ctx context.Context, opts Options) error {
	if opts.Matcher == nil {
		return errors.New("mcp proxy: no redaction table")
	}
	p := &proxy{opts: opts, m: opts.Matcher, schemas: map[string]any{}, ready: make(chan struct{}), stderr: opts.Stderr}
	if p.stderr == nil {
		p.stderr = io.Discard
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	ut := opts.UpstreamTransport
	if ut == nil {
		var err error
		if ut, err = p.upstreamTransport(ctx); err != nil {
			return err
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "hookwarden-mcp-proxy", Version: opts.Version}, &mcp.ClientOptions{
		MultiRoundTrip:              &mcp.MultiRoundTripOptions{Disabled: true},
		LoggingMessageHandler:       p.onLog,
		ProgressNotificationHandler: p.onProgress,
		ResourceUpdatedHandler:      p.onResourceUpdated,
		ToolListChangedHandler:      func(context.Context, *mcp.ToolListChangedRequest) { p.listChanged("tools") },
		PromptListChangedHandler:    func(context.Context, *mcp.PromptListChangedRequest) { p.listChanged("prompts") },
		ResourceListChangedHandler:  func(context.Context, *mcp.ResourceListChangedRequest) { p.listChanged("resources") },
	})
	cs, err := client.Connect(ctx, ut, &mcp.ClientSessionOptions{ProtocolVersion: UpstreamProtocol})
	if err != nil {
		return fmt.Errorf("mcp proxy %s: connect the upstream: %s", opts.Server, p.clean(err))
	}
	defer cs.Close()
	p.cs = cs
	init, _, err := redactValue(p.m, cs.InitializeResult())
	if err != nil || init == nil {
		return fmt.Errorf("mcp proxy %s: the upstream's initialize result cannot be forwarded: %s", opts.Server, p.clean(err))
	}
	caps := &mcp.ServerCapabilities{}
	if c := init.Capabilities; c != nil {
		caps.Tools, caps.Prompts, caps.Resources, caps.Logging, caps.Completions = c.Tools, c.Prompts, c.Resources, c.Logging, c.Completions
	}
	sopts := &mcp.ServerOptions{Instructions: init.Instructions, Capabilities: caps}
	if caps.Resources != nil && caps.Resources.Subscribe {
		sopts.SubscribeHandler = func(context.Context, *mcp.SubscribeRequest) error { return nil }
		sopts.UnsubscribeHandler = func(context.Context, *mcp.UnsubscribeRequest) error { return nil }
	}
	impl := &mcp.Implementation{Name: opts.Server, Version: opts.Version}
	if init.ServerInfo != nil {
		impl = init.ServerInfo
	}
	p.server = mcp.NewServer(impl, sopts)
	p.server.AddReceivingMiddleware(p.receive)
	p.server.AddSendingMiddleware(p.send)
	ss, err := p.server.Connect(ctx, opts.Engine, nil)
	if err != nil {
		return fmt.Errorf("mcp proxy %s: serve the engine: %s", opts.Server, p.clean(err))
	}
	p.mu.Lock()
	p.ss = ss
	p.mu.Unlock()
	close(p.ready)
	done := make(chan struct{}, 2)
	go func() { ss.Wait(); done <- struct{}{} }()
	go func() { cs.Wait(); done <- struct{}{} }()
	select {
	case <-done:
	case <-ctx.Done():
	}
	cs.Close()
	p.inflight.Wait()
	ss.Close()
	cs.Close()
	return nil
}

// upstreamTransport builds the transport for opts.Upstream: a stdio command
// with the proxy's environment plus the configured env and its stderr
// redacted onto the proxy's, or a streamable HTTP client that adds the
// configured headers and does not reconnect.
func (p *proxy) upstreamTransport(ctx context.Context) (mcp.Transport, error) {
	u := p.opts.Upstream
	kind, err := u.Kind()
	if err != nil {
		return nil, fmt.Errorf("mcp proxy %s: %w", p.opts.Server, err)
	}
	if kind == "stdio" {
		cmd := exec.Command(u.Command, u.Args...)
		cmd.Env = os.Environ()
		for _, k := range slices.Sorted(maps.Keys(u.Env)) {
			cmd.Env = append(cmd.Env, k+"="+u.Env[k])
		}
		cmd.Stderr = &lineRedactor{m: p.m, w: p.stderr, prefix: "mcp upstream " + p.opts.Server + ": "}
		return &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil
	}
	hc := &http.Client{Transport: headerTransport{base: http.DefaultTransport, headers: u.Headers}}
	return &mcp.StreamableClientTransport{Endpoint: u.URL, HTTPClient: hc, MaxRetries: -1}, nil
}

// headerTransport sets the caller's configured headers on every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		r.Header.Set(k, v)
	}
	return h.base.RoundTrip(r)
}

// clean returns err's text redacted (a fixed text when it cannot be).
func (p *proxy) clean(err error) string {
	if err == nil {
		return "no result"
	}
	b, _, rerr := p.m.Redact([]byte(err.Error()))
	if rerr != nil {
		return "(the error text held a table value and is withheld)"
	}
	return string(b)
}

// sanitized is the JSON-RPC error the engine receives for a message the
// proxy withheld.
func (p *proxy) sanitized(method string, why string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
		Message: fmt.Sprintf("hookwarden mcp proxy (%s): the %s result was withheld: %s", p.opts.Server, method, why)}
}

// upstreamError turns an error of a forwarded call into what the engine
// receives: the upstream's JSON-RPC error with its message and data
// redacted (data dropped when it cannot be), or, for a transport failure,
// a fixed error saying the call was not repeated.
func (p *proxy) upstreamError(method string, err error) error {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		out := &jsonrpc.Error{Code: we.Code}
		msg, _, rerr := p.m.Redact([]byte(we.Message))
		if rerr != nil {
			msg = []byte("(the upstream's error message held a table value and is withheld)")
		}
		out.Message = string(msg)
		out.Data = p.errorData(we.Data)
		return out
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
		Message: fmt.Sprintf("hookwarden mcp proxy (%s): %s failed upstream (%s); the call was not repeated", p.opts.Server, method, p.clean(err))}
}

// errorData returns an upstream error's data re-encoded: decoded, every
// table value replaced (redactValue, as for typed results) and encoded
// again, so no escape spelling the upstream chose (\u0073k-…) reaches the
// engine, which would decode it; nil (no data forwarded) when the data is
// absent, not JSON, JSON null, or holds a value that cannot be redacted.
func (p *proxy) errorData(data json.RawMessage) json.RawMessage {
	var tree any
	if len(data) == 0 || json.Unmarshal(data, &tree) != nil || tree == nil {
		return nil
	}
	red, _, err := redactValue(p.m, tree)
	if err != nil {
		return nil
	}
	b, err := json.Marshal(red)
	if err != nil || p.m.Contains(b) {
		return nil
	}
	return b
}
