package clientjson

import (
	"bytes"

	"github.com/tailscale/hujson"
)

// hooksSwitch returns the value of the file's switch that turns all of the
// client's hooks off, when it is set to off: Claude Code's top-level
// "disableAllHooks": true, Gemini CLI's "hooksConfig": {"enabled": false}
// (the keys HooksDisabled reads; sources there). It returns nil when the
// switch is absent, on, not a boolean literal, or the client has none (codex).
func (dc *doc) hooksSwitch(client string) *hujson.Value {
	root := dc.root.Value.(*hujson.Object)
	var m *hujson.ObjectMember
	off := hujson.Kind('t')
	switch client {
	case "claude", "qwen":
		m = findMember(root, "disableAllHooks")
	case "gemini":
		off = 'f'
		if hc := findMember(root, "hooksConfig"); hc != nil {
			if obj, ok := hc.Value.Value.(*hujson.Object); ok {
				m = findMember(obj, "enabled")
			}
		}
	}
	if m == nil {
		return nil
	}
	if lit, ok := m.Value.Value.(hujson.Literal); ok && lit.Kind() == off {
		return &m.Value
	}
	return nil
}

// EnableHooks switches the client's hooks back on in src, the bytes of the
// client file at path (used in errors): Gemini CLI's "hooksConfig":
// {"enabled": false} becomes true, Claude Code's "disableAllHooks": true
// becomes false (the switches HooksDisabled reports; Claude Code 2.1.328
// settings schema, Gemini CLI 0.61.0 settings schema "Canonical toggle for the
// hooks system", ../shared/e2e/README.md section 3). Only the boolean literal
// is replaced; every other byte (comments, CRLF, indentation, a Claude BOM)
// stays as it was. It returns the new bytes (src itself when nothing is
// switched off, empty src, or codex, which has no switch in .codex/hooks.json)
// and whether it changed anything. Errors are those of Merge (*ParseError for
// a file it refuses, an error for an unknown client).
func EnableHooks(path string, src []byte, client string) ([]byte, bool, error) {
	d, err := dialectFor(client)
	if err != nil {
		return nil, false, err
	}
	if len(bytes.TrimSpace(bytes.TrimPrefix(src, bom))) == 0 {
		return src, false, nil
	}
	dc, err := parseDoc(path, src, d)
	if err != nil {
		return nil, false, err
	}
	v := dc.hooksSwitch(client)
	if v == nil {
		return src, false, nil
	}
	on := "true"
	if client == "claude" || client == "qwen" {
		on = "false"
	}
	next, err := dc.apply([]splice{{pos: v.StartOffset, del: v.EndOffset - v.StartOffset, ins: on}})
	if err != nil {
		return nil, false, err
	}
	return next.src, true, nil
}
