package gateway

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/hookwarden/hookwarden/spawn/redact"
)

const raw = "ghp_abcdefgh12345678"

// upstream is a model API stand-in: it records each request's path,
// headers and body and answers with two server-sent events, the second
// only once the test has read the first (release), so a gateway that
// buffered the response would never deliver the first.
type upstream struct {
	mu      sync.Mutex
	bodies  []string
	paths   []string
	keys    []string
	release chan struct{}
}

func (u *upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	u.mu.Lock()
	u.bodies = append(u.bodies, string(b))
	u.paths = append(u.paths, r.URL.RequestURI())
	u.keys = append(u.keys, r.Header.Get("X-Api-Key"))
	u.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, "event: message_start\ndata: {}\n\n")
	w.(http.Flusher).Flush()
	if u.release != nil {
		<-u.release
	}
	io.WriteString(w, "event: message_stop\ndata: {}\n\n")
}

func startPair(t *testing.T, values map[string]string) (*Gateway, *upstream) {
	t.Helper()
	return startPairAuth(t, values, nil)
}

// startPairAuth is startPair with the caller's credential headers auth.
func startPairAuth(t *testing.T, values map[string]string, auth []AuthHeader) (*Gateway, *upstream) {
	t.Helper()
	up := &upstream{}
	srv := httptest.NewServer(up)
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL + "/base")
	g, err := Start(context.Background(), Config{Upstream: u, Auth: auth})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	if values != nil {
		m, err := redact.NewWireMatcher(values)
		if err != nil {
			t.Fatal(err)
		}
		g.SetMatcher(m)
	}
	return g, up
}

func post(t *testing.T, g *Gateway, path string, body []byte, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, g.URL()+path, bytes.NewReader(body))
	req.Header.Set("X-Api-Key", "sk-caller")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// TestGatewayForwardsCleanRequests: a request without a table value
// reaches the upstream byte for byte, under the upstream's path prefix,
// with the caller's headers, and the response's events stream through
// one by one.
func TestGatewayForwardsCleanRequests(t *testing.T) {
	g, up := startPair(t, map[string]string{"[GH_TOKEN]": raw})
	up.release = make(chan struct{})
	body := []byte(`{"messages":[{"role":"user","content":"list the files\nplease \u00e9"}],"stream":true}`)
	req, _ := http.NewRequest(http.MethodPost, g.URL()+"/v1/messages?beta=true", bytes.NewReader(body))
	req.Header.Set("X-Api-Key", "sk-caller")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rd := bufio.NewReader(resp.Body)
	first, _ := rd.ReadString('\n')
	if first != "event: message_start\n" {
		t.Fatalf("first streamed line %q", first)
	}
	close(up.release) // the upstream sends the rest only now
	rest, _ := io.ReadAll(rd)
	if !strings.Contains(string(rest), "message_stop") {
		t.Errorf("the rest of the stream: %q", rest)
	}
	if len(up.bodies) != 1 || up.bodies[0] != string(body) || up.paths[0] != "/base/v1/messages?beta=true" || up.keys[0] != "sk-caller" {
		t.Errorf("upstream got %q %q %q", up.bodies, up.paths, up.keys)
	}
	if len(g.Stops()) != 0 {
		t.Errorf("stops: %v", g.Stops())
	}
}

// TestGatewayStopsValues: a request holding the value in any form the
// wire matcher knows, or that cannot be judged, is answered with a 400
// Anthropic API error naming the token, never reaches the upstream, and
// is recorded with its number and where the value was; no record holds
// the value.
func TestGatewayStopsValues(t *testing.T) {
	quoted, _ := json.Marshal("see " + raw)
	wrapped := base64.StdEncoding.EncodeToString([]byte("0123456789012345678901234567890123456789012345" + raw + "tail"))
	wrapped = wrapped[:70] + `\n` + wrapped[70:]
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(`{"content":"` + raw + `"}`))
	zw.Close()
	cases := []struct {
		name, path, where, form string
		body                    []byte
		hdr                     map[string]string
	}{
		{"raw", "/v1/messages", "body", redact.FormJSON, []byte(`{"content":` + string(quoted) + `}`), nil},
		{"base64", "/v1/messages", "body", redact.FormBase64, []byte(`{"content":"` + base64.StdEncoding.EncodeToString([]byte("x="+raw)) + `"}`), nil},
		{"hex", "/v1/messages", "body", redact.FormHex, []byte(`{"content":"6768705f6162636465666768` + `3132333435363738"}`), nil},
		{"unicode escapes", "/v1/messages", "decoded JSON string", redact.FormJSON, []byte(`{"content":"\u0067\u0068\u0070_abcdefgh12345678"}`), nil},
		{"nested escapes", "/v1/messages", "decoded JSON string", redact.FormJSON, []byte(`{"input":"{\"cmd\":\"\\u0067hp_abcdefgh12345678\"}"}`), nil},
		{"wrapped base64", "/v1/messages", "body without line breaks", redact.FormBase64, []byte(`{"content":"` + wrapped + `"}`), nil},
		{"gzip", "/v1/messages", "body", redact.FormJSON, gz.Bytes(), map[string]string{"Content-Encoding": "gzip"}},
		{"query", "/v1/messages?k=" + raw, "URL", redact.FormJSON, []byte(`{}`), nil},
		{"custom header", "/v1/messages", "header X-Leak", redact.FormJSON, []byte(`{}`), map[string]string{"X-Leak": "v=" + raw}},
		{"header base64", "/v1/messages", "header X-Trace", redact.FormBase64, []byte(`{}`), map[string]string{"X-Trace": base64.StdEncoding.EncodeToString([]byte(raw))}},
		{"user agent", "/v1/messages", "header User-Agent", redact.FormJSON, []byte(`{}`), map[string]string{"User-Agent": "cli/" + raw}},
		{"brotli", "/v1/messages", "", "", []byte(`{}`), map[string]string{"Content-Encoding": "br"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, up := startPair(t, map[string]string{"[GH_TOKEN]": raw})
			resp, answer := post(t, g, c.path, c.body, c.hdr)
			var e struct {
				Type  string
				Error struct{ Type, Message string }
			}
			if resp.StatusCode != 400 || json.Unmarshal([]byte(answer), &e) != nil || e.Type != "error" || e.Error.Type != "invalid_request_error" {
				t.Fatalf("answer %d %s", resp.StatusCode, answer)
			}
			if len(up.bodies) != 0 {
				t.Errorf("the upstream received the request")
			}
			stops := g.Stops()
			if len(stops) != 1 || stops[0].Request != 1 || stops[0].Where != c.where || stops[0].Form != c.form {
				t.Fatalf("stops %+v", stops)
			}
			if c.where != "" && (stops[0].Token != "[GH_TOKEN]" || !strings.Contains(e.Error.Message, "[GH_TOKEN]")) {
				t.Errorf("the stop does not name the token: %+v %q", stops[0], e.Error.Message)
			}
			if strings.Contains(stops[0].String()+answer, raw) {
				t.Errorf("the record or the answer holds the raw value")
			}
		})
	}
}

// TestGatewayWithoutTable: before the run's table is set, nothing passes.
func TestGatewayWithoutTable(t *testing.T) {
	g, up := startPair(t, nil)
	if resp, _ := post(t, g, "/v1/messages", []byte(`{}`), nil); resp.StatusCode != 400 || len(up.bodies) != 0 {
		t.Errorf("a request passed before the table was set: %d", resp.StatusCode)
	}
	if s := g.Stops(); len(s) != 1 || s[0].Why == "" {
		t.Errorf("stops %+v", s)
	}
}

// TestGatewayAuthHeader: the caller's configured credential (a table value,
// as a credential-named variable is) reaches the upstream in its own
// header; the same value in any other header, or another table value in
// the credential header, is stopped.
func TestGatewayAuthHeader(t *testing.T) {
	const key = "sk-ant-caller-key-0123456789"
	values := map[string]string{"[GH_TOKEN]": raw, "[ANTHROPIC_API_KEY]": key}
	auth := AuthFromEnv(func(k string) string { return map[string]string{"ANTHROPIC_API_KEY": key}[k] })
	cases := []struct {
		name string
		hdr  map[string]string
		stop string
	}{
		{"the caller's key", map[string]string{"X-Api-Key": key}, ""},
		{"the caller's key in another header", map[string]string{"X-Api-Key": key, "X-Copy": key}, "header X-Copy"},
		{"another value in the key header", map[string]string{"X-Api-Key": raw}, "header X-Api-Key"},
		{"the key as a bearer token", map[string]string{"Authorization": "Bearer " + key}, "header Authorization"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, up := startPairAuth(t, values, auth)
			req, _ := http.NewRequest(http.MethodPost, g.URL()+"/v1/messages", strings.NewReader(`{}`))
			for k, v := range c.hdr {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			stops := g.Stops()
			switch {
			case c.stop == "" && (resp.StatusCode != 200 || len(up.keys) != 1 || up.keys[0] != key || len(stops) != 0):
				t.Errorf("the caller's key did not pass: %d %v", resp.StatusCode, stops)
			case c.stop != "" && (resp.StatusCode != 400 || len(up.bodies) != 0 || len(stops) != 1 || stops[0].Where != c.stop):
				t.Errorf("want a stop in the %s, got %d %+v", c.stop, resp.StatusCode, stops)
			}
		})
	}
}
