package main

import (
	"io"
	"os"

	"golang.org/x/term"
)

// ioStreams is what a verb's run function reads, writes and looks up
// instead of the process's own streams and environment, so that a test can
// call it with buffers: In is standard input, Out standard output (reports),
// ErrOut standard error (progress bars, a child's diagnostics), ErrTTY
// whether ErrOut is a terminal (progress bars are drawn only there), Environ
// the environment as NAME=value entries (os.Environ in the process),
// LookupEnv its lookup (os.LookupEnv; getenv is its value alone), and Getwd
// the working directory (os.Getwd).
type ioStreams struct {
	In        io.Reader
	Out       io.Writer
	ErrOut    io.Writer
	ErrTTY    bool
	Environ   []string
	LookupEnv func(string) (string, bool)
	Getwd     func() (string, error)
}

// systemIO returns the process's streams, environment and working
// directory.
func systemIO() *ioStreams {
	return &ioStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		ErrTTY: term.IsTerminal(int(os.Stderr.Fd())), Environ: os.Environ(), LookupEnv: os.LookupEnv, Getwd: os.Getwd}
}

// getenv returns the value of the environment variable name, "" when it is
// not set (os.Getenv's contract, over s.LookupEnv).
func (s *ioStreams) getenv(name string) string {
	v, _ := s.LookupEnv(name)
	return v
}
