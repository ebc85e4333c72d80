package templates

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"sync"

	"github.com/hookwarden/hookwarden/internal/buildinfo"
)

// headerTag starts the header value in every rendered file:
// "hookwarden-render: version=<v> sha256=<64 hex>".
const headerTag = "hookwarden-render: "

var headerValue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^hookwarden-render: version=([0-9A-Za-z.+-]+) sha256=([0-9a-f]{64})$`)
})

// jsonHeaderPrefix is the start of a rendered JSON file: the header is the
// first member, "_generated_by", on the second line (JSON has no comments;
// agy is written in Go, whose encoding/json ignores unknown members unless told
// otherwise — an inference, not a measured agy fact).
const jsonHeaderPrefix = "{\n  \"_generated_by\": "

func headerLine(body []byte) string {
	sum := sha256.Sum256(body)
	return headerTag + "version=" + buildinfo.Current() + " sha256=" + hex.EncodeToString(sum[:])
}

// withHeader returns comment + header + "\n" + body: the header line in the
// file's comment syntax ("# " for Python, "// " for JavaScript), digest over
// body.
func withHeader(body []byte, comment string) []byte {
	out := make([]byte, 0, len(body)+100)
	out = append(out, comment...)
	out = append(out, headerLine(body)...)
	out = append(out, '\n')
	return append(out, body...)
}

// jsonWithHeader renders v as indented JSON (two spaces, keys sorted, no HTML
// escaping) with the header as the first member "_generated_by". The digest
// covers the file without that member's line.
func jsonWithHeader(v map[string]any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	body := b.Bytes() // "{\n  ...\n}\n"
	if !bytes.HasPrefix(body, []byte("{\n")) {
		return nil, errJSONShape
	}
	val, err := json.Marshal(headerLine(body))
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(body)+120)
	out = append(out, jsonHeaderPrefix...)
	out = append(out, val...)
	out = append(out, ",\n"...)
	return append(out, body[2:]...), nil
}

type renderError string

func (e renderError) Error() string { return string(e) }

const errJSONShape = renderError("hookwarden: render: JSON body is not an object")

// ParseHeader reads the render header of a rendered file: the first line
// "# hookwarden-render: version=<v> sha256=<hex>" (Python) or "// …"
// (JavaScript), or for JSON files the first member
// `"_generated_by": "hookwarden-render: version=<v> sha256=<hex>"` on the
// second line. It returns the header with ok true, Edited set when the SHA-256
// of the body as it is now (the file without the header line) differs from
// the recorded digest; ok is false when body carries no well-formed
// hookwarden render header (a file hookwarden did not render, or one whose
// header line was itself edited). A stale render is one whose Version differs
// from internal/buildinfo.Current(); comparing is the caller's (audit,
// conform) business.
func ParseHeader(body []byte) (Header, bool) {
	if bytes.HasPrefix(body, []byte(jsonHeaderPrefix)) {
		rest := body[len(jsonHeaderPrefix):]
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			return Header{}, false
		}
		line := bytes.TrimSuffix(rest[:nl], []byte(","))
		var val string
		if err := json.Unmarshal(line, &val); err != nil {
			return Header{}, false
		}
		h, ok := parseValue(val)
		if !ok {
			return Header{}, false
		}
		rebuilt := append([]byte("{\n"), rest[nl+1:]...)
		h.Edited = digest(rebuilt) != h.Digest
		return h, true
	}
	nl := bytes.IndexByte(body, '\n')
	if nl < 0 {
		return Header{}, false
	}
	line := string(body[:nl])
	var val string
	switch {
	case len(line) > 2 && line[:2] == "# ":
		val = line[2:]
	case len(line) > 3 && line[:3] == "// ":
		val = line[3:]
	default:
		return Header{}, false
	}
	h, ok := parseValue(val)
	if !ok {
		return Header{}, false
	}
	h.Edited = digest(body[nl+1:]) != h.Digest
	return h, true
}

func parseValue(v string) (Header, bool) {
	m := headerValue().FindStringSubmatch(v)
	if m == nil {
		return Header{}, false
	}
	return Header{Version: m[1], Digest: m[2]}, true
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// headerAnywhere matches a header value wherever its file's syntax puts it.
var headerAnywhere = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`hookwarden-render: version=[0-9A-Za-z.+-]+ sha256=[0-9a-f]{64}`)
})

// VersionOnly reports whether have, the bytes of the rendered file at path
// (slash separated, relative to the repository root), differs from want,
// this build's render of that path, only in the hookwarden version stamped
// into it: have carries a well-formed header that is not edited by hand and
// names another version than want's, and have with every occurrence of
// that version replaced by want's equals want, the header lines aside (a
// body that carries the version, such as hook.py's table or agy's
// plugin.json, has another digest). It returns have's version. Such a file
// is not stale: audit notes it, conform leaves it, so builds of different
// versions that render the same bodies do not rewrite each other's files.
func VersionOnly(path string, have, want []byte) (string, bool) {
	hh, ok := ParseHeaderAt(path, have)
	if !ok || hh.Edited {
		return "", false
	}
	wh, ok := ParseHeaderAt(path, want)
	if !ok || wh.Version == hh.Version {
		return "", false
	}
	norm := bytes.ReplaceAll(have, []byte(hh.Version), []byte(wh.Version))
	mask := []byte(headerTag)
	a := headerAnywhere().ReplaceAll(norm, mask)
	b := headerAnywhere().ReplaceAll(want, mask)
	return hh.Version, bytes.Equal(a, b)
}
