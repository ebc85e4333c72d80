package mcpconfig

import "testing"

// TestUpstreamKinds: the upstream forms the proxy can front, and the
// ones that cannot be put behind it.
func TestUpstreamKinds(t *testing.T) {
	for _, c := range []struct {
		u    Upstream
		kind string
	}{
		{Upstream{Command: "srv"}, "stdio"},
		{Upstream{Type: "stdio", Command: "srv", Args: []string{"-x"}}, "stdio"},
		{Upstream{Type: "http", URL: "https://example.test/mcp"}, "http"},
		{Upstream{Type: "sse", URL: "https://example.test/sse"}, ""},
		{Upstream{Type: "ws", URL: "ws://example.test"}, ""},
		{Upstream{Type: "http", URL: "file:///tmp/x"}, ""},
		{Upstream{Type: "stdio"}, ""},
		{Upstream{}, ""},
		{Upstream{Command: "srv", URL: "https://x.test"}, ""},
	} {
		got, err := c.u.Kind()
		if got != c.kind || (c.kind == "") != (err != nil) {
			t.Errorf("%+v: kind %q err %v; want %q", c.u, got, err, c.kind)
		}
	}
	if _, err := ParseClaudeConfig([]byte(`{"mcpServers":{"a":{"command":"x","oauth":{}}}}`)); err == nil {
		t.Error("a server with a member the proxy cannot keep was accepted")
	}
}

// TestValidServerName: the names spawn exec accepts are the ones Claude
// Code keeps as written in mcp__<server>__<tool>.
func TestValidServerName(t *testing.T) {
	for name, ok := range map[string]bool{"vault": true, "my-server_2": true, "": false, "my.server": false, "a b": false, "ü": false,
		"x234567890123456789012345678901234567890123456789012345678901234": true, "x2345678901234567890123456789012345678901234567890123456789012345": false} {
		if ValidServerName(name) != ok {
			t.Errorf("%q: want %v", name, ok)
		}
	}
}
