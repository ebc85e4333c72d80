package clientjson

import (
	"bytes"

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
	dc, err := parseNonEmpty(path, src, client)
	if err != nil || dc == nil {
		return nil, err
	}
	var out []string
	for _, ev := range dc.hooks().events {
		for _, g := range ev.groups {
			var group []byte
			for _, h := range g.handlers {
				if !h.hasCommand || !owner.Claim(h.command, h.args, h.hasArgs).Ours() {
					continue
				}
				if group == nil {
					gv := g.val.Clone()
					obj := gv.Value.(*hujson.Object)
					kept := obj.Members[:0]
					for i := range obj.Members {
						if memberName(&obj.Members[i]) != "hooks" {
							kept = append(kept, obj.Members[i])
						}
					}
					obj.Members = kept
					group = canonical(gv)
				}
				out = append(out, ev.name+"\x00"+string(group)+"\x00"+string(canonical(h.val.Clone())))
			}
		}
	}
	return out, nil
}

// ClaudeLocalSettings is the per-checkout Claude settings file, relative to
// the repository root: Claude Code 2.1.328 reads it with
// .claude/settings.json as project settings (its bundle: "Project settings
// (.claude/settings.json and .claude/settings.local.json)"), so its
// "disableAllHooks": true switches our rows off although adopt never
// writes the file.
const ClaudeLocalSettings = ".claude/settings.local.json"

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
					if lit, ok := m.Value.Value.(hujson.Literal); ok && lit.Kind() == '"' && lit.String() != "" {
						names[lit.String()] = true
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
						if ok && lit.Kind() == '"' && (names[lit.String()] || owner.Claim(lit.String(), nil, false).Ours()) {
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
