package skewguard_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/skewguard"
)

var listingLine = regexp.MustCompile(`^[a-z-]+ [a-z-]+$`)

// parseListing reads the stdout of `hookwarden hook` (no arguments) as the
// launcher does (package doc, step 2) and returns the served pairs as
// "client event" strings in listing order. Empty lines are skipped; any
// other line that is not two ^[a-z-]+$ words separated by one space makes
// the whole listing invalid (the launcher then treats the candidate as
// serving nothing), reported as an error naming the line number.
func parseListing(stdout []byte) ([]string, error) {
	var pairs []string
	for i, line := range strings.Split(strings.ReplaceAll(string(stdout), "\r\n", "\n"), "\n") {
		if line == "" {
			continue
		}
		if !listingLine.MatchString(line) {
			return nil, fmt.Errorf("listing line %d: not \"client event\"", i+1)
		}
		pairs = append(pairs, line)
	}
	return pairs, nil
}

// TestProbeAnswer: the engine's answer to a plain listing probe is read pair
// for pair as the table's rows; asked by the sh launcher (ListingEnv set to
// ListingLauncher) it is the same listing and then the BoundedMarker line,
// which a plain reader (the Python launcher, an older sh launcher) would
// refuse, so only the launcher that asks ever sees it.
func TestProbeAnswer(t *testing.T) {
	tbl, err := registration.Default()
	if err != nil {
		t.Fatal(err)
	}
	env := func(v string) func(string) string {
		return func(name string) string {
			if name == skewguard.ListingEnv {
				return v
			}
			return ""
		}
	}
	plain := skewguard.ProbeAnswer(tbl, env(""))
	pairs, err := parseListing([]byte(plain))
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
	if other := skewguard.ProbeAnswer(tbl, env("1")); other != plain {
		t.Errorf("%s=1 changed the listing:\n%s", skewguard.ListingEnv, other)
	}
	asked := skewguard.ProbeAnswer(tbl, env(skewguard.ListingLauncher))
	if asked != plain+skewguard.BoundedMarker+"\n" {
		t.Errorf("listing asked by the launcher: %q, want the plain listing and %q", asked, skewguard.BoundedMarker)
	}
	if _, err := parseListing([]byte(asked)); err == nil {
		t.Errorf("a plain reader accepts the bounded marker %q", skewguard.BoundedMarker)
	}
}

// TestParseListing: what an old engine without the listing prints (usage
// text, an error) is not a listing; CRLF line ends and empty lines are.
func TestParseListing(t *testing.T) {
	for _, bad := range []string{
		"usage: hookwarden hook CLIENT EVENT\n",
		"claude pre-tool\nhookwarden: hook: not available in this build yet\n",
		"claude  pre-tool\n",
		"Claude pre-tool\n",
		"claude pre-tool extra\n",
	} {
		if _, err := parseListing([]byte(bad)); err == nil {
			t.Errorf("listing %q accepted; the launcher treats it as serving nothing", bad)
		}
	}
	if p, err := parseListing([]byte("claude stop\r\n\r\nagy stop\n")); err != nil || len(p) != 2 {
		t.Errorf("CRLF listing: %v %v", p, err)
	}
}
