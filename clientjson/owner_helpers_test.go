package clientjson

import (
	"strings"
	"testing"
)

// testEvents are the hookwarden events the test owners know.
var testEvents = []string{"pre-tool", "pre-edit", "post-tool", "stop", "prompt"}

// testOwner returns the Owner the fixtures and property tests use for
// client: the current form `.hookwarden/hook.py <client> <event>`, the
// stale form `python3 .hookwarden/hook.py <client> <event>` and the bare
// engine call, for every test event, plus each wanted command that is a
// simple command ending in "<client> <event>".
func testOwner(t testing.TB, client string, want []Handler) *Owner {
	t.Helper()
	var forms []Form
	for _, ev := range testEvents {
		forms = append(forms,
			Form{Event: ev, Command: ".hookwarden/hook.py " + client + " " + ev, Current: true},
			Form{Event: ev, Command: "hookwarden hook " + client + " " + ev, Current: true},
			Form{Event: ev, Command: "python3 .hookwarden/hook.py " + client + " " + ev})
	}
	for _, w := range want {
		f := strings.Fields(w.Command)
		if len(f) >= 3 && f[len(f)-2] == client {
			if _, ok := shellWords(w.Command); ok {
				forms = append(forms, Form{Event: f[len(f)-1], Command: w.Command, Current: true})
			}
		}
	}
	o, err := NewOwner(client, forms)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// ourFound keeps the handlers of found that are ours.
func ourFound(found []Found) []Found {
	var out []Found
	for _, f := range found {
		if f.Claim.Ours() {
			out = append(out, f)
		}
	}
	return out
}
