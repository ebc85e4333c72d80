//go:build unix

package safewrite

import (
	"errors"
	"fmt"
	"os"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/hookwarden/hookwarden/internal/fileowner"
)

// canOwn reports whether this process can give a file it creates the owner
// uid and group gid: root can; another user only its own uid and a group it
// belongs to.
func canOwn(uid, gid int) bool {
	euid := os.Geteuid()
	if euid == 0 || uid < 0 {
		return true
	}
	if uid != euid {
		return false
	}
	if gid < 0 || gid == os.Getegid() {
		return true
	}
	groups, err := os.Getgroups()
	return err == nil && slices.Contains(groups, gid)
}

// setOwner gives the open file f the owner uid and group gid when they
// differ from its own (a no-op for -1).
func setOwner(f *os.File, uid, gid int) error {
	if uid < 0 {
		return nil
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if u, g := fileowner.Of(fi); u == uid && g == gid {
		return nil
	}
	return f.Chown(uid, gid)
}

// setPathOwner is setOwner for a path (a directory adopt created), without
// following a link.
func setPathOwner(path string, uid, gid int) error {
	if uid < 0 {
		return nil
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if u, g := fileowner.Of(fi); u == uid && g == gid {
		return nil
	}
	return os.Lchown(path, uid, gid)
}

// writable reports why this process cannot write path (a file to replace,
// or the directory a temporary file is created in), nil when it can:
// permissions, an immutable or append-only flag (the kernel answers EPERM,
// even to root), a read-only mount (EROFS).
func writable(path string, dir bool) error {
	mode := uint32(unix.W_OK)
	if dir {
		mode |= unix.X_OK
	}
	// access(2) asks the kernel with the real ids; with AT_EACCESS, x/sys
	// falls back to a user-space emulation where faccessat2 is missing,
	// which answers yes to root even for an immutable file. The real ids
	// are the effective ones unless the binary is set-id.
	var err error
	if os.Getuid() == os.Geteuid() && os.Getgid() == os.Getegid() {
		err = unix.Access(path, mode)
	} else {
		err = unix.Faccessat(unix.AT_FDCWD, path, mode, unix.AT_EACCESS)
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EROFS):
		return fmt.Errorf("%s: %w: on a read-only file system", path, ErrNotWritable)
	case errors.Is(err, unix.EPERM):
		return fmt.Errorf("%s: %w: immutable or append-only (chattr) or otherwise not permitted", path, ErrNotWritable)
	case errors.Is(err, unix.EACCES):
		return fmt.Errorf("%s: %w: permission denied to uid %d", path, ErrNotWritable, os.Geteuid())
	}
	return fmt.Errorf("%s: %w: %v", path, ErrNotWritable, err)
}

// freeBytes returns the bytes available to this process on the file
// system of dir (root may use the reserved blocks).
func freeBytes(dir string) (uint64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, err
	}
	blocks := st.Bavail
	if os.Geteuid() == 0 {
		blocks = st.Bfree
	}
	return uint64(blocks) * uint64(st.Bsize), nil
}
