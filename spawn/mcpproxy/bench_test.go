package mcpproxy

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookwarden/hookwarden/spawn/redact"
)

// BenchmarkProxyCallTool is one tools/call through the proxy against an
// in-memory SDK upstream whose result is 64 KiB of text holding the secret
// once, with a table of 1,000 values; the direct call (no proxy) is the
// control. go test -run '^$' -bench ProxyCallTool -benchtime 300x ./spawn/mcpproxy
func BenchmarkProxyCallTool(b *testing.B) {
	values := map[string]string{token: secret}
	for i := 0; i < 999; i++ {
		values[fmt.Sprintf("[V%d]", i)] = fmt.Sprintf("value-%06d-xyz", i)
	}
	m, err := redact.NewMatcher(values)
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("lorem ipsum ", 64<<10/12) + secret
	upstream := func() mcp.Transport {
		s := mcp.NewServer(&mcp.Implementation{Name: "u"}, nil)
		s.AddTool(&mcp.Tool{Name: "get", InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
			})
		ct, st := mcp.NewInMemoryTransports()
		if _, err := s.Connect(context.Background(), st, nil); err != nil {
			b.Fatal(err)
		}
		return ct
	}
	connect := func(t mcp.Transport) *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "engine"}, nil).Connect(context.Background(), t, &mcp.ClientSessionOptions{ProtocolVersion: UpstreamProtocol})
		if err != nil {
			b.Fatal(err)
		}
		return cs
	}
	run := func(b *testing.B, cs *mcp.ClientSession, want string) {
		for b.Loop() {
			r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get"})
			if err != nil || !strings.HasSuffix(r.Content[0].(*mcp.TextContent).Text, want) {
				b.Fatalf("%v %v", err, r)
			}
		}
	}
	b.Run("direct", func(b *testing.B) {
		cs := connect(upstream())
		defer cs.Close()
		run(b, cs, secret)
	})
	b.Run("proxy", func(b *testing.B) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		et, pt := mcp.NewInMemoryTransports()
		go Serve(ctx, Options{Server: "u", UpstreamTransport: upstream(), Engine: pt, Matcher: m, Version: "bench"})
		cs := connect(et)
		defer cs.Close()
		run(b, cs, token)
	})
}
