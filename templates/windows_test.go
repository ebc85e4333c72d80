package templates

import (
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/protocol/registration"
)

// TestCommandWindows: every Codex row has a Windows form that runs the
// engine through cmd.exe with no POSIX shell, turning a failure into exit 2
// on the events that guard an action only; no other client gets one, and
// the POSIX command of every row is the one RegistrationCommand gives (a
// Windows form never changes what Linux and macOS users run).
func TestCommandWindows(t *testing.T) {
	tab, err := registration.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range tab.Rows {
		client := row.Client
		got, err := CommandWindows(client, row.Event)
		if err != nil {
			t.Fatalf("%s %s: %v", client, row.Event, err)
		}
		if client != "codex" {
			if got != "" {
				t.Errorf("%s %s: commandWindows %q, want none (only Codex documents the member)", client, row.Event, got)
			}
			continue
		}
		want := `cmd /d /c "hookwarden hook codex ` + row.Event + `"`
		if gates(row.Event) {
			want = `cmd /d /c "hookwarden hook codex ` + row.Event + ` || exit 2"`
		}
		if got != want {
			t.Errorf("codex %s: commandWindows %q, want %q", row.Event, got, want)
		}
		for _, posix := range []string{"$", "hook.sh", "set --", ";", "'"} {
			if strings.Contains(got, posix) {
				t.Errorf("codex %s: commandWindows %q holds %q, POSIX shell text", row.Event, got, posix)
			}
		}
	}
	if _, err := CommandWindows("codex", "no-such-event"); err == nil {
		t.Error("an unserved pair has a Windows form")
	}
}
