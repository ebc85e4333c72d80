//go:build windows

package reap

import (
	"errors"
	"os"
	"syscall"
)

// Run is not available on Windows, which has no subreaper: the redaction
// entry's run fails closed (the error names why) rather than running the
// engine without the sweep.
func Run(argv []string, report string) (syscall.WaitStatus, error) {
	return syscall.WaitStatus{}, errors.New("reap: the redaction entry's process reaper needs a Unix system (no subreaper on Windows)")
}

// Exit ends this process with the engine's exit code.
func Exit(ws syscall.WaitStatus) { os.Exit(ws.ExitStatus()) }
