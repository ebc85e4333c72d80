package gateway

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/spawn/redact"
)

// TestSidecarProtocol: the sidecar says READY with its loopback URL,
// refuses a table whose digest differs or whose file is not this
// account's 0600 file, judges with a table once OK, reports each stopped
// request on a STOP line naming the token (never the value), and ends
// when its stdin closes.
func TestSidecarProtocol(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") }))
	defer srv.Close()
	dir := t.TempDir()
	table := filepath.Join(dir, "table.json")
	tb, _ := (&redact.Table{Version: 1, Values: map[string]string{"[GH_TOKEN]": raw}}).Marshal()
	os.WriteFile(table, tb, 0o600)
	loose := filepath.Join(dir, "loose.json")
	os.WriteFile(loose, tb, 0o644)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ended := make(chan error, 1)
	go func() { ended <- RunSidecar(context.Background(), srv.URL, inR, outW); outW.Close() }()
	lines := bufio.NewScanner(outR)
	next := func() string {
		if !lines.Scan() {
			t.Fatal("the sidecar's output ended")
		}
		return lines.Text()
	}
	ready := next()
	base, ok := strings.CutPrefix(ready, LineReady+" ")
	if !ok || !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("first line %q", ready)
	}
	for _, cmd := range []string{"TABLE " + table + " 00", "TABLE " + loose + " " + redact.Digest(tb), "nonsense"} {
		io.WriteString(inW, cmd+"\n")
		if got := next(); !strings.HasPrefix(got, LineErr+" ") {
			t.Errorf("%q: answer %q, want ERR", cmd, got)
		}
	}
	io.WriteString(inW, "TABLE "+table+" "+redact.Digest(tb)+"\n")
	if got := next(); got != LineOK {
		t.Fatalf("answer %q, want OK", got)
	}
	go http.Post(base+"/v1/messages", "application/json", strings.NewReader(`{"content":"`+raw+`"}`))
	stop := next()
	if !strings.HasPrefix(stop, LineStop+" request 1 (POST /v1/messages) held the value of [GH_TOKEN]") || strings.Contains(stop, raw) {
		t.Errorf("stop line %q", stop)
	}
	inW.Close()
	if err := <-ended; err != nil {
		t.Errorf("sidecar: %v", err)
	}
}
