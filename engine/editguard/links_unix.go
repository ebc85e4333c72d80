//go:build unix

package editguard

import (
	"os"
	"syscall"
)

// mayBeHardLink reports whether fi's file has more than one name (its link
// count, stat(2) st_nlink); true when the count is unknown.
func mayBeHardLink(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || st.Nlink > 1
}
