package clock

import (
	"strings"
	"testing"
	"time"
)

// TestLine: the line names the same instant in UTC and in the local zone,
// ISO 8601 with the offset, and the zone's abbreviation; a zone without an
// abbreviation is named by its offset.
func TestLine(t *testing.T) {
	at := time.Date(2026, 12, 1, 21, 30, 5, 999, time.UTC)
	load := func(name string) *time.Location {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Skipf("zone data for %s: %v", name, err)
		}
		return loc
	}
	for _, tc := range []struct {
		loc              *time.Location
		local, zone, utc string
	}{
		{time.UTC, "2026-12-01T21:30:05+00:00", "UTC", "2026-12-01T21:30:05+00:00"},
		{load("Asia/Kolkata"), "2026-12-02T03:00:05+05:30", "IST", "2026-12-01T21:30:05+00:00"},
		{load("America/St_Johns"), "2026-12-01T18:00:05-03:30", "NST", "2026-12-01T21:30:05+00:00"},
		{load("America/Sao_Paulo"), "2026-12-01T18:30:05-03:00", "-03", "2026-12-01T21:30:05+00:00"},
		{time.FixedZone("", 2*3600+15*60), "2026-12-01T23:45:05+02:15", "+0215", "2026-12-01T21:30:05+00:00"},
		{time.FixedZone("W\x1b[31m", 3600), "2026-12-01T22:30:05+01:00", "W31m", "2026-12-01T21:30:05+00:00"},
	} {
		got := Line(at, tc.loc)
		want := "hookwarden clock: it is now " + tc.utc + " (UTC), " + tc.local + " local time (" + tc.zone + "). Use this time for dates and timestamps instead of estimating it."
		if got != want {
			t.Errorf("Line in %v:\n got %q\nwant %q", tc.loc, got, want)
		}
		if !strings.HasPrefix(got, Marker) {
			t.Errorf("Line %q does not start with Marker", got)
		}
	}
}

// TestTemplateNeedsNoEscape: the launchers substitute into answers rendered
// around Template, so it holds no character JSON, a single-quoted sh word or
// a Python literal would escape, and each field once.
func TestTemplateNeedsNoEscape(t *testing.T) {
	if strings.ContainsAny(Template, "\"'\\<>&;\n\t`$") {
		t.Errorf("Template %q holds a character the launchers would have to escape", Template)
	}
	for _, f := range []string{FieldUTC, FieldLocal, FieldZone} {
		if strings.Count(Template, f) != 1 {
			t.Errorf("Template holds %s %d times, want once", f, strings.Count(Template, f))
		}
	}
}
