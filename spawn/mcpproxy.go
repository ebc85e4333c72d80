package spawn

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hookwarden/hookwarden/internal/regread"
	"github.com/hookwarden/hookwarden/spawn/mcpconfig"
	"github.com/hookwarden/hookwarden/spawn/redact"
)

// MCPProxyName is the file name of the MCP route's proxy binary
// (cmd/hookwarden-mcp-proxy), installed beside hookwarden.
const MCPProxyName = "hookwarden-mcp-proxy"

// mcpRoute is the MCP server set of one Claude spawn under a redaction
// entry, each server behind a proxy bound to the run: the upstream
// configuration the proxies read (RunConfig) and the engine's
// configuration that names only the proxies.
type mcpRoute struct {
	Servers  []string // server names, sorted
	upstream []byte   // <run id>.mcp-upstream.json
	engine   []byte   // <run id>.mcp.json
}

// readMCPConfigs reads the caller's --mcp-config values (Claude Code
// 2.1.328: each a JSON string or a file path; a path is relative to cwd
// and read bounded, a FIFO refused) and returns the servers by name. Any
// value that cannot be read or is not {"mcpServers":{…}} with members the
// proxy can keep, a server name given twice, a name Claude Code would
// rewrite, and a server the proxy cannot front (an sse, ws or sdk server,
// anything but stdio and http) refuse the spawn (redaction-mcp-unproxied):
// a server left unproxied would reach the engine with nothing redacted.
// Detail never quotes a JSON value, which may hold a credential.
func readMCPConfigs(values []string, cwd string) (map[string]mcpconfig.Upstream, error) {
	all := map[string]mcpconfig.Upstream{}
	for n, v := range values {
		var b []byte
		what := fmt.Sprintf("--mcp-config value %d (inline JSON)", n+1)
		if t := strings.TrimSpace(v); strings.HasPrefix(t, "{") {
			b = []byte(t)
		} else {
			p := v
			if !filepath.IsAbs(p) {
				p = filepath.Join(cwd, p)
			}
			what = "--mcp-config " + p
			var err error
			if b, err = regread.File(p, MaxHomeFileBytes); err != nil {
				return nil, refuse(ReasonRedactionMCP, "%s cannot be read: %v", what, err)
			}
		}
		servers, err := mcpconfig.ParseClaudeConfig(b)
		if err != nil {
			return nil, refuse(ReasonRedactionMCP, "%s is not an MCP configuration the proxy can keep whole: %v", what, err)
		}
		for _, name := range mcpconfig.SortedNames(servers) {
			if _, dup := all[name]; dup {
				return nil, refuse(ReasonRedactionMCP, "the MCP server %q is configured twice", name)
			}
			if !mcpconfig.ValidServerName(name) {
				return nil, refuse(ReasonRedactionMCP, "the MCP server name %q is not 1-64 bytes of A-Z, a-z, 0-9, _ and -", name)
			}
			if _, err := servers[name].Kind(); err != nil {
				return nil, refuse(ReasonRedactionMCP, "the MCP server %q cannot be put behind a redacting proxy: %v", name, err)
			}
			all[name] = servers[name]
		}
	}
	return all, nil
}

// buildMCPRoute returns the run's MCP route for servers: the proxy
// (proxyBin, absolute, a regular executable file; otherwise the spawn is
// refused) started by the engine as a stdio server once per upstream, with
// the run's table and receipts in its configured environment and the
// upstream configuration file in its argv.
func buildMCPRoute(servers map[string]mcpconfig.Upstream, proxyBin, upstreamPath, tablePath, receiptsPath string) (*mcpRoute, error) {
	fi, err := os.Stat(proxyBin)
	if !filepath.IsAbs(proxyBin) || err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return nil, refuse(ReasonRedactionMCP, "the caller passes MCP servers and %s is not installed beside hookwarden (%q); no server runs unproxied", MCPProxyName, proxyBin)
	}
	names := mcpconfig.SortedNames(servers)
	up, err := json.Marshal(mcpconfig.RunConfig{Version: 1, Servers: servers})
	if err != nil {
		return nil, refuse(ReasonCompileFailed, "MCP upstream configuration: %v", err)
	}
	type stdio struct {
		Type    string            `json:"type"`
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
	}
	eng := map[string]map[string]stdio{"mcpServers": {}}
	for _, n := range names {
		eng["mcpServers"][n] = stdio{Type: "stdio", Command: proxyBin,
			Args: []string{"--engine", "claude", "--server", n, "--mcp-config", upstreamPath},
			Env:  map[string]string{redact.EnvTable: tablePath, redact.EnvReceipts: receiptsPath}}
	}
	eb, err := json.Marshal(eng)
	if err != nil {
		return nil, refuse(ReasonCompileFailed, "MCP proxy configuration: %v", err)
	}
	return &mcpRoute{Servers: names, upstream: append(up, '\n'), engine: append(eb, '\n')}, nil
}

// mcpSecrets returns the named part of the table that the caller's MCP
// servers hold (ADR-0134 D7's name rule applied to their configuration,
// which the upstream file keeps and a shell command of the agent could
// print): each env value whose variable is declared (any length) or whose
// name matches credentialName (from eight bytes), and each header value
// whose name matches (Authorization, X-API-Key …; from eight bytes) with,
// for an "<scheme> <credential>" value, the credential alone too. Tokens
// are minted from SERVER_NAME. A value that is not valid UTF-8 refuses
// the spawn (redaction-table-invalid), as for the environment.
func mcpSecrets(servers map[string]mcpconfig.Upstream, declared []string) ([]namedValue, error) {
	var out []namedValue
	add := func(name, v string) error {
		if !utf8.ValidString(v) {
			return refuse(ReasonRedactionTable, "the value of %s is not valid UTF-8; no redaction table can hold it", name)
		}
		out = append(out, namedValue{name, v})
		return nil
	}
	for _, s := range mcpconfig.SortedNames(servers) {
		u := servers[s]
		for _, k := range slices.Sorted(maps.Keys(u.Env)) {
			v := u.Env[k]
			if v != "" && (slices.Contains(declared, k) || credentialName().MatchString(k) && len(v) >= minNamedValue) {
				if err := add(s+"_"+k, v); err != nil {
					return nil, err
				}
			}
		}
		for _, k := range slices.Sorted(maps.Keys(u.Headers)) {
			v := u.Headers[k]
			if !credentialName().MatchString(k) || len(v) < minNamedValue {
				continue
			}
			if err := add(s+"_"+k, v); err != nil {
				return nil, err
			}
			if _, cred, ok := strings.Cut(v, " "); ok && len(cred) >= minNamedValue {
				if err := add(s+"_"+k+"_credential", cred); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}
