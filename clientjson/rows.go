package clientjson

import (
	"bytes"
	"encoding/json"

	"github.com/tailscale/hujson"
)

// OurRowTexts returns one canonical text per handler of ours in src (every
// handler owner claims, near misses included, in file order): the event name, the handler's
// group without its "hooks" array, and the handler object, each as compact
// JSON with comments and insignificant whitespace removed, joined by NUL.
// Two files hold the same rows of ours unchanged exactly when their texts
// are equal as multisets: a changed matcher, command, timeout or type, an
// added key (Claude Code's "async", a group-level key) or a moved handler
// all change a text. Empty src yields none. Errors are those of Merge (a
// file the client or Merge would refuse).
func OurRowTexts(path string, src []byte, client string, owner *Owner) ([]string, error) {
	return rowTexts(path, src, client, owner, true)
}

// ForeignRowTexts returns one canonical text per handler in src that owner
// does not claim (every handler that is not ours, command-less ones such as
// Claude Code's "prompt" or "http" handlers included, in file order), in
// OurRowTexts' form but with the handler's "timeout" member left out and
// every object's keys sorted: the event name, the group without its
// "hooks" array (its matcher), and the handler (its type, command,
// exec-form args and every other key). Two files hold the same foreign
// handlers, up to timeouts, key order, comments and formatting, exactly
// when their texts are equal as multisets. Empty src
// yields none. Errors are those of Merge.
func ForeignRowTexts(path string, src []byte, client string, owner *Owner) ([]string, error) {
	return rowTexts(path, src, client, owner, false)
}

// rowTexts is OurRowTexts (ours) or ForeignRowTexts (!ours).
func rowTexts(path string, src []byte, client string, owner *Owner, ours bool) ([]string, error) {
	dc, err := parseNonEmpty(path, src, client)
	if err != nil || dc == nil {
		return nil, err
	}
	var out []string
	for _, ev := range dc.hooks().events {
		for _, g := range ev.groups {
			var group []byte
			for _, h := range g.handlers {
				if (h.hasCommand && owner.Claim(h.command, h.args, h.hasArgs).Ours()) != ours {
					continue
				}
				if group == nil {
					group = canonical(without(g.val.Clone(), "hooks"))
				}
				if !ours {
					out = append(out, ev.name+"\x00"+sorted(group)+"\x00"+sorted(canonical(without(h.val.Clone(), "timeout"))))
					continue
				}
				out = append(out, ev.name+"\x00"+string(group)+"\x00"+string(canonical(h.val.Clone())))
			}
		}
	}
	return out, nil
}

// sorted returns b, compact standard JSON, as encoding/json writes its
// value: object keys sorted, numbers as float64 (so 5 and 5.0 agree),
// strings re-escaped. b that does not decode (not expected after parseDoc)
// is returned as it is.
func sorted(b []byte) string {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return string(b)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return string(b)
	}
	return string(out)
}

// without returns v, an object value, with its members named name removed
// (v itself is changed; pass a clone).
func without(v hujson.Value, name string) hujson.Value {
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		return v
	}
	kept := obj.Members[:0]
	for i := range obj.Members {
		if memberName(&obj.Members[i]) != name {
			kept = append(kept, obj.Members[i])
		}
	}
	obj.Members = kept
	return v
}

// ClaudeLocalSettings is the per-checkout Claude settings file, relative to
// the repository root: Claude Code 2.1.328 reads it with
// .claude/settings.json as project settings (its bundle: "Project settings
// (.claude/settings.json and .claude/settings.local.json)"), so its
// "disableAllHooks": true switches our rows off although adopt never
// writes the file.
const ClaudeLocalSettings = ".claude/settings.local.json"

// DroidHooksFile is Factory Droid's separate hook file, relative to the
// repository root: newer Droids read hooks from it and fall back to the
// hooks key of .factory/settings.json (where adopt merges our rows) only
// when it is absent (docs.factory.ai/harness/hooks), while droid 0.186.0 read
// only settings.json (Factory-AI/factory issue 3). Its existence can switch
// our rows off although adopt never writes it.
const DroidHooksFile = ".factory/hooks.json"

// DroidSettings is the Droid settings file whose hooks key holds our rows
// (adopt.SettingsFile for droid; protocol/dialect droid.go).
const DroidSettings = ".factory/settings.json"

// DisabledRows returns how many entries of Gemini CLI's "hooksConfig":
// {"disabled": [...]} switch hooks of ours off: an entry owner claims as one
// of our commands, or the name of a handler of ours in this file. Gemini CLI
// 0.61.0 skips a hook whose name, or else whose command, is listed (settings
// schema: "List of hook names (commands) that should be disabled"), from
// any settings file it reads, so a user-level file can switch off the
// project's rows. Other clients and empty src answer 0. Errors are those of
// Merge.
func DisabledRows(path string, src []byte, client string, owner *Owner) (int, error) {
	dc, err := parseNonEmpty(path, src, client)
	if err != nil || dc == nil || client != "gemini" {
		return 0, err
	}
	names := map[string]bool{}
	for _, ev := range dc.hooks().events {
		for _, g := range ev.groups {
			for _, h := range g.handlers {
				if !h.hasCommand || !owner.Claim(h.command, h.args, h.hasArgs).Ours() {
					continue
				}
				if m := findMember(h.val.Value.(*hujson.Object), "name"); m != nil {
					if lit, ok := m.Value.Value.(hujson.Literal); ok && lit.Kind() == '"' && literalText(lit) != "" {
						names[literalText(lit)] = true
					}
				}
			}
		}
	}
	n := 0
	if hc := findMember(dc.root.Value.(*hujson.Object), "hooksConfig"); hc != nil {
		if obj, ok := hc.Value.Value.(*hujson.Object); ok {
			if dm := findMember(obj, "disabled"); dm != nil {
				if arr, ok := dm.Value.Value.(*hujson.Array); ok {
					for i := range arr.Elements {
						lit, ok := arr.Elements[i].Value.(hujson.Literal)
						if ok && lit.Kind() == '"' && (names[literalText(lit)] || owner.Claim(literalText(lit), nil, false).Ours()) {
							n++
						}
					}
				}
			}
		}
	}
	return n, nil
}

// parseNonEmpty parses src as client's hook file; a blank src (after a
// byte-order mark) yields a nil doc and no error. Errors are Merge's.
func parseNonEmpty(path string, src []byte, client string) (*doc, error) {
	d, err := dialectFor(client)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(bytes.TrimPrefix(src, bom))) == 0 {
		return nil, nil
	}
	return parseDoc(path, src, d)
}

// canonical returns v as compact standard JSON (comments and trailing
// commas removed, no whitespace between tokens).
func canonical(v hujson.Value) []byte {
	v.Standardize()
	v.Minimize()
	return v.Pack()
}
