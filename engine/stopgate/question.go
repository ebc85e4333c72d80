package stopgate

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// This file holds the prose-question check: does the final assistant
// message close by asking the user something in prose?
//
// Block rules (a line scanner following CommonMark 0.31 where it matters
// for where prose ends; not a full Markdown parser):
//   - Line endings: CRLF and lone CR are newlines. Tabs indent to the next
//     multiple of 4 columns.
//   - Fenced code: a line indented at most 3 columns (relative to the list
//     item it sits in) opening with 3 or more backticks (info string without
//     a backtick) or 3 or more tildes. It closes at a line holding only the
//     same character, at least as many, and whitespace. An unclosed fence
//     runs to the end of the message. Removed.
//   - Indented code: lines indented 4 or more columns that do not continue
//     a paragraph (relative to the enclosing list item). Removed.
//   - Blockquotes: lines starting with '>' and their lazy continuation
//     lines. Removed.
//   - Tables: a delimiter row (---|:--:) turns the line above it into a
//     table header; rows containing '|' follow until a blank line. Lines
//     starting with '|' are table rows too. Removed.
//   - Thematic breaks and setext underlines end a paragraph. Removed.
//   - ATX headings are one-line prose blocks.
//   - List items ('-', '+', '*', or 1-9 digits and '.' or ')') open prose
//     blocks belonging to one list; continuation paragraphs indented to the
//     item's content belong to it.
//
// The closing unit is the last prose block; when it belongs to a list, it is
// the whole list plus the paragraph directly introducing it ("Which do you
// prefer?" followed by options asks the user as surely as a closing
// question). Earlier paragraphs never count.
//
// Inline rules, applied to each prose block of the closing unit: code spans
// (backtick runs of matching length, which may span lines of one paragraph
// but never a blank line; an unmatched run is literal), HTML comments
// <!-- … --> within the block, autolinks <…>, link
// destinations ](…) and bare URLs (http, https, ftp, file, mailto, www.; a
// trailing ?!.,:;*_~'" or unbalanced ')' is not part of the URL, as in the
// GFM autolink extension) are replaced by a placeholder word.
//
// Sentence-end rules: an ASCII '?' ends a question sentence when it directly
// follows a non-space character and is followed, after any run of further
// '?', '!', '？', '！', '‽', any closing quotes, brackets or emphasis
// markers and any emoji or symbol characters, by whitespace or the end of the
// block. So "what?!", "right?**" and "ready? 🙂" are questions, while
// "a ? b : c", "foo?bar", "x ?? y" and "(right?)." are not. A '?' closed by
// a bracket or quote and followed by a lower-case word is quoted or
// parenthetical inside a sentence ("the flag (why?) is set", `he asked
// "why?" and left`) and does not count. A full-width '？' after a non-space
// character always ends a sentence: CJK text puts no space after it. Every
// sentence of the closing unit counts, not only its last one ("Should I
// push? I have not yet." asks).

// fence is an open fenced code block.
type fence struct {
	ch byte
	n  int
}

type blockKind int

const (
	kPara blockKind = iota
	kHeading
	kItem
	kCode
	kQuote
	kTable
	kBreak
)

// block is one block of the message; prose kinds keep their text lines.
type block struct {
	kind  blockKind
	lines []string
	list  int // list id for prose inside a list, 0 outside any list
}

func (b *block) prose() bool { return b.kind == kPara || b.kind == kHeading || b.kind == kItem }

var (
	reThematic = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$`)
	})
	reSetextEq  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^=+[ \t]*$`) })
	reHeading   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(#{1,6})(?:[ \t]+|$)`) })
	reDelimiter = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$`)
	})
	reOrdered = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]{1,9}[.)]`) })
	reURL     = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:\b(?:https?|ftp|file)://|\bmailto:|\bwww\.)[^\s<>]*`)
	})
	reComment  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<!--.*?-->`) })
	reAutolink = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`<(?i:[a-z][a-z0-9+.-]{1,31}:[^\s<>]*|[^\s<>@]+@[^\s<>@]+)>`)
	})
)

// indentOf returns the indentation of line in columns (tabs to the next
// multiple of 4) and the rest of the line.
func indentOf(line string) (int, string) {
	col := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			col++
		case '\t':
			col += 4 - col%4
		default:
			return col, line[i:]
		}
	}
	return col, ""
}

// fenceOpen reports whether rest opens a fenced code block.
func fenceOpen(rest string) (fence, bool) {
	if len(rest) < 3 || (rest[0] != '`' && rest[0] != '~') {
		return fence{}, false
	}
	ch := rest[0]
	n := 0
	for n < len(rest) && rest[n] == ch {
		n++
	}
	if n < 3 {
		return fence{}, false
	}
	if ch == '`' && strings.Contains(rest[n:], "`") {
		return fence{}, false
	}
	return fence{ch: ch, n: n}, true
}

// fenceCloses reports whether line closes f. The closer's indentation is not
// limited (lenient towards fences inside list items).
func fenceCloses(line string, f fence) bool {
	_, rest := indentOf(line)
	n := 0
	for n < len(rest) && rest[n] == f.ch {
		n++
	}
	return n >= f.n && strings.TrimRight(rest[n:], " \t") == ""
}

// listMarker reports whether rest starts a list item and returns the width
// from the marker's start to the item's content and the content.
func listMarker(rest string) (width int, content string, ok bool) {
	var m int
	switch {
	case rest != "" && (rest[0] == '-' || rest[0] == '+' || rest[0] == '*'):
		m = 1
	default:
		loc := reOrdered().FindStringIndex(rest)
		if loc == nil {
			return 0, "", false
		}
		m = loc[1]
	}
	if m == len(rest) {
		return m + 1, "", true
	}
	if rest[m] != ' ' && rest[m] != '\t' {
		return 0, "", false
	}
	sp, after := indentOf(rest[m:])
	if after == "" {
		return m + 1, "", true
	}
	if sp > 4 { // content is indented code; the item starts one column in
		return m + 1, after, true
	}
	return m + sp, after, true
}

// startsBlock reports whether rest, at relative indentation rel, would
// interrupt a paragraph.
func startsBlock(rest string, rel int) bool {
	if rel > 3 {
		return false
	}
	if _, ok := fenceOpen(rest); ok {
		return true
	}
	if strings.HasPrefix(rest, ">") || strings.HasPrefix(rest, "|") || reHeading().MatchString(rest) || reThematic().MatchString(rest) {
		return true
	}
	// Only a non-empty item interrupts a paragraph, and of ordered items
	// only one numbered 1 (CommonMark 0.31, 5.2), so "in\n2026. Then" stays
	// one paragraph.
	if _, c, ok := listMarker(rest); ok && c != "" && (!reOrdered().MatchString(rest) || strings.HasPrefix(rest, "1.") || strings.HasPrefix(rest, "1)")) {
		return true
	}
	return false
}

// scanner splits a message into blocks.
type scanner struct {
	blocks  []block
	cur     int // index of the open paragraph-like block, -1 when none
	fence   *fence
	items   []int // content indentation of the open list items, innermost last
	list    int   // current list id, 0 outside a list
	lists   int   // list ids handed out
	blank   bool  // previous line was blank
	quote   bool  // previous line was blockquote text (lazy continuation)
	inTable bool
}

func (s *scanner) add(k blockKind, text string) {
	b := block{kind: k}
	if b.prose() {
		b.lines = []string{text}
		b.list = s.list
	}
	s.blocks = append(s.blocks, b)
	if k == kPara || k == kItem {
		s.cur = len(s.blocks) - 1
	} else {
		s.cur = -1
	}
}

// rel returns line indentation ind relative to the innermost list item that
// contains it.
func (s *scanner) rel(ind int) int {
	for i := len(s.items) - 1; i >= 0; i-- {
		if ind >= s.items[i] {
			return ind - s.items[i]
		}
	}
	return ind
}

func (s *scanner) line(line string) {
	if s.fence != nil {
		if fenceCloses(line, *s.fence) {
			s.fence = nil
		}
		return
	}
	ind, rest := indentOf(line)
	if rest == "" {
		s.cur, s.quote, s.inTable, s.blank = -1, false, false, true
		return
	}
	wasBlank := s.blank
	s.blank = false
	rel := s.rel(ind)
	interrupts := startsBlock(rest, rel)
	if s.quote && !interrupts {
		return // lazy continuation of a blockquote paragraph
	}
	s.quote = false
	if s.inTable {
		if strings.Contains(rest, "|") && !interrupts {
			return
		}
		s.inTable = false
	}
	if s.cur >= 0 && !wasBlank && rel <= 3 && reDelimiter().MatchString(rest) && strings.Contains(rest, "|") {
		// A delimiter row makes the paragraph's last line a table header.
		b := &s.blocks[s.cur]
		if last := b.lines[len(b.lines)-1]; strings.Contains(last, "|") {
			b.lines = b.lines[:len(b.lines)-1]
			if len(b.lines) == 0 {
				s.blocks = s.blocks[:s.cur]
			}
			s.add(kTable, "")
			s.inTable = true
			return
		}
	}
	if s.cur >= 0 && !wasBlank && !interrupts {
		if rel <= 3 && (reSetextEq().MatchString(rest) || isSetextDash(rest)) {
			s.add(kBreak, "")
			return
		}
		b := &s.blocks[s.cur]
		b.lines = append(b.lines, rest)
		return
	}
	// Not a continuation: close list items this line is not inside.
	for len(s.items) > 0 && ind < s.items[len(s.items)-1] {
		s.items = s.items[:len(s.items)-1]
	}
	_, _, marker := listMarker(rest)
	if len(s.items) == 0 && !(marker && ind <= 3) {
		s.list = 0
	}
	rel = s.rel(ind)
	if rel >= 4 {
		s.add(kCode, "") // indented code
		return
	}
	s.block(rest, ind)
}

// block classifies rest, a line's content at relative indentation 0-3 that
// does not continue a paragraph; ind is its absolute indentation.
func (s *scanner) block(rest string, ind int) {
	if f, ok := fenceOpen(rest); ok {
		s.fence = &f
		s.add(kCode, "")
		return
	}
	if strings.HasPrefix(rest, ">") {
		s.add(kQuote, "")
		s.quote = strings.TrimSpace(strings.TrimLeft(rest, "> \t")) != ""
		return
	}
	if reThematic().MatchString(rest) || reSetextEq().MatchString(rest) {
		s.add(kBreak, "")
		return
	}
	if m := reHeading().FindStringSubmatchIndex(rest); m != nil {
		text := strings.TrimSpace(rest[m[1]:])
		text = strings.TrimSpace(strings.TrimRight(text, "#"))
		s.add(kHeading, text)
		return
	}
	if strings.HasPrefix(rest, "|") {
		s.add(kTable, "")
		s.inTable = true
		return
	}
	if w, content, ok := listMarker(rest); ok {
		if s.list == 0 {
			s.lists++
			s.list = s.lists
		}
		s.items = append(s.items, ind+w)
		if content == "" {
			s.add(kItem, "")
			return
		}
		if _, ok := fenceOpen(content); ok || strings.HasPrefix(content, ">") || strings.HasPrefix(content, "|") {
			s.block(content, ind+w)
			return
		}
		s.add(kItem, content)
		return
	}
	if s.list != 0 {
		s.add(kItem, rest)
		return
	}
	s.add(kPara, rest)
}

// isSetextDash reports whether rest is a setext underline of '-' (which
// under a paragraph makes it a heading rather than a thematic break).
func isSetextDash(rest string) bool {
	t := strings.TrimRight(rest, " \t")
	return t != "" && strings.Trim(t, "-") == ""
}

// scanBlocks splits msg into blocks.
func scanBlocks(msg string) []block {
	msg = strings.ReplaceAll(msg, "\r\n", "\n")
	msg = strings.ReplaceAll(msg, "\r", "\n")
	s := &scanner{cur: -1}
	for _, l := range strings.Split(msg, "\n") {
		s.line(l)
	}
	return s.blocks
}

// closingUnit returns the prose blocks of the closing unit: the last prose
// block, or, when it belongs to a list, every prose block of that list and
// the paragraph or heading directly before the list.
func closingUnit(blocks []block) []block {
	last := -1
	for i := len(blocks) - 1; i >= 0; i-- {
		if blocks[i].prose() && strings.TrimSpace(strings.Join(blocks[i].lines, "")) != "" {
			last = i
			break
		}
	}
	if last < 0 {
		return nil
	}
	id := blocks[last].list
	if id == 0 {
		return blocks[last : last+1]
	}
	var unit []block
	first := -1
	for i, b := range blocks {
		if b.prose() && b.list == id {
			if first < 0 {
				first = i
			}
			unit = append(unit, b)
		}
	}
	if first > 0 {
		if b := blocks[first-1]; (b.kind == kPara || b.kind == kHeading) && b.list == 0 {
			unit = append(unit, b)
		}
	}
	return unit
}

// proseQuestion reports whether msg closes by asking a question in prose
// (see the rules at the top of this file).
func proseQuestion(msg string) bool {
	for _, b := range closingUnit(scanBlocks(msg)) {
		if questionEnd(stripInline(strings.Join(b.lines, "\n"))) {
			return true
		}
	}
	return false
}

// placeholder replaces removed inline code and URLs: a word, so a '?' right
// after it still follows a non-space character.
const placeholder = "code"

// stripInline removes code spans, autolinks, link destinations and bare URLs
// from one prose block's text.
func stripInline(text string) string {
	text = stripCodeSpans(text)
	text = reComment().ReplaceAllString(text, " ")
	text = reAutolink().ReplaceAllString(text, placeholder)
	text = stripLinkDestinations(text)
	return reURL().ReplaceAllStringFunc(text, func(u string) string {
		trail := ""
		for u != "" {
			c := u[len(u)-1]
			if strings.IndexByte("?!.,:;*_~'\"", c) >= 0 ||
				(c == ')' && strings.Count(u, "(") < strings.Count(u, ")")) {
				trail = string(c) + trail
				u = u[:len(u)-1]
				continue
			}
			break
		}
		return placeholder + trail
	})
}

// stripCodeSpans replaces every code span (an opening backtick run closed by
// the next run of the same length) with the placeholder; unmatched runs and
// backslash-escaped backticks stay literal. Linear: runs are indexed by
// length first.
func stripCodeSpans(text string) string {
	type run struct{ pos, n int }
	var runs []run
	for i := 0; i < len(text); {
		switch {
		case text[i] == '\\' && i+1 < len(text) && text[i+1] == '`':
			i += 2
		case text[i] == '`':
			n := 1
			for i+n < len(text) && text[i+n] == '`' {
				n++
			}
			runs = append(runs, run{i, n})
			i += n
		default:
			i++
		}
	}
	if len(runs) < 2 {
		return text
	}
	byLen := map[int][]int{} // run length -> indexes into runs, ascending
	for k, r := range runs {
		byLen[r.n] = append(byLen[r.n], k)
	}
	var b strings.Builder
	last := 0
	for k := 0; k < len(runs); k++ {
		r := runs[k]
		q := byLen[r.n]
		for len(q) > 0 && q[0] <= k {
			q = q[1:]
		}
		byLen[r.n] = q
		if len(q) == 0 {
			continue // no closer: literal backticks
		}
		c := runs[q[0]]
		b.WriteString(text[last:r.pos])
		b.WriteString(placeholder)
		last = c.pos + c.n
		k = q[0]
	}
	b.WriteString(text[last:])
	return b.String()
}

// maxDestination bounds how far a link destination is looked for, so many
// unclosed "](" cannot make the check quadratic.
const maxDestination = 2048

// stripLinkDestinations turns "[text](destination "title")" into "[text]",
// balancing parentheses inside the destination.
func stripLinkDestinations(text string) string {
	var b strings.Builder
	for {
		k := strings.Index(text, "](")
		if k < 0 {
			b.WriteString(text)
			return b.String()
		}
		b.WriteString(text[:k+1])
		depth, j := 0, k+1
		end := min(len(text), k+1+maxDestination)
		for ; j < end; j++ {
			if text[j] == '(' {
				depth++
			} else if text[j] == ')' {
				depth--
				if depth == 0 {
					break
				}
			} else if text[j] == '\n' && depth > 0 && j+1 < len(text) && text[j+1] == '\n' {
				break
			}
		}
		if j >= end || text[j] != ')' {
			// Not a link after all: keep the text as it was.
			b.WriteString(text[k+1 : k+2])
			text = text[k+2:]
			continue
		}
		text = text[j+1:]
	}
}

// closers may follow a question mark before the sentence's end.
const closers = "\"'”’»›)]}*_~）」』】〕"

// questionEnd reports whether text has a sentence ending in a question mark
// (see the sentence-end rules at the top of this file).
func questionEnd(text string) bool {
	rs := []rune(text)
	for i, r := range rs {
		if r != '?' && r != '？' {
			continue
		}
		if i == 0 || unicode.IsSpace(rs[i-1]) || strings.ContainsRune("?!？！‽", rs[i-1]) {
			continue // not after a word, or judged with the cluster's first mark
		}
		if r == '？' {
			return true
		}
		j := i + 1
		for j < len(rs) && strings.ContainsRune("?!？！‽", rs[j]) {
			j++
		}
		closed := false
		for j < len(rs) && strings.ContainsRune(closers, rs[j]) {
			if !strings.ContainsRune("*_~", rs[j]) {
				closed = true
			}
			j++
		}
		for j < len(rs) && isSymbol(rs[j]) {
			j++
		}
		if j == len(rs) {
			return true
		}
		if !unicode.IsSpace(rs[j]) {
			continue
		}
		if closed {
			k := j
			for k < len(rs) && unicode.IsSpace(rs[k]) {
				k++
			}
			if k < len(rs) && unicode.IsLower(rs[k]) {
				continue
			}
		}
		return true
	}
	return false
}

// isSymbol reports whether r is an emoji or other symbol, or a joiner or
// variation selector that belongs to one.
func isSymbol(r rune) bool {
	return r != utf8.RuneError && (unicode.Is(unicode.So, r) || unicode.Is(unicode.Sk, r) ||
		r == '\u200d' || (r >= '\ufe00' && r <= '\ufe0f') || (r >= 0x1f3fb && r <= 0x1f3ff))
}
