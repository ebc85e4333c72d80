package skewguard_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hookwarden/hookwarden/protocol/clock"
	"github.com/hookwarden/hookwarden/protocol/dialect"
	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/protocol/verdict"
)

// TestNoEngineClock: with no engine installed, the launchers (sh under every
// shell, sourced or run, and Python) answer every row that carries the clock
// line (the prompt rows; post-tool where the client takes added context)
// with a stated skip and the line, byte for byte as the engine would
// answer it (dialect.Encode of the line clock.Line renders for the same
// second), in zones with a half-hour offset, a negative one, a numeric
// abbreviation and UTC. date(1) is read twice (UTC, then local), so the
// local time may be one second later than the UTC one.
func TestNoEngineClock(t *testing.T) {
	tbl, err := registration.Default()
	if err != nil {
		t.Fatal(err)
	}
	var rows []registration.Row
	for _, r := range tbl.Rows {
		a := dialect.Encode(r, verdict.Verdict{Kind: verdict.Allow, Added: clock.Template})
		if strings.Contains(string(a.Stdout), clock.FieldUTC) {
			rows = append(rows, r)
		}
	}
	if len(rows) < 8 {
		t.Fatalf("only %d rows carry the clock line; want the five prompt rows and three post-tool rows", len(rows))
	}
	utcRe := regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00`)
	forEachKind(t, func(t *testing.T, kind string) {
		w := newWorld(t)
		for _, zone := range []string{"Asia/Kolkata", "America/St_Johns", "America/Sao_Paulo", "UTC"} {
			loc, err := time.LoadLocation(zone)
			if err != nil {
				t.Skipf("zone data for %s: %v", zone, err)
			}
			for _, r := range rows {
				res := w.launcher(t, kind, w.env("TZ="+zone), "{}", r.Client, r.Event)
				if res.exit != 0 || !strings.HasPrefix(res.stderr, dialect.SkipPrefix+"launcher: no installed hookwarden engine serves") {
					t.Errorf("%s %s in %s: exit %d stderr %q, want a stated skip", r.Client, r.Event, zone, res.exit, res.stderr)
					continue
				}
				at, err := time.Parse("2006-01-02T15:04:05-07:00", utcRe.FindString(res.stdout))
				if err != nil {
					t.Errorf("%s %s in %s: stdout %q holds no UTC time", r.Client, r.Event, zone, res.stdout)
					continue
				}
				ok := false
				for _, d := range []time.Duration{0, time.Second} {
					want := dialect.Encode(r, verdict.Verdict{Kind: verdict.Skip, Reason: "x", Added: clock.Line(at.Add(d), loc)})
					// The UTC part is the one read; only the local reading may be a second later.
					wantOut := strings.Replace(string(want.Stdout), at.Add(d).UTC().Format("2006-01-02T15:04:05-07:00"), at.UTC().Format("2006-01-02T15:04:05-07:00"), 1)
					if res.stdout == wantOut {
						ok = true
					}
				}
				if !ok {
					t.Errorf("%s %s in %s: stdout %q, want the engine's answer %q", r.Client, r.Event, zone, res.stdout,
						dialect.Encode(r, verdict.Verdict{Kind: verdict.Skip, Reason: "x", Added: clock.Line(at, loc)}).Stdout)
				}
			}
		}
	})
}
