package skewguard

import (
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/engine/registration"
)

// TestParseListing: the listing the engine prints is accepted pair for pair;
// what an old engine without the listing prints (usage text, an error) is not.
func TestParseListing(t *testing.T) {
	tbl, err := registration.Default()
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := ParseListing([]byte(tbl.Listing()))
	if err != nil {
		t.Fatalf("the engine's own listing is rejected: %v", err)
	}
	if len(pairs) != len(tbl.Rows) {
		t.Fatalf("%d pairs parsed, the table has %d rows", len(pairs), len(tbl.Rows))
	}
	for _, p := range pairs {
		c, e, _ := strings.Cut(p, " ")
		if _, ok := tbl.Lookup(c, e); !ok {
			t.Errorf("parsed pair %q is not a row", p)
		}
	}
	for _, bad := range []string{
		"usage: hookwarden hook CLIENT EVENT\n",
		"claude pre-tool\nhookwarden: hook: not available in this build yet\n",
		"claude  pre-tool\n",
		"Claude pre-tool\n",
		"claude pre-tool extra\n",
	} {
		if _, err := ParseListing([]byte(bad)); err == nil {
			t.Errorf("listing %q accepted; the launcher treats it as serving nothing", bad)
		}
	}
	if p, err := ParseListing([]byte("claude stop\r\n\r\nagy stop\n")); err != nil || len(p) != 2 {
		t.Errorf("CRLF listing: %v %v", p, err)
	}
}
