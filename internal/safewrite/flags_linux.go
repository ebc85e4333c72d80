//go:build linux

package safewrite

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// The inode flags of include/uapi/linux/fs.h (FS_IOC_GETFLAGS).
const (
	fsImmutableFl = 0x00000010 // FS_IMMUTABLE_FL, chattr +i
	fsAppendFl    = 0x00000020 // FS_APPEND_FL, chattr +a
)

// checkFlags refuses a file or directory carrying the immutable or the
// append-only inode flag (chattr +i, +a): the kernel refuses replacing or
// renaming over either, even to root, and access(2) does not report the
// append-only one. A file system without the flags (ENOTTY, EINVAL,
// EOPNOTSUPP) has none to refuse.
func checkFlags(path string) error {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil // the access check and the write report it
	}
	defer unix.Close(fd)
	flags, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
	if err != nil {
		return nil
	}
	switch {
	case flags&fsImmutableFl != 0:
		return fmt.Errorf("%s: %w: immutable (chattr +i); remove the flag with chattr -i to let hookwarden write it", path, ErrNotWritable)
	case flags&fsAppendFl != 0:
		return fmt.Errorf("%s: %w: append-only (chattr +a); remove the flag with chattr -a to let hookwarden write it", path, ErrNotWritable)
	}
	return nil
}
