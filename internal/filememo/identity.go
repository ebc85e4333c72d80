package filememo

import (
	"os"
	"strconv"
	"syscall"
)

// statIdentity formats path's device, inode (where the system has them),
// size and modification time in nanoseconds.
func statIdentity(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	var dev, ino uint64
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		dev, ino = uint64(st.Dev), uint64(st.Ino)
	}
	b := strconv.AppendUint(nil, dev, 10)
	b = strconv.AppendUint(append(b, ':'), ino, 10)
	b = strconv.AppendInt(append(b, ':'), fi.Size(), 10)
	return strconv.AppendInt(append(b, ':'), fi.ModTime().UnixNano(), 10), nil
}
