package agentcontext

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

//go:embed rules.json
var rulesJSON []byte

// Rule is one pattern of the read-only projection rules (rules.json). ID names
// it in tests and reports; Match is the compiled RE2 pattern (case-insensitive);
// Unless lists patterns that cancel a match when they match the same unit of
// text; Block is true for command rules that apply only inside shell code
// blocks (scope "block"), false for rules that also apply to prose and inline
// code (scope "any").
type Rule struct {
	ID     string
	Match  *regexp.Regexp
	Unless []*regexp.Regexp
	Block  bool
}

// Rules is the compiled rule set of the read-only projection. Neutralize
// patterns are blanked out of a unit before prohibitions are looked for
// ("don't forget to commit" is not a prohibition); Prohibition patterns mark a
// unit as a prohibition when one matches before the first change match
// ("Never `git push --force`" stays); Change patterns are prose instructions to
// change the repository; Command patterns are state-changing commands, judged
// in inline code, in prose and in code blocks.
type Rules struct {
	Neutralize  []*regexp.Regexp
	Prohibition []*regexp.Regexp
	Change      []Rule
	Command     []Rule
	Targets     Targets
}

// Targets judges task-runner targets inside code ("just write-config-schema",
// "make fmt-check"): Runner matches a runner (make, just, npm run …); each of
// the following target tokens is split at - : _ . / into words; a token with a
// Read word is read-only, else a token with a Write word is a change.
type Targets struct {
	Runner *regexp.Regexp
	Write  map[string]bool
	Read   map[string]bool
}

type rawRule struct {
	ID     string   `json:"id"`
	Scope  string   `json:"scope"`
	Match  string   `json:"match"`
	Unless []string `json:"unless"`
}

type rawRules struct {
	Neutralize  []string  `json:"neutralize"`
	Prohibition []string  `json:"prohibition"`
	Change      []rawRule `json:"change"`
	Command     []rawRule `json:"command"`
	Targets     struct {
		Runner string   `json:"runner"`
		Write  []string `json:"write"`
		Read   []string `json:"read"`
	} `json:"targets"`
}

// DefaultRules compiles the rule set embedded from rules.json. It returns an
// error naming the rule when the data does not parse or a pattern is not valid
// RE2 (a build defect, caught by the package tests).
func DefaultRules() (*Rules, error) {
	return ParseRules(rulesJSON)
}

// ParseRules compiles a rule set from its JSON form (the shape of rules.json:
// {"neutralize": [re…], "prohibition": [re…], "change": [{id, match, unless}],
// "command": [{id, scope: "any"|"block", match, unless}]}). Every pattern is
// compiled case-insensitively. It returns an error naming the bad rule.
func ParseRules(data []byte) (*Rules, error) {
	var raw rawRules
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("hookwarden: projection rules: %w", err)
	}
	r := &Rules{}
	var err error
	if r.Neutralize, err = compileAll("neutralize", raw.Neutralize); err != nil {
		return nil, err
	}
	if r.Prohibition, err = compileAll("prohibition", raw.Prohibition); err != nil {
		return nil, err
	}
	if r.Change, err = compileRules("change", raw.Change); err != nil {
		return nil, err
	}
	if r.Command, err = compileRules("command", raw.Command); err != nil {
		return nil, err
	}
	if raw.Targets.Runner != "" {
		if r.Targets.Runner, err = regexp.Compile("(?i)" + raw.Targets.Runner); err != nil {
			return nil, fmt.Errorf("hookwarden: projection rules: targets runner: %w", err)
		}
	}
	r.Targets.Write, r.Targets.Read = map[string]bool{}, map[string]bool{}
	for _, w := range raw.Targets.Write {
		r.Targets.Write[strings.ToLower(w)] = true
	}
	for _, w := range raw.Targets.Read {
		r.Targets.Read[strings.ToLower(w)] = true
	}
	return r, nil
}

func compileAll(kind string, pats []string) ([]*regexp.Regexp, error) {
	out := make([]*regexp.Regexp, 0, len(pats))
	for i, p := range pats {
		re, err := regexp.Compile("(?i)" + p)
		if err != nil {
			return nil, fmt.Errorf("hookwarden: projection rules: %s[%d]: %w", kind, i, err)
		}
		out = append(out, re)
	}
	return out, nil
}

func compileRules(kind string, raws []rawRule) ([]Rule, error) {
	out := make([]Rule, 0, len(raws))
	for _, rr := range raws {
		if rr.ID == "" {
			return nil, fmt.Errorf("hookwarden: projection rules: %s rule without id", kind)
		}
		re, err := regexp.Compile("(?i)" + rr.Match)
		if err != nil {
			return nil, fmt.Errorf("hookwarden: projection rules: %s %s: %w", kind, rr.ID, err)
		}
		unless, err := compileAll(kind+" "+rr.ID+" unless", rr.Unless)
		if err != nil {
			return nil, err
		}
		switch rr.Scope {
		case "", "any", "block":
		default:
			return nil, fmt.Errorf("hookwarden: projection rules: %s %s: scope %q is not any or block", kind, rr.ID, rr.Scope)
		}
		out = append(out, Rule{ID: rr.ID, Match: re, Unless: unless, Block: rr.Scope == "block"})
	}
	return out, nil
}

// first returns the byte offset of the rule's first match in s that is not
// cancelled by an unless pattern, or -1.
func (r Rule) first(s string) int {
	loc := r.Match.FindStringIndex(s)
	if loc == nil {
		return -1
	}
	for _, u := range r.Unless {
		if u.MatchString(s) {
			return -1
		}
	}
	return loc[0]
}

// Judgement is the verdict of the projection rules on one unit of text: Change
// is true when the unit asks for a change of the repository and must be
// dropped; Rule names the rule that matched first (empty when none did);
// Prohibition is true when a change rule matched but a prohibition came first,
// so the unit stays.
type Judgement struct {
	Change      bool
	Rule        string
	Prohibition bool
}

var inlineCode = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(`+)([^`]|[^`].*?[^`])(`+)") })

// JudgeProse judges one unit of prose (a sentence, a list item's own text or a
// table row, markdown included). Inline code spans are judged by the command
// rules (scope "any"), the rest by the change rules; a prohibition before the
// first match keeps the unit.
func (r *Rules) JudgeProse(text string) Judgement {
	best, rule := -1, ""
	consider := func(pos int, id string) {
		if pos >= 0 && (best < 0 || pos < best) {
			best, rule = pos, id
		}
	}
	for _, m := range inlineCode().FindAllStringSubmatchIndex(text, -1) {
		code := strings.TrimSpace(text[m[4]:m[5]])
		if r.Targets.change(code) {
			consider(m[0], "targets")
		}
		for _, seg := range commandSegments(code) {
			for _, cr := range r.Command {
				if cr.Block {
					continue
				}
				if cr.first(seg) >= 0 {
					consider(m[0], cr.ID)
				}
			}
		}
	}
	// Commands written without backticks count too ("run make generate").
	for _, cr := range r.Command {
		if !cr.Block {
			consider(cr.first(text), cr.ID)
		}
	}
	plain := stripEmphasis(text)
	for _, cr := range r.Change {
		consider(plain.orig(cr.first(plain.s)), cr.ID)
	}
	if best < 0 {
		return Judgement{}
	}
	neutral := plain.s
	for _, n := range r.Neutralize {
		neutral = n.ReplaceAllStringFunc(neutral, func(m string) string { return strings.Repeat(" ", len(m)) })
	}
	for _, p := range r.Prohibition {
		if loc := p.FindStringIndex(neutral); loc != nil && plain.orig(loc[0]) < best {
			return Judgement{Rule: rule, Prohibition: true}
		}
	}
	return Judgement{Change: true, Rule: rule}
}

// JudgeCommandLine judges one line of a code block. shell is true for shell
// blocks, where the "block" scope rules (file operations, redirections) apply
// too. A shell prompt ("$ ", "> ", "PS> ") is ignored; the line is split into
// command segments at &&, ||, ; and |.
func (r *Rules) JudgeCommandLine(line string, shell bool) Judgement {
	if r.Targets.change(line) {
		return Judgement{Change: true, Rule: "targets"}
	}
	for _, seg := range commandSegments(line) {
		for _, cr := range r.Command {
			if cr.Block && !shell {
				continue
			}
			if cr.first(seg) >= 0 {
				return Judgement{Change: true, Rule: cr.ID}
			}
		}
	}
	return Judgement{}
}

var promptRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(?:\$|%|#|>|PS[^>]*>)\s+`) })

// commandSegments splits a command line at &&, ||, ; and | into trimmed
// segments without a leading shell prompt. The whole line is kept as the
// first segment so rules that span a pipe (curl … | sh) still see it.
func commandSegments(line string) []string {
	line = promptRe().ReplaceAllString(line, "")
	out := []string{strings.TrimSpace(line)}
	f := strings.FieldsFunc(line, func(c rune) bool { return c == ';' || c == '&' || c == '|' })
	if len(f) > 1 {
		for _, s := range f {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// plainText is markdown text with emphasis markers (*, _ around words) and
// link brackets removed, so "**Always** commit" reads as "Always commit";
// offs maps each byte of s back to its offset in the original text.
type plainText struct {
	s    string
	offs []int
}

func (p plainText) orig(i int) int {
	if i < 0 || i >= len(p.offs) {
		return -1
	}
	return p.offs[i]
}

func stripEmphasis(text string) plainText {
	var b strings.Builder
	offs := make([]int, 0, len(text))
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '*' || c == '[' || c == ']' || (c == '_' && (i == 0 || i == len(text)-1 || !isWordByte(text[i-1]) || !isWordByte(text[i+1]))) {
			continue
		}
		b.WriteByte(c)
		offs = append(offs, i)
	}
	return plainText{s: b.String(), offs: offs}
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// change reports whether code runs a task-runner target that writes: up to
// six tokens after each runner match are judged, stopping at a shell
// separator.
func (t Targets) change(code string) bool {
	if t.Runner == nil {
		return false
	}
	for _, loc := range t.Runner.FindAllStringIndex(code, -1) {
		rest := code[loc[1]:]
		if i := strings.IndexAny(rest, ";&|`"); i >= 0 {
			rest = rest[:i]
		}
		for n, tok := range strings.Fields(rest) {
			if n >= 6 {
				break
			}
			if strings.HasPrefix(tok, "-") || strings.Contains(tok, "=") {
				continue
			}
			words := strings.FieldsFunc(strings.ToLower(tok), func(c rune) bool {
				return c == '-' || c == ':' || c == '_' || c == '.' || c == '/'
			})
			read, write := false, false
			for _, w := range words {
				read = read || t.Read[w]
				write = write || t.Write[w]
			}
			if write && !read {
				return true
			}
		}
	}
	return false
}
