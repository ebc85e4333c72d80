//go:build !unix

package editguard

import "os"

// mayBeHardLink reports whether fi's file may have more than one name; the
// link count is not read here, so always true.
func mayBeHardLink(os.FileInfo) bool { return true }
