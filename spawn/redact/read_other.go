//go:build !unix

package redact

import (
	"os"
)

// openReceipts opens the receipts file for appending. Outside Unix there
// is no O_NOFOLLOW; the mode and owner checks after the open (0600, this
// account's) fail closed there, since Windows reports no such bits.
func openReceipts(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
}

// readAdmitted refuses every read outside Unix: the Read route judges the
// path of what it opened, taken from the descriptor (Linux /proc/self/fd),
// and this platform gives none that this code reads; a refusal, never an
// unchecked read.
func readAdmitted(_ Env, file, _ string) ([]byte, error) {
	return nil, fail("read %s: the opened file's path cannot be checked on this platform", file)
}
