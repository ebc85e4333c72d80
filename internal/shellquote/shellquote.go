// Package shellquote turns an argv into one POSIX shell command line, for
// the places where an engine takes a hook command as shell text (Claude
// Code and Codex hook handlers, a rewritten shell command).
package shellquote

import (
	"regexp"
	"strings"
	"sync"
)

// safe matches a word that needs no quoting; compiled on first use, so the
// hook process (which links this package) pays nothing at start.
var safe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`) })

// Join returns argv as one POSIX shell command line that a POSIX shell
// splits back into exactly argv: words made only of [A-Za-z0-9_@%+=:,./-]
// stay bare, every other word is single-quoted, each single quote in it
// written as quote, backslash, quote, quote; the empty word is two single
// quotes.
func Join(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = Word(a)
	}
	return strings.Join(parts, " ")
}

// Word returns one word quoted for a POSIX shell as Join quotes each word:
// w itself when it is non-empty and made only of [A-Za-z0-9_@%+=:,./-],
// else w in single quotes, each single quote in it written as quote,
// backslash, quote, quote (the empty word becomes two single quotes).
func Word(w string) string {
	if safe().MatchString(w) {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
