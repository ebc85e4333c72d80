//go:build !linux

package filememo

import "os"

// ExecutableIdentity returns bytes that change whenever the executable is
// replaced: device, inode, size and modification time of os.Executable's
// path. Memo keys include it, so a value derived by one build is never
// served to another. Errors are os.Executable's or os.Stat's.
func ExecutableIdentity() ([]byte, error) {
	p, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return statIdentity(p)
}
