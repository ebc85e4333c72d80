// Package reason holds the house rule for the texts hookwarden hands a
// person or a client (refusals, stated skips, report reasons): at most
// MaxBytes bytes, cut on a UTF-8 boundary (DESIGN.md conventions). The
// policy, the verdicts the dialects encode and adopt's reports all cap
// through it.
package reason

// MaxBytes caps every reason: 4096 bytes.
const MaxBytes = 4096

// Cap returns s when it fits in MaxBytes bytes, else its longest prefix of
// at most MaxBytes bytes that ends on a UTF-8 boundary.
func Cap(s string) string {
	return capTo(s, MaxBytes, "")
}

// CapMarked is Cap for a text a person reads in a report: a cut s ends in
// "…", MaxBytes bytes at most in all.
func CapMarked(s string) string {
	return capTo(s, MaxBytes, "…")
}

// capTo cuts s to at most max bytes on a UTF-8 boundary with mark appended
// (counted in max) when it cuts.
func capTo(s string, max int, mark string) string {
	if len(s) <= max {
		return s
	}
	cut := max - len(mark)
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + mark
}
