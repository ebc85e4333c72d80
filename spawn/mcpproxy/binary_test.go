package mcpproxy

import (
	"bytes"
	"context"
	"fmt"
	"github.com/hookwarden/hookwarden/internal/testbin"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookwarden/hookwarden/spawn/redact"
)

// upstreamEnv switches this test binary into a stdio MCP upstream (the
// test upstream of newUpstream) that also prints the secret on stderr.
const upstreamEnv = "HOOKWARDEN_MCPPROXY_TEST_UPSTREAM"

func TestMain(m *testing.M) {
	if os.Getenv(upstreamEnv) == "1" {
		fmt.Fprintln(os.Stderr, "upstream starting with key", secret)
		if err := newUpstream(&upstreamState{}).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// buildProxy returns cmd/hookwarden-mcp-proxy built from this tree
// (internal/testbin); dir is unused.
func buildProxy(t *testing.T, dir string) string {
	t.Helper()
	return testbin.MCPProxy(t)
}

// TestProxyBinaryStdio runs the built hookwarden-mcp-proxy the way Claude
// Code starts it (a stdio command with the run's files in its
// environment) in front of a stdio upstream: the engine gets tokens, the
// call is receipted, and the upstream's stderr reaches the proxy's stderr
// redacted.
func TestProxyBinaryStdio(t *testing.T) {
	dir := t.TempDir()
	bin := buildProxy(t, dir)
	run := filepath.Join(dir, "run")
	if err := os.Mkdir(run, 0o700); err != nil {
		t.Fatal(err)
	}
	tab := filepath.Join(run, "r.table.json")
	rec := filepath.Join(run, "r.receipts.jsonl")
	cfg := filepath.Join(run, "r.mcp.json")
	self, _ := os.Executable()
	for p, body := range map[string]string{
		tab: `{"version":1,"values":{"` + token + `":"` + secret + `"}}`,
		rec: "",
		cfg: `{"version":1,"servers":{"vault":{"command":"` + self + `","env":{"` + upstreamEnv + `":"1"}}}}`,
	} {
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "--engine", "claude", "--server", "vault", "--mcp-config", cfg)
	cmd.Env = append(os.Environ(), redact.EnvTable+"="+tab, redact.EnvReceipts+"="+rec)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "engine"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: UpstreamProtocol})
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{"user": "ada"}, Meta: mcp.Meta{ToolUseIDMeta: "toolu_bin"}})
	if err != nil || r.IsError {
		t.Fatalf("lookup: %v %+v\n%s", err, r, stderr.String())
	}
	if got := r.Content[0].(*mcp.TextContent).Text; got != `{"user":"ada","key":"`+token+`"}` {
		t.Errorf("lookup = %q", got)
	}
	cs.Close()
	cmd.Wait()
	b, _ := os.ReadFile(rec)
	if !strings.Contains(string(b), `"tool_use_id":"toolu_bin"`) || !strings.Contains(string(b), `"event":"mcp_call"`) {
		t.Errorf("receipts = %s; want the call's receipt", b)
	}
	if strings.Contains(stderr.String(), secret) || !strings.Contains(stderr.String(), "upstream starting with key "+token) {
		t.Errorf("proxy stderr = %q; want the upstream's line with the token", stderr.String())
	}
}

// TestProxyBinaryNoTable: without the run's table the proxy serves
// nothing and its upstream never starts.
func TestProxyBinaryNoTable(t *testing.T) {
	dir := t.TempDir()
	bin := buildProxy(t, dir)
	marker := filepath.Join(dir, "started")
	cfg := filepath.Join(dir, "r.mcp.json")
	os.WriteFile(cfg, []byte(`{"version":1,"servers":{"vault":{"command":"/bin/sh","args":["-c","touch `+marker+`"]}}}`), 0o600)
	cmd := exec.Command(bin, "--engine", "claude", "--server", "vault", "--mcp-config", cfg)
	cmd.Env = append(os.Environ(), redact.EnvTable+"=")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit %v; want 1\n%s", err, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the upstream started without a table")
	}
}
