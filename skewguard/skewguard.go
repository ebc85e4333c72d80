// Package skewguard documents and checks the skew-guard launcher's probe
// protocol: how the rendered launcher (.hookwarden/hook.py, rendered by the
// templates package) finds an installed hookwarden engine that serves a
// registration row, so a repository keeps working when the engine on a
// machine is missing, older or newer than the rows the repository carries.
//
// # Probe protocol
//
// The launcher is called as `python3 hook.py CLIENT EVENT` with the client's
// hook payload on stdin. CLIENT and EVENT must match ^[a-z-]+$ and name a
// row of the registration table the launcher was rendered with; otherwise
// the launcher exits 2 (usage on stderr; for agy also a deny JSON on stdout,
// since agy reads only stdout).
//
//  1. Candidates, in order: the path in HOOKWARDEN_BIN (when set and
//     non-empty); the repository's bin/hookwarden (bin/hookwarden.exe on
//     Windows) when it exists, the repository being the nearest directory at
//     or above the launcher holding a .hookwarden directory; the first
//     hookwarden on PATH. Candidates resolving to the same file are tried
//     once.
//  2. Listing: a candidate is asked `<bin> hook` with no arguments and empty
//     stdin. A serving engine exits 0 and prints one "client event" line per
//     served pair (registration.Table.Listing). Any other exit code, or any
//     line that is not two ^[a-z-]+$ words separated by one space, means the
//     candidate serves nothing (an engine too old to list). ParseListing is
//     the Go statement of this rule.
//  3. Cache: the answer (the pair list, or "serves nothing") is cached per
//     candidate, keyed by the candidate's real path, size in bytes and
//     modification time in nanoseconds, in launcher-cache.json under the user
//     cache directory ($XDG_CACHE_HOME or ~/.cache on Linux and other Unix
//     systems, ~/Library/Caches on macOS, %LOCALAPPDATA% on Windows) in a
//     "hookwarden" directory. The file is written through a temporary file
//     and a rename in the same directory; an unreadable or corrupt cache is
//     ignored and rewritten. A probe that timed out or could not start is
//     never cached. Only a cached answer that lists the pair is used: one
//     without it (also "serves nothing") is probed again, because the cache
//     is a file the user, and so the governed agent, can write, and a forged
//     "not served" would hand the call to the interceptor or a stated skip.
//     With a warm cache a call costs one engine process.
//  4. Hand-off: the call goes to the first candidate whose listing holds the
//     pair: `<bin> hook CLIENT EVENT`, the launcher's stdin bytes (at most
//     1 MiB + 1) on its stdin, the launcher's working directory. Its stdout,
//     stderr and exit code pass through unchanged.
//  5. No candidate serves the pair: for pre-tool the launcher runs the
//     standalone interceptor (.hookwarden/interceptor.py, the built-in text
//     rules) as a child process and appends one stderr line saying so; for
//     other events it answers a stated skip in the client's dialect
//     ("hookwarden: skip: launcher: no installed hookwarden engine serves …"
//     on stderr, exit 0; agy also {"decision":"allow"} on stdout).
//  6. Deadlines: every step ends before the row's client timeout. The
//     launcher's deadline is templates.DeadlineMillis(row) after its start;
//     each listing probe gets at most 2 s of it; stdin that is not closed by
//     the deadline, an engine or interceptor that does not answer by it, or
//     one that dies of a signal, is ended (its process group killed) and the
//     call gets a fail-closed answer: deny for pre-tool and pre-edit, a stated
//     skip for other events.
package skewguard

import (
	"fmt"
	"regexp"
	"strings"
)

var listingLine = regexp.MustCompile(`^[a-z-]+ [a-z-]+$`)

// ParseListing parses the stdout of `hookwarden hook` (no arguments) as the
// launcher does and returns the served pairs as "client event" strings in
// listing order. Empty lines are skipped; any other line that is not two
// ^[a-z-]+$ words separated by one space makes the whole listing invalid (the
// launcher then treats the candidate as serving nothing), reported as an
// error naming the line number.
func ParseListing(stdout []byte) ([]string, error) {
	var pairs []string
	for i, line := range strings.Split(strings.ReplaceAll(string(stdout), "\r\n", "\n"), "\n") {
		if line == "" {
			continue
		}
		if !listingLine.MatchString(line) {
			return nil, fmt.Errorf("hookwarden: listing line %d: not \"client event\"", i+1)
		}
		pairs = append(pairs, line)
	}
	return pairs, nil
}
