//go:build !unix

package safewrite

import "os"

// openNoFollow opens path read-only; on this platform the Lstat checks made
// before it are the only guard against links.
func openNoFollow(path string) (*os.File, error) { return os.Open(path) }
