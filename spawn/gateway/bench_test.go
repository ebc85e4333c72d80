package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/spawn/redact"
)

// benchTable returns n values of 20-40 bytes drawn from a credential-like
// alphabet, under tokens [V0]…
func benchTable(n int) map[string]string {
	rng := rand.New(rand.NewPCG(7, 9))
	const alpha = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
	out := make(map[string]string, n)
	for i := range n {
		b := make([]byte, 20+rng.IntN(21))
		for j := range b {
			b[j] = alpha[rng.IntN(len(alpha))]
		}
		out[fmt.Sprintf("[V%d]", i)] = string(b)
	}
	return out
}

// benchBody returns a Messages API request body of about size bytes:
// conversation turns of prose and shell output with newlines and quotes
// (escapes in most strings, as Claude Code's requests have).
func benchBody(size int) []byte {
	var msgs []map[string]any
	total := 0
	for i := 0; total < size; i++ {
		text := strings.Repeat(fmt.Sprintf("line %d of \"tool\" output: drwxr-xr-x 2 user user 4096 Dec  4 file_%d.go\n", i, i), 20)
		msgs = append(msgs, map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": fmt.Sprintf("toolu_%d", i), "content": text}}})
		total += len(text) + 80
	}
	b, _ := json.Marshal(map[string]any{"model": "claude", "max_tokens": 1024, "stream": true, "messages": msgs})
	return b
}

// BenchmarkScan is the tripwire's scan of one 500 KB request body against
// a 1,000-value table (every form of redact.NewWireMatcher): throughput in
// MB/s of body. go test ./spawn/gateway -run '^$' -bench Scan
func BenchmarkScan(b *testing.B) {
	m, err := redact.NewWireMatcher(benchTable(1000))
	if err != nil {
		b.Fatal(err)
	}
	body := benchBody(500 << 10)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, _, ok := Scan(m, body); ok {
			b.Fatal("a chance hit")
		}
	}
}

// BenchmarkGatewayRequest is one streaming request (small and 500 KB
// bodies) sent to a loopback upstream directly and through the gateway
// with a 1,000-value table; the difference of the two is the latency the
// gateway adds per request.
// go test ./spawn/gateway -run '^$' -bench GatewayRequest
func BenchmarkGatewayRequest(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: message_stop\ndata: {}\n\n")
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	g, err := Start(context.Background(), Config{Upstream: u})
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	m, err := redact.NewWireMatcher(benchTable(1000))
	if err != nil {
		b.Fatal(err)
	}
	g.SetMatcher(m)
	client := &http.Client{}
	for _, size := range []int{2 << 10, 500 << 10} {
		body := benchBody(size)
		for _, via := range []struct{ name, base string }{{"direct", srv.URL}, {"gateway", g.URL()}} {
			b.Run(fmt.Sprintf("%s/%dKB", via.name, size>>10), func(b *testing.B) {
				for b.Loop() {
					resp, err := client.Post(via.base+"/v1/messages", "application/json", bytes.NewReader(body))
					if err != nil {
						b.Fatal(err)
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						b.Fatalf("status %d", resp.StatusCode)
					}
				}
			})
		}
	}
}

// BenchmarkWireMatcherBuild is the one-time cost of the 1,000-value wire
// matcher (built once per child of a run).
func BenchmarkWireMatcherBuild(b *testing.B) {
	vals := benchTable(1000)
	var keep *redact.Matcher
	for b.Loop() {
		m, err := redact.NewWireMatcher(vals)
		if err != nil {
			b.Fatal(err)
		}
		keep = m
	}
	var before, after runtime.MemStats
	keep = nil
	runtime.GC()
	runtime.ReadMemStats(&before)
	keep, _ = redact.NewWireMatcher(vals)
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(keep.Patterns()), "patterns")
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MB-retained")
}
