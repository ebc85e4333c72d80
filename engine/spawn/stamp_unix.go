//go:build unix

package spawn

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// stampOf returns the identity of the file path resolves to: device, inode,
// size, and modification and change times in nanoseconds (stat(2) through
// golang.org/x/sys/unix, whose Stat_t names the times alike on Linux, macOS
// and the BSDs).
func stampOf(path string) (binaryStamp, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return binaryStamp{}, fmt.Errorf("stat %s: %w", path, err)
	}
	return binaryStamp{Path: path, Dev: uint64(st.Dev), Ino: uint64(st.Ino), Size: st.Size,
		Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano()}, nil
}
