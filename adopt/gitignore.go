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
func GitIgnoreBlock(nl string) string { return managedBlock(blockBody, nl) }

// managedBlock returns the managed block holding body with line ending nl,
// markers included, ending in nl.
func managedBlock(body []string, nl string) string {
	lines := append(append([]string{BlockBegin}, body...), BlockEnd)
	return strings.Join(lines, nl) + nl
}

// BlockError is the error of a malformed managed block (the .gitignore
// block, the lefthook config's block): Line is the 1-based line of the file
// it concerns, Problem what is wrong there and how to repair it.
type BlockError struct {
	Line    int
	Problem string
}

// Error returns "line <Line>: <Problem>".
func (e *BlockError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Problem) }

// GitIgnoreError is EnsureGitIgnoreBlock's error for a malformed block.
type GitIgnoreError = BlockError

// EnsureGitIgnoreBlock returns src with exactly one current managed block:
// src unchanged when it already holds the current block; the block's lines
// replaced in place when it holds an older block; the block appended
// otherwise (after a line ending added to a last line that lacks one). The
// file's line ending is kept (CRLF when its first line ends in CRLF). It
// returns a *GitIgnoreError naming the line for a malformed block: BEGIN
// without END (the BEGIN line), END without BEGIN, or two blocks (the second
// BEGIN).
func EnsureGitIgnoreBlock(src []byte) ([]byte, error) { return ensureBlock(src, blockBody) }

// lineEnding returns the line ending of src: "\r\n" when its first line
// ends in CRLF, else "\n".
func lineEnding(src []byte) string {
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// findBlock returns the byte offsets of src's managed block (begin: the
// start of its BEGIN line; end: past its END line's newline, or the end of
// src), -1, -1 when there is none, or a *BlockError for a malformed one.
func findBlock(src []byte) (begin, end int, err error) {
	begin, end = -1, -1
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
				return -1, -1, &BlockError{Line: line, Problem: fmt.Sprintf("a second %q (one managed block only; remove the duplicate block)", BlockBegin)}
			}
			begin, beginLine = off, line
		case BlockEnd:
			if begin < 0 || end >= 0 {
				return -1, -1, &BlockError{Line: line, Problem: fmt.Sprintf("%q without a %q before it (remove it or restore the block's first line)", BlockEnd, BlockBegin)}
			}
			end = stop
		}
		off = stop
	}
	if begin >= 0 && end < 0 {
		return -1, -1, &BlockError{Line: beginLine, Problem: fmt.Sprintf("%q without %q (restore the block's last line or remove the block)", BlockBegin, BlockEnd)}
	}
	return begin, end, nil
}

// ensureBlock returns src with exactly one current managed block holding
// body, as EnsureGitIgnoreBlock describes.
func ensureBlock(src []byte, body []string) ([]byte, error) {
	nl := lineEnding(src)
	block := managedBlock(body, nl)
	begin, end, err := findBlock(src)
	if err != nil {
		return nil, err
	}
	if begin >= 0 {
		cur := string(src[begin:end])
		want := block
		if !strings.HasSuffix(cur, "\n") { // block at end of a file without final newline
			want = strings.TrimSuffix(block, nl)
		}
		// A current block in either line ending is left as it is.
		for _, ending := range []string{"\n", "\r\n"} {
			if b := managedBlock(body, ending); cur == b || cur == strings.TrimSuffix(b, ending) {
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

// removeBlock returns src without its managed block (every byte outside
// it kept), src itself when it has none, or findBlock's error.
func removeBlock(src []byte) ([]byte, error) {
	begin, end, err := findBlock(src)
	if err != nil || begin < 0 {
		return src, err
	}
	out := append([]byte{}, src[:begin]...)
	return append(out, src[end:]...), nil
}
