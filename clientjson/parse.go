package clientjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/tailscale/hujson"

	"github.com/hookwarden/hookwarden/internal/clientname"
)

// ParseError is a client hook file Merge, Registered or HooksDisabled refuses
// to edit or read: Path is the path argument as given, Line and Col the
// 1-based position of the offending byte (Col counts UTF-8 characters from the
// start of the line; a leading byte-order mark is not counted), Msg what is
// wrong and Fix what the operator should do about it. Merge never repairs such
// a file by itself.
type ParseError struct {
	Path string
	Line int
	Col  int
	Msg  string
	Fix  string
}

// Error renders the refusal as "<path>:<line>:<col>: <msg> (fix: <fix>)".
func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s (fix: %s)", e.Path, e.Line, e.Col, e.Msg, e.Fix)
}

// ErrUnknownClient is returned (wrapped) for a client name this package has no
// hook file dialect for. Known clients are "claude" (.claude/settings.json,
// strict JSON), "codex" (.codex/hooks.json, strict JSON), "gemini"
// (.gemini/settings.json, JSON with comments), "cursor"
// (.cursor/hooks.json, strict JSON, flat handler lists) and "windsurf"
// (.windsurf/hooks.json, strict JSON, flat handler lists without timeouts)
// "qwen" (.qwen/settings.json, Claude's shape, JSON with comments) and
// "droid" (.factory/settings.json, Claude's shape, strict JSON) and "devin"
// (.devin/hooks.v1.json, Claude's groups with the events at the top level,
// strict JSON).
var ErrUnknownClient = errors.New("unknown client")

// dialect is how one client reads its hook file.
type dialect struct {
	client string
	// jsonc: comments are allowed (Gemini CLI strips them before JSON.parse).
	jsonc bool
	// flat: each hooks.<Event> list holds handler objects themselves
	// ({"command":…,"timeout":…,"matcher":…}), not matcher groups with a
	// "hooks" array: Cursor's .cursor/hooks.json (protocol/dialect cursor.go).
	// Each handler is then read as a group of one whose matcher is the
	// handler's own "matcher" member.
	flat bool
	// version: a file this package creates starts with {"version": 1}
	// (Cursor's hooks.json declares its schema version 1).
	version bool
	// noTimeout: the client's handlers have no timeout member (Windsurf's
	// hooks.json), so none is written and none is repaired.
	noTimeout bool
	// rootEvents: the file's top-level object is the map of events itself
	// ({"PreToolUse": [...]}), with no "hooks" key around it: Devin CLI's
	// .devin/hooks.v1.json (docs.devin.ai/cli/extensibility/hooks/overview,
	// "Hook Format", read 2026-12-05; protocol/dialect devin.go).
	rootEvents bool
}

func dialectFor(client string) (dialect, error) {
	switch client {
	case "claude", "codex":
		return dialect{client: client}, nil
	case "gemini":
		return dialect{client: client, jsonc: true}, nil
	case "cursor":
		// Strict JSON: no source found says Cursor reads comments in
		// hooks.json, so a comment is refused rather than written around.
		return dialect{client: client, flat: true, version: true}, nil
	case "windsurf":
		// Windsurf's hooks.json (docs.windsurf.com/windsurf/cascade/hooks):
		// flat handler lists {"command","show_output","working_directory"},
		// no timeout member, no version; strict JSON (no source says it
		// reads comments).
		return dialect{client: client, flat: true, noTimeout: true}, nil
	case "qwen":
		// Qwen Code 0.24.4 reads .qwen/settings.json with strip-json-comments
		// after stripping a UTF-8 BOM (protocol/dialect qwen.go): comments and
		// a BOM are read, a trailing comma is not.
		return dialect{client: client, jsonc: true}, nil
	case "droid":
		// Factory Droid's .factory/settings.json: Claude Code's shape;
		// strict JSON (no source says Droid reads comments or a BOM there).
		return dialect{client: client}, nil
	case "devin":
		// Devin CLI's .devin/hooks.v1.json: Claude Code's matcher groups and
		// handlers, with the events at the top level
		// (docs.devin.ai/cli/extensibility/hooks/overview, read 2026-12-05);
		// strict JSON (no source says Devin reads comments or a BOM there).
		return dialect{client: client, rootEvents: true}, nil
	}
	return dialect{}, fmt.Errorf("clientjson: client %q: %w", client, ErrUnknownClient)
}

var bom = []byte("\xef\xbb\xbf")

// doc is one parsed client file: src the file bytes, root the hujson tree of
// src with a leading BOM masked as three spaces (so every offset in the tree is
// an offset in src).
type doc struct {
	path string
	src  []byte
	bom  bool
	root hujson.Value
	d    dialect
}

func (dc *doc) errAt(off int, msg, fix string) *ParseError {
	line, col := lineCol(dc.src, off)
	return &ParseError{Path: dc.path, Line: line, Col: col, Msg: msg, Fix: fix}
}

// lineCol returns the 1-based line and column (in UTF-8 characters, BOM not
// counted) of byte offset off in src.
func lineCol(src []byte, off int) (int, int) {
	if off > len(src) {
		off = len(src)
	}
	line := 1 + bytes.Count(src[:off], []byte("\n"))
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	seg := src[start:off]
	if start == 0 && bytes.HasPrefix(seg, bom) {
		seg = seg[len(bom):]
	}
	return line, 1 + utf8.RuneCount(seg)
}

// parseDoc reads src as client's hook file and checks everything Merge relies
// on. It returns a *ParseError for a file it refuses.
func parseDoc(path string, src []byte, d dialect) (*doc, error) {
	dc := &doc{path: path, src: src, d: d}
	if i := bytes.IndexByte(src, 0); i >= 0 {
		return nil, dc.errAt(i, "the file contains a NUL byte, so it is not a text settings file",
			"restore the file from version control or delete it")
	}
	if !utf8.Valid(src) {
		i := 0
		for i < len(src) {
			r, n := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		return nil, dc.errAt(i, "the file is not valid UTF-8", "re-save the file as UTF-8")
	}
	masked := src
	if bytes.HasPrefix(src, bom) {
		dc.bom = true
		if d.client != "claude" && d.client != "qwen" {
			// Measured 2026-11-29 with the e2e harness (../shared/e2e, deny
			// scenario, settings written with a leading U+FEFF): Gemini CLI
			// 0.61.0 exits 52 without running any hook (it reads settings with
			// strip-json-comments and JSON.parse, which rejects the BOM); Codex
			// CLI 0.169.0 silently ignores .codex/hooks.json and runs the
			// command. Claude Code 2.1.328 reads the file and runs the hook, so
			// a BOM is kept there.
			return nil, dc.errAt(0, "the file starts with a UTF-8 byte-order mark, which "+clientname.Title(d.client)+" cannot read (its hooks would not run)",
				"re-save the file as UTF-8 without a byte-order mark")
		}
		masked = append([]byte("   "), src[len(bom):]...)
	}
	root, err := hujson.Parse(masked)
	if err != nil {
		return nil, dc.syntaxError(masked, err)
	}
	dc.root = root
	if err := dc.checkDialect(); err != nil {
		return nil, err
	}
	if !d.jsonc {
		// Belt and braces: the strict reader the client uses must accept it.
		var v any
		if err := json.Unmarshal(masked, &v); err != nil {
			off := 0
			var se *json.SyntaxError
			if errors.As(err, &se) {
				off = int(se.Offset)
			}
			return nil, dc.errAt(off, "invalid JSON: "+err.Error(), "correct the JSON syntax at this position")
		}
	}
	obj, ok := root.Value.(*hujson.Object)
	if !ok {
		return nil, dc.errAt(root.StartOffset, "the top-level value is "+kindName(root.Value)+", not an object",
			`make the file one JSON object, for example {"hooks": {}}`)
	}
	if err := dc.checkKeys(&root); err != nil {
		return nil, err
	}
	if err := dc.checkHooksShape(obj); err != nil {
		return nil, err
	}
	return dc, nil
}

var hujsonPos = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^hujson: line (\d+), column (\d+): (.*)$`) })

func (dc *doc) syntaxError(masked []byte, err error) error {
	msg := err.Error()
	off := 0
	if m := hujsonPos().FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		col, _ := strconv.Atoi(m[2])
		msg = m[3]
		// hujson counts bytes from the line start; turn that into an offset.
		l := 1
		for i := 0; i < len(masked) && l < line; i++ {
			if masked[i] == '\n' {
				l++
				off = i + 1
			}
		}
		off += col - 1
	}
	if len(bytes.TrimSpace(masked)) == 0 {
		return dc.errAt(0, "the file holds no JSON value", `write {} into it or delete it`)
	}
	what := "invalid JSON: "
	if dc.d.jsonc {
		what = "invalid JSON with comments: "
	}
	return dc.errAt(off, what+msg, "correct the syntax at this position; the client cannot read this file either")
}

// checkDialect refuses comments and trailing commas the client cannot read.
// Measured 2026-11-29 with clientjson/testdata/reader_probe.py (the e2e
// harness's deny scenario with the quirk written into the repo's file):
// Claude Code 2.1.328 ignores a .claude/settings.json with a trailing comma
// or a comment and runs the command unguarded; Codex CLI 0.169.0 skips a
// .codex/hooks.json with a trailing comma the same way; Gemini CLI 0.61.0
// reads comments (its bundled strip-json-comments, then JSON.parse) but exits
// 52 on a trailing comma. So comments pass only for Gemini, and a trailing
// comma is refused for every client.
func (dc *doc) checkDialect() error {
	type issue struct {
		off     int
		comment bool
	}
	var first *issue
	note := func(off int, comment bool) {
		if first == nil || off < first.off {
			first = &issue{off, comment}
		}
	}
	extra := func(start int, b hujson.Extra) {
		if i := consumeWS(b); i < len(b) && !dc.d.jsonc {
			note(start+i, true)
		}
	}
	var walk func(v *hujson.Value)
	walk = func(v *hujson.Value) {
		extra(v.StartOffset-len(v.BeforeExtra), v.BeforeExtra)
		extra(v.EndOffset, v.AfterExtra)
		switch t := v.Value.(type) {
		case *hujson.Object:
			for i := range t.Members {
				walk(&t.Members[i].Name)
				walk(&t.Members[i].Value)
			}
			if n := len(t.Members); n > 0 && t.Members[n-1].Value.AfterExtra != nil {
				last := &t.Members[n-1].Value
				note(last.EndOffset+len(last.AfterExtra), false)
			}
			extra(v.EndOffset-1-len(t.AfterExtra), t.AfterExtra)
		case *hujson.Array:
			for i := range t.Elements {
				walk(&t.Elements[i])
			}
			if n := len(t.Elements); n > 0 && t.Elements[n-1].AfterExtra != nil {
				last := &t.Elements[n-1]
				note(last.EndOffset+len(last.AfterExtra), false)
			}
			extra(v.EndOffset-1-len(t.AfterExtra), t.AfterExtra)
		}
	}
	walk(&dc.root)
	if first == nil {
		return nil
	}
	if first.comment {
		return dc.errAt(first.off, "a comment, which "+clientname.Title(dc.d.client)+" cannot read in this strict JSON file",
			"remove the comment")
	}
	return dc.errAt(first.off, "a trailing comma, which "+clientname.Title(dc.d.client)+" cannot read (the whole file would be rejected)",
		"remove the comma after the last element")
}

func consumeWS(b []byte) int {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

func kindName(v hujson.ValueTrimmed) string {
	switch v.Kind() {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "not a JSON value"
}

// name returns the decoded key of an object member.
func memberName(m *hujson.ObjectMember) string {
	lit, _ := m.Name.Value.(hujson.Literal)
	return literalText(lit)
}

// literalText is lit.String() (a JSON string's unescaped value, any other
// literal's raw text) without its json.Unmarshal for a string that holds no
// escape and no control character and is valid UTF-8, whose value is the bytes between its quotes
// (RFC 8259 section 7): most keys and values of a client file, read on
// every plan of a fleet run.
func literalText(lit hujson.Literal) string {
	if n := len(lit); n >= 2 && lit[0] == '"' && lit[n-1] == '"' {
		inner := lit[1 : n-1]
		plain := utf8.Valid(inner)
		for _, c := range inner {
			plain = plain && c != '\\' && c >= 0x20 // an escape, or a control character JSON refuses
		}
		if plain {
			return string(inner)
		}
	}
	return lit.String()
}

// checkKeys refuses duplicate keys and "__proto__" anywhere in the file.
// Clients disagree on which of two duplicate keys wins (JSON.parse keeps the
// last, others the first), and "__proto__" is a prototype-pollution vector in
// the JavaScript clients.
func (dc *doc) checkKeys(v *hujson.Value) error {
	switch t := v.Value.(type) {
	case *hujson.Object:
		seen := make(map[string]int, len(t.Members))
		for i := range t.Members {
			m := &t.Members[i]
			k := memberName(m)
			if k == "__proto__" {
				return dc.errAt(m.Name.StartOffset, `a "__proto__" key, which JavaScript clients treat as the object prototype`,
					`remove or rename the "__proto__" key`)
			}
			if prev, dup := seen[k]; dup {
				pl, _ := lineCol(dc.src, prev)
				return dc.errAt(m.Name.StartOffset, fmt.Sprintf("duplicate key %s (first at line %d); clients disagree on which one wins", strconv.Quote(k), pl),
					"merge the two entries into one key")
			}
			seen[k] = m.Name.StartOffset
			if err := dc.checkKeys(&m.Value); err != nil {
				return err
			}
		}
	case *hujson.Array:
		for i := range t.Elements {
			if err := dc.checkKeys(&t.Elements[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkHooksShape refuses a hooks tree the clients would not read as hooks:
// "hooks" not an object, an event value not an array, a matcher group not an
// object, a group's "matcher" not a string, a group's "hooks" not an array, a
// handler not an object. Shapes follow the hooks settings documented by
// Claude Code (hooks.<Event>[].{matcher,hooks[]}) and shared by Codex CLI
// 0.169.0 (.codex/hooks.json) and Gemini CLI 0.61.0 (../shared/e2e/README.md).
func (dc *doc) checkHooksShape(root *hujson.Object) error {
	hv := dc.eventsValue(root)
	if hv == nil {
		return nil
	}
	ho, ok := hv.Value.(*hujson.Object)
	if !ok {
		return dc.errAt(hv.StartOffset, `"hooks" is `+kindName(hv.Value)+", not an object of events",
			`make "hooks" an object such as {"PreToolUse": [...]}`)
	}
	pre := "hooks." // where an event list sits, for messages
	if dc.d.rootEvents {
		pre = ""
	}
	for i := range ho.Members {
		ev := &ho.Members[i]
		arr, ok := ev.Value.Value.(*hujson.Array)
		if !ok {
			return dc.errAt(ev.Value.StartOffset, fmt.Sprintf(pre+"%s is %s, not an array of matcher groups", memberName(ev), kindName(ev.Value.Value)),
				"make it an array of {\"matcher\": ..., \"hooks\": [...]} groups")
		}
		for j := range arr.Elements {
			g := &arr.Elements[j]
			gobj, ok := g.Value.(*hujson.Object)
			if !ok {
				return dc.errAt(g.StartOffset, fmt.Sprintf(pre+"%s[%d] is %s, not a matcher group object", memberName(ev), j, kindName(g.Value)),
					"make it an object {\"matcher\": ..., \"hooks\": [...]}")
			}
			if mm := findMember(gobj, "matcher"); mm != nil && mm.Value.Value.Kind() != '"' {
				return dc.errAt(mm.Value.StartOffset, fmt.Sprintf(pre+"%s[%d].matcher is %s, not a string", memberName(ev), j, kindName(mm.Value.Value)),
					"write the matcher as a string")
			}
			if dc.d.flat {
				// A flat list's element is the handler itself.
				continue
			}
			if hh := findMember(gobj, "hooks"); hh != nil {
				harr, ok := hh.Value.Value.(*hujson.Array)
				if !ok {
					return dc.errAt(hh.Value.StartOffset, fmt.Sprintf(pre+"%s[%d].hooks is %s, not an array of handlers", memberName(ev), j, kindName(hh.Value.Value)),
						"make it an array of {\"type\": \"command\", ...} handlers")
				}
				for k := range harr.Elements {
					h := &harr.Elements[k]
					if _, ok := h.Value.(*hujson.Object); !ok {
						return dc.errAt(h.StartOffset, fmt.Sprintf(pre+"%s[%d].hooks[%d] is %s, not a handler object", memberName(ev), j, k, kindName(h.Value)),
							"make it an object {\"type\": \"command\", \"command\": ...}")
					}
				}
			}
		}
	}
	return nil
}

// eventsValue returns the object value holding the event lists of the parsed
// root object root: the root itself for a rootEvents dialect, else the
// "hooks" member's value, nil when there is none.
func (dc *doc) eventsValue(root *hujson.Object) *hujson.Value {
	if dc.d.rootEvents {
		return &dc.root
	}
	if hm := findMember(root, "hooks"); hm != nil {
		return &hm.Value
	}
	return nil
}

func findMember(obj *hujson.Object, name string) *hujson.ObjectMember {
	for i := range obj.Members {
		if memberName(&obj.Members[i]) == name {
			return &obj.Members[i]
		}
	}
	return nil
}
