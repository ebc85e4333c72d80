//go:build !unix

package dialect

import (
	"os"
	"time"
)

// readFileUntil has no poll(2) outside Unix: ok false sends the caller to the
// watched read (a goroutine abandoned at the deadline).
func readFileUntil(*os.File, time.Time) ([]byte, bool, error) { return nil, false, nil }
