//go:build !unix

package fileowner

import "io/fs"

// Of: this platform has no owner ids to read; -1, -1.
func Of(fs.FileInfo) (uid, gid int) { return -1, -1 }

// Self outside Unix cannot read an owner and reports true: the mode bits
// alone decide.
func Self(fs.FileInfo) bool { return true }
