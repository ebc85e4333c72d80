package dialect

import (
	"errors"
	"fmt"
	"strings"
)

// The ApplyPatch tools of Factory Droid and Cursor (droid.go, cursor.go)
// and Codex CLI's apply_patch (tool_input {"command": PATCH}, measured on
// codex-cli 0.169.0: decode.go) carry one patch text in the envelope OpenAI's apply_patch tool defines
// (Codex CLI's apply_patch, codex-rs/apply-patch): a "*** Begin Patch"
// line, then per file "*** Add File: P", "*** Update File: P" (optionally
// followed by "*** Move to: Q") or "*** Delete File: P", and a closing
// "*** End Patch" line. Neither client documents the tool's input members,
// so the patch is found by its envelope (patchText) and every file it names
// is judged (patchTargets); a call whose patch cannot be found or read is
// invalid input, a deny.

// MaxPatchTargets is the most files one ApplyPatch call may name; more is
// invalid input (a deny), never a partly judged patch.
const MaxPatchTargets = 64

const (
	patchBegin = "*** Begin Patch"
	patchEnd   = "*** End Patch"
)

// patchHeaders are the envelope's file lines, each followed by a path.
var patchHeaders = []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "}

// patchText returns the one patch text of an ApplyPatch tool_input: raw
// itself when it is a JSON string (one holding a JSON object is read as
// that object, as Cursor may send tool_input: cursor.go), else the one
// string member of the object whose text starts (after leading white
// space) with the envelope's first line. No such member, or more than one,
// is an error.
func patchText(raw []byte) (string, error) {
	switch jsonType(raw) {
	case "a string":
		s := unquote(raw)
		if !strings.HasPrefix(strings.TrimLeft(s, " \t\r\n"), "{") {
			return s, nil
		}
		if _, err := parseObject([]byte(s)); err != nil {
			return "", fmt.Errorf("member tool_input: a string that is not one JSON object (%v)", err)
		}
		raw = []byte(s)
	case "an object":
	default:
		return "", fmt.Errorf("member tool_input: want an object or a string, got %s", jsonType(raw))
	}
	var found []string
	for _, m := range members(raw) {
		if jsonType(m.raw) != "a string" {
			continue
		}
		if s := unquote(m.raw); strings.HasPrefix(strings.TrimLeft(s, " \t\r\n"), patchBegin) {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 0:
		return "", errors.New("member tool_input: no string member holds a patch (a \"*** Begin Patch\" envelope)")
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("member tool_input: %d members hold a patch; which one applies is not clear", len(found))
}

// patchTargets returns every path the patch text names, in order, each
// once: the envelope must open with "*** Begin Patch" and close with
// "*** End Patch"; a header with an empty path, no file at all, or more
// than MaxPatchTargets files is an error.
func patchTargets(text string) ([]string, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) < 2 || strings.TrimSpace(lines[0]) != patchBegin || strings.TrimSpace(lines[len(lines)-1]) != patchEnd {
		return nil, errors.New("the patch is not one \"*** Begin Patch\" … \"*** End Patch\" envelope")
	}
	var targets []string
	seen := map[string]bool{}
	for _, l := range lines[1 : len(lines)-1] {
		// Headers are read after leading white space too: a parser more
		// lenient than the envelope's grammar must not apply a file this
		// did not judge (a context line that reads like a header only adds
		// a file to judge).
		l = strings.TrimLeft(l, " \t")
		h := patchHeader(l)
		if h == "" {
			continue
		}
		p := strings.TrimSpace(strings.TrimPrefix(l, h))
		if p == "" {
			return nil, fmt.Errorf("the patch has a %q line without a path", strings.TrimSpace(h))
		}
		if !seen[p] {
			seen[p] = true
			targets = append(targets, p)
		}
	}
	switch {
	case len(targets) == 0:
		return nil, errors.New("the patch names no file")
	case len(targets) > MaxPatchTargets:
		return nil, fmt.Errorf("the patch names %d files, at most %d", len(targets), MaxPatchTargets)
	}
	return targets, nil
}

// decodePatch reads an ApplyPatch call's tool_input (raw) into p: FilePath
// the first file the patch names, Targets every one, ToolInput raw.
func decodePatch(raw []byte, p *Payload) error {
	text, err := patchText(raw)
	if err != nil {
		return err
	}
	targets, err := patchTargets(text)
	if err != nil {
		return fmt.Errorf("member tool_input: %w", err)
	}
	p.FilePath, p.Targets, p.ToolInput = targets[0], targets, raw
	return nil
}

// PatchLines returns, for the file target of an ApplyPatch call's
// tool_input (raw; target as the patch names it, which decodePatch gave
// as a Payload target), the lines the patch adds ("+" lines of its Add
// File or Update File section) and removes ("-" lines), without their
// prefixes. ok is false when raw holds no readable patch or the patch has
// no section for target. An Add File section's added lines are the whole
// new file.
func PatchLines(raw []byte, target string) (added, removed []string, ok bool) {
	text, err := patchText(raw)
	if err != nil {
		return nil, nil, false
	}
	in := false
	for _, l := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		t := strings.TrimLeft(l, " \t")
		if header := patchHeader(t); header != "" {
			p := strings.TrimSpace(strings.TrimPrefix(t, header))
			if header != "*** Move to: " {
				in = p == target
				ok = ok || in
			}
			continue
		}
		if !in {
			continue
		}
		switch {
		case strings.HasPrefix(l, "+"):
			added = append(added, l[1:])
		case strings.HasPrefix(l, "-"):
			removed = append(removed, l[1:])
		}
	}
	return added, removed, ok
}

// patchHeader returns the envelope file header line l starts with ("" when
// none).
func patchHeader(l string) string {
	for _, h := range patchHeaders {
		if strings.HasPrefix(l, h) {
			return h
		}
	}
	return ""
}
