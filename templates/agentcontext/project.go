package agentcontext

import (
	"regexp"
	"strings"
	"sync"
)

// srcLine is one line of a container (the document, a list item, a block
// quote): idx is its index in the document's lines, text the part of that line
// inside the container (always a suffix of the document line, so a replacement
// can keep the container's prefix).
type srcLine struct {
	idx  int
	text string
}

type headingGroup struct {
	lines []int // heading text lines and a setext underline, document indexes
	level int
}

// projector holds the state of one read-only projection of a document.
type projector struct {
	rules    *Rules
	orig     []string
	drop     []bool
	repl     map[int]string
	verbatim []bool // inside a kept code block: never collapsed or judged
	isHead   []bool
	heads    []headingGroup
}

var (
	fenceOpenRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^( {0,3})(`{3,}|~{3,})(.*)$") })
	atxRe       = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]|$)`) })
	thematicRe  = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^ {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$`)
	})
	setextRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`) })
	listItemRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^( {0,3})([-*+]|\d{1,9}[.)])([ \t]+|$)`) })
	quoteRe    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ {0,3}> ?`) })
	commentRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ {0,3}<!--`) })
	delimRowRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$`)
	})
	inlineCommRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<!--.*?-->`) })
)

func shellInfo(info string) bool {
	switch info {
	case "", "sh", "bash", "shell", "console", "zsh", "fish",
		"powershell", "pwsh", "ps1", "cmd", "bat", "terminal",
		"shell-session", "shellsession", "ksh":
		return true
	}
	return false
}

// Project returns the read-only projection of the document lines (without
// line endings): front matter and HTML comments dropped, every unit that asks
// for a change of the repository dropped by rules, headings kept only when
// their section still has content, runs of blank lines outside code blocks
// collapsed to one. The result has no leading or trailing blank lines.
func Project(rules *Rules, lines []string) []string {
	p := &projector{
		rules:    rules,
		orig:     lines,
		drop:     make([]bool, len(lines)),
		repl:     map[int]string{},
		verbatim: make([]bool, len(lines)),
		isHead:   make([]bool, len(lines)),
	}
	start := frontMatterEnd(lines)
	for i := 0; i < start; i++ {
		p.drop[i] = true
	}
	ls := make([]srcLine, 0, len(lines)-start)
	for i := start; i < len(lines); i++ {
		ls = append(ls, srcLine{idx: i, text: lines[i]})
	}
	p.process(ls, 0)
	p.pruneHeadings()
	return p.emit()
}

// frontMatterEnd returns the number of leading lines that form a YAML front
// matter block ("---" … "---" or "..."), 0 when there is none.
func frontMatterEnd(lines []string) int {
	if len(lines) == 0 || strings.TrimRight(lines[0], " \t") != "---" {
		return 0
	}
	for i := 1; i < len(lines); i++ {
		t := strings.TrimRight(lines[i], " \t")
		if t == "---" || t == "..." {
			return i + 1
		}
	}
	return 0
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

// indentCols returns the indentation width of s in columns (tab stops of 4).
func indentCols(s string) int {
	col := 0
	for _, c := range s {
		switch c {
		case ' ':
			col++
		case '\t':
			col += 4 - col%4
		default:
			return col
		}
	}
	return col
}

// dedent removes up to n columns of leading indentation from s; the result is
// always a suffix of s.
func dedent(s string, n int) string {
	col := 0
	for i, c := range s {
		if col >= n {
			return s[i:]
		}
		switch c {
		case ' ':
			col++
		case '\t':
			col += 4 - col%4
		default:
			return s[i:]
		}
	}
	return ""
}

// interrupts reports whether t starts a block that ends a paragraph.
func interrupts(t string) bool {
	return fenceOpenRe().MatchString(t) || atxRe().MatchString(t) || quoteRe().MatchString(t) ||
		commentRe().MatchString(t) || thematicRe().MatchString(t) || listItemRe().MatchString(t)
}

// maxNest bounds the nesting of list items and block quotes the projection
// parses; deeper content is judged as one unit (dropped whole on any change
// sentence), which keeps the work linear on pathological input.
const maxNest = 16

func (p *projector) process(ls []srcLine, depth int) {
	if depth > maxNest {
		var b strings.Builder
		for _, l := range ls {
			b.WriteString(l.text)
			b.WriteByte('\n')
		}
		if p.changeText(b.String()) {
			for _, l := range ls {
				p.drop[l.idx] = true
			}
		}
		return
	}
	i := 0
	var paras [][2]int      // paragraphs of this container: [start, end) in ls
	stops := map[int]bool{} // ls indexes that start a paragraph, heading or break
	for i < len(ls) {
		t := ls[i].text
		switch {
		case isBlank(t):
			i++
		case fenceOpenRe().MatchString(t):
			i = p.fence(ls, i)
		case commentRe().MatchString(t):
			j := i
			for j < len(ls) && !strings.Contains(ls[j].text, "-->") {
				j++
			}
			if j == len(ls) {
				j--
			}
			for k := i; k <= j; k++ {
				p.drop[ls[k].idx] = true
			}
			i = j + 1
		case atxRe().MatchString(t):
			stops[i] = true
			if depth == 0 {
				p.heads = append(p.heads, headingGroup{lines: []int{ls[i].idx}, level: len(atxRe().FindStringSubmatch(t)[1])})
				p.isHead[ls[i].idx] = true
			}
			i++
		case thematicRe().MatchString(t):
			stops[i] = true
			i++
		case listItemRe().MatchString(t):
			i = p.listItem(ls, i, depth)
		case quoteRe().MatchString(t):
			i = p.quote(ls, i, depth)
		case indentCols(t) >= 4:
			j := i
			last := i
			for j < len(ls) && (isBlank(ls[j].text) || indentCols(ls[j].text) >= 4) {
				if !isBlank(ls[j].text) {
					last = j
				}
				j++
			}
			p.code(ls[i:last+1], ls[i:last+1], true)
			i = last + 1
		case strings.Contains(t, "|") && i+1 < len(ls) && delimRowRe().MatchString(ls[i+1].text) && strings.Contains(ls[i+1].text, "|"):
			i = p.table(ls, i)
		default:
			j := i + 1
			for j < len(ls) && !isBlank(ls[j].text) && !setextRe().MatchString(ls[j].text) && !interrupts(ls[j].text) {
				j++
			}
			if j < len(ls) && setextRe().MatchString(ls[j].text) {
				level := 2
				if strings.Contains(ls[j].text, "=") {
					level = 1
				}
				stops[i] = true
				if depth == 0 {
					g := headingGroup{level: level}
					for k := i; k <= j; k++ {
						g.lines = append(g.lines, ls[k].idx)
						p.isHead[ls[k].idx] = true
					}
					p.heads = append(p.heads, g)
				}
				i = j + 1
				continue
			}
			p.paragraph(ls[i:j], false)
			paras = append(paras, [2]int{i, j})
			stops[i] = true
			i = j
		}
	}
	// A paragraph ending with a colon introduces the block after it; when
	// that block (up to the next paragraph or heading) is gone, so is the
	// introducing sentence.
	for _, pr := range paras {
		k := pr[1]
		for k < len(ls) && isBlank(ls[k].text) {
			k++
		}
		n, all := 0, true
		for m := k; m < len(ls) && !stops[m]; m++ {
			if isBlank(ls[m].text) {
				continue
			}
			n++
			if !p.drop[ls[m].idx] {
				all = false
				break
			}
		}
		if n > 0 && all {
			p.leadIn(ls[pr[0]:pr[1]])
		}
	}
}

// fence handles the fenced code block opening at ls[i] and returns the index
// after it. An unclosed fence runs to the end of its container.
func (p *projector) fence(ls []srcLine, i int) int {
	m := fenceOpenRe().FindStringSubmatch(ls[i].text)
	char, n := m[2][0], len(m[2])
	info := strings.ToLower(strings.TrimSpace(m[3]))
	if f := strings.Fields(info); len(f) > 0 {
		info = strings.TrimLeft(f[0], "{.")
		info = strings.TrimRight(info, "}")
	}
	j := i + 1
	for ; j < len(ls); j++ {
		t := strings.TrimRight(ls[j].text, " \t")
		if indentCols(t) <= 3 {
			t = strings.TrimLeft(t, " ")
			if len(t) >= n && strings.Trim(t, string(char)) == "" {
				break
			}
		}
	}
	end := j + 1
	if j == len(ls) {
		end = len(ls)
	}
	innerEnd := j
	if innerEnd > len(ls) {
		innerEnd = len(ls)
	}
	p.code(ls[i:end], ls[i+1:innerEnd], shellInfo(info))
	return end
}

// leadIn drops the last sentence of para when it ends with a colon: called
// when the block that followed it was dropped, since "Install the
// dependencies:" introduces nothing once its block is gone.
func (p *projector) leadIn(para []srcLine) {
	for k := len(para) - 1; k >= 0; k-- {
		idx := para[k].idx
		if p.drop[idx] {
			continue
		}
		if strings.HasSuffix(strings.TrimSpace(p.text(idx)), ":") {
			p.paragraph(para, true)
		}
		return
	}
}

// code judges a code block: whole is every line of the block (fences
// included), inner the command lines. The block is dropped when any line is a
// state-changing command, else kept verbatim.
func (p *projector) code(whole, inner []srcLine, shell bool) {
	for _, l := range inner {
		if p.rules.JudgeCommandLine(l.text, shell).Change {
			for _, w := range whole {
				p.drop[w.idx] = true
			}
			return
		}
	}
	for _, w := range whole {
		p.verbatim[w.idx] = true
	}
}

// listItem handles the list item starting at ls[i] and returns the index
// after it (trailing blank lines are not part of the item). The item's own
// text (its first paragraph) is judged sentence by sentence; one change
// sentence drops the item with all its children. A kept item's children are
// projected in turn.
func (p *projector) listItem(ls []srcLine, i, depth int) int {
	t := ls[i].text
	m := listItemRe().FindStringSubmatch(t)
	w := len(m[1]) + len(m[2])
	sp := indentCols(strings.Repeat(" ", w) + m[3]) // columns incl. spacing
	switch {
	case m[3] == "" || isBlank(t[len(m[0]):]):
		w++
	case sp-w > 4:
		w++
	default:
		w = sp
	}
	content := []srcLine{{idx: ls[i].idx, text: dedentItemFirst(t, len(m[0]))}}
	j, last := i+1, i
	lazyOK := true
	for j < len(ls) {
		lt := ls[j].text
		switch {
		case isBlank(lt):
			lazyOK = false
		case indentCols(lt) >= w:
			last = j
			lazyOK = true
		case lazyOK && !isBlank(ls[j-1].text) && !interrupts(lt) && !setextRe().MatchString(lt):
			last = j
		default:
			goto done
		}
		j++
	}
done:
	for k := i + 1; k <= last; k++ {
		lt := ls[k].text
		if indentCols(lt) >= w {
			lt = dedent(lt, w)
		} else {
			lt = strings.TrimLeft(lt, " \t")
		}
		content = append(content, srcLine{idx: ls[k].idx, text: lt})
	}
	own := 0
	if !interrupts(content[0].text) && !isBlank(content[0].text) {
		own = 1
		for own < len(content) && !isBlank(content[own].text) && !interrupts(content[own].text) {
			own++
		}
	}
	var b strings.Builder
	for k := 0; k < own; k++ {
		if k > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(content[k].text)
	}
	if p.changeText(b.String()) {
		for k := i; k <= last; k++ {
			p.drop[ls[k].idx] = true
		}
		return last + 1
	}
	p.process(content[own:], depth+1)
	if own > 0 && own < len(content) && strings.HasSuffix(strings.TrimSpace(content[own-1].text), ":") {
		left := false
		for _, c := range content[own:] {
			if !isBlank(c.text) && !p.drop[c.idx] {
				left = true
				break
			}
		}
		if !left {
			for k := i; k <= last; k++ {
				p.drop[ls[k].idx] = true
			}
		}
	}
	return last + 1
}

func dedentItemFirst(t string, markerEnd int) string {
	return t[markerEnd:]
}

// changeText reports whether any sentence of text asks for a change.
func (p *projector) changeText(text string) bool {
	text = inlineCommRe().ReplaceAllString(text, "")
	for _, s := range splitSentences(text) {
		if p.rules.JudgeProse(text[s[0]:s[1]]).Change {
			return true
		}
	}
	return false
}

// quote handles the block quote starting at ls[i]; its content is projected
// as a container, and the whole quote is dropped when no content is left.
func (p *projector) quote(ls []srcLine, i, depth int) int {
	j := i
	var content []srcLine
	for j < len(ls) {
		lt := ls[j].text
		if loc := quoteRe().FindStringIndex(lt); loc != nil {
			content = append(content, srcLine{idx: ls[j].idx, text: lt[loc[1]:]})
		} else if j > i && !isBlank(lt) && !isBlank(ls[j-1].text) && !interrupts(lt) {
			content = append(content, srcLine{idx: ls[j].idx, text: strings.TrimLeft(lt, " \t")})
		} else {
			break
		}
		j++
	}
	p.process(content, depth+1)
	for _, c := range content {
		if !isBlank(c.text) && !p.drop[c.idx] {
			return j
		}
	}
	for _, c := range content {
		p.drop[c.idx] = true
	}
	return j
}

// table handles the table whose header row is ls[i]. Each body row is judged
// cell by cell; a row with a change cell is dropped; when every body row is
// dropped the header and delimiter row go too.
func (p *projector) table(ls []srcLine, i int) int {
	j := i + 2
	rows, kept := 0, 0
	for j < len(ls) && !isBlank(ls[j].text) && strings.Contains(ls[j].text, "|") && !interrupts(ls[j].text) {
		rows++
		dropRow := false
		for _, cell := range splitCells(ls[j].text) {
			if p.changeText(cell) {
				dropRow = true
				break
			}
		}
		if dropRow {
			p.drop[ls[j].idx] = true
		} else {
			kept++
		}
		j++
	}
	if rows > 0 && kept == 0 {
		p.drop[ls[i].idx] = true
		p.drop[ls[i+1].idx] = true
	}
	return j
}

// splitCells splits a table row at unescaped pipes outside inline code.
func splitCells(row string) []string {
	var cells []string
	var b strings.Builder
	inCode := false
	for k := 0; k < len(row); k++ {
		c := row[k]
		switch {
		case c == '\\' && k+1 < len(row) && row[k+1] == '|':
			b.WriteByte('|')
			k++
		case c == '`':
			inCode = !inCode
			b.WriteByte(c)
		case c == '|' && !inCode:
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	cells = append(cells, strings.TrimSpace(b.String()))
	return cells
}

// paragraph judges a paragraph sentence by sentence and cuts out every change
// sentence (and inline HTML comments), keeping the original line breaks of
// what remains; a line left empty is dropped.
func (p *projector) paragraph(ls []srcLine, dropLast bool) {
	for _, l := range ls {
		delete(p.repl, l.idx)
		p.drop[l.idx] = false
	}
	var b strings.Builder
	starts := make([]int, len(ls))
	for k, l := range ls {
		if k > 0 {
			b.WriteByte('\n')
		}
		starts[k] = b.Len()
		b.WriteString(l.text)
	}
	text := b.String()
	mask := make([]bool, len(text))
	any := false
	for _, loc := range inlineCommRe().FindAllStringIndex(text, -1) {
		for x := loc[0]; x < loc[1]; x++ {
			mask[x] = true
		}
		any = true
	}
	clean := []byte(text)
	for x := range clean {
		if mask[x] && clean[x] != '\n' {
			clean[x] = ' '
		}
	}
	sentences := splitSentences(string(clean))
	for n, s := range sentences {
		if (dropLast && n == len(sentences)-1) || p.rules.JudgeProse(string(clean[s[0]:s[1]])).Change {
			for x := s[0]; x < s[1]; x++ {
				mask[x] = true
			}
			any = true
		}
	}
	if !any {
		return
	}
	for k, l := range ls {
		end := len(text)
		if k+1 < len(ls) {
			end = starts[k+1] - 1
		}
		var kb strings.Builder
		changed := false
		for x := starts[k]; x < end; x++ {
			if mask[x] {
				changed = true
				continue
			}
			if text[x] == ' ' && x > starts[k] && mask[x-1] && strings.HasSuffix(kb.String(), " ") {
				continue // a cut between two spaces leaves one
			}
			kb.WriteByte(text[x])
		}
		if !changed {
			continue
		}
		kept := kb.String()
		if starts[k] < end && mask[starts[k]] {
			kept = strings.TrimLeft(kept, " \t")
		}
		kept = strings.TrimRight(kept, " \t")
		if isBlank(kept) {
			p.drop[l.idx] = true
			continue
		}
		prefix := p.orig[l.idx][:len(p.orig[l.idx])-len(l.text)]
		p.repl[l.idx] = prefix + kept
	}
}

var abbrevRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:^|[\s(])(?:e\.g|i\.e|vs|cf|etc|approx|incl|no|dr|mr|ms|mrs)\.$`)
})

// splitSentences returns the byte spans of the sentences of text; each span
// includes the whitespace that follows it, so cutting spans leaves the rest
// well formed. Inline code spans are never split.
func splitSentences(text string) [][2]int {
	var out [][2]int
	start := 0
	n := len(text)
	for k := 0; k < n; k++ {
		c := text[k]
		if c == '`' {
			run := 1
			for k+run < n && text[k+run] == '`' {
				run++
			}
			closer := strings.Index(text[k+run:], strings.Repeat("`", run))
			if closer >= 0 {
				k += run + closer + run - 1
				continue
			}
			k += run - 1
			continue
		}
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		e := k + 1
		for e < n && strings.IndexByte(`.!?)"'*_]`, text[e]) >= 0 {
			e++
		}
		if e < n && text[e] != ' ' && text[e] != '\t' && text[e] != '\n' {
			continue
		}
		if c == '.' && abbrevRe().MatchString(text[start:k+1]) && !strings.HasSuffix(strings.ToLower(text[start:k+1]), "etc.") {
			continue
		}
		for e < n && (text[e] == ' ' || text[e] == '\t' || text[e] == '\n') {
			e++
		}
		out = append(out, [2]int{start, e})
		start = e
		k = e - 1
	}
	if start < n {
		out = append(out, [2]int{start, n})
	}
	return out
}

// pruneHeadings drops each heading whose section (up to the next heading of
// the same or a higher level) has no content line left.
func (p *projector) pruneHeadings() {
	content := func(idx int) bool {
		if p.drop[idx] || p.isHead[idx] {
			return false
		}
		t := p.text(idx)
		return !isBlank(t) && !(thematicRe().MatchString(t) && !p.verbatim[idx])
	}
	for h, g := range p.heads {
		from := g.lines[len(g.lines)-1] + 1
		to := len(p.orig)
		for _, n := range p.heads[h+1:] {
			if n.level <= g.level {
				to = n.lines[0]
				break
			}
		}
		keep := false
		for idx := from; idx < to; idx++ {
			if content(idx) {
				keep = true
				break
			}
		}
		if !keep {
			for _, idx := range g.lines {
				p.drop[idx] = true
			}
		}
	}
}

func (p *projector) text(idx int) string {
	if r, ok := p.repl[idx]; ok {
		return r
	}
	return p.orig[idx]
}

// emit returns the kept lines with blank runs collapsed and thematic breaks
// that separate nothing removed.
func (p *projector) emit() []string {
	var out []string
	lastBlank, lastBreak := true, true
	for idx := range p.orig {
		if p.drop[idx] {
			continue
		}
		t := p.text(idx)
		if !p.verbatim[idx] && strings.Contains(t, "<!--") {
			t = strings.TrimRight(inlineCommRe().ReplaceAllString(t, ""), " \t")
			if isBlank(t) {
				continue
			}
		}
		if !p.verbatim[idx] {
			if isBlank(t) {
				if lastBlank {
					continue
				}
				out = append(out, "")
				lastBlank = true
				continue
			}
			if thematicRe().MatchString(t) && !p.isHead[idx] {
				if lastBreak {
					continue
				}
				out = append(out, t)
				lastBlank, lastBreak = false, true
				continue
			}
		}
		out = append(out, t)
		lastBlank, lastBreak = false, false
	}
	for len(out) > 0 && (isBlank(out[len(out)-1]) || thematicRe().MatchString(out[len(out)-1])) {
		out = out[:len(out)-1]
	}
	return out
}
