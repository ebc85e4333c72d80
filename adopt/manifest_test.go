package adopt

import (
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/internal/clientname"
	"github.com/hookwarden/hookwarden/settings"
	"github.com/hookwarden/hookwarden/templates"
)

// TestManifestParses: every manifest adopt writes (each client set, declines
// and events it can hold) is a valid settings file.
func TestManifestParses(t *testing.T) {
	cases := []struct{ clients, decline, events []string }{
		{templates.DefaultClients(), nil, templates.DefaultEvents()},
		{templates.DefaultClients(), []string{}, templates.DefaultEvents()},
		{[]string{"claude"}, []string{"launcher", "context"}, []string{"pre-tool"}},
		{[]string{"claude", "codex", "gemini", "agy", "opencode", "lefthook"}, Steps(), []string{"pre-tool", "pre-edit", "post-tool", "stop"}},
		{[]string{}, nil, []string{}},
	}
	for _, tc := range cases {
		m := ManifestText(tc.clients, tc.decline, tc.events)
		if _, err := settings.Parse(m, true); err != nil {
			t.Fatalf("manifest for %v/%v/%v does not parse: %v\n%s", tc.clients, tc.decline, tc.events, err, m)
		}
	}
}

// TestManifestCommentsNameEveryValue: the comments above clients:, decline:
// and hooks.events in the manifest adopt writes name every client, every
// declinable step and every neutral event the settings reader accepts, so
// an operator editing the file by hand sees the whole choice.
func TestManifestCommentsNameEveryValue(t *testing.T) {
	m := string(ManifestText(templates.DefaultClients(), nil, templates.DefaultEvents()))
	var comments strings.Builder
	for _, l := range strings.Split(m, "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "#") {
			comments.WriteString(strings.TrimPrefix(t, "#") + "\n")
		}
	}
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(comments.String(), func(r rune) bool {
		return r == ' ' || r == ',' || r == '.' || r == '\n' || r == ':' || r == '(' || r == ')'
	}) {
		words[w] = true
	}
	for _, list := range [][]string{clientname.All(), Steps()[1:], settings.Events()} {
		for _, n := range list {
			if !words[n] {
				t.Errorf("the manifest's comments do not name %q:\n%s", n, m)
			}
		}
	}
	for _, l := range strings.Split(m, "\n") {
		if len(l) > 78 {
			t.Errorf("manifest line over 78 columns: %q", l)
		}
	}
}
