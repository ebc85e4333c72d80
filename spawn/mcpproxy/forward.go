package mcpproxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookwarden/hookwarden/spawn/redact"
)

// receive is the server's receiving middleware: it answers each forwarded
// method from the upstream (redacted) and refuses every method that would
// otherwise reach the upstream unredacted; the session's own methods
// (initialize, ping, notifications) go to the SDK.
func (p *proxy) receive(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		p.inflight.Add(1)
		defer p.inflight.Done()
		switch method {
		case "initialize", "ping", "notifications/initialized", "notifications/cancelled",
			"notifications/progress", "notifications/roots/list_changed":
			return next(ctx, method, req)
		case "logging/setLevel":
			if err := p.cs.SetLoggingLevel(ctx, paramsOf[*mcp.SetLoggingLevelParams](req)); err != nil {
				return nil, p.upstreamError(method, err)
			}
			return next(ctx, method, req)
		case "resources/subscribe":
			if err := p.cs.Subscribe(ctx, paramsOf[*mcp.SubscribeParams](req)); err != nil {
				return nil, p.upstreamError(method, err)
			}
			return next(ctx, method, req)
		case "resources/unsubscribe":
			if err := p.cs.Unsubscribe(ctx, paramsOf[*mcp.UnsubscribeParams](req)); err != nil {
				return nil, p.upstreamError(method, err)
			}
			return next(ctx, method, req)
		case "tools/list":
			r, err := p.cs.ListTools(ctx, paramsOf[*mcp.ListToolsParams](req))
			if err != nil {
				return nil, p.upstreamError(method, err)
			}
			out, _, err := redactValue(p.m, r)
			if err != nil {
				return nil, p.sanitized(method, p.clean(err))
			}
			p.mu.Lock()
			for _, t := range out.Tools {
				if t != nil {
					p.schemas[t.Name] = t.OutputSchema
				}
			}
			p.mu.Unlock()
			return out, nil
		case "tools/call":
			return p.callTool(ctx, paramsOf[*mcp.CallToolParamsRaw](req))
		case "resources/list":
			return forward(p, method, func() (*mcp.ListResourcesResult, error) {
				return p.cs.ListResources(ctx, paramsOf[*mcp.ListResourcesParams](req))
			})
		case "resources/templates/list":
			return forward(p, method, func() (*mcp.ListResourceTemplatesResult, error) {
				return p.cs.ListResourceTemplates(ctx, paramsOf[*mcp.ListResourceTemplatesParams](req))
			})
		case "resources/read":
			return forward(p, method, func() (*mcp.ReadResourceResult, error) {
				return p.cs.ReadResource(ctx, paramsOf[*mcp.ReadResourceParams](req))
			})
		case "prompts/list":
			return forward(p, method, func() (*mcp.ListPromptsResult, error) {
				return p.cs.ListPrompts(ctx, paramsOf[*mcp.ListPromptsParams](req))
			})
		case "prompts/get":
			return forward(p, method, func() (*mcp.GetPromptResult, error) {
				return p.cs.GetPrompt(ctx, paramsOf[*mcp.GetPromptParams](req))
			})
		case "completion/complete":
			return forward(p, method, func() (*mcp.CompleteResult, error) {
				return p.cs.Complete(ctx, paramsOf[*mcp.CompleteParams](req))
			})
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
			Message: fmt.Sprintf("hookwarden mcp proxy (%s): %s is not forwarded under the redaction entry", p.opts.Server, method)}
	}
}

// paramsOf returns req's params as P, or nil when they are of another type
// (the SDK decodes each method's params into its own type; a nil reaches
// the SDK client, which sends an empty request or fails it).
func paramsOf[P mcp.Params](req mcp.Request) P {
	p, _ := req.GetParams().(P)
	return p
}

// forward runs one upstream request and returns its result redacted, the
// upstream's error redacted, or a sanitized failure.
func forward[R any](p *proxy, method string, call func() (R, error)) (mcp.Result, error) {
	r, err := call()
	if err != nil {
		return nil, p.upstreamError(method, err)
	}
	out, _, err := redactValue(p.m, r)
	if err != nil {
		return nil, p.sanitized(method, p.clean(err))
	}
	res, ok := any(out).(mcp.Result)
	if !ok {
		return nil, p.sanitized(method, "not a result")
	}
	return res, nil
}

// callTool receipts and sends one tools/call upstream, once, and returns
// its result redacted. A result that cannot be redacted, or whose redacted
// structuredContent no longer fits the tool's outputSchema, comes back as a
// tool error naming what was withheld.
func (p *proxy) callTool(ctx context.Context, in *mcp.CallToolParamsRaw) (mcp.Result, error) {
	if in == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "tools/call without params"}
	}
	id, _ := in.Meta[ToolUseIDMeta].(string)
	if p.opts.Receipt != nil {
		err := p.opts.Receipt(redact.Receipt{Event: ReceiptEvent, Engine: p.opts.EngineName, ToolUseID: id,
			Tool: in.Name, Route: "mcp:" + p.opts.Server})
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
				Message: fmt.Sprintf("hookwarden mcp proxy (%s): the call could not be receipted and was not sent: %s", p.opts.Server, p.clean(err))}
		}
	}
	params := &mcp.CallToolParams{Meta: in.Meta, Name: in.Name}
	if len(in.Arguments) > 0 {
		params.Arguments = in.Arguments
	}
	r, err := p.cs.CallTool(ctx, params)
	if err != nil {
		return nil, p.upstreamError("tools/call", err)
	}
	out, n, err := redactValue(p.m, r)
	if err == nil && n > 0 && out.StructuredContent != nil {
		p.mu.Lock()
		schema, known := p.schemas[in.Name]
		p.mu.Unlock()
		if known && schema != nil && !fitsSchema(schema, out.StructuredContent) {
			err = fmt.Errorf("its structuredContent no longer fits the tool's outputSchema once redacted")
		}
	}
	if err != nil {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{
			Text: fmt.Sprintf("hookwarden mcp proxy (%s): the result of %s was withheld: %s. The call ran once upstream and was not repeated.", p.opts.Server, in.Name, p.clean(err))}}}, nil
	}
	return out, nil
}

// send is the server's sending middleware: every request and notification
// the proxy sends the engine has its params redacted into the same type; a
// message that cannot be is not sent (its method named on stderr).
func (p *proxy) send(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "notifications/message", "notifications/progress", "notifications/resources/updated",
			"notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed",
			"ping":
		default:
			fmt.Fprintf(p.stderr, "hookwarden mcp proxy (%s): %s toward the engine is not forwarded under the redaction entry\n", p.opts.Server, method)
			return nil, fmt.Errorf("%s is not forwarded", method)
		}
		params := req.GetParams()
		if params == nil || isNilParams(params) {
			return next(ctx, method, req)
		}
		red, _, err := redactValue(p.m, params)
		if err != nil {
			fmt.Fprintf(p.stderr, "hookwarden mcp proxy (%s): a %s was withheld: %s\n", p.opts.Server, method, p.clean(err))
			return nil, err
		}
		if err := setParams(req, red); err != nil {
			return nil, err
		}
		return next(ctx, method, req)
	}
}

// onLog forwards an upstream log message to the engine (the sending
// middleware redacts it).
func (p *proxy) onLog(ctx context.Context, r *mcp.LoggingMessageRequest) {
	if ss := p.session(); ss != nil && r.Params != nil {
		if err := ss.Log(ctx, r.Params); err != nil {
			fmt.Fprintf(p.stderr, "hookwarden mcp proxy (%s): a log message was not forwarded: %s\n", p.opts.Server, p.clean(err))
		}
	}
}

// onProgress forwards an upstream progress notification to the engine.
func (p *proxy) onProgress(ctx context.Context, r *mcp.ProgressNotificationClientRequest) {
	if ss := p.session(); ss != nil && r.Params != nil {
		ss.NotifyProgress(ctx, r.Params)
	}
}

// onResourceUpdated forwards an upstream resource update to the engine
// sessions subscribed to it.
func (p *proxy) onResourceUpdated(ctx context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
	if p.session() != nil && r.Params != nil {
		p.server.ResourceUpdated(ctx, r.Params)
	}
}

// placeholder is the name of the entry listChanged adds and removes: the
// SDK server sends a list-changed notification when its own list changes,
// and the receiving middleware answers every list from the upstream, so
// the entry is never listed to the engine.
const placeholder = "hookwarden-mcp-proxy-list-changed"

// listChanged makes the SDK server send the engine a list-changed
// notification of kind (tools, prompts or resources).
func (p *proxy) listChanged(kind string) {
	if p.session() == nil {
		return
	}
	switch kind {
	case "tools":
		p.server.AddTool(&mcp.Tool{Name: placeholder, InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return nil, errors.New("unreachable")
			})
		p.server.RemoveTools(placeholder)
	case "prompts":
		p.server.AddPrompt(&mcp.Prompt{Name: placeholder},
			func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return nil, errors.New("unreachable")
			})
		p.server.RemovePrompts(placeholder)
	case "resources":
		uri := "hookwarden-proxy:" + placeholder
		p.server.AddResource(&mcp.Resource{Name: placeholder, URI: uri},
			func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return nil, errors.New("unreachable")
			})
		p.server.RemoveResources(uri)
	}
}

// session returns the engine's session once it is connected.
func (p *proxy) session() *mcp.ServerSession {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ss
}

// lineRedactor writes what an upstream process prints on stderr to w one
// line at a time, each redacted (a line it cannot redact is replaced by a
// notice). A line longer than maxStderrLine is withheld whole, up to its
// newline: cutting it would split a value across two writes, and a split
// value is not recognised.
type lineRedactor struct {
	m        *redact.Matcher
	w        io.Writer
	prefix   string
	mu       sync.Mutex
	buf      []byte
	skipping bool // inside a line past maxStderrLine
}

// maxStderrLine bounds one upstream stderr line the proxy keeps.
const maxStderrLine = 64 << 10

func (l *lineRedactor) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, b...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			if len(l.buf) > maxStderrLine {
				if !l.skipping {
					fmt.Fprintf(l.w, "%s(a line longer than %d bytes was withheld)\n", l.prefix, maxStderrLine)
				}
				l.skipping, l.buf = true, l.buf[:0]
			}
			return len(b), nil
		}
		line := l.buf[:i+1]
		if l.skipping {
			l.skipping = false
		} else {
			red, _, err := l.m.Redact(line)
			if err != nil {
				red = []byte("(a line held a table value and is withheld)\n")
			}
			l.w.Write(append([]byte(l.prefix), red...))
		}
		l.buf = l.buf[i+1:]
	}
}

// isNilParams reports whether params is a typed nil pointer.
func isNilParams(params mcp.Params) bool {
	v := reflect.ValueOf(params)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// setParams replaces the Params field of req (an *mcp.ServerRequest[P] the
// SDK built for an outgoing message) with params of the same type.
func setParams(req mcp.Request, params mcp.Params) error {
	v := reflect.ValueOf(req)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("unexpected request type %T", req)
	}
	f := v.Elem().FieldByName("Params")
	pv := reflect.ValueOf(params)
	if !f.IsValid() || !f.CanSet() || !pv.Type().AssignableTo(f.Type()) {
		return fmt.Errorf("unexpected request type %T", req)
	}
	f.Set(pv)
	return nil
}
