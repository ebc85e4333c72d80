package templates

import (
	"bytes"
	"testing"

	"github.com/hookwarden/hookwarden/internal/buildinfo"
	"github.com/hookwarden/hookwarden/internal/clientname"
)

// TestVersionOnly: every file this build renders, restamped as another
// version would have rendered it (header and body), differs "only in the
// version"; the same bytes, a changed body, or a hand edit do not.
func TestVersionOnly(t *testing.T) {
	files, err := RenderFor(clientname.All(), true)
	if err != nil {
		t.Fatal(err)
	}
	cur := buildinfo.Current()
	const other = "0.0.1-other"
	for _, f := range files {
		old := restamp(t, f.Path, f.Body, cur, other)
		if v, ok := VersionOnly(f.Path, old, f.Body); !ok || v != other {
			t.Errorf("%s restamped %s: VersionOnly = %q, %v; want %q, true", f.Path, other, v, ok, other)
		}
		if _, ok := VersionOnly(f.Path, f.Body, f.Body); ok {
			t.Errorf("%s: the same bytes are not a version difference", f.Path)
		}
		changed := restamp(t, f.Path, append(f.Body[:len(f.Body):len(f.Body)], '\n'), cur, other)
		if _, ok := VersionOnly(f.Path, changed, f.Body); ok {
			t.Errorf("%s with a changed body counts as a version difference", f.Path)
		}
		if _, ok := VersionOnly(f.Path, append(old[:len(old):len(old)], '\n'), f.Body); ok {
			t.Errorf("%s edited by hand counts as a version difference", f.Path)
		}
	}
}

// restamp returns b (a render of path) as version to would have written
// it: every occurrence of from replaced, the header's digest recomputed.
func restamp(t *testing.T, path string, b []byte, from, to string) []byte {
	t.Helper()
	b = bytes.ReplaceAll(b, []byte(from), []byte(to))
	h, ok := ParseHeaderAt(path, b)
	if !ok {
		t.Fatalf("%s: no header", path)
	}
	var body []byte
	switch line := func(n int) int { // the offset after line n (1-based)
		off := 0
		for range n {
			off += bytes.IndexByte(b[off:], '\n') + 1
		}
		return off
	}; {
	case path == ClineHookPath:
		body = append([]byte(clineShebang), b[line(2):]...)
	case bytes.HasPrefix(b, []byte(jsonHeaderPrefix)):
		body = append([]byte("{\n"), b[line(2):]...)
	default:
		body = b[line(1):]
	}
	out := bytes.Replace(b, []byte(h.Digest), []byte(digest(body)), 1)
	if h, ok := ParseHeaderAt(path, out); !ok || h.Edited {
		t.Fatalf("%s: restamped file does not verify", path)
	}
	return out
}
