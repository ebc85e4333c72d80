//go:build unix

package redact

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// openReceipts opens the receipts file for appending without following a
// final symbolic link and without blocking on a FIFO.
func openReceipts(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// readAdmitted is the Read route's file access: it opens file (relative
// to cwd) once, non-blocking, takes the path of what it opened from the
// descriptor itself (Linux /proc/self/fd; where that cannot be read the
// read is refused), applies the read policy to that path (admitPath),
// checks the descriptor is a regular file, and reads at most MaxReadBytes
// from the same descriptor: no second lookup of the path, so a symbolic
// link swapped between the check and the read cannot redirect it.
func readAdmitted(e Env, file, cwd string) ([]byte, error) {
	if !filepath.IsAbs(file) {
		file = filepath.Join(cwd, file)
	}
	fd, err := syscall.Open(file, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fail("read %s: %v", file, err)
	}
	defer syscall.Close(fd)
	real, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
	if err != nil || !filepath.IsAbs(real) {
		return nil, fail("read %s: the opened file's path cannot be checked: %v", file, err)
	}
	if err := admitPath(e, file, real); err != nil {
		return nil, err
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, fail("read %s: %v", file, err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, fail("read %s: not a regular file", file)
	}
	if st.Size > MaxReadBytes {
		return nil, fail("read %s: larger than %d bytes", file, MaxReadBytes)
	}
	buf := make([]byte, 0, st.Size+1)
	for len(buf) <= MaxReadBytes {
		chunk := make([]byte, 64<<10)
		n, err := syscall.Read(fd, chunk)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, fail("read %s: %v", file, err)
		}
		if n == 0 {
			return buf, nil
		}
		buf = append(buf, chunk[:n]...)
	}
	return nil, fail("read %s: larger than %d bytes", file, MaxReadBytes)
}
