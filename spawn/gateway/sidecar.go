package gateway

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"sync"

	"golang.org/x/net/http/httpproxy"

	"github.com/hookwarden/hookwarden/spawn/redact"
)

// The sidecar protocol between spawn exec and `hookwarden-mcp-proxy
// gateway` (the gateway runs in a process of its own because net/http
// would be linked into every hook process otherwise: cmd/hookwarden's
// TestBinaryImports), one line per message:
//
//	gateway -> spawn exec: "READY <base URL>" once listening;
//	                       "STOP <Stop.String()>" for each stopped request;
//	                       "OK" or "ERR <reason>" answering each TABLE.
//	spawn exec -> gateway: "TABLE <absolute path> <sha256 hex>": judge with
//	                       the run's table at path (this account's 0600
//	                       file) whose bytes must have that digest.
//
// The gateway ends when its stdin closes. No line carries a table value.
const (
	LineReady = "READY"
	LineStop  = "STOP"
	LineTable = "TABLE"
	LineOK    = "OK"
	LineErr   = "ERR"
)

// RunSidecar serves the gateway for spawn exec: upstream is the model API
// base URL, the proxy is chosen from the process environment
// (HTTPS_PROXY, HTTP_PROXY, NO_PROXY, as the engine would) and so are the
// caller's credential headers exempt from the header scan (AuthFromEnv), in carries
// TABLE lines and out receives READY, STOP, OK and ERR lines. It returns
// when in ends (nil) or ctx ends.
func RunSidecar(ctx context.Context, upstream string, in io.Reader, out io.Writer) error {
	u, err := url.Parse(upstream)
	if err != nil {
		return fmt.Errorf("gateway: --upstream: %w", err)
	}
	var mu sync.Mutex
	say := func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(out, format+"\n", a...)
	}
	proxy := httpproxy.FromEnvironment().ProxyFunc()
	g, err := Start(ctx, Config{Upstream: u, Proxy: proxy, Auth: AuthFromEnv(os.Getenv), OnStop: func(s Stop) { say("%s %s", LineStop, s.String()) }})
	if err != nil {
		return err
	}
	defer g.Close()
	say("%s %s", LineReady, g.URL())
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 || f[0] != LineTable {
			say("%s want %q", LineErr, LineTable+" <path> <sha256>")
			continue
		}
		m, err := loadTable(f[1], f[2])
		if err != nil {
			say("%s %v", LineErr, err)
			continue
		}
		g.SetMatcher(m)
		say("%s", LineOK)
	}
	return sc.Err()
}

// loadTable reads the run's table at path (redact.ReadPrivate: this
// account's 0600 regular file), checks its SHA-256 against digest and
// builds the wire matcher over its values.
func loadTable(path, digest string) (*redact.Matcher, error) {
	b, err := redact.ReadPrivate(path)
	if err != nil {
		return nil, err
	}
	if redact.Digest(b) != strings.ToLower(digest) {
		return nil, fmt.Errorf("%s: its digest differs from the one spawn exec wrote", path)
	}
	t, _, err := redact.ParseTable(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return redact.NewWireMatcher(t.Values)
}
