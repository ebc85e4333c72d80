package conformance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/protocol/registration"
)

// TestNeutralEventOfRecordedPayloads replays every payload a real client
// recorded under testdata/clients/<client>/<version>/<event>.*.json through
// neutralEvent and expects the event its file name says. The real-client
// cases find the foreign and user-level recorders' payloads through
// neutralEvent, so a payload it maps to the wrong event (or to none) turns
// into "the recorder did not run alongside hookwarden" although it did:
// opencode 1.18.33's tool.execute.before payloads carry input.tool and no
// tool_name, and once mapped through agent_type instead (commit 98d2b92).
// Only the clients the harness drives (Clients) are replayed, from their
// version directories, and only files whose leading name is one of the
// client's registration events; payloads other tests wrote into the same
// directories (notRecordedHere) are not neutralEvent's to map.
func TestNeutralEventOfRecordedPayloads(t *testing.T) {
	tbl, err := registration.Default()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join("..", "..", "testdata", "clients")
	clients, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	driven := map[string]bool{}
	for _, c := range Clients() {
		driven[c.Name] = true
	}
	// notRecordedHere: files under testdata/clients that another package's
	// test recorded, by name, with the test that wrote them.
	notRecordedHere := map[string]string{
		"claude/2.1.328/pre-tool.mcp-proxy.json": "spawn realmcp_test.go (an MCP tool call no registration row matches)",
	}
	checked := map[string]int{}
	for _, c := range clients {
		if !c.IsDir() || !driven[c.Name()] {
			continue
		}
		events := map[string]bool{}
		for _, row := range tbl.ForClient(c.Name()) {
			events[row.Event] = true
		}
		versions, err := os.ReadDir(filepath.Join(root, c.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range versions {
			if !v.IsDir() || v.Name() == "" || v.Name()[0] < '0' || v.Name()[0] > '9' {
				continue
			}
			dir := filepath.Join(root, c.Name(), v.Name())
			files, err := filepath.Glob(filepath.Join(dir, "*.json"))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				want, _, _ := strings.Cut(filepath.Base(f), ".")
				if _, ok := notRecordedHere[c.Name()+"/"+v.Name()+"/"+filepath.Base(f)]; ok || !events[want] {
					continue
				}
				raw, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				var p map[string]any
				if err := json.Unmarshal(raw, &p); err != nil {
					t.Errorf("%s: %v", f, err)
					continue
				}
				if got := neutralEvent(c.Name(), p); got != want {
					t.Errorf("%s: neutralEvent(%q) = %q, want %q", f, c.Name(), got, want)
				}
				checked[c.Name()]++
			}
		}
	}
	// The opencode and Claude Code payloads are the ones the agent-traffic
	// change mis-mapped; an empty replay of them would pass vacuously.
	for _, c := range []string{"opencode", "claude"} {
		if checked[c] == 0 {
			t.Errorf("no recorded %s payload was replayed from %s", c, root)
		}
	}
}
