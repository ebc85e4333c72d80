package clientjson

import (
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// ClaimKind is what a handler is to hookwarden; see Owner.
type ClaimKind uint8

// The claims a handler can have, from Owner.Claim.
const (
	// Foreign: not ours. Merge never edits or removes it; audit judges
	// nothing in it.
	Foreign ClaimKind = iota
	// Current: the handler runs exactly a registration form this build
	// writes or accepts for (the file's client, Claim.Event). It serves
	// that row as it is.
	Current
	// Stale: the handler runs exactly a form an earlier hookwarden version
	// wrote for (the file's client, Claim.Event). It serves that row;
	// conform (Options.Retract) rewrites it to the current form.
	Stale
	// NearMiss: the handler starts like one of our forms (our launcher as
	// we invoke it, or `hookwarden hook`) but goes on differently: another
	// client or event, an extra or missing argument. It serves no row;
	// conform repairs it in place when it names the row's client and event
	// (Claim.Event set) and retracts it otherwise; audit reports it.
	NearMiss
)

// String returns "foreign", "current", "stale" or "near-miss".
func (k ClaimKind) String() string {
	return [...]string{"foreign", "current", "stale", "near-miss"}[k]
}

// Form is one registration form of one client: Command is the shell-form
// hook command hookwarden writes (Current true) or wrote in an earlier
// version (Current false) for the (client, Event) row, e.g.
// `python3 -I -S "${CLAUDE_PROJECT_DIR}/.hookwarden/hook.py" claude
// pre-tool`. Its last two words must be the client and Event. The forms
// come from package templates (the single source of what is rendered);
// adopt assembles them.
type Form struct {
	Event   string
	Command string
	Current bool
}

// Claim is Owner.Claim's answer. Event is the hookwarden event (e.g.
// "pre-tool") of the form a Current or Stale handler runs; for a NearMiss
// it is the event word after our prefix when the word before it is the
// file's client, else "".
type Claim struct {
	Kind  ClaimKind
	Event string
}

// Ours reports whether the claim is anything but Foreign.
func (c Claim) Ours() bool { return c.Kind != Foreign }

// Serves reports whether a handler with this claim runs one of our forms
// for event: a Current or Stale claim for that event. Whether it serves a
// row also depends on where it sits (Found.Serves).
func (c Claim) Serves(event string) bool {
	return (c.Kind == Current || c.Kind == Stale) && c.Event == event
}

// Serves reports whether the handler f, found in client's file, serves the
// row registered under hooks.<native> with matcher for the hookwarden event
// (e.g. "pre-tool"): f sits under the same native event, its group's matcher
// is Equivalent to matcher as client reads them, and its claim Serves event.
// It is the one definition of a served row: Merge (adopt, conform) and audit
// both decide with it.
func (f Found) Serves(client, native, matcher, event string) bool {
	return f.NativeEvent == native && f.Claim.Serves(event) && Equivalent(client, f.Matcher, matcher)
}

// Owner is the one definition of "our row" for one client's hook file,
// shared by adopt, conform and audit (adopt.Owner builds it). A handler is
// ours only when its command parses as a single simple command (no
// redirection, pipe, list, assignment or background) whose words are
// exactly those of one of the client's Forms; in exec form (a handler with
// an "args" array, which Claude Code 2.1.328 runs without a shell: its
// settings schema, "Argument list for exec form … `command` is resolved as
// an executable and spawned directly with these arguments — no shell",
// placeholders such as ${CLAUDE_PROJECT_DIR} substituted per element as
// plain strings), `command` followed by `args` must equal the form's words
// with quotes removed and each ${NAME} kept as text. Words compare after
// quote removal where they are plain text, so `'python3'` is `python3`;
// a word with an expansion compares as written.
//
// A form may also be a list of statements (the sourced forms: the client's
// shell sets hw_self, runs `set -- <client> <event>` and reads the
// launcher); such a handler is ours when its command parses and prints
// (mvdan.cc/sh's printer: the same statements, spacing and `;` versus a
// line break aside) exactly as the form does. One that begins with the
// form's first statement but goes on differently is a near miss; its event
// is the one its `set -- <client> <event>` names.
type Owner struct {
	client   string
	forms    []ownerForm
	prefixes [][]string // shell words of our invocation before "<client> <event>"
	execPre  [][]string // the same in exec form (only the representable ones)
	stems    []listStem // first statements of the list forms, with their lengths
	execArgs bool       // the client runs exec-form handlers (command + args)
	// verbatim maps each form's command text, byte for byte, to the Claim
	// the parsing path gives it (built by NewOwner, read-only after): the
	// rows adopt writes are these texts, so most handlers are judged
	// without parsing shell.
	verbatim map[string]Claim
}

type ownerForm struct {
	event   string
	current bool
	words   []string // shell-form canonical words; nil for a list form
	exec    []string // exec-form words; nil when the form has none
	list    string   // a list form's printed text; "" for a simple command
}

// listStem is a list form's first statement, printed, and its number of
// statements: a handler of that length that begins so is a near miss.
type listStem struct {
	first string
	n     int
}

// engineWord is the bare engine name a handler may call directly
// (`hookwarden hook <client> <event>`).
const engineWord = "hookwarden"

// NewOwner returns the Owner of client's hook file for forms. It returns
// an error when a form does not parse as a simple command ending in
// "<client> <Event>" (a defect in the forms' source, never the user's).
func NewOwner(client string, forms []Form) (*Owner, error) {
	o := &Owner{client: client, execArgs: client == "claude"}
	seen := map[string]bool{}
	for _, f := range forms {
		if _, simple := parseSimple(f.Command); !simple {
			text, stem, ev, ok := listForm(f.Command, client)
			if !ok || ev != f.Event {
				return nil, fmt.Errorf("clientjson: registration form %q of %s %s is neither a simple command ending in %q nor a list naming it in `set --`", f.Command, client, f.Event, client+" "+f.Event)
			}
			o.forms = append(o.forms, ownerForm{event: f.Event, current: f.Current, list: text})
			if !slices.Contains(o.stems, stem) {
				o.stems = append(o.stems, stem)
			}
			continue
		}
		words, ok := shellWords(f.Command)
		if !ok || len(words) < 3 || words[len(words)-2] != lit(client) || words[len(words)-1] != lit(f.Event) {
			return nil, fmt.Errorf("clientjson: registration form %q of %s %s is not a simple command ending in %q", f.Command, client, f.Event, client+" "+f.Event)
		}
		exec, _ := execWords(f.Command)
		o.forms = append(o.forms, ownerForm{event: f.Event, current: f.Current, words: words, exec: exec})
		pre := words[:len(words)-2]
		if key := strings.Join(pre, "\x00"); !seen[key] {
			seen[key] = true
			o.prefixes = append(o.prefixes, pre)
			if exec != nil {
				o.execPre = append(o.execPre, exec[:len(exec)-2])
			}
		}
	}
	o.verbatim = verbatimClaims(forms, o.forms)
	return o, nil
}

// verbatimClaims maps each form's command text to the Claim Owner.Claim's
// parsing path gives that text: the first owned form with the same words
// (simple commands) or the same printed list (list forms), in order. of[i]
// is the ownerForm NewOwner made of forms[i].
func verbatimClaims(forms []Form, of []ownerForm) map[string]Claim {
	out := make(map[string]Claim, len(forms))
	for j, f := range forms {
		if _, dup := out[f.Command]; dup {
			continue
		}
		for _, g := range of {
			if of[j].list == "" && g.list == "" && slices.Equal(g.words, of[j].words) ||
				of[j].list != "" && g.list == of[j].list {
				out[f.Command] = g.claim()
				break
			}
		}
	}
	return out
}

// Client returns the client whose file o judges.
func (o *Owner) Client() string { return o.client }

// Claim judges one handler: command is its "command" string, args its
// "args" array when hasArgs (exec form; read only for clients that run
// it). A nil Owner claims nothing.
func (o *Owner) Claim(command string, args []string, hasArgs bool) Claim {
	if o == nil {
		return Claim{}
	}
	if hasArgs && o.execArgs {
		words := append([]string{command}, args...)
		for _, f := range o.forms {
			if f.exec != nil && slices.Equal(words, f.exec) {
				return f.claim()
			}
		}
		return o.nearMiss(words, o.execPre, func(s string) string { return s })
	}
	if c, ok := o.verbatim[command]; ok {
		return c
	}
	return o.claimShell(command)
}

// claimShell judges a shell-form command by parsing it: Claim's path for a
// text that is not one of the forms verbatim.
func (o *Owner) claimShell(command string) Claim {
	words, ok := shellWords(command)
	if !ok {
		return o.claimList(command)
	}
	for _, f := range o.forms {
		if f.list == "" && slices.Equal(words, f.words) {
			return f.claim()
		}
	}
	return o.nearMiss(words, o.prefixes, lit)
}

// claimList judges a shell-form command that is not one simple command
// against the list forms: Current or Stale when it prints as one, NearMiss
// when it begins with a list form's first statement and has as many
// statements (our form with an argument changed; one with a command added
// is Foreign, kept byte for byte), else Foreign.
func (o *Owner) claimList(command string) Claim {
	if len(o.stems) == 0 {
		return Claim{}
	}
	text, stem, ev, ok := listForm(command, o.client)
	if stem.first == "" {
		return Claim{}
	}
	if ok {
		for _, f := range o.forms {
			if f.list != "" && f.list == text {
				return f.claim()
			}
		}
	}
	if slices.Contains(o.stems, stem) {
		return Claim{Kind: NearMiss, Event: ev}
	}
	return Claim{}
}

// listForm parses cmd as a list of statements and returns its printed text,
// its stem (first statement printed, number of statements), and the event
// of its one `set -- <client> <event>` statement; ok is false when cmd does
// not parse or holds no such statement (stem.first is "" when it does not
// parse at all).
func listForm(cmd, client string) (text string, stem listStem, event string, ok bool) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil || len(f.Stmts) == 0 {
		return "", listStem{}, "", false
	}
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, f); err != nil {
		return "", listStem{}, "", false
	}
	text = b.String()
	var sb strings.Builder
	if err := syntax.NewPrinter().Print(&sb, f.Stmts[0]); err != nil {
		return "", listStem{}, "", false
	}
	stem = listStem{first: sb.String(), n: len(f.Stmts)}
	n, exact := 0, true
	for _, st := range f.Stmts {
		call, isCall := st.Cmd.(*syntax.CallExpr)
		if !isCall || len(call.Args) < 4 || len(call.Assigns) > 0 {
			continue
		}
		var w [4]string
		plain := true
		for i, a := range call.Args[:4] {
			s, p := plainText(a.Parts, false)
			w[i], plain = s, plain && p
		}
		if plain && w[0] == "set" && w[1] == "--" && w[2] == client {
			// `set -- <client> <event> --lax` still names the event a near
			// miss is repaired to; only the four words make a form.
			event = w[3]
			n++
			exact = exact && len(call.Args) == 4
		}
	}
	return text, stem, event, n == 1 && exact
}

func (f ownerForm) claim() Claim {
	if f.current {
		return Claim{Kind: Current, Event: f.event}
	}
	return Claim{Kind: Stale, Event: f.event}
}

// nearMiss reports words that start with one of prefixes, or call a
// hookwarden binary's hook verb, without being a form. text turns a plain
// word into the compared spelling (lit for shell words, identity for exec
// words).
func (o *Owner) nearMiss(words []string, prefixes [][]string, text func(string) string) Claim {
	n := -1
	for _, p := range prefixes {
		if len(words) >= len(p) && slices.Equal(words[:len(p)], p) {
			n = len(p)
			break
		}
	}
	if n < 0 && len(words) >= 2 && words[1] == text("hook") {
		first := words[0]
		if first == text(engineWord) || strings.HasSuffix(first, "/"+engineWord) && strings.HasPrefix(first, text("")) {
			n = 2
		}
	}
	if n < 0 {
		return Claim{}
	}
	c := Claim{Kind: NearMiss}
	if len(words) > n+1 && words[n] == text(o.client) {
		ev := words[n+1]
		if strings.HasPrefix(ev, text("")) {
			c.Event = strings.TrimPrefix(ev, text(""))
		}
	}
	return c
}

// litMark starts a canonical shell word that is plain text after quote
// removal; other words are kept in their printed syntax.
const litMark = "\x00"

func lit(s string) string { return litMark + s }

// parseSimple parses cmd as shell text and returns its one simple
// command's words, or false for anything else (several statements, a
// pipe or list, redirections, assignments, background, negation, a
// compound command, a parse error).
func parseSimple(cmd string) ([]*syntax.Word, bool) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil || len(f.Stmts) != 1 {
		return nil, false
	}
	st := f.Stmts[0]
	if st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 {
		return nil, false
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return nil, false
	}
	return call.Args, true
}

// shellWords returns cmd's words in canonical spelling: lit(text) for a
// word that is plain text after quote removal, else the word as printed.
func shellWords(cmd string) ([]string, bool) {
	args, ok := parseSimple(cmd)
	if !ok {
		return nil, false
	}
	out := make([]string, len(args))
	for i, w := range args {
		if s, ok := plainText(w.Parts, false); ok {
			out[i] = lit(s)
			continue
		}
		var b strings.Builder
		if err := syntax.NewPrinter().Print(&b, w); err != nil {
			return nil, false
		}
		out[i] = b.String()
	}
	return out, true
}

// execWords returns the exec-form words of a shell-form command: each word
// with quotes removed and every ${NAME} or $NAME kept as "${NAME}"; false
// when a word holds anything else (a command substitution, an operator
// expansion).
func execWords(cmd string) ([]string, bool) {
	args, ok := parseSimple(cmd)
	if !ok {
		return nil, false
	}
	out := make([]string, len(args))
	for i, w := range args {
		s, ok := plainText(w.Parts, true)
		if !ok {
			return nil, false
		}
		out[i] = s
	}
	return out, true
}

// plainText concatenates parts when they are literals and quoted literals
// (and, with params, plain parameter expansions spelled "${NAME}").
func plainText(parts []syntax.WordPart, params bool) (string, bool) {
	var b strings.Builder
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, `\*?[`) {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			s, ok := plainText(p.Parts, params)
			if !ok {
				return "", false
			}
			b.WriteString(s)
		case *syntax.ParamExp:
			if !params || p.Excl || p.Length || p.Width || p.Index != nil || p.Slice != nil || p.Repl != nil || p.Names != 0 || p.Exp != nil || p.Param == nil {
				return "", false
			}
			b.WriteString("${" + p.Param.Value + "}")
		default:
			return "", false
		}
	}
	return b.String(), true
}

// rowRules is Merge's view of ownership: the Owner's claims, plus the
// wanted commands themselves (a handler whose command is exactly a wanted
// one is ours even without an Owner).
type rowRules struct {
	client  string
	owner   *Owner
	want    []Handler
	retract bool
}

func (r rowRules) claim(h handlerView) Claim {
	if !h.hasCommand {
		return Claim{}
	}
	return r.owner.Claim(h.command, h.args, h.hasArgs)
}

// eventOf returns the event of a wanted command (its Current claim), or ""
// when the Owner does not know it.
func (r rowRules) eventOf(cmd string) string {
	if c := r.owner.Claim(cmd, nil, false); c.Kind == Current {
		return c.Event
	}
	return ""
}

func (r rowRules) event(w Handler) string { return r.eventOf(w.Command) }

// ours reports whether h is a handler Merge may edit or retract.
func (r rowRules) ours(h handlerView) bool {
	if !h.hasCommand {
		return false
	}
	if !h.hasArgs {
		for _, w := range r.want {
			if w.Command == h.command {
				return true
			}
		}
	}
	return r.claim(h).Ours()
}

// serves reports whether h, under hooks.<native> in a group whose matcher
// is matcher, carries row w: Found.Serves for w's event, or (shell form,
// same native event, Equivalent matcher) its command is exactly w's. With
// retract an exec-form Stale handler does not serve (an in-place rewrite
// would leave its "args"): it is retracted and w added.
func (r rowRules) serves(native, matcher string, h handlerView, w Handler) bool {
	if !h.hasCommand {
		return false
	}
	if !h.hasArgs && h.command == w.Command {
		return native == w.NativeEvent && Equivalent(r.client, matcher, w.Matcher)
	}
	ev := r.event(w)
	if ev == "" {
		return false
	}
	c := r.claim(h)
	if c.Kind == Stale && h.hasArgs && r.retract {
		return false
	}
	return Found{NativeEvent: native, Matcher: matcher, Claim: c}.Serves(r.client, w.NativeEvent, w.Matcher, ev)
}
