package adopt

import (
	"testing"

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
