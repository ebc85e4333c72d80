// Package reap is the redaction entry's process reaper (issue 30): `spawn
// exec` starts the engine under `hookwarden-mcp-proxy reap --report FILE
// -- ENGINE ARGS…`, which runs the engine as its child, forwards SIGINT,
// SIGTERM and SIGHUP to it, and once it has exited ends every process the
// engine started and left running (a background job, a command that
// outlived its tool timeout, a daemon that called setsid) before it exits
// itself. On Linux it is the subreaper of everything the engine starts
// (prctl PR_SET_CHILD_SUBREAPER), so an orphan is reparented to it rather
// than to init, whatever process group or session it moved to; each is
// killed (SIGKILL) and reaped. Only then does spawn exec scan and scrub
// the client's files: nothing the run started can write to them after
// that scan.
//
// The reaper exits with the engine's exit code, or kills itself with the
// engine's terminating signal, so spawn exec sees the engine's own status.
package reap

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SweepBound is how long the reaper keeps killing what the engine left
// before it gives up and reports survivors (a process forking as fast as
// it is killed, or one in uninterruptible sleep).
const SweepBound = 5 * time.Second

// Report is what the reaper writes to its --report file when the engine
// has exited: "killed N survived M\n", how many leftover processes it
// killed and how many it could not end within SweepBound.
type Report struct {
	Killed, Survived int
}

// String renders r as the report file's line.
func (r Report) String() string { return fmt.Sprintf("killed %d survived %d\n", r.Killed, r.Survived) }

// ParseReport reads a report file's bytes; an error when they are not one
// report line.
func ParseReport(b []byte) (Report, error) {
	var r Report
	f := strings.Fields(string(b))
	if len(f) != 4 || f[0] != "killed" || f[2] != "survived" {
		return r, errors.New("the reaper's report is not \"killed N survived M\"")
	}
	var err1, err2 error
	r.Killed, err1 = strconv.Atoi(f[1])
	r.Survived, err2 = strconv.Atoi(f[3])
	if err := errors.Join(err1, err2); err != nil {
		return r, fmt.Errorf("the reaper's report: %w", err)
	}
	return r, nil
}
