//go:build unix

package fileowner

import (
	"io/fs"
	"os"
	"syscall"
)

// Of returns the owner and group ids of fi, or -1, -1 when fi carries no
// stat(2) record.
func Of(fi fs.FileInfo) (uid, gid int) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid), int(st.Gid)
	}
	return -1, -1
}

// Self reports whether fi belongs to this process's effective user; an
// unknown owner is not ours.
func Self(fi fs.FileInfo) bool {
	uid, _ := Of(fi)
	return uid >= 0 && uid == os.Geteuid()
}
