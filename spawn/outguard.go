package spawn

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	"github.com/hookwarden/hookwarden/spawn/redact"
)

// maxGuardedLine bounds the bytes an outGuard holds waiting for a line's
// end; a longer line is withheld whole (a problem of the run).
const maxGuardedLine = 64 << 20

// outGuard passes an engine's stdout or stderr to the orchestrator
// through the run's matchers, a line at a time (a value never straddles
// two writes it judges): each line has every value spelling replaced by
// its token (redact.Matcher.Redact); a line that then still holds a value
// in an encoded form (the wire matcher: base64, hex, percent-encoding),
// or that cannot be redacted, is withheld and replaced by one line saying
// so, and the run fails. Safe for concurrent writes; Flush after the
// engine exited writes what remains.
type outGuard struct {
	mu       sync.Mutex
	w        io.Writer
	what     string // "stdout" or "stderr"
	m, wm    *redact.Matcher
	buf      []byte
	over     bool
	problems []string
}

// newOutGuard guards w ("stdout" or "stderr") with the redaction matcher m
// and the wire matcher wm; a nil w gives a nil guard (nothing written).
func newOutGuard(w io.Writer, what string, m, wm *redact.Matcher) *outGuard {
	if w == nil {
		return nil
	}
	return &outGuard{w: w, what: what, m: m, wm: wm}
}

// Write buffers p and writes every complete line, judged.
func (g *outGuard) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.over {
		return len(p), nil
	}
	g.buf = append(g.buf, p...)
	if i := bytes.LastIndexByte(g.buf, '\n'); i >= 0 {
		g.emit(g.buf[:i+1])
		g.buf = append(g.buf[:0], g.buf[i+1:]...)
	}
	if len(g.buf) > maxGuardedLine {
		g.over = true
		g.buf = nil
		g.problems = append(g.problems, fmt.Sprintf("the engine's %s wrote a line over %d bytes; withheld from spawn exec's %s", g.what, maxGuardedLine, g.what))
	}
	return len(p), nil
}

// emit writes lines (complete lines, or the rest at Flush) redacted, or
// a withheld notice.
func (g *outGuard) emit(lines []byte) {
	red, n, err := g.m.Redact(lines)
	if err == nil {
		if hit, ok := g.wm.First(red); ok {
			err = fmt.Errorf("the value of %s (%s) remains", hit.Token, hit.Form)
		}
	}
	if err != nil {
		g.problems = append(g.problems, fmt.Sprintf("the engine's %s held a table value spawn exec could not replace (%v); withheld", g.what, err))
		fmt.Fprintf(g.w, "hookwarden: spawn: output withheld: it held a value of the run's table\n")
		return
	}
	if n > 0 {
		g.problems = append(g.problems, fmt.Sprintf("the engine's %s held %d occurrence(s) of a table value, replaced by their tokens", g.what, n))
	}
	_, _ = g.w.Write(red)
}

// Flush writes what remains after the engine exited and returns the
// problems found (each once).
func (g *outGuard) Flush() []string {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.buf) > 0 && !g.over {
		g.emit(g.buf)
	}
	g.buf = nil
	p := g.problems
	g.problems = nil
	return p
}

// guardWriter returns g as an io.Writer, nil for a nil guard.
func guardWriter(g *outGuard) io.Writer {
	if g == nil {
		return nil
	}
	return g
}
