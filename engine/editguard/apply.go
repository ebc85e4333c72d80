package editguard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// editTool reports whether tool is an edit whose result apply can
// reproduce: Claude Code's Edit, MultiEdit and Write, Gemini CLI's replace
// and write_file. NotebookEdit is not one (it rewrites notebook cells).
func editTool(client, tool string) bool {
	switch client {
	case "claude":
		return tool == "Edit" || tool == "MultiEdit" || tool == "Write"
	case "gemini":
		return tool == "replace" || tool == "write_file"
	}
	return false
}

// apply returns every file the client could write for this edit of a file
// whose current bytes are before (exists false: no file), or a reason why
// the result cannot be reproduced exactly (then the edit is denied). When
// before holds a carriage return, the edit is applied both to the bytes as
// they are and with CRLF read as LF (the clients normalise line endings
// when they read; the JSON parse does not depend on them), and both results
// are returned, so a match that only one reading finds cannot slip a changed
// row through.
func apply(client, tool string, raw []byte, before []byte, exists bool) ([][]byte, string) {
	in, err := fields(raw)
	if err != nil {
		return nil, err.Error()
	}
	contents := []string{string(before)}
	if bytes.IndexByte(before, '\r') >= 0 {
		contents = append(contents, strings.ReplaceAll(string(before), "\r\n", "\n"))
	}
	var out [][]byte
	for _, c := range contents {
		var res string
		var why string
		switch {
		case client == "claude" && tool == "Write", client == "gemini" && tool == "write_file":
			res, why = writeContent(in)
		case client == "claude" && tool == "Edit":
			var e claudeEdit
			if e, why = in.claudeEdit(); why == "" {
				res, why = claudeApply(c, exists, []claudeEdit{e})
			}
		case client == "claude" && tool == "MultiEdit":
			var es []claudeEdit
			if es, why = in.claudeEdits(); why == "" {
				res, why = claudeApply(c, exists, es)
			}
		case client == "gemini" && tool == "replace":
			res, why = geminiReplace(c, exists, in)
		default:
			why = fmt.Sprintf("%s %s is not an edit hookwarden reproduces", client, tool)
		}
		if why != "" {
			return nil, why
		}
		out = append(out, []byte(res))
	}
	return out, ""
}

// toolInput is tool_input's members by their exact names (encoding/json's
// struct decoding matches names case-insensitively; the clients do not).
type toolInput map[string]json.RawMessage

func fields(raw []byte) (toolInput, error) {
	var m toolInput
	if len(raw) == 0 {
		return nil, fmt.Errorf("the payload has no tool_input object")
	}
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("tool_input is not a JSON object")
	}
	return m, nil
}

// str returns a required string member.
func (t toolInput) str(key string) (string, string) {
	raw, ok := t[key]
	if !ok {
		return "", "tool_input." + key + " is missing"
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", "tool_input." + key + " is not a string"
	}
	return s, ""
}

// flag returns an optional boolean member (absent: false).
func (t toolInput) flag(key string) (bool, string) {
	raw, ok := t[key]
	if !ok {
		return false, ""
	}
	var b bool
	if err := json.Unmarshal(raw, &b); err != nil {
		return false, "tool_input." + key + " is not a boolean"
	}
	return b, ""
}

// writeContent is Claude Code's Write and Gemini CLI's write_file: the new
// file is tool_input.content. Claude Code 2.1.328 sdk-tools.d.ts
// FileWriteInput {file_path, content}; Gemini CLI 0.61.0 bundle
// (chunk-5FZXKDXH.js, packages/core/src/tools/write-file.ts
// getCorrectedFileContent) corrects content with the model only for files
// whose extension is not .json, .ipynb, .jsonc or .json5, and the three
// client hook files are .json, so the content is written as given.
func writeContent(in toolInput) (string, string) {
	return in.str("content")
}

// MaxEdits bounds the edits of one MultiEdit call that apply reproduces
// (each edit is compared with every earlier one's new_string, so the work
// grows with their square); more is refused.
const MaxEdits = 256

// claudeEdit is one Claude Code replacement (FileEditInput, or one entry of
// MultiEdit's edits).
type claudeEdit struct {
	old, new   string
	replaceAll bool
}

func (t toolInput) claudeEdit() (claudeEdit, string) {
	var e claudeEdit
	var why string
	if e.old, why = t.str("old_string"); why != "" {
		return e, why
	}
	if e.new, why = t.str("new_string"); why != "" {
		return e, why
	}
	e.replaceAll, why = t.flag("replace_all")
	return e, why
}

func (t toolInput) claudeEdits() ([]claudeEdit, string) {
	raw, ok := t["edits"]
	if !ok {
		return nil, "tool_input.edits is missing"
	}
	var list []toolInput
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, "tool_input.edits is not a list of objects"
	}
	if len(list) == 0 {
		return nil, "tool_input.edits is empty"
	}
	if len(list) > MaxEdits {
		return nil, fmt.Sprintf("tool_input.edits holds %d edits, more than hookwarden's bound of %d for one call (split the edit)", len(list), MaxEdits)
	}
	out := make([]claudeEdit, 0, len(list))
	for _, item := range list {
		if item == nil {
			return nil, "tool_input.edits holds a null"
		}
		e, why := item.claudeEdit()
		if why != "" {
			return nil, strings.Replace(why, "tool_input.", "tool_input.edits[].", 1)
		}
		out = append(out, e)
	}
	return out, ""
}

// claudeApply applies Claude Code 2.1.328's edit list to content, as its
// bundle (bin/claude.exe, the FileEditTool's call and the edit applier it
// shares with MultiEdit) does when every old_string occurs verbatim:
//
//   - no file: only a single edit with an empty old_string creates one, with
//     new_string as its content; anything else fails;
//   - an empty old_string on an existing file is accepted only when the file
//     is blank (then the file becomes new_string), else "cannot create a
//     file that already exists";
//   - per edit, in order: an old_string that is a substring of an earlier
//     new_string fails; more than one occurrence without replace_all fails
//     ("Found N matches ..."); an empty new_string with an old_string not
//     ending in a newline removes old_string plus the newline after it when
//     that text occurs; the first (replace_all: every) occurrence is
//     replaced literally (a function replacer: no `$` patterns); an edit that
//     changes nothing fails;
//   - the result equal to the original fails.
//
// An old_string that does not occur verbatim is where the client goes on to
// try curly-quote and \uXXXX-escape variants of it; hookwarden does not
// reproduce those and refuses. A failing edit writes nothing in the client;
// it is refused here too, with the reason.
func claudeApply(content string, exists bool, edits []claudeEdit) (string, string) {
	if !exists {
		if len(edits) == 1 && edits[0].old == "" {
			return edits[0].new, ""
		}
		return "", "the file does not exist, and only an edit with an empty old_string creates one"
	}
	if len(edits) == 1 && edits[0].old == "" {
		if strings.TrimSpace(content) != "" {
			return "", "an empty old_string on a file that is not empty (the client refuses to create a file that exists)"
		}
		return edits[0].new, ""
	}
	r := content
	var news []string
	for _, e := range edits {
		probe := strings.TrimRight(e.old, "\n")
		for _, n := range news {
			if probe != "" && strings.Contains(n, probe) {
				return "", "an old_string is a substring of an earlier edit's new_string"
			}
		}
		if e.old == "" {
			r = e.new
			news = append(news, e.new)
			continue
		}
		n := strings.Count(r, e.old)
		if n == 0 {
			return "", "old_string does not occur verbatim in the file"
		}
		if n > 1 && !e.replaceAll {
			return "", fmt.Sprintf("old_string occurs %d times and replace_all is false", n)
		}
		old := e.old
		if e.new == "" && !strings.HasSuffix(old, "\n") && strings.Contains(r, old+"\n") {
			old += "\n"
		}
		if grown := len(r) + n*(len(e.new)-len(old)); grown > MaxFileBytes {
			return "", fmt.Sprintf("the edit would write %d bytes, more than hookwarden's bound of %d", grown, MaxFileBytes)
		}
		prev := r
		if e.replaceAll {
			r = strings.ReplaceAll(r, old, e.new)
		} else {
			r = strings.Replace(r, old, e.new, 1)
		}
		if r == prev {
			return "", "an edit changes nothing"
		}
		news = append(news, e.new)
	}
	if r == content {
		return "", "the edits leave the file as it was"
	}
	return r, ""
}

// geminiReplace applies Gemini CLI 0.61.0's replace tool (bundle
// chunk-5FZXKDXH.js, packages/core/src/tools/edit.ts calculateEdit and
// calculateExactReplacement) when old_string occurs verbatim: the file is
// read with CRLF as LF; old_string and new_string have CRLF read as LF; no
// file and an empty old_string creates the file with new_string; no file
// otherwise, or an existing file with an empty old_string, fails; more than
// one occurrence without allow_multiple fails; every occurrence is replaced
// literally (safeLiteralReplace: replaceAll with `$` escaped), then the
// original's final newline is restored or removed (restoreTrailingNewline);
// old_string equal to new_string fails. 0.61.0 has allow_multiple and no
// expected_replacements parameter.
//
// When old_string does not occur verbatim the client tries a
// whitespace-flexible match, a token regex, a fuzzy match and then asks the
// model to correct the edit; hookwarden does not reproduce those and
// refuses.
func geminiReplace(content string, exists bool, in toolInput) (string, string) {
	old, why := in.str("old_string")
	if why != "" {
		return "", why
	}
	nw, why := in.str("new_string")
	if why != "" {
		return "", why
	}
	multi, why := in.flag("allow_multiple")
	if why != "" {
		return "", why
	}
	content = strings.ReplaceAll(content, "\r\n", "\n")
	old = strings.ReplaceAll(old, "\r\n", "\n")
	nw = strings.ReplaceAll(nw, "\r\n", "\n")
	if !exists {
		if old == "" {
			return nw, ""
		}
		return "", "the file does not exist, and only an empty old_string creates one"
	}
	if old == "" {
		return "", "an empty old_string on a file that exists (the client refuses to create it)"
	}
	n := strings.Count(content, old)
	if n == 0 {
		return "", "old_string does not occur verbatim in the file (the client would fall back to fuzzy matching and model self-correction)"
	}
	if n > 1 && !multi {
		return "", fmt.Sprintf("old_string occurs %d times and allow_multiple is not set", n)
	}
	if old == nw {
		return "", "old_string and new_string are identical"
	}
	if grown := len(content) + n*(len(nw)-len(old)); grown > MaxFileBytes {
		return "", fmt.Sprintf("the edit would write %d bytes, more than hookwarden's bound of %d", grown, MaxFileBytes)
	}
	out := strings.ReplaceAll(content, old, nw)
	switch {
	case strings.HasSuffix(content, "\n") && !strings.HasSuffix(out, "\n"):
		out += "\n"
	case !strings.HasSuffix(content, "\n") && strings.HasSuffix(out, "\n"):
		out = strings.TrimSuffix(out, "\n")
	}
	return out, ""
}
