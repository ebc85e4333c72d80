// Package clock renders the clock line: the current time, in UTC and in the
// machine's local zone, that the prompt rows (and the post-tool rows, where
// the client accepts added context after a tool) add to the model's context.
// Agents that estimate the time write wrong dates into commit messages and
// logs; the line gives them the system clock instead (issue 19 item 1; the
// seed guide's "Clock on every prompt",
// ../../../shared/reference/003_3611979b20cb26d8.txt).
//
// It is the one builder of the line. The engine calls Line; the rendered
// launchers (templates/files/hook.sh and hook.py), which answer the prompt
// rows when no engine is installed, fill in Template with the same fields
// read from `date` and Python's time module (templates renders Template into
// them, and a parity test compares their line with Line's).
package clock

import (
	"strings"
	"time"
)

// Fields of Template, replaced by Fill.
const (
	// FieldUTC is replaced by the time in UTC, ISO 8601 with the offset
	// +00:00 (2006-01-02T15:04:05+00:00).
	FieldUTC = "@UTC@"
	// FieldLocal is replaced by the time in the local zone, ISO 8601 with
	// its offset (2006-01-02T16:04:05+01:00).
	FieldLocal = "@LOCAL@"
	// FieldZone is replaced by the local zone's abbreviation (CET, UTC,
	// +0530 when the zone has none), letters, digits, + and - only.
	FieldZone = "@ZONE@"
)

// Template is the clock line with its three fields. It holds no character
// that JSON, a single-quoted sh word or a Python string literal would have
// to escape (no quote, backslash, '<', '>', '&', ';' or control character),
// so the launchers can substitute into an answer rendered around it.
const Template = "hookwarden clock: it is now " + FieldUTC + " (UTC), " + FieldLocal + " local time (" + FieldZone + "). Use this time for dates and timestamps instead of estimating it."

// Marker starts every clock line; tests find the line by it.
const Marker = "hookwarden clock: "

// isoLayout is ISO 8601 with a numeric offset, whole seconds.
const isoLayout = "2006-01-02T15:04:05-07:00"

// Line returns the clock line for now: Template with now in UTC and in loc
// (nil means time.Local). Seconds are truncated.
func Line(now time.Time, loc *time.Location) string {
	if loc == nil {
		loc = time.Local
	}
	local := now.In(loc)
	return Fill(now.UTC().Format(isoLayout), local.Format(isoLayout), Zone(local))
}

// Zone returns the abbreviation of t's zone as the launchers print it with
// `date +%Z` and time.strftime("%Z"), reduced to letters, digits, + and -;
// a zone without an abbreviation (Go prints its offset, -0700) keeps that.
func Zone(t time.Time) string {
	name, _ := t.Zone()
	clean := strings.Map(func(r rune) rune {
		if r == '+' || r == '-' || (r >= '0' && r <= '9') || (r >= 'A' && r <= 'Z') || (r >= 'a' && r <= 'z') {
			return r
		}
		return -1
	}, name)
	if clean == "" {
		return t.Format("-0700")
	}
	return clean
}

// Fill returns Template with its fields replaced by utc, local and zone, in
// that order (the strings as the caller formatted them).
func Fill(utc, local, zone string) string {
	return strings.NewReplacer(FieldUTC, utc, FieldLocal, local, FieldZone, zone).Replace(Template)
}
