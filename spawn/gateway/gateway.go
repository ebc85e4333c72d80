// Package gateway is the model-traffic tripwire of the spawn compiler's
// redaction entry (issue 30): a loopback HTTP gateway that spawn exec
// starts for a run's lifetime in front of the model API the engine would
// use, and points the engine at. Every outbound request is read whole into
// memory and scanned (Scan) for every value of the run's table in every
// form the wire matcher knows (spawn/redact NewWireMatcher: as written,
// JSON-escaped, base64 at every alignment, hex, percent-encoded), in the
// body's bytes, in each of its JSON strings decoded, and in the body with
// line breaks removed (wrapped base64). A clean request is forwarded
// unmodified to the caller's upstream; one holding a value is answered
// with an API error, recorded (the value's token, the request's number,
// method and path, never the value) and never sent. Responses stream back
// untouched (server-sent events flushed as they arrive). No body is ever
// written to disk.
package gateway

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hookwarden/hookwarden/spawn/redact"
)

// MaxBody bounds one request body (after decompression); a larger request
// is stopped: the gateway cannot judge what it does not hold.
const MaxBody = 64 << 20

// Stop is one request the gateway refused to send upstream.
type Stop struct {
	Request int    // 1-based number of the request through the gateway
	Method  string // its HTTP method
	Path    string // its URL path (no query: a query may carry the value)
	Token   string // the token of the value found ("" when Why says why not judged)
	Form    string // the form the value was in (redact.Form*)
	Where   string // "body", "decoded JSON string", "body without line breaks", "URL", "header <Name>"
	Why     string // set instead of Token when the request could not be judged
}

// String describes the stop without any table value.
func (s Stop) String() string {
	if s.Token == "" {
		return fmt.Sprintf("request %d (%s %s) was not sent: %s", s.Request, s.Method, s.Path, s.Why)
	}
	return fmt.Sprintf("request %d (%s %s) held the value of %s (%s, in the %s) and was not sent", s.Request, s.Method, s.Path, s.Token, s.Form, s.Where)
}

// Config is what Start needs.
type Config struct {
	// Upstream is the base URL the engine would have used (scheme, host,
	// optional path prefix); the request's path is appended to its path.
	Upstream *url.URL
	// Proxy chooses the proxy for an upstream request (nil: none), as the
	// engine would have from the caller's environment.
	Proxy func(*url.URL) (*url.URL, error)
	// ErrorBody is the body of the API error answered to a stopped
	// request, given the stop; nil gives AnthropicError.
	ErrorBody func(Stop) []byte
	// Transport, when set, replaces the default upstream transport (tests).
	Transport http.RoundTripper
	// OnStop, when set, is called with each stop as it is recorded.
	OnStop func(Stop)
	// Auth are the upstream credentials the caller configured, each a
	// header and its exact value (AuthFromEnv); a request header equal to
	// one of them is forwarded without a scan (the caller's own key is in
	// the run's table, and it must reach the upstream). Every other header,
	// name and value, is scanned, those headers with any other value too.
	Auth []AuthHeader
}

// AuthHeader is one upstream credential header the caller configured: its
// name (any case) and exact value.
type AuthHeader struct{ Name, Value string }

// Environment variables Claude Code 2.1.328 takes its Anthropic API
// credential from (bundle: ANTHROPIC_API_KEY is sent as the x-api-key
// header; ANTHROPIC_AUTH_TOKEN and CLAUDE_CODE_OAUTH_TOKEN as
// "Authorization: Bearer <token>").
const (
	envAPIKey     = "ANTHROPIC_API_KEY"
	envAuthToken  = "ANTHROPIC_AUTH_TOKEN"
	envOAuthToken = "CLAUDE_CODE_OAUTH_TOKEN"
)

// AuthFromEnv returns the credential headers the caller's environment
// getenv configures for the upstream: x-api-key with ANTHROPIC_API_KEY,
// Authorization "Bearer " with ANTHROPIC_AUTH_TOKEN or
// CLAUDE_CODE_OAUTH_TOKEN, each only when set.
func AuthFromEnv(getenv func(string) string) []AuthHeader {
	var out []AuthHeader
	if v := getenv(envAPIKey); v != "" {
		out = append(out, AuthHeader{"X-Api-Key", v})
	}
	for _, k := range []string{envAuthToken, envOAuthToken} {
		if v := getenv(k); v != "" {
			out = append(out, AuthHeader{"Authorization", "Bearer " + v})
		}
	}
	return out
}

// Gateway is one running tripwire. Its matcher is swapped between the
// children of a run (SetMatcher); Stops and Requests are safe to call at
// any time.
type Gateway struct {
	ln      net.Listener
	srv     *http.Server
	proxy   *httputil.ReverseProxy
	cfg     Config
	matcher atomic.Pointer[redact.Matcher]
	n       atomic.Int64
	mu      sync.Mutex
	stops   []Stop
	done    chan struct{}
}

// Start listens on 127.0.0.1 on an ephemeral port and serves until Close
// or ctx ends. Until SetMatcher is called every request is stopped (no
// table, nothing judged).
func Start(ctx context.Context, cfg Config) (*Gateway, error) {
	if cfg.Upstream == nil || (cfg.Upstream.Scheme != "http" && cfg.Upstream.Scheme != "https") || cfg.Upstream.Host == "" {
		return nil, fmt.Errorf("gateway: the upstream %v is not an http(s) URL with a host", cfg.Upstream)
	}
	if cfg.ErrorBody == nil {
		cfg.ErrorBody = AnthropicError
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("gateway: listen on 127.0.0.1: %w", err)
	}
	g := &Gateway{ln: ln, cfg: cfg, done: make(chan struct{})}
	tr := cfg.Transport
	if tr == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		if cfg.Proxy != nil {
			t.Proxy = func(r *http.Request) (*url.URL, error) { return cfg.Proxy(r.URL) }
		} else {
			t.Proxy = nil
		}
		tr = t
	}
	up := cfg.Upstream
	g.proxy = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(up)
			pr.Out.Host = up.Host
		},
		Transport:     tr,
		FlushInterval: -1, // server-sent events reach the engine as they arrive
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			http.Error(w, "hookwarden gateway: the upstream did not answer", http.StatusBadGateway)
		},
	}
	g.srv = &http.Server{Handler: g, ReadHeaderTimeout: 30 * time.Second}
	go func() {
		defer close(g.done)
		_ = g.srv.Serve(ln)
	}()
	go func() {
		select {
		case <-ctx.Done():
			_ = g.srv.Close()
		case <-g.done:
		}
	}()
	return g, nil
}

// URL returns the gateway's base URL, http://127.0.0.1:<port>.
func (g *Gateway) URL() string { return "http://" + g.ln.Addr().String() }

// SetMatcher makes m (redact.NewWireMatcher over the run's table) judge
// every request from now on.
func (g *Gateway) SetMatcher(m *redact.Matcher) { g.matcher.Store(m) }

// Stops returns the requests stopped so far, in order.
func (g *Gateway) Stops() []Stop {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]Stop(nil), g.stops...)
}

// Requests returns how many requests reached the gateway.
func (g *Gateway) Requests() int { return int(g.n.Load()) }

// Close stops serving: open connections are closed, a streaming response
// ends. It waits until the server has returned.
func (g *Gateway) Close() error {
	err := g.srv.Close()
	<-g.done
	return err
}

// ServeHTTP judges one request: read whole (at most MaxBody), decoded
// when gzip- or deflate-encoded, scanned (Scan) with its URL; forwarded
// unmodified when clean, else answered with a 400 API error and recorded.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := int(g.n.Add(1))
	stop := Stop{Request: n, Method: r.Method, Path: r.URL.Path}
	body, why := readBody(r)
	m := g.matcher.Load()
	switch {
	case why != "":
		stop.Why = why
	case m == nil:
		stop.Why = "the run's table is not loaded yet"
	default:
		plain, err := decoded(r.Header.Get("Content-Encoding"), body)
		if err != nil {
			stop.Why = err.Error()
			break
		}
		u := []byte(r.URL.RawPath + "?" + r.URL.RawQuery + " " + r.URL.Path)
		if hit, ok := m.First(u); ok {
			stop.Token, stop.Form, stop.Where = hit.Token, hit.Form, "URL"
		} else if hit, name, ok := g.scanHeaders(m, r); ok {
			stop.Token, stop.Form, stop.Where = hit.Token, hit.Form, "header "+name
		} else if hit, where, ok := Scan(m, plain); ok {
			stop.Token, stop.Form, stop.Where = hit.Token, hit.Form, where
		} else {
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
			g.proxy.ServeHTTP(w, r)
			return
		}
	}
	g.mu.Lock()
	g.stops = append(g.stops, stop)
	g.mu.Unlock()
	if g.cfg.OnStop != nil {
		g.cfg.OnStop(stop)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(g.cfg.ErrorBody(stop))
}

// scanHeaders scans each request header but the caller's credentials
// (Config.Auth, compared exactly), name and value as "name: value", and
// the Host; it returns the first hit and the header's canonical name.
func (g *Gateway) scanHeaders(m *redact.Matcher, r *http.Request) (redact.WireMatch, string, bool) {
	if hit, ok := m.First([]byte(r.Host)); ok {
		return hit, "Host", true
	}
	for name, vals := range r.Header {
		for _, v := range vals {
			if g.isAuth(name, v) {
				continue
			}
			if hit, ok := m.First([]byte(name + ": " + v)); ok {
				return hit, name, true
			}
		}
	}
	return redact.WireMatch{}, "", false
}

// isAuth reports whether header name with value v is one of the caller's
// configured credentials.
func (g *Gateway) isAuth(name, v string) bool {
	for _, a := range g.cfg.Auth {
		if strings.EqualFold(a.Name, name) && a.Value == v {
			return true
		}
	}
	return false
}

// readBody reads r's body whole, at most MaxBody bytes; a reason when it
// cannot ("" when read).
func readBody(r *http.Request) ([]byte, string) {
	if r.Body == nil {
		return nil, ""
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
	switch {
	case err != nil:
		return nil, "its body could not be read: " + err.Error()
	case len(b) > MaxBody:
		return nil, fmt.Sprintf("its body is over %d bytes", MaxBody)
	}
	return b, ""
}

// decoded returns body decoded per the Content-Encoding header (identity,
// gzip or deflate, at most MaxBody bytes); any other encoding is an error.
func decoded(enc string, body []byte) ([]byte, error) {
	var rd io.Reader
	switch strings.ToLower(strings.TrimSpace(enc)) {
	case "", "identity":
		return body, nil
	case "gzip", "x-gzip":
		z, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("its gzip body does not decode: %w", err)
		}
		rd = z
	case "deflate":
		rd = flate.NewReader(bytes.NewReader(body))
	default:
		return nil, fmt.Errorf("its body is %q-encoded, which the gateway cannot scan", enc)
	}
	b, err := io.ReadAll(io.LimitReader(rd, MaxBody+1))
	if err != nil {
		return nil, fmt.Errorf("its %s body does not decode: %w", enc, err)
	}
	if len(b) > MaxBody {
		return nil, errors.New("its decoded body is over the gateway's bound")
	}
	return b, nil
}

// AnthropicError is the Anthropic Messages API's error shape
// ({"type":"error","error":{"type":"invalid_request_error","message"}}),
// answered with status 400, which Claude Code does not retry; the message
// names the token, never the value.
func AnthropicError(s Stop) []byte {
	msg := "hookwarden: the redaction tripwire stopped this request: " + s.String()
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": msg}})
	return b
}
