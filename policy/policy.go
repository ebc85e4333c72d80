// Package policy holds the built-in command rules as data, operator deny
// patterns, the environment check, the command scanner and the refusal texts.
//
// API contract (other packages build on these signatures; keep them):
//
//	New(operator []settings.Pattern) (*Policy, error)
//	(*Policy).Judge(command string) Decision
//	CheckEnvironment(lookup func(string) (string, bool)) Decision
//	TextRules() []TextRule
//
// Beyond the contract: (*Policy).JudgeText (the text layer alone, what the
// rendered interceptors compute), (*Policy).Normalise and Normalisations (the
// text normalisation), Refusal and RuleIDs (wording and ids from rules.json),
// and the scan-bound and operator-limit constants.
//
// A command is judged in two layers. The shell layer parses the command with
// mvdan.cc/sh/v3/syntax (bash dialect) and judges command words and the
// arguments each command actually interprets, so quoted data (commit messages,
// echo text, grep patterns, here-document bodies) is data. When the parse
// fails, the text layer decides: the text rules of rules.json, searched in the
// normalised command (see Normalisations), which deny on mention and so fail
// closed. The same text rules are rendered into the standalone interceptors.
package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/hookwarden/hookwarden/settings"
)

// Decision is the policy's answer for one command text. Allowed is true when no
// rule denies. RuleID is the stable id of the first denying rule (empty when
// allowed). Reason is the refusal text
// "[BLOCKED BY hookwarden:<rule-id>] <why>; <how to do it instead>", never
// containing the judged command, at most 4096 bytes.
type Decision struct {
	Allowed bool
	RuleID  string
	Reason  string
}

// TextRule is one built-in rule in its text form, expressible alike in RE2,
// Python re and JavaScript RegExp, so standalone interceptors can be rendered
// from it. ID is the stable rule id; Pattern the regular expression; Why and
// Instead the two halves of the refusal text.
//
// Requires is a prefilter added beside the contract fields: lower-case
// literals of which at least one occurs in the ASCII-lowercased line for the
// pattern to match (see TextRules).
type TextRule struct {
	ID       string
	Pattern  string
	Why      string
	Instead  string
	Requires []string
}

// Operator pattern bounds (DESIGN.md, operator settings).
const (
	MaxOperatorPatternsPerLayer = 64
	MaxOperatorPatternBytes     = 512
)

// Policy is a compiled policy: the built-in rules plus the operator's deny
// patterns. Its answers never change after New, and it is safe for
// concurrent use (the lazily compiled parts sit behind sync.Once and a
// sync.Pool).
type Policy struct {
	operators []operatorRule

	// The text layer is compiled on first use: Judge needs it only for a
	// command the shell parser rejects, so a hook process that judges one
	// parseable command never pays for it.
	textOnce sync.Once
	textErr  error
	text     []lazyRegexp // parallel to textIDs and textReq
	textIDs  []string
	textReq  [][]string
}

type operatorRule struct {
	id     string
	re     *regexp.Regexp
	reason string
}

// New prepares a Policy: the operator deny patterns are compiled now, the
// built-in text rules on first use (Judge needs them only for a command the
// shell parser rejects). operator may be nil. Operator patterns are RE2, searched in the raw and the
// normalised command and in each simple command the judge sees run, its
// words as expanded joined by one space (`t=terraform; $t destroy` runs
// "terraform destroy"); at most MaxOperatorPatternsPerLayer per layer (counted
// by settings.Pattern.Layer) and MaxOperatorPatternBytes bytes each. Their rule
// ids are "operator:<name>:<line>" (settings.Pattern.Name and Line), or
// "operator:<layer>:<index>" with index counted from 0 within the layer when
// the pattern's line is not known. Errors: a pattern that does not compile, is too long, or a layer with
// too many patterns, as "policy: operator layer <layer> pattern <index>: <why>".
func New(operator []settings.Pattern) (*Policy, error) {
	p := &Policy{}
	count := map[string]int{}
	var c *catalog
	if len(operator) > 0 {
		var err error
		if c, err = loadCatalog(); err != nil {
			return nil, err
		}
	}
	for _, op := range operator {
		idx := count[op.Layer]
		count[op.Layer]++
		if idx >= MaxOperatorPatternsPerLayer {
			return nil, fmt.Errorf("policy: operator layer %s pattern %d: more than %d patterns in one layer", op.Layer, idx, MaxOperatorPatternsPerLayer)
		}
		if len(op.Pattern) > MaxOperatorPatternBytes {
			return nil, fmt.Errorf("policy: operator layer %s pattern %d: %d bytes, more than %d", op.Layer, idx, len(op.Pattern), MaxOperatorPatternBytes)
		}
		if strings.TrimSpace(op.Pattern) == "" {
			return nil, fmt.Errorf("policy: operator layer %s pattern %d: empty pattern would deny every command", op.Layer, idx)
		}
		re, err := regexp.Compile(op.Pattern)
		if err != nil {
			return nil, fmt.Errorf("policy: operator layer %s pattern %d: %w", op.Layer, idx, err)
		}
		id := "operator:" + op.Layer + ":" + strconv.Itoa(idx)
		where := strconv.Itoa(idx) + " of layer " + op.Layer
		if op.Name != "" && op.Line > 0 {
			id = "operator:" + op.Name + ":" + strconv.Itoa(op.Line)
			where = "at line " + strconv.Itoa(op.Line) + " of " + op.Layer
		}
		why := strings.Replace(c.opWhy, "%s", where, 1)
		p.operators = append(p.operators, operatorRule{id: id, re: re, reason: refusal(id, why, c.opInstead)})
	}
	return p, nil
}

// Judge decides one command text (as the agent would hand it to a shell).
// Empty or whitespace-only commands are allowed. Commands past the scan
// bounds are denied whole. Otherwise the shell layer decides when the command
// parses, the text layer when it does not; operator patterns are applied to
// every command within the bounds. The returned Reason never contains the
// command.
func (p *Policy) Judge(command string) Decision {
	d, _ := p.judgeRecover(NewCommand(command), "", nil)
	return d
}

// JudgeIn is JudgeAt with the hook process's own environment
// (os.LookupEnv): JudgeAt(command, Site{Dir: dir, LookupEnv: os.LookupEnv}).
func (p *Policy) JudgeIn(command, dir string) Decision {
	return p.JudgeAt(command, Site{Dir: dir, LookupEnv: os.LookupEnv})
}

// Site is where a command is judged. Dir is the absolute directory the
// command starts in (the payload's cwd; "" or relative when not known).
// LookupEnv reads the environment of the process that runs it (nil when not
// known): HOME, XDG_CONFIG_HOME, GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM and
// GIT_CONFIG_NOSYSTEM locate git's configuration files (for aliases), PATH
// answers command -v, which and type -P.
type Site struct {
	Dir       string
	LookupEnv func(string) (string, bool)
}

// JudgeAt is Judge for a command that starts at a Site: globs are judged by
// what they match in at.Dir, scripts the command runs are read from there
// (bounded), git aliases are resolved from the configuration files git would
// read there, and command -v/which/type -P name what at's PATH finds. An
// empty or relative Dir is Judge: nothing relative is read from disk, and
// what would have been read counts as unknown.
func (p *Policy) JudgeAt(command string, at Site) Decision {
	return p.JudgeCommand(NewCommand(command), at)
}

// JudgeCommand is JudgeAt for a Command the target scan (ScanTargets) may
// already have read: the scripts the scan parsed are not parsed again. c is
// read and taken over (do not scan it again after).
func (p *Policy) JudgeCommand(c *Command, at Site) Decision {
	dir := at.Dir
	if !filepath.IsAbs(dir) {
		dir = ""
	}
	d, _ := p.judgeRecover(c, dir, at.LookupEnv)
	return d
}

// judgeRecover is Judge with a safety net: a panic inside the shell layer (a
// defect) denies the command as unjudgeable instead of crashing the hook
// process; recovered reports it so the fuzz test still fails on it.
func (p *Policy) judgeRecover(c *Command, dir string, env func(string) (string, bool)) (d Decision, recovered any) {
	defer func() {
		if r := recover(); r != nil {
			d, recovered = p.deny(RuleIndirectionUnjudgeable), r
		}
	}()
	return p.judge(c, dir, env), nil
}

func (p *Policy) judge(c *Command, dir string, env func(string) (string, bool)) Decision {
	command := c.text
	if d, done := p.bounds(command); done {
		return d
	}
	if id := parseBound(command); id != "" {
		return p.deny(id)
	}
	hits := &hitSet{}
	j := &judge{p: p, hits: hits, dir: dir, env: env, cmd: c}
	j.script(command, 0, nil)
	if id := hits.first(); id != "" {
		return p.deny(id)
	}
	c.ran = j.lines
	return p.operatorDecision(command, j.lines)
}

// JudgeOperators applies only p's operator patterns to c, as JudgeCommand
// applies them after the built-in rules: to c's text, its normalised form
// and the simple commands the last JudgeCommand of c saw run (kept when
// that policy had operator patterns, or c.KeepRan was called before it).
// It is for a command another Policy (built-in rules and fewer operator
// patterns) already judged and allowed, when more patterns apply to it:
// the built-in rules are not applied again. A command past the scan bounds
// is denied as JudgeCommand denies it.
func (p *Policy) JudgeOperators(c *Command) Decision {
	if d, done := p.bounds(c.text); done {
		return d
	}
	return p.operatorDecision(c.text, c.ran)
}

// operatorDecision is the first of p's operator patterns that matches
// command, its normalised form or one of the simple commands ran, as a
// deny; Allowed when none does.
func (p *Policy) operatorDecision(command string, ran []string) Decision {
	if len(p.operators) == 0 {
		return Decision{Allowed: true}
	}
	normalised := p.Normalise(command)
	for _, op := range p.operators {
		if op.re.MatchString(command) || op.re.MatchString(normalised) || slices.ContainsFunc(ran, op.re.MatchString) {
			return Decision{RuleID: op.id, Reason: op.reason}
		}
	}
	return Decision{Allowed: true}
}

// JudgeText decides one command with the text layer alone: scan bounds, then
// the text rules in priority order on the normalised command, then the
// operator patterns. It is what the rendered interceptors compute, and what
// the corpus parity cases ("text": true) require to agree with Judge.
func (p *Policy) JudgeText(command string) Decision {
	if d, done := p.bounds(command); done {
		return d
	}
	normalised := p.Normalise(command)
	if id := p.textMatch(normalised); id != "" {
		return p.deny(id)
	}
	for _, op := range p.operators {
		if op.re.MatchString(command) || op.re.MatchString(normalised) {
			return Decision{RuleID: op.id, Reason: op.reason}
		}
	}
	return Decision{Allowed: true}
}

// Normalise applies Normalisations() to command in order and returns the text
// the text rules search. It is a hand-written equivalent of the data's
// substitutions (TestNormaliseMatchesData holds them equal): backslash-newline
// and backslash-CR-LF pairs are removed, then every ' and " is removed.
func (p *Policy) Normalise(command string) string {
	if !strings.ContainsAny(command, "\\\"'") {
		return command
	}
	b := make([]byte, 0, len(command))
	for i := 0; i < len(command); i++ {
		c := command[i]
		if c == '\\' {
			if i+1 < len(command) && command[i+1] == '\n' {
				i++
				continue
			}
			if i+2 < len(command) && command[i+1] == '\r' && command[i+2] == '\n' {
				i += 2
				continue
			}
		}
		b = append(b, c)
	}
	out := b[:0]
	for _, c := range b {
		if c != '"' && c != '\'' {
			out = append(out, c)
		}
	}
	return string(out)
}

// compileText prepares the text rules once per Policy (each expression is
// compiled on first use, textRegexp).
func (p *Policy) compileText() error {
	p.textOnce.Do(func() {
		c, err := loadCatalog()
		if err != nil {
			p.textErr = err
			return
		}
		rules, err := c.expanded()
		if err != nil {
			p.textErr = err
			return
		}
		for _, r := range rules {
			if r.Kind != "text" {
				continue
			}
			p.text = append(p.text, lazyRegexp{src: r.Pattern})
			p.textIDs = append(p.textIDs, r.ID)
			p.textReq = append(p.textReq, r.Requires)
		}
	})
	return p.textErr
}

// textMatch returns the first text rule matching the normalised command,
// searching line by line and skipping lines that hold none of a rule's
// required literals (equivalent to one search of the whole text; see
// TextRules).
func (p *Policy) textMatch(normalised string) string {
	if err := p.compileText(); err != nil {
		// Embedded rules that do not compile are a build defect the tests
		// catch; at run time the command cannot be judged, so it is denied.
		return RuleIndirectionUnjudgeable
	}
	lines := strings.Split(normalised, "\n")
	lower := strings.Split(asciiLower(normalised), "\n")
	for i := range p.text {
		for k, line := range lines {
			if !containsAny(lower[k], p.textReq[i]) {
				continue
			}
			re, err := p.textRegexp(i)
			if err != nil {
				return RuleIndirectionUnjudgeable
			}
			if re.MatchString(line) {
				return p.textIDs[i]
			}
		}
	}
	return ""
}

// lazyRegexp is one text rule's expression, compiled on its first use: a
// line holding none of a rule's required literals never needs it, and
// compiling every rule costs several milliseconds (interpreter code such as
// python3 -c 'print(1)' is searched with the text rules).
type lazyRegexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
	err  error
}

// textRegexp returns text rule i compiled (once per Policy), or the error
// naming the rule when it does not compile.
func (p *Policy) textRegexp(i int) (*regexp.Regexp, error) {
	l := &p.text[i]
	l.once.Do(func() {
		l.re, l.err = regexp.Compile(l.src)
		if l.err != nil {
			l.err = fmt.Errorf("policy: text rule %s: %w", p.textIDs[i], l.err)
		}
	})
	return l.re, l.err
}

func containsAny(s string, lits []string) bool {
	if len(lits) == 0 {
		return true
	}
	for _, l := range lits {
		if strings.Contains(s, l) {
			return true
		}
	}
	return false
}

// asciiLower lower-cases ASCII letters only, keeping byte offsets.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

// parseBound returns the id of the bound a command passes before it may be
// handed to the shell parser, or "" when it is within every bound: over
// MaxCommandBytes (RuleScanBoundCommand), a line over MaxLineBytes
// (RuleScanBoundLine), or parentheses nested deeper than maxParenDepth
// (RuleScanBoundNesting: nesting that deep costs mvdan.cc/sh far more than
// its length, since it recurses per level, and no real command needs it).
// Judge applies it, and so does ScanTargets before its directory scan,
// so a command no one may parse is refused, never skipped.
func parseBound(command string) string {
	if len(command) > MaxCommandBytes {
		return RuleScanBoundCommand
	}
	for rest := command; rest != ""; {
		i := strings.IndexByte(rest, '\n')
		line := rest
		if i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		if len(line) > MaxLineBytes {
			return RuleScanBoundLine
		}
	}
	if parenDepth(command) > maxParenDepth {
		return RuleScanBoundNesting
	}
	return ""
}

// bounds handles the empty command and the scan bounds.
func (p *Policy) bounds(command string) (Decision, bool) {
	if strings.Trim(command, ASCIISpace) == "" {
		return Decision{Allowed: true}, true
	}
	if id := parseBound(command); id == RuleScanBoundCommand || id == RuleScanBoundLine {
		return p.deny(id), true
	}
	return Decision{}, false
}

func (p *Policy) deny(id string) Decision {
	reason, ok := Refusal(id)
	if !ok {
		reason = refusal(id, "hookwarden could not load its rule wording", "report this to the operator")
	}
	return Decision{RuleID: id, Reason: reason}
}

// CheckEnvironment judges the hook process's own environment through lookup
// (os.LookupEnv in production): LEFTHOOK set to "0" or "false" (lefthook's
// documented off switch, evilmartians/lefthook docs/usage.md "ENV variables")
// or LEFTHOOK_EXCLUDE set at all denies with rule env-lefthook-disabled;
// anything else allows.
func CheckEnvironment(lookup func(string) (string, bool)) Decision {
	disabled := false
	if v, ok := lookup("LEFTHOOK"); ok && (v == "0" || v == "false") {
		disabled = true
	}
	if _, ok := lookup("LEFTHOOK_EXCLUDE"); ok {
		disabled = true
	}
	if !disabled {
		return Decision{Allowed: true}
	}
	reason, _ := Refusal(RuleEnvLefthookDisabled)
	return Decision{RuleID: RuleEnvLefthookDisabled, Reason: reason}
}

// hitSet collects denying rule ids and answers the one of highest priority.
type hitSet struct {
	best string
	// others: whether an id other than best's git-dynamic-option was ever
	// added (the evaluator may clear a statement's lone dynamic-option
	// hit, never one that came with another rule).
	others bool
	// record: keep every id added in seen (keepHits filters them).
	record bool
	seen   []string
}

func (h *hitSet) add(id string) {
	if h.record {
		h.seen = append(h.seen, id)
	}
	if id != RuleGitDynamicOption {
		h.others = true
	}
	if h.best == "" || rulePriority(id) < rulePriority(h.best) {
		h.best = id
	}
}

// rulePriority is a rule's position in rules.json (TestRuleIDConstants holds
// the constants in that order), so an allowed command never parses the file.
func rulePriority(id string) int {
	for i, r := range ruleOrder {
		if r == id {
			return i
		}
	}
	return 1 << 20
}

func (h *hitSet) first() string { return h.best }

// ruleOrder lists the built-in rule ids in priority order, as rules.json
// does (TestRuleIDConstants).
var ruleOrder = [...]string{RuleScanBoundCommand, RuleScanBoundLine, RuleScanBoundNesting, RuleScanBoundWords, RuleScanBoundTargets, RuleScanBoundSteps, RuleGitNoVerify, RuleGitNoVerifyShort, RuleCommitToolSkip,
	RuleHookManagerEnv, RuleHookManagerConfig, RuleHooksPathConfig, RuleGitConfigFileWrite, RuleGitConfigRedirect, RuleHooksDirTamper,
	RuleSelfProtect, RuleSelfProtectClientHooks, RuleGovernanceRollback, RuleUnknownContentsOverGuard, RuleUnknownOperands, RuleNestedClientHooks, RuleShellStartupWrite, RuleGitPlumbing, RulePatchUnreadable,
	RuleHookManagerUninstall, RulePrivilegeEscalation, RuleForgeAdminMerge,
	RuleGitDynamicOption, RulePowerShellDynamic, RuleDecodedCodeToShell, RuleCodeDynamic, RuleScriptUnknown, RuleOutputAsCode,
	RuleIndirectionUnjudgeable, RuleEnvLefthookDisabled}

// ASCIISpace is the whitespace an allowed empty command may consist of
// (ASCII only, so every renderer agrees): space, tab, newline, carriage
// return, vertical tab, form feed. A command made only of these is allowed.
const ASCIISpace = " \t\n\r\v\f"

// maxParenDepth bounds how deeply parentheses may nest in a command judged by
// the shell layer.
const maxParenDepth = 256

// parenDepth is the deepest nesting of '(' in s, quotes ignored.
func parenDepth(s string) int {
	depth, deepest := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
			deepest = max(deepest, depth)
		case ')':
			depth = max(depth-1, 0)
		}
	}
	return deepest
}
