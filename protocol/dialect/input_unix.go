//go:build unix

package dialect

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// readFileUntil reads f to end of file with poll(2) waits bounded by
// deadline, on the calling goroutine. ok is false when f cannot be polled
// (poll reports the descriptor invalid); the caller then falls back to a
// watched read. A regular file always polls ready, so it is simply read.
func readFileUntil(f *os.File, deadline time.Time) (data []byte, ok bool, err error) {
	fd := int(f.Fd())
	buf := make([]byte, 0, 2048) // a pre-tool payload is 0.3-2 KB
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return nil, true, ErrInputTimeout
		}
		// Round up: a wait of 0 ms would return at once with nothing ready.
		ms := int((left + time.Millisecond - 1) / time.Millisecond)
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, perr := unix.Poll(fds, ms)
		if errors.Is(perr, unix.EINTR) {
			continue
		}
		if perr != nil {
			if len(buf) == 0 {
				return nil, false, nil
			}
			return nil, true, fmt.Errorf("reading stdin: waiting for input: %w", perr)
		}
		if n == 0 {
			continue // deadline checked at the top of the loop
		}
		if fds[0].Revents&unix.POLLNVAL != 0 {
			if len(buf) == 0 {
				return nil, false, nil
			}
			return nil, true, errors.New("reading stdin: the descriptor became invalid")
		}
		// Readable, at end of file, or in error: read says which.
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		m, rerr := f.Read(buf[len(buf):min(cap(buf), MaxInputBytes+1)])
		buf = buf[:len(buf)+m]
		if len(buf) > MaxInputBytes {
			return nil, true, fmt.Errorf("stdin is larger than %d bytes", MaxInputBytes)
		}
		if rerr != nil {
			if errors.Is(rerr, io.EOF) {
				return buf, true, nil
			}
			return nil, true, fmt.Errorf("reading stdin: %w", rerr)
		}
	}
}
