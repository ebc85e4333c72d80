package conformance

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScriptedServers replays testdata/mock_cases.json: each case posts its
// requests in order to a fresh server and checks the reply kind logged, the
// tool called and the reply text.
func TestScriptedServers(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "mock_cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var corpus struct {
		Cases []struct {
			Name   string `json:"name"`
			API    API    `json:"api"`
			Script struct {
				Command   string   `json:"command"`
				Commands  []string `json:"commands"`
				FinalText string   `json:"final_text"`
				Edit      *struct {
					Path    string `json:"path"`
					Content string `json:"content"`
				} `json:"edit"`
			} `json:"script"`
			Requests []struct {
				Path       string          `json:"path"`
				Body       json.RawMessage `json:"body"`
				WantReply  string          `json:"want_reply"`
				WantTool   string          `json:"want_tool"`
				WantText   []string        `json:"want_text"`
				WantAbsent []string        `json:"want_absent"`
			} `json:"requests"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &corpus); err != nil {
		t.Fatal(err)
	}
	if len(corpus.Cases) == 0 {
		t.Fatal("empty corpus")
	}
	for _, tc := range corpus.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			sc := Script{Command: tc.Script.Command, Commands: tc.Script.Commands, FinalText: tc.Script.FinalText}
			if e := tc.Script.Edit; e != nil {
				sc.Edit = &Edit{Path: e.Path, Content: e.Content}
			}
			srv, err := NewServer(tc.API, sc)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			if !strings.HasPrefix(srv.URL(), "http://127.0.0.1:") {
				t.Fatalf("server URL %s is not on 127.0.0.1", srv.URL())
			}
			for i, rq := range tc.Requests {
				resp, err := http.Post(srv.URL()+rq.Path, "application/json", bytes.NewReader(rq.Body))
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("request %d: status %d: %s", i, resp.StatusCode, body)
				}
				log := srv.Requests()
				if len(log) != i+1 {
					t.Fatalf("request %d: %d requests logged", i, len(log))
				}
				got := log[i]
				if got.Reply != rq.WantReply {
					t.Errorf("request %d: reply %q, want %q", i, got.Reply, rq.WantReply)
				}
				if got.Tool != rq.WantTool {
					t.Errorf("request %d: tool %q, want %q", i, got.Tool, rq.WantTool)
				}
				if got.Path != rq.Path || !bytes.Equal(got.Body, rq.Body) {
					t.Errorf("request %d: logged %s %q, want %s and the body as sent", i, got.Path, got.Body, rq.Path)
				}
				for _, w := range rq.WantText {
					if !strings.Contains(string(body), w) {
						t.Errorf("request %d: reply lacks %q:\n%s", i, w, body)
					}
				}
				for _, w := range rq.WantAbsent {
					if strings.Contains(string(body), w) {
						t.Errorf("request %d: reply holds %q:\n%s", i, w, body)
					}
				}
			}
		})
	}
}

// TestRequestCarries checks that Carries finds text inside any JSON string
// of a request body whatever its escaping, and nowhere else.
func TestRequestCarries(t *testing.T) {
	r := Request{Body: []byte(`{"input":[{"type":"function_call_output","output":"Command blocked by PreToolUse hook: [BLOCKED BY hookwarden:x] \u003cwhy\u003e"}],"n":"[BLOCKED"}`)}
	if !r.Carries("[BLOCKED BY hookwarden:x] <why>") {
		t.Error("escaped reason not found")
	}
	if r.Carries("function_call_output\",") || r.Carries("input") {
		t.Error("Carries matched JSON syntax or a key instead of a string value")
	}
	if (Request{Body: []byte("not json")}).Carries("not") {
		t.Error("Carries matched a body that is not JSON")
	}
}

// TestNewServerRejectsUnknownAPI checks the error for an unknown protocol.
func TestNewServerRejectsUnknownAPI(t *testing.T) {
	if _, err := NewServer("soap", Script{}); err == nil || !strings.Contains(err.Error(), "unknown api") {
		t.Fatalf("err = %v, want unknown api", err)
	}
}

// TestComputeCodexTrust replays testdata/codex_trust.json: keys and hashes
// Codex itself reported (app-server hooks/list) for a hooks file.
func TestComputeCodexTrust(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "codex_trust.json"))
	if err != nil {
		t.Fatal(err)
	}
	var corpus struct {
		HooksJSON json.RawMessage `json:"hooks_json"`
		Want      []CodexTrust    `json:"want"`
	}
	if err := json.Unmarshal(b, &corpus); err != nil {
		t.Fatal(err)
	}
	repo := t.TempDir()
	repo, _ = filepath.EvalSymlinks(repo)
	p := filepath.Join(repo, ".codex", "hooks.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, corpus.HooksJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ComputeCodexTrust(p)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, w := range corpus.Want {
		want[strings.ReplaceAll(w.Key, "$REPO", repo)] = w.Hash
	}
	if len(got) != len(want) {
		t.Errorf("%d records, want %d", len(got), len(want))
	}
	for _, g := range got {
		if want[g.Key] != g.Hash {
			t.Errorf("%s: hash %s, want %q", g.Key, g.Hash, want[g.Key])
		}
	}
	toml := CodexTrustTOML(got[:1])
	if !strings.Contains(toml, "[hooks.state."+TOMLString(got[0].Key)+"]\ntrusted_hash = "+TOMLString(got[0].Hash)) {
		t.Errorf("CodexTrustTOML: %q", toml)
	}
	if _, err := ComputeCodexTrust(filepath.Join(repo, "missing.json")); err == nil {
		t.Error("a missing hooks file gave no error")
	}
}
