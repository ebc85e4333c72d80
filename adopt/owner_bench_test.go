package adopt

import (
	"testing"

	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/templates"
)

// BenchmarkOwner measures building the Owner of every client with a hook
// file (the registration forms parsed as shell), which adopt, conform and
// audit do per repository.
func BenchmarkOwner(b *testing.B) {
	table, err := registration.Default()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		for _, c := range []string{"claude", "codex", "gemini"} {
			if _, err := templates.Owner(c, table); err != nil {
				b.Fatal(err)
			}
		}
	}
}
