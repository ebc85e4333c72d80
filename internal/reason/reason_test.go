package reason

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCap: a text that fits is returned as it is; a longer one is cut to
// at most MaxBytes on a UTF-8 boundary (a three-byte rune straddling the
// limit is dropped whole), and CapMarked's cut ends in "…" within the same
// bound.
func TestCap(t *testing.T) {
	fits := strings.Repeat("a", MaxBytes)
	if Cap(fits) != fits || CapMarked(fits) != fits {
		t.Fatal("a text of MaxBytes bytes was cut")
	}
	long := strings.Repeat("a", MaxBytes-1) + "€€"
	got := Cap(long)
	if got != strings.Repeat("a", MaxBytes-1) {
		t.Fatalf("Cap kept %d bytes ending %q", len(got), got[len(got)-3:])
	}
	marked := CapMarked(long)
	if len(marked) > MaxBytes || !strings.HasSuffix(marked, "…") || !utf8.ValidString(marked) {
		t.Fatalf("CapMarked: %d bytes, ends %q", len(marked), marked[len(marked)-6:])
	}
}
