package mcpproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookwarden/hookwarden/spawn/mcpconfig"
	"github.com/hookwarden/hookwarden/spawn/redact"
)

// secret is the run table's value in every test; the engine side must
// never receive it in any spelling.
const (
	secret = "sk-live-7f3a9c21"
	token  = "[API_KEY]"
)

func matcher(t *testing.T) *redact.Matcher {
	t.Helper()
	m, err := redact.NewMatcher(map[string]string{token: secret})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// upstreamState counts the calls the test upstream ran.
type upstreamState struct {
	mutations atomic.Int32
	die       func() // closes the upstream's side after a mutation, when set
}

// newUpstream returns an SDK server that puts the secret in every place a
// message can carry it: a tool description and schema, a text result, a
// structured result, an error, a log notification sent during a call, a
// resource, a prompt, an image, and a structured result whose schema the
// token cannot satisfy.
func newUpstream(st *upstreamState) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "vault", Version: "1"}, &mcp.ServerOptions{
		Instructions: "use the key " + secret + " wisely",
		Capabilities: &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}},
	})
	s.AddTool(&mcp.Tool{
		Name:        "lookup",
		Description: "returns the account record (key " + secret + ")",
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{
			"user": map[string]any{"type": "string", "description": "default " + secret}}},
		OutputSchema: map[string]any{"type": "object", "properties": map[string]any{
			"user": map[string]any{"type": "string"}, "key": map[string]any{"type": "string"}}},
	}, func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "looked up " + secret})
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: `{"user":"ada","key":"` + secret + `"}`}},
			StructuredContent: map[string]any{"user": "ada", "key": secret},
		}, nil
	})
	s.AddTool(&mcp.Tool{Name: "fail", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("backend refused key " + secret)
		})
	s.AddTool(&mcp.Tool{Name: "picture", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{MIMEType: "image/png", Data: []byte("PNG" + secret)}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "pinned", InputSchema: map[string]any{"type": "object"},
		OutputSchema: map[string]any{"type": "object", "properties": map[string]any{
			"key": map[string]any{"type": "string", "pattern": "^sk-"}}}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "see structured"}},
				StructuredContent: map[string]any{"key": secret}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "mutate", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			st.mutations.Add(1)
			if st.die != nil {
				st.die()
				time.Sleep(50 * time.Millisecond)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	s.AddResource(&mcp.Resource{Name: "config", URI: "vault://config", Description: "holds " + secret},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "vault://config", Text: "KEY=" + secret + "\n"}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "greet", Description: "greets with " + secret},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello " + secret}}}}, nil
		})
	return s
}

// engineSide is what the engine sees: an SDK client connected to the
// proxy, and every byte the proxy sent it.
type engineSide struct {
	cs   *mcp.ClientSession
	logs chan string
	wire *bytes.Buffer
	mu   *sync.Mutex
	done chan error
}

// wireTap records every message the proxy writes toward the engine.
type wireTap struct {
	mcp.Transport
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (w wireTap) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := w.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	lt := &mcp.LoggingTransport{Transport: fixed{c}, Writer: &lockedWriter{w.mu, w.buf}}
	return lt.Connect(ctx)
}

type fixed struct{ c mcp.Connection }

func (f fixed) Connect(context.Context) (mcp.Connection, error) { return f.c, nil }

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// start runs a proxy in front of upstream (a transport to it) and connects
// an engine client to it.
func start(t *testing.T, up mcp.Transport, receipt func(redact.Receipt) error) *engineSide {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	et, pt := mcp.NewInMemoryTransports()
	mu, wire := &sync.Mutex{}, &bytes.Buffer{}
	e := &engineSide{logs: make(chan string, 16), wire: wire, mu: mu, done: make(chan error, 1)}
	go func() {
		e.done <- Serve(ctx, Options{Server: "vault", UpstreamTransport: up, Engine: wireTap{pt, mu, wire},
			Matcher: matcher(t), Receipt: receipt, EngineName: "claude", Version: "test", Stderr: testWriter{t}})
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "engine"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			b, _ := json.Marshal(r.Params.Data)
			e.logs <- string(b)
		},
	})
	// Claude Code 2.1.328 offers 2025-11-25 at most
	cs, err := client.Connect(ctx, et, &mcp.ClientSessionOptions{ProtocolVersion: UpstreamProtocol})
	if err != nil {
		t.Fatalf("engine connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	e.cs = cs
	return e
}

// clean fails the test when the proxy sent the engine the secret in any
// spelling.
func (e *engineSide) clean(t *testing.T) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if matcher(t).Contains(e.wire.Bytes()) {
		t.Fatalf("the engine received the raw value:\n%s", e.wire.String())
	}
	if e.wire.Len() == 0 {
		t.Fatal("no traffic recorded toward the engine")
	}
}

func inMemoryUpstream(t *testing.T, st *upstreamState) mcp.Transport {
	t.Helper()
	ut, st2 := mcp.NewInMemoryTransports()
	ss, err := newUpstream(st).Connect(context.Background(), st2, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return ut
}

func TestProxyRedactsEveryForm(t *testing.T) {
	st := &upstreamState{}
	var receipts []redact.Receipt
	var rmu sync.Mutex
	e := start(t, inMemoryUpstream(t, st), func(r redact.Receipt) error {
		rmu.Lock()
		defer rmu.Unlock()
		receipts = append(receipts, r)
		return nil
	})
	ctx := context.Background()
	ir := e.cs.InitializeResult()
	if !strings.Contains(ir.Instructions, token) || ir.ServerInfo.Name != "vault" {
		t.Errorf("initialize: instructions %q, server %q; want the token and the upstream's name", ir.Instructions, ir.ServerInfo.Name)
	}
	if err := e.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	tools, err := e.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var desc string
	for _, tl := range tools.Tools {
		if tl.Name == "lookup" {
			b, _ := json.Marshal(tl)
			desc = string(b)
		}
	}
	if !strings.Contains(desc, "(key "+token+")") || !strings.Contains(desc, "default "+token) {
		t.Errorf("tools/list lookup = %s; want the description and the input schema tokenized", desc)
	}

	r, err := e.cs.CallTool(ctx, &mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{"user": "ada"},
		Meta: mcp.Meta{ToolUseIDMeta: "toolu_01"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.IsError {
		t.Fatalf("lookup: error result %v", r.Content[0])
	}
	if got := r.Content[0].(*mcp.TextContent).Text; got != `{"user":"ada","key":"`+token+`"}` {
		t.Errorf("lookup text = %q; want the other fields intact and the token", got)
	}
	if sc, _ := r.StructuredContent.(map[string]any); sc["key"] != token || sc["user"] != "ada" {
		t.Errorf("lookup structured = %v", r.StructuredContent)
	}
	select {
	case l := <-e.logs:
		if !strings.Contains(l, token) {
			t.Errorf("log notification = %s; want the token", l)
		}
	case <-time.After(5 * time.Second):
		t.Error("the upstream's log notification was not forwarded")
	}

	// an upstream error: its message tokenized
	_, err = e.cs.CallTool(ctx, &mcp.CallToolParams{Name: "fail"})
	r, _ = e.cs.CallTool(ctx, &mcp.CallToolParams{Name: "fail"})
	if err == nil && (r == nil || !r.IsError) {
		t.Fatal("fail: want an error")
	}
	if r != nil && r.IsError {
		if txt := r.Content[0].(*mcp.TextContent).Text; !strings.Contains(txt, "backend refused key "+token) {
			t.Errorf("fail: %q; want the upstream's message with the token", txt)
		}
	}

	// binary data: no token can replace it
	r, err = e.cs.CallTool(ctx, &mcp.CallToolParams{Name: "picture"})
	if err != nil || !r.IsError || !strings.Contains(r.Content[0].(*mcp.TextContent).Text, "withheld") {
		t.Errorf("picture: %v %+v; want a sanitized failure", err, r)
	}
	// a structured result whose schema the token breaks
	r, err = e.cs.CallTool(ctx, &mcp.CallToolParams{Name: "pinned"})
	if err != nil || !r.IsError || !strings.Contains(r.Content[0].(*mcp.TextContent).Text, "outputSchema") {
		t.Errorf("pinned: %v %+v; want a sanitized failure naming the schema", err, r)
	}

	rl, err := e.cs.ListResources(ctx, nil)
	if err != nil || len(rl.Resources) != 1 || !strings.Contains(rl.Resources[0].Description, token) {
		t.Errorf("resources/list: %v %+v", err, rl)
	}
	rr, err := e.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "vault://config"})
	if err != nil || rr.Contents[0].Text != "KEY="+token+"\n" {
		t.Errorf("resources/read: %v %+v", err, rr)
	}
	pl, err := e.cs.ListPrompts(ctx, nil)
	if err != nil || !strings.Contains(pl.Prompts[0].Description, token) {
		t.Errorf("prompts/list: %v %+v", err, pl)
	}
	pg, err := e.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"})
	if err != nil || pg.Messages[0].Content.(*mcp.TextContent).Text != "hello "+token {
		t.Errorf("prompts/get: %v %+v", err, pg)
	}
	e.clean(t)

	rmu.Lock()
	defer rmu.Unlock()
	if len(receipts) == 0 || receipts[0] != (redact.Receipt{Event: ReceiptEvent, Engine: "claude", ToolUseID: "toolu_01", Tool: "lookup", Route: "mcp:vault"}) {
		t.Errorf("receipts = %+v; want the lookup call with its tool-use id first", receipts)
	}
}

// TestProxyUnreceiptedCallNotSent: a call the proxy cannot receipt never
// reaches the upstream.
func TestProxyUnreceiptedCallNotSent(t *testing.T) {
	st := &upstreamState{}
	e := start(t, inMemoryUpstream(t, st), func(redact.Receipt) error { return errors.New("receipts gone") })
	_, err := e.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "mutate"})
	if err == nil || !strings.Contains(err.Error(), "not sent") {
		t.Errorf("err = %v; want the call refused as not sent", err)
	}
	if n := st.mutations.Load(); n != 0 {
		t.Errorf("the upstream ran the call %d times; want 0", n)
	}
}

// TestProxyUpstreamDiesAfterCall: the upstream runs a mutating call and its
// connection dies before it answers; the engine gets an error saying the
// call was not repeated, the upstream ran it once, and the proxy ends
// instead of reconnecting.
func TestProxyUpstreamDiesAfterCall(t *testing.T) {
	st := &upstreamState{}
	ut, st2 := mcp.NewInMemoryTransports()
	ss, err := newUpstream(st).Connect(context.Background(), st2, nil)
	if err != nil {
		t.Fatal(err)
	}
	st.die = func() { go ss.Close() }
	e := start(t, ut, nil)
	_, err = e.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "mutate"})
	if err == nil {
		t.Fatal("mutate: want an error when the upstream dies before answering")
	}
	if !strings.Contains(err.Error(), "not repeated") {
		t.Errorf("err = %v; want it to say the call was not repeated", err)
	}
	select {
	case <-e.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy kept running after its upstream died")
	}
	if n := st.mutations.Load(); n != 1 {
		t.Errorf("the upstream ran the mutating call %d times; want exactly 1", n)
	}
}

// chunker splits every write into 5-byte writes, so a message (and the
// value in it) arrives in pieces.
type chunker struct{ w io.WriteCloser }

func (c chunker) Write(p []byte) (int, error) {
	for i := 0; i < len(p); i += 5 {
		if _, err := c.w.Write(p[i:min(i+5, len(p))]); err != nil {
			return i, err
		}
	}
	return len(p), nil
}
func (c chunker) Close() error { return c.w.Close() }

// TestProxySplitChunks: the upstream's stream arrives in 5-byte chunks; the
// value split across them still comes back as the token.
func TestProxySplitChunks(t *testing.T) {
	st := &upstreamState{}
	upR, srvW := io.Pipe()
	srvR, upW := io.Pipe()
	go newUpstream(st).Run(context.Background(), &mcp.IOTransport{Reader: srvR, Writer: chunker{srvW}})
	e := start(t, &mcp.IOTransport{Reader: upR, Writer: upW}, nil)
	r, err := e.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{}})
	if err != nil || r.IsError {
		t.Fatalf("lookup: %v %+v", err, r)
	}
	if got := r.Content[0].(*mcp.TextContent).Text; !strings.Contains(got, token) {
		t.Errorf("lookup over split chunks = %q; want the token", got)
	}
	e.clean(t)
}

// TestProxyHTTPUpstream: a streamable HTTP upstream on 127.0.0.1 that
// demands the caller's Authorization header; the proxy sends it and
// redacts the result.
func TestProxyHTTPUpstream(t *testing.T) {
	st := &upstreamState{}
	srv := newUpstream(st)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	var sawAuth atomic.Bool
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer up-token" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		sawAuth.Store(true)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)

	p := &proxy{opts: Options{Server: "vault", Upstream: mcpconfig.Upstream{Type: "http", URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer up-token"}}}, m: matcher(t), stderr: io.Discard}
	ut, err := p.upstreamTransport(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	e := start(t, ut, nil)
	r, err := e.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{}})
	if err != nil || r.IsError {
		t.Fatalf("lookup: %v %+v", err, r)
	}
	if sc, _ := r.StructuredContent.(map[string]any); sc["key"] != token {
		t.Errorf("structured = %v; want the token", r.StructuredContent)
	}
	if !sawAuth.Load() {
		t.Error("the upstream never saw the configured Authorization header")
	}
	e.clean(t)
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// TestLineRedactor: upstream stderr comes out line by line with values
// replaced, also when a line arrives in pieces; a line past the bound is
// withheld whole, so no piece of a value split by a cut is written.
func TestLineRedactor(t *testing.T) {
	var out bytes.Buffer
	l := &lineRedactor{m: matcher(t), w: &out, prefix: "up: "}
	for _, piece := range []string{"key sk-li", "ve-7f3a", "9c21 ok\nnext\n"} {
		l.Write([]byte(piece))
	}
	if out.String() != "up: key "+token+" ok\nup: next\n" {
		t.Errorf("got %q", out.String())
	}
	out.Reset()
	long := strings.Repeat("x", maxStderrLine-5) + secret + strings.Repeat("y", 5000) + " tail\nafter\n" // the bound falls inside the value
	for i := 0; i < len(long); i += 1000 {
		l.Write([]byte(long[i:min(i+1000, len(long))]))
	}
	if strings.Contains(out.String(), "sk-") || strings.Contains(out.String(), "tail") || !strings.HasSuffix(out.String(), "up: after\n") || !strings.Contains(out.String(), "withheld") {
		t.Errorf("long line: %q", out.String()[max(0, out.Len()-200):])
	}
}

// TestProxyForwardsListChanged: a tool the upstream adds after the session
// started reaches the engine as a tools/list_changed notification, and the
// next list, redacted, holds it.
func TestProxyForwardsListChanged(t *testing.T) {
	ut, st2 := mcp.NewInMemoryTransports()
	up := newUpstream(&upstreamState{})
	ss, err := up.Connect(context.Background(), st2, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	changed := make(chan struct{}, 4)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	et, pt := mcp.NewInMemoryTransports()
	go Serve(ctx, Options{Server: "vault", UpstreamTransport: ut, Engine: pt, Matcher: matcher(t), Version: "test"})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "engine"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	}).Connect(ctx, et, &mcp.ClientSessionOptions{ProtocolVersion: UpstreamProtocol})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	up.AddTool(&mcp.Tool{Name: "late", Description: "added later with " + secret, InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no tools/list_changed reached the engine")
	}
	tl, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, tool := range tl.Tools {
		if tool.Name == placeholder {
			t.Errorf("the placeholder tool was listed")
		}
		if tool.Name == "late" {
			found = tool.Description == "added later with "+token
		}
	}
	if !found {
		t.Errorf("the late tool is not listed with its description tokenized: %+v", tl.Tools)
	}
}

// TestUpstreamErrorDataReencoded: an upstream error's data reaches the
// engine decoded, redacted and encoded again: a value the upstream spelled
// with \u escapes (which the engine would decode) comes back as its token,
// clean data is re-encoded, and data that is not JSON or null is dropped.
func TestUpstreamErrorDataReencoded(t *testing.T) {
	p := &proxy{m: matcher(t)}
	for in, want := range map[string]string{
		`{"detail":"key \u0073k-live-7f3a9c21 refused"}`: `{"detail":"key [API_KEY] refused"}`,
		`["sk-live-7f3a9c21", 3]`:                        `["[API_KEY]",3]`,
		`{"retry": true , "after":"2s"}`:                 `{"after":"2s","retry":true}`,
		`not json`:                                       ``,
		`null`:                                           ``,
	} {
		err := p.upstreamError("tools/call", &jsonrpc.Error{Code: 7, Message: "failed", Data: json.RawMessage(in)})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != 7 || string(we.Data) != want {
			t.Errorf("data %s: got %v %s, want %s", in, err, we.Data, want)
		}
	}
}
