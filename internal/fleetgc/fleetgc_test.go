package fleetgc

import (
	"runtime/debug"
	"testing"
)

// TestTune: with no GOGC in the environment the fleet verbs run at
// Percent and the restore puts the old pace back; a GOGC the user set is
// left alone.
func TestTune(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	restore := Tune(func(string) string { return "" })
	if got := debug.SetGCPercent(Percent); got != Percent {
		t.Errorf("after Tune the pace is %d, want %d", got, Percent)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("after restore the pace is %d, want 100", got)
	}
	restore = Tune(func(k string) string {
		if k == "GOGC" {
			return "50"
		}
		return ""
	})
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set, Tune changed the pace to %d", got)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set, restore changed the pace to %d", got)
	}
}
