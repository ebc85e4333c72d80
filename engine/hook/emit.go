package hook

import (
	"io"

	"github.com/hookwarden/hookwarden/protocol/dialect"
)

// Emit writes resp's answer to the process's streams and returns the exit
// code the process must end with (issue 14 item 5; the seed: a deny keeps
// its exit code even when the client has already closed a stream). A deny
// (or any answer whose exit code is not 0) keeps its code whatever the
// writes do. An answer that lets the call through, or whose JSON on stdout
// is the decision (agy), and that cannot be written in full is a failure:
// the client would read a missing answer, so the process ends with
// dialect.DenyExit(client) (2; lefthook 1) instead of 0, after trying to say
// why on stderr. The process must ignore SIGPIPE (cmd/hookwarden does), or a
// write to a closed pipe ends it by signal before Emit can answer.
func Emit(resp Response, client string, stdout, stderr io.Writer) int {
	failed := write(stdout, resp.Stdout) != nil
	if write(stderr, resp.Stderr) != nil {
		failed = true
	}
	if !failed || resp.Exit != 0 {
		return resp.Exit
	}
	io.WriteString(stderr, "hookwarden: hook: the answer could not be written to the client (a closed stream?); failing the call instead of letting it through\n")
	return dialect.DenyExit(client)
}

func write(w io.Writer, b []byte) error {
	if len(b) == 0 {
		return nil
	}
	_, err := w.Write(b)
	return err
}
