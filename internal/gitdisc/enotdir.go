package gitdisc

import (
	"errors"
	"syscall"
)

// isENOTDIR reports a path component that is a file (e.g. probing x/.git
// where x is a regular file), which means "no repository here".
func isENOTDIR(err error) bool { return errors.Is(err, syscall.ENOTDIR) }
