package adopt

import (
	"bytes"
	"fmt"
	"strings"
)

// Markers of the managed .gitignore block.
const (
	BlockBegin = "# BEGIN hookwarden"
	BlockEnd   = "# END hookwarden"
)

// blockBody is what the managed block holds between its markers.
var blockBody = []string{
	"# Managed by hookwarden; edits inside this block are replaced by adopt and conform.",
	"/.hookwarden/backups/",
}

// GitIgnoreBlock returns the managed block with line ending nl ("\n" or
// "\r\n"), markers included, ending in nl.
func GitIgnoreBlock(nl string) string {
	lines := append(append([]string{BlockBegin}, blockBody...), BlockEnd)
	return strings.Join(lines, nl) + nl
}

// GitIgnoreError is EnsureGitIgnoreBlock's error for a malformed managed
// block: Line is the 1-based line of .gitignore it concerns, Problem what is
// wrong there and how to repair it.
type GitIgnoreError struct {
	Line    int
	Problem string
}

// Error returns "line <Line>: <Problem>".
func (e *GitIgnoreError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Problem) }

// EnsureGitIgnoreBlock returns src with exactly one current managed block:
// src unchanged when it already holds the current block; the block's lines
// replaced in place when it holds an older block; the block appended
// otherwise (after a line ending added to a last line that lacks one). The
// file's line ending is kept (CRLF when its first line ends in CRLF). It
// returns a *GitIgnoreError naming the line for a malformed block: BEGIN
// without END (the BEGIN line), END without BEGIN, or two blocks (the second
// BEGIN).
func EnsureGitIgnoreBlock(src []byte) ([]byte, error) {
	nl := "\n"
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		nl = "\r\n"
	}
	block := GitIgnoreBlock(nl)
	begin, end := -1, -1 // byte offsets: start of BEGIN line, end of END line (after its newline)
	line, beginLine := 0, 0
	for off := 0; off < len(src); {
		line++
		next := bytes.IndexByte(src[off:], '\n')
		stop := len(src)
		if next >= 0 {
			stop = off + next + 1
		}
		text := strings.TrimRight(string(src[off:stop]), " \t\r\n")
		switch text {
		case BlockBegin:
			if begin >= 0 {
				return nil, &GitIgnoreError{Line: line, Problem: fmt.Sprintf("a second %q (one managed block only; remove the duplicate block)", BlockBegin)}
			}
			begin, beginLine = off, line
		case BlockEnd:
			if begin < 0 || end >= 0 {
				return nil, &GitIgnoreError{Line: line, Problem: fmt.Sprintf("%q without a %q before it (remove it or restore the block's first line)", BlockEnd, BlockBegin)}
			}
			end = stop
		}
		off = stop
	}
	if begin >= 0 && end < 0 {
		return nil, &GitIgnoreError{Line: beginLine, Problem: fmt.Sprintf("%q without %q (restore the block's last line or remove the block)", BlockBegin, BlockEnd)}
	}
	if begin >= 0 {
		cur := string(src[begin:end])
		want := block
		if !strings.HasSuffix(cur, "\n") { // block at end of a file without final newline
			want = strings.TrimSuffix(block, nl)
		}
		// A current block in either line ending is left as it is.
		for _, ending := range []string{"\n", "\r\n"} {
			if b := GitIgnoreBlock(ending); cur == b || cur == strings.TrimSuffix(b, ending) {
				return src, nil
			}
		}
		out := append([]byte{}, src[:begin]...)
		out = append(out, want...)
		return append(out, src[end:]...), nil
	}
	out := append([]byte{}, src...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, nl...)
	}
	return append(out, block...), nil
}
