package clientjson

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/tailscale/hujson"
)

// handlerView is one handler object in a matcher group.
type handlerView struct {
	val        *hujson.Value
	typ        string
	command    string
	hasCommand bool
	commandVal *hujson.Value
	timeout    float64
	hasTimeout bool
	timeoutVal *hujson.Value
	args       []string // the "args" array of an exec-form handler
	hasArgs    bool     // the handler has an "args" member (any value)
	onFailure  string   // the "onFailure" string ("\x00" when not a string)
	hasOnFail  bool     // the handler has an "onFailure" member
	onFailVal  *hujson.Value
	cmdWin     string // the "commandWindows" string ("\x00" when not a string)
	hasCmdWin  bool   // the handler has a "commandWindows" member
	cmdWinVal  *hujson.Value
}

// groupView is one matcher group of an event list.
type groupView struct {
	val        *hujson.Value
	matcher    string
	hooksVal   *hujson.Value // nil when the group has no "hooks" array
	handlers   []handlerView
	onlyOurKey bool // the group has no keys besides "matcher" and "hooks"
}

// eventView is one hooks.<Event> list.
type eventView struct {
	name   string
	val    *hujson.Value
	groups []groupView
}

// hooksView is the hooks tree of a parsed doc.
type hooksView struct {
	hooksVal *hujson.Value // nil when the file has no "hooks" key
	events   []eventView
}

func (dc *doc) hooks() hooksView {
	var hv hooksView
	hv.hooksVal = dc.eventsValue(dc.root.Value.(*hujson.Object))
	if hv.hooksVal == nil {
		return hv
	}
	ho := hv.hooksVal.Value.(*hujson.Object)
	for i := range ho.Members {
		ev := eventView{name: memberName(&ho.Members[i]), val: &ho.Members[i].Value}
		arr := ev.val.Value.(*hujson.Array)
		for j := range arr.Elements {
			g := groupView{val: &arr.Elements[j], onlyOurKey: true}
			gobj := g.val.Value.(*hujson.Object)
			if dc.d.flat {
				// The element is one handler: a group of one whose matcher
				// is its own; removing the handler removes the element.
				if mm := findMember(gobj, "matcher"); mm != nil {
					g.matcher = literalText(mm.Value.Value.(hujson.Literal))
				}
				g.handlers = []handlerView{readHandler(g.val)}
				ev.groups = append(ev.groups, g)
				continue
			}
			for k := range gobj.Members {
				m := &gobj.Members[k]
				switch memberName(m) {
				case "matcher":
					g.matcher = literalText(m.Value.Value.(hujson.Literal))
				case "hooks":
					g.hooksVal = &m.Value
				default:
					g.onlyOurKey = false
				}
			}
			if g.hooksVal != nil {
				harr := g.hooksVal.Value.(*hujson.Array)
				for k := range harr.Elements {
					g.handlers = append(g.handlers, readHandler(&harr.Elements[k]))
				}
			}
			ev.groups = append(ev.groups, g)
		}
		hv.events = append(hv.events, ev)
	}
	return hv
}

// readHandler reads the members of the handler object v.
func readHandler(v *hujson.Value) handlerView {
	h := handlerView{val: v}
	hobj := h.val.Value.(*hujson.Object)
	for l := range hobj.Members {
		m := &hobj.Members[l]
		lit, isLit := m.Value.Value.(hujson.Literal)
		switch memberName(m) {
		case "type":
			if isLit && lit.Kind() == '"' {
				h.typ = literalText(lit)
			}
		case "command":
			if isLit && lit.Kind() == '"' {
				h.command, h.hasCommand, h.commandVal = literalText(lit), true, &m.Value
			}
		case "timeout":
			if isLit && lit.Kind() == '0' {
				h.timeout, h.hasTimeout, h.timeoutVal = lit.Float(), true, &m.Value
			}
		case "args":
			h.hasArgs = true
			h.args = stringArray(m.Value.Value)
		case "onFailure":
			h.hasOnFail, h.onFailVal, h.onFailure = true, &m.Value, "\x00"
			if isLit && lit.Kind() == '"' {
				h.onFailure = literalText(lit)
			}
		case "commandWindows":
			h.hasCmdWin, h.cmdWinVal, h.cmdWin = true, &m.Value, "\x00"
			if isLit && lit.Kind() == '"' {
				h.cmdWin = literalText(lit)
			}
		}
	}
	return h
}

// stringArray returns the strings of a JSON array of strings; a non-string
// element is kept as "\x00" (it matches no form).
func stringArray(v hujson.ValueTrimmed) []string {
	arr, ok := v.(*hujson.Array)
	if !ok {
		return []string{"\x00"}
	}
	out := []string{}
	for i := range arr.Elements {
		lit, ok := arr.Elements[i].Value.(hujson.Literal)
		if !ok || lit.Kind() != '"' {
			out = append(out, "\x00")
			continue
		}
		out = append(out, literalText(lit))
	}
	return out
}

func (hv hooksView) event(name string) *eventView {
	for i := range hv.events {
		if hv.events[i].name == name {
			return &hv.events[i]
		}
	}
	return nil
}

// Merge registers want in the client hook file src (path names it in errors
// and warnings; nothing is read from disk) and returns the new bytes.
//
// client is "claude" (.claude/settings.json, strict JSON), "codex"
// (.codex/hooks.json, strict JSON), "gemini" (.gemini/settings.json, JSON
// with comments) or "cursor" (.cursor/hooks.json, strict JSON whose event
// lists hold the handlers themselves: each handler is its own group, its
// "matcher" member the group's matcher; a new row is appended to the list as
// {"command":…,"timeout":…} and a fresh file starts with "version": 1) or
// "windsurf" (.windsurf/hooks.json, flat like Cursor's, without a timeout
// member: a wanted Timeout is not written there) or "devin"
// (.devin/hooks.v1.json, Claude's groups with the event lists at the top
// level: no "hooks" object is made or removed there). An empty or blank src yields a fresh file: a 2-space
// indented object ending in "\n".
//
// For each Handler, in order: if the event list hooks.<NativeEvent> has a
// group whose matcher is Equivalent to Handler.Matcher and that group holds a
// handler that serves the row (its command is exactly the Handler's, or
// opts.Owner claims it Current or Stale for the Handler's event), the row is
// served (Change "served"; several such handlers: a warning, none removed).
// With opts.Retract a single serving handler is updated in place (Change
// "updated"): a Stale command is rewritten to the Handler's (a Current one,
// e.g. the bare engine call, is kept), a timeout that differs or is missing
// is written; with no serving handler, the first shell-form NearMiss naming
// the Handler's event in such a group is rewritten the same way. Otherwise
// the handler {"type":"command","command":…,"timeout":…} (timeout
// left out when Timeout <= 0) is appended to the first equivalent group that
// has a "hooks" array, or a new group {"matcher":…,"hooks":[…]} (no matcher
// key when Matcher is "") is appended to the event list, creating the list and
// the "hooks" object when missing (Change "added"). With opts.Retract, every
// handler of ours (any claim but Foreign) that serves no Handler is then
// removed (Change "retracted"), and so is its group, event list and "hooks"
// object when the removal leaves them empty and they held nothing else.
// Foreign handlers are never edited or removed.
//
// Bytes: inserted text copies the file's line ending, indent unit, separators
// and one-line or expanded layout from its neighbours; every other byte (key
// order, number literals, escapes, comments, a missing final newline, a BOM)
// is kept. Inserting and then retracting a row gives back the original bytes,
// except that an existing empty "hooks" object or event list that only ever
// held our rows is removed with them.
//
// Result.Changes lists the added, updated and served rows in the order their
// handlers appear in the output, then the retractions in file order. Errors: a *ParseError for a file it refuses
// (invalid or non-UTF-8 bytes, a NUL, duplicate keys, "__proto__", a
// non-object root, a malformed hooks tree, a trailing comma, a comment in a
// strict file, a BOM in a Gemini file); an error wrapping ErrUnknownClient.
func Merge(path string, src []byte, client string, want []Handler, opts Options) (Result, error) {
	d, err := dialectFor(client)
	if err != nil {
		return Result{}, err
	}
	for i, w := range want {
		if w.NativeEvent == "" || w.Command == "" || math.IsNaN(w.Timeout) || math.IsInf(w.Timeout, 0) || w.Timeout < 0 {
			return Result{}, fmt.Errorf("clientjson: %s: wanted row %d needs a native event, a command and a finite timeout >= 0 (got %q, %q, %v)",
				path, i, w.NativeEvent, w.Command, w.Timeout)
		}
	}
	if d.noTimeout {
		// The client reads no timeout member: none is written or repaired.
		want = append([]Handler(nil), want...)
		for i := range want {
			want[i].Timeout = 0
		}
	}
	r := rowRules{client: client, owner: opts.Owner, want: want, retract: opts.Retract}
	res := Result{Out: src}
	cur := src
	if len(bytes.TrimSpace(bytes.TrimPrefix(src, bom))) == 0 {
		if len(want) == 0 {
			return res, nil
		}
		cur = []byte("{}\n")
		if d.version {
			cur = []byte("{\n  \"version\": 1\n}\n")
		}
	}
	dc, err := parseDoc(path, cur, d)
	if err != nil {
		return Result{}, err
	}
	st := inferStyle(cur, &dc.root)
	changed := !bytes.Equal(cur, src)

	for _, w := range want {
		hv := dc.hooks()
		var servers []handlerView
		var target *groupView
		if ev := hv.event(w.NativeEvent); ev != nil {
			for gi := range ev.groups {
				g := &ev.groups[gi]
				if !Equivalent(client, g.matcher, w.Matcher) {
					continue
				}
				if target == nil && g.hooksVal != nil {
					target = g
				}
				for _, h := range g.handlers {
					if r.serves(ev.name, g.matcher, h, w) {
						servers = append(servers, h)
					}
				}
			}
			// conform repairs in place a near miss that names this row
			// (an extra or missing argument after our prefix).
			for gi := range ev.groups {
				g := &ev.groups[gi]
				if len(servers) > 0 || !opts.Retract || !Equivalent(client, g.matcher, w.Matcher) {
					continue
				}
				for _, h := range g.handlers {
					if c := r.claim(h); c.Kind == NearMiss && !h.hasArgs && c.Event != "" && c.Event == r.event(w) {
						servers = append(servers, h)
						break
					}
				}
			}
		}
		if len(servers) > 1 {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: %d handlers of ours serve hooks.%s with matcher %q; keeping all of them",
				path, len(servers), w.NativeEvent, w.Matcher))
		}
		if len(servers) > 0 {
			kind := "served"
			if opts.Retract && len(servers) == 1 {
				if sp := dc.updateSplices(st, servers[0], w, r.claim(servers[0]).Kind != Current); len(sp) > 0 {
					kind = "updated"
					if dc, err = dc.apply(sp); err != nil {
						return Result{}, err
					}
					changed = true
				}
			}
			res.Changes = append(res.Changes, Change{Kind: kind, NativeEvent: w.NativeEvent, Matcher: w.Matcher, Command: w.Command})
			continue
		}
		sp := dc.addSplices(st, hv, target, w)
		if dc, err = dc.apply(sp); err != nil {
			return Result{}, err
		}
		changed = true
		res.Changes = append(res.Changes, Change{Kind: "added", NativeEvent: w.NativeEvent, Matcher: w.Matcher, Command: w.Command})
	}

	dc.sortChanges(res.Changes, r)

	if opts.Retract {
		for {
			sp, ch := dc.retractOne(client, r)
			if sp == nil {
				break
			}
			if dc, err = dc.apply(sp); err != nil {
				return Result{}, err
			}
			changed = true
			res.Changes = append(res.Changes, ch)
		}
	}
	if changed {
		res.Out = dc.src
	}
	res.Warnings = append(res.Warnings, dc.disabledWarnings(want)...)
	return res, nil
}

// sortChanges orders added, updated and served changes by the offset of the
// handler that carries each row in dc (stable; a row not found keeps its
// place at the end).
func (dc *doc) sortChanges(changes []Change, r rowRules) {
	hv := dc.hooks()
	r.retract = false // a row's carrier here may still be an exec-form Stale handler
	pos := func(c Change) int {
		ev := hv.event(c.NativeEvent)
		if ev == nil {
			return len(dc.src)
		}
		w := Handler{NativeEvent: c.NativeEvent, Matcher: c.Matcher, Command: c.Command}
		for _, g := range ev.groups {
			for _, h := range g.handlers {
				if r.serves(ev.name, g.matcher, h, w) {
					return h.val.StartOffset
				}
			}
		}
		return len(dc.src)
	}
	sort.SliceStable(changes, func(i, j int) bool { return pos(changes[i]) < pos(changes[j]) })
}

// apply splices dc's bytes and parses the result again. A result that does
// not parse is a defect in this package, reported as an error rather than
// written.
func (dc *doc) apply(sp []splice) (*doc, error) {
	out := apply(dc.src, sp)
	next, err := parseDoc(dc.path, out, dc.d)
	if err != nil {
		return nil, fmt.Errorf("clientjson: %s: internal error, the merged file would not parse: %w", dc.path, err)
	}
	return next, nil
}

// addSplices inserts w at the deepest existing level: into target's hooks
// array, else a new group into the event list, else a new event list into
// "hooks", else a new "hooks" object into the root.
func (dc *doc) addSplices(st style, hv hooksView, target *groupView, w Handler) []splice {
	src := dc.src
	if target != nil {
		b := boxOf(target.hooksVal)
		parentMulti := boxOf(target.val).multiLine()
		return st.insertText(src, b, parentMulti, func(exp bool, base string) string {
			return st.render(handlerNode(w), exp, base)
		})
	}
	member := func(key string, val *node) func(bool, string) string {
		return func(exp bool, base string) string {
			return quote(key) + st.colon + st.render(val, exp, base)
		}
	}
	group := groupNode(w)
	if dc.d.flat {
		group = flatHandlerNode(w)
	}
	if ev := hv.event(w.NativeEvent); ev != nil {
		return st.insertText(src, boxOf(ev.val), boxOf(hv.hooksVal).multiLine(), func(exp bool, base string) string {
			return st.render(group, exp, base)
		})
	}
	list := &node{isArr: true, arr: []*node{group}}
	if hv.hooksVal != nil && !dc.d.rootEvents {
		return st.insertText(src, boxOf(hv.hooksVal), boxOf(&dc.root).multiLine(), member(w.NativeEvent, list))
	}
	rb := boxOf(&dc.root)
	// An empty top-level object is always opened up over several lines.
	parentMulti := rb.multiLine() || len(rb.items) == 0
	if dc.d.rootEvents {
		return st.insertText(src, rb, parentMulti, member(w.NativeEvent, list))
	}
	return st.insertText(src, rb, parentMulti, member("hooks", objNode(w.NativeEvent, list)))
}

// updateSplices rewrites the command (when rewrite: a stale form or a near
// miss), the commandWindows member (when w.CommandWindows is set), the
// timeout and the onFailure member (when w.OnFailure is set) of
// our serving handler h when they differ from w; nil when nothing is stale.
// Members missing from h are inserted after its last member, in one splice.
func (dc *doc) updateSplices(st style, h handlerView, w Handler, rewrite bool) []splice {
	var sp []splice
	if rewrite && h.command != w.Command {
		sp = append(sp, splice{pos: h.commandVal.StartOffset, del: h.commandVal.EndOffset - h.commandVal.StartOffset, ins: quote(w.Command)})
	}
	var missing []string // members to insert, rendered without layout
	if w.Timeout > 0 {
		switch {
		case h.hasTimeout && h.timeout != w.Timeout:
			sp = append(sp, splice{pos: h.timeoutVal.StartOffset, del: h.timeoutVal.EndOffset - h.timeoutVal.StartOffset, ins: formatNumber(w.Timeout)})
		case !h.hasTimeout:
			missing = append(missing, quote("timeout")+st.colon+formatNumber(w.Timeout))
		}
	}
	if w.OnFailure != "" {
		switch {
		case h.hasOnFail && h.onFailure != w.OnFailure:
			sp = append(sp, splice{pos: h.onFailVal.StartOffset, del: h.onFailVal.EndOffset - h.onFailVal.StartOffset, ins: quote(w.OnFailure)})
		case !h.hasOnFail:
			missing = append(missing, quote("onFailure")+st.colon+quote(w.OnFailure))
		}
	}
	if w.CommandWindows != "" {
		switch {
		case h.hasCmdWin && h.cmdWin != w.CommandWindows:
			sp = append(sp, splice{pos: h.cmdWinVal.StartOffset, del: h.cmdWinVal.EndOffset - h.cmdWinVal.StartOffset, ins: quote(w.CommandWindows)})
		case !h.hasCmdWin:
			missing = append(missing, quote("commandWindows")+st.colon+quote(w.CommandWindows))
		}
	}
	if len(missing) > 0 {
		b := boxOf(h.val)
		sp = append(sp, st.insertText(dc.src, b, b.multiLine(), func(expanded bool, base string) string {
			sep := st.comma
			if expanded {
				sep = "," + st.nl + base
			}
			return strings.Join(missing, sep)
		})...)
	}
	return sp
}

// retractOne finds the first handler of ours (file order) that serves no
// wanted row and returns the splices removing it, widened to its group, event
// list and "hooks" object when those would be left empty and held nothing
// else. It returns nil when there is nothing to retract.
func (dc *doc) retractOne(client string, r rowRules) ([]splice, Change) {
	hv := dc.hooks()
	for ei := range hv.events {
		ev := &hv.events[ei]
		for gi := range ev.groups {
			g := &ev.groups[gi]
			for hi, h := range g.handlers {
				if !r.ours(h) {
					continue
				}
				keep := false
				for _, w := range r.want {
					// Any handler of ours serving a wanted row stays, even a
					// duplicate or an older command form (several servers: warn,
					// remove none).
					if r.serves(ev.name, g.matcher, h, w) {
						keep = true
						break
					}
				}
				if keep {
					continue
				}
				ch := Change{Kind: "retracted", NativeEvent: ev.name, Matcher: g.matcher, Command: h.command}
				if len(g.handlers) > 1 || !g.onlyOurKey {
					return removeItem(boxOf(g.hooksVal), hi), ch
				}
				if len(ev.groups) > 1 {
					return removeItem(boxOf(ev.val), gi), ch
				}
				if len(hv.events) > 1 || dc.d.rootEvents {
					// The root of a rootEvents file stays, as {}.
					return removeItem(boxOf(hv.hooksVal), ei), ch
				}
				rb := boxOf(&dc.root)
				for ri := range rb.items {
					if rb.items[ri].valStart == hv.hooksVal.StartOffset {
						return removeItem(rb, ri), ch
					}
				}
			}
		}
	}
	return nil, Change{}
}

// disabledWarnings names wanted commands that Gemini's hooksConfig.disabled
// list switches off (Gemini CLI 0.61.0 settings schema: "List of hook names
// (commands) that should be disabled").
func (dc *doc) disabledWarnings(want []Handler) []string {
	if dc.d.client != "gemini" {
		return nil
	}
	hc := findMember(dc.root.Value.(*hujson.Object), "hooksConfig")
	if hc == nil {
		return nil
	}
	obj, ok := hc.Value.Value.(*hujson.Object)
	if !ok {
		return nil
	}
	dm := findMember(obj, "disabled")
	if dm == nil {
		return nil
	}
	arr, ok := dm.Value.Value.(*hujson.Array)
	if !ok {
		return nil
	}
	var out []string
	for i := range arr.Elements {
		lit, ok := arr.Elements[i].Value.(hujson.Literal)
		if !ok || lit.Kind() != '"' {
			continue
		}
		for _, w := range want {
			if literalText(lit) == w.Command {
				line, _ := lineCol(dc.src, arr.Elements[i].StartOffset)
				out = append(out, fmt.Sprintf("%s:%d: hooksConfig.disabled lists our command for %s, so Gemini CLI will not run it", dc.path, line, w.NativeEvent))
				break
			}
		}
	}
	return out
}

// HooksDisabled reports whether the file switches off all of the client's
// hooks: Claude Code's top-level "disableAllHooks" with any value but the
// literal false (settings schema of Claude Code 2.1.328: "Disable all hooks
// and statusLine execution", a boolean; a value of another type fails the
// schema, and "Files with errors are skipped entirely, not just the invalid
// settings" (the same binary's settings error text): measured with the e2e
// harness of ../shared/e2e, "disableAllHooks": "true" in .claude/settings.json
// ran no hook of that file and let the denied tool run), or
// Gemini CLI's "hooksConfig": {"enabled": false} (Gemini CLI 0.61.0 settings
// schema, "Canonical toggle for the hooks system"; measured in
// ../shared/e2e/README.md section 3). Codex CLI 0.169.0 has no such key in
// .codex/hooks.json (its switch is [features] hooks in config.toml, on by
// default; ../shared/e2e/README.md section 2), so codex answers false. Empty
// src answers false. Errors are those of Merge.
func HooksDisabled(path string, src []byte, client string) (bool, error) {
	dc, err := parseNonEmpty(path, src, client)
	if err != nil || dc == nil {
		return false, err
	}
	root := dc.root.Value.(*hujson.Object)
	switch client {
	case "claude", "qwen":
		// Qwen Code 0.24.4 settings schema: top-level "disableAllHooks"
		// (boolean, "Temporarily disable all hooks"; protocol/dialect qwen.go).
		if m := findMember(root, "disableAllHooks"); m != nil {
			lit, ok := m.Value.Value.(hujson.Literal)
			return !ok || lit.Kind() != 'f', nil
		}
	case "gemini":
		if m := findMember(root, "hooksConfig"); m != nil {
			if obj, ok := m.Value.Value.(*hujson.Object); ok {
				if e := findMember(obj, "enabled"); e != nil {
					lit, ok := e.Value.Value.(hujson.Literal)
					return ok && lit.Kind() == 'f', nil
				}
			}
		}
	}
	return false, nil
}

// Registered lists every handler in src that has a string command, in file
// order, each with its event, its group's matcher ("" when absent), command,
// exec-form args, timeout (HasTimeout false when the handler has none; the
// value is in the client's unit), the 1-based Line of the handler's opening
// brace and its Claim under owner (Foreign for all when owner is nil).
// Empty src yields no handlers. Errors are those of Merge.
func Registered(path string, src []byte, client string, owner *Owner) ([]Found, error) {
	dc, err := parseNonEmpty(path, src, client)
	if err != nil || dc == nil {
		return nil, err
	}
	var out []Found
	for _, ev := range dc.hooks().events {
		for _, g := range ev.groups {
			for _, h := range g.handlers {
				if !h.hasCommand {
					continue
				}
				line, _ := lineCol(dc.src, h.val.StartOffset)
				out = append(out, Found{NativeEvent: ev.name, Matcher: g.matcher, Command: h.command,
					Args: h.args, HasArgs: h.hasArgs, Timeout: h.timeout, HasTimeout: h.hasTimeout, OnFailure: h.onFailure, CommandWindows: h.cmdWin, Line: line,
					Claim: owner.Claim(h.command, h.args, h.hasArgs)})
			}
		}
	}
	return out, nil
}
