// Package mcpconfig holds the MCP server configuration of the redaction
// entry's MCP route (issue 18): the servers of a caller's Claude
// --mcp-config, which of them a proxy can front, and the run file the
// proxies read. It imports no MCP SDK, so spawn exec (in the hookwarden
// binary, where every hook process pays for each import's initialisation)
// can use it; the proxy itself is spawn/mcpproxy.
package mcpconfig

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/hookwarden/hookwarden/internal/jsonstrict"
)

// Upstream is one MCP server as a caller's Claude --mcp-config names it
// (Claude Code 2.1.328's config shapes: {"type":"stdio","command","args",
// "env"} and {"type":"http","url","headers"}; its --help: "--mcp-config
// <configs...> Load MCP servers from JSON files or strings"). Type is
// "stdio" (also when empty and Command is set) or "http"; Env entries are
// added to the proxy's own environment for the upstream process; Headers go
// on every HTTP request the proxy sends, so the upstream's authorization is
// the one the caller configured.
type Upstream struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// Kind returns "stdio" or "http", or an error naming why the server cannot
// be put behind a proxy: an sse, ws or sdk server, or any other type (the
// proxy speaks stdio and streamable HTTP to its upstream only), a stdio
// server without a command, an http server whose URL is not http(s), or
// fields of both kinds.
func (u Upstream) Kind() (string, error) {
	t := u.Type
	if t == "" && u.Command != "" {
		t = "stdio"
	}
	switch t {
	case "stdio":
		if u.Command == "" {
			return "", errors.New("a stdio server without a command")
		}
		if u.URL != "" || len(u.Headers) > 0 {
			return "", errors.New("a stdio server with url or headers")
		}
		return "stdio", nil
	case "http":
		pu, err := url.Parse(u.URL)
		if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			return "", fmt.Errorf("an http server whose url %q is not an http(s) URL", u.URL)
		}
		if u.Command != "" || len(u.Args) > 0 || len(u.Env) > 0 {
			return "", errors.New("an http server with command, args or env")
		}
		return "http", nil
	case "":
		return "", errors.New("a server with neither a type nor a command")
	default:
		return "", fmt.Errorf("a %q server (the proxy speaks stdio and streamable HTTP to its upstream)", t)
	}
}

// RunConfig is the run file spawn exec writes for the proxies of one run
// (mode 0600 in run/hooks, beside the table): {"version":1,"servers":{name:
// Upstream}}. Each proxy reads its own server's entry by name, so the
// upstream's command, environment and headers never appear in an argv.
type RunConfig struct {
	Version int                 `json:"version"`
	Servers map[string]Upstream `json:"servers"`
}

// ParseRunConfig decodes b strictly (unknown fields and trailing data
// refused) as a version-1 RunConfig.
func ParseRunConfig(b []byte) (*RunConfig, error) {
	var c RunConfig
	if err := jsonstrict.Decode(b, &c); err != nil {
		return nil, err
	}
	if c.Version != 1 || c.Servers == nil {
		return nil, errors.New(`want {"version":1,"servers":{…}}`)
	}
	return &c, nil
}

// ParseClaudeConfig decodes one --mcp-config document ({"mcpServers":
// {name: server}}) strictly: a member outside Upstream's fields (oauth,
// headersHelper, timeout …) is an error, because the proxy could not keep
// what it means. It returns the servers by name.
func ParseClaudeConfig(b []byte) (map[string]Upstream, error) {
	var c struct {
		MCPServers map[string]Upstream `json:"mcpServers"`
	}
	if err := jsonstrict.Decode(b, &c); err != nil {
		return nil, err
	}
	if c.MCPServers == nil {
		return nil, errors.New(`want {"mcpServers":{…}}`)
	}
	return c.MCPServers, nil
}

// ValidServerName reports whether name can name a proxied server: 1 to 64
// bytes of A-Z, a-z, 0-9, '_' and '-' (Claude Code builds tool names
// mcp__<server>__<tool> from it; other bytes it rewrites, which would make
// the name the pre-tool hook sees differ from the configured one).
func ValidServerName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	return !strings.ContainsFunc(name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	})
}

// SortedNames returns the server names of m in order.
func SortedNames(m map[string]Upstream) []string { return slices.Sorted(maps.Keys(m)) }
