//go:build unix

package spawn

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/hookwarden/hookwarden/internal/fileowner"
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

// foreignOwner reports whether fi belongs to an account other than this
// process's and root (such an owner can write it whatever its mode).
func foreignOwner(fi os.FileInfo) bool {
	uid, _ := fileowner.Of(fi)
	return uid < 0 || (uid != 0 && uid != os.Geteuid())
}

// lockFile takes an exclusive advisory lock (flock(2)) on f, waiting for
// another holder; the lock ends when f is closed.
func lockFile(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			return err
		}
	}
}
