package mcpproxy

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookwarden/hookwarden/spawn/mcpconfig"
	"github.com/hookwarden/hookwarden/spawn/redact"
)

// Run is `hookwarden redact --hook mcp --server NAME --mcp-config FILE`, the
// program spawn exec puts in the engine's MCP configuration for each
// server: it reads the run's table (HOOKWARDEN_HOOK_TABLE) and the run's
// proxy configuration FILE (this account's 0600 file; RunConfig), finds
// NAME's upstream in it, and serves the engine on stdin and stdout (the
// SDK's stdio transport) until either side ends. Each tools/call is
// receipted in HOOKWARDEN_HOOK_RECEIPTS. Without a readable table or
// configuration it serves nothing: the engine sees the server fail, never
// the upstream.
func Run(ctx context.Context, e redact.Env, server, configPath, version string) error {
	if !filepath.IsAbs(configPath) {
		return fmt.Errorf("mcp proxy %s: --mcp-config must be an absolute path", server)
	}
	m, err := redact.RunMatcher(e)
	if err != nil {
		return fmt.Errorf("mcp proxy %s: %w", server, err)
	}
	b, err := redact.ReadPrivate(configPath)
	if err != nil {
		return fmt.Errorf("mcp proxy %s: %w", server, err)
	}
	cfg, err := mcpconfig.ParseRunConfig(b)
	if err != nil {
		return fmt.Errorf("mcp proxy %s: %s: %w", server, configPath, err)
	}
	up, ok := cfg.Servers[server]
	if !ok {
		return fmt.Errorf("mcp proxy %s: %s names no such server", server, configPath)
	}
	return Serve(ctx, Options{
		Server: server, Upstream: up, Engine: &mcp.StdioTransport{}, Matcher: m,
		Receipt:    func(r redact.Receipt) error { return redact.AppendReceipt(e, r) },
		EngineName: e.Engine, Stderr: e.Stderr, Version: version,
	})
}
