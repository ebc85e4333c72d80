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
	d, err := dialectFor(client)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(bytes.TrimPrefix(src, bom))) == 0 {
		return nil, nil
	}
	dc, err := parseDoc(path, src, d)
	if err != nil {
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

// canonical returns v as compact standard JSON (comments and trailing
// commas removed, no whitespace between tokens).
func canonical(v hujson.Value) []byte {
	v.Standardize()
	v.Minimize()
	return v.Pack()
}
