// Package regread reads one small regular file for the hook path: the
// settings layers (.hookwarden.yaml, the workstation and fleet files).
//
// It differs from os.ReadFile in two ways a hook process notices:
//   - a path that is not a regular file is refused without blocking: a FIFO
//     is opened non-blocking and refused after fstat, where os.Open would wait
//     for a writer forever and the client's hook timeout would let the call
//     through (Claude Code, Codex and Gemini CLI fail open on a timed-out
//     hook: testdata/clients/FACTS.md);
//   - on Unix the file is read with plain system calls, never through an
//     *os.File: os.Open registers every file with the runtime's netpoller,
//     whose start-up (epoll_create1, eventfd2, epoll_ctl and four fcntl calls)
//     was a measurable part of a hook process (README "Benchmarks").
package regread

import (
	"errors"
	"fmt"
	"io/fs"
)

// ErrNotRegular is returned (wrapped with the path) for a directory, FIFO,
// socket or device.
var ErrNotRegular = errors.New("not a regular file")

// File returns the contents of the regular file at path, at most max bytes.
// Every error is an *fs.PathError naming path: the system's (errors.Is(err,
// fs.ErrNotExist) for a missing file), ErrNotRegular, or "larger than <max>
// bytes" (the file is never truncated).
func File(path string, max int) ([]byte, error) {
	data, err := read(path, max)
	if err != nil {
		return nil, err
	}
	if len(data) > max {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("larger than %d bytes", max)}
	}
	return data, nil
}
