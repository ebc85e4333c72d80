package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookwarden/hookwarden/internal/posixtest"
)

// naiveHolds is the reference: does text hold any spelling of any value?
func naiveHolds(values map[string]string, text []byte) bool {
	for _, raw := range values {
		for _, s := range Spellings(raw) {
			if bytes.Contains(text, []byte(s)) {
				return true
			}
		}
	}
	return false
}

var fixtureValues = map[string]string{
	"[GH_TOKEN]":  "ghp_abcdefgh12345678",
	"[DB_PASS]":   `pa"ss\word/<&>`,
	"[MULTI]":     "line1\nline2\tend",
	"[UNICODE]":   "clé-secrète-🔑",
	"[OVERLAP_A]": "abcdefgh",
	"[OVERLAP_B]": "defghijk",
}

// TestRedactSpellings: each value comes back as its token when written raw
// and when written inside a JSON string by the encoders the engines use
// (Go's encoding/json with and without HTML escaping here; JSON.stringify
// and serde_json share the short escapes and \u00xx for other controls),
// and text without a value is returned byte for byte.
func TestRedactSpellings(t *testing.T) {
	m, err := NewMatcher(fixtureValues)
	if err != nil {
		t.Fatal(err)
	}
	for tok, raw := range fixtureValues {
		var encs [][]byte
		html, _ := json.Marshal(map[string]string{"content": "see " + raw + " here"})
		var plain bytes.Buffer
		e := json.NewEncoder(&plain)
		e.SetEscapeHTML(false)
		e.Encode(map[string]string{"content": "see " + raw + " here"})
		encs = append(encs, []byte("see "+raw+" here"), html, plain.Bytes())
		for _, in := range encs {
			out, n, err := m.Redact(in)
			if err != nil || n == 0 {
				t.Fatalf("%s in %q: n=%d err=%v", tok, in, n, err)
			}
			if naiveHolds(fixtureValues, out) {
				t.Fatalf("%s: %q still holds a value", tok, out)
			}
			if !bytes.Contains(out, []byte(tok)) {
				t.Fatalf("%s: token missing from %q", tok, out)
			}
		}
	}
	clean := []byte(`{"content":"nothing secret, not even abcdefg"}`)
	out, n, err := m.Redact(clean)
	if err != nil || n != 0 || !bytes.Equal(out, clean) {
		t.Fatalf("clean text changed: %q %d %v", out, n, err)
	}
	// a value holding another value is replaced whole (no tail left)
	if out, _, _ := m.Redact([]byte("see ghp_abcdefgh12345678 here")); string(out) != "see [GH_TOKEN] here" {
		t.Fatalf("nested value: %q", out)
	}
	// the overlapping pair: neither value survives
	out, _, err = m.Redact([]byte("xxabcdefghijkyy"))
	if err != nil || naiveHolds(fixtureValues, out) {
		t.Fatalf("overlap: %q %v", out, err)
	}
}

// TestPythonASCIISpelling: Python's json.dumps default (ensure_ascii)
// writes non-ASCII as \uXXXX, a surrogate pair beyond the BMP.
func TestPythonASCIISpelling(t *testing.T) {
	m, _ := NewMatcher(map[string]string{"[U]": "clé-secrète-🔑"})
	in := []byte(`{"t": "cl\u00e9-secr\u00e8te-\ud83d\udd11"}`)
	out, n, err := m.Redact(in)
	if err != nil || n != 1 || !bytes.Contains(out, []byte("[U]")) {
		t.Fatalf("%q %d %v", out, n, err)
	}
}

// TestNewMatcherRefuses: bad tokens, short values and a token holding a
// value are errors, never a matcher that silently misses.
func TestNewMatcherRefuses(t *testing.T) {
	for name, v := range map[string]map[string]string{
		"short value":          {"[T]": "abc"},
		"quote in token":       {`[T"]`: "abcdefgh"},
		"empty token":          {"": "abcdefgh"},
		"token holds a value":  {"[abcd]": "abcd"},
		"value not valid utf8": {"[T]": "ab\xffcd"},
	} {
		if _, err := NewMatcher(v); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// FuzzRedact checks the matcher against the naive reference: Contains
// agrees with it, and Redact's output never holds a value (or Redact says
// it could not), and leaves value-free text unchanged.
func FuzzRedact(f *testing.F) {
	f.Add("abcd", "bcde", "xxabcdeyy")
	f.Add("secret1", "cret1se", "secret1secret1se")
	f.Add("a\"b\\c", "abab", `"a\"b\\c" ababab`)
	f.Add("[T0]x", "zzzz", "[T0]xzzzz")
	f.Fuzz(func(t *testing.T, v1, v2, text string) {
		values := map[string]string{"[T0]": v1, "[T1]": v2}
		m, err := NewMatcher(values)
		if err != nil {
			return
		}
		in := []byte(text)
		if got, want := m.Contains(in), naiveHolds(values, in); got != want {
			t.Fatalf("Contains(%q) = %v, naive %v", text, got, want)
		}
		out, _, err := m.Redact(in)
		if err != nil {
			return
		}
		if naiveHolds(values, out) {
			t.Fatalf("Redact(%q) = %q holds a value", text, out)
		}
		if !naiveHolds(values, in) && !bytes.Equal(out, in) {
			t.Fatalf("value-free %q changed to %q", text, out)
		}
	})
}

// TestLinear: many short matches under a long pattern (the case that made
// the library's leftmost-longest Find quadratic) redact in one pass; the
// time is measured by BenchmarkRedact, this only checks the result.
func TestLinear(t *testing.T) {
	m, err := NewMatcher(map[string]string{"[S]": "abcd", "[L]": strings.Repeat("q", 100)})
	if err != nil {
		t.Fatal(err)
	}
	out, n, err := m.Redact(bytes.Repeat([]byte("abcd "), 40000))
	if err != nil || n != 40000 || bytes.Contains(out, []byte("abcd")) {
		t.Fatalf("n=%d err=%v", n, err)
	}
}

// BenchmarkRedact: a 1 MiB transcript-like text with 1,000 table values
// and 40,000 short matches (go test -bench Redact ./spawn/redact).
func BenchmarkRedact(b *testing.B) {
	values := map[string]string{}
	for i := 0; i < 1000; i++ {
		values[fmt.Sprintf("[V%d]", i)] = fmt.Sprintf("secret-%d-value", i)
	}
	m, err := NewMatcher(values)
	if err != nil {
		b.Fatal(err)
	}
	var text bytes.Buffer
	for text.Len() < 1<<20 {
		text.WriteString(`{"type":"tool_result","content":"ls -la secret-42-value and more text here"}` + "\n")
	}
	b.SetBytes(int64(text.Len()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := m.Redact(text.Bytes()); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReadPrivate: the table must be this account's regular file with
// mode 0600; a group-readable one, a FIFO (refused without blocking) and a
// symbolic link are refused.
func TestReadPrivate(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "table.json")
	body := []byte(`{"version":1,"values":{"[T]":"abcdefgh"}}`)
	if err := os.WriteFile(p, body, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, m, _, err := LoadTable(p); err != nil || !m.Contains([]byte("xxabcdefghxx")) {
		t.Fatalf("0600 table: %v", err)
	}
	os.Chmod(p, 0o640)
	if _, err := ReadPrivate(p); err == nil {
		t.Fatal("a group-readable table was read")
	}
	os.Chmod(p, 0o600)
	link := filepath.Join(dir, "link.json")
	os.Symlink(p, link)
	if _, err := ReadPrivate(link); err == nil {
		t.Fatal("a symbolic link was read")
	}
	fifo := filepath.Join(dir, "fifo")
	posixtest.Mkfifo(t, fifo, 0o600)
	if _, err := ReadPrivate(fifo); err == nil {
		t.Fatal("a FIFO was read")
	}
}

// TestWriteRunFile: a write through the temporary file and rename leaves
// mode 0600 even under a permissive umask and over a widened file, and refuses a run directory
// that is not 0700.
func TestWriteRunFile(t *testing.T) {
	posixtest.Umask(t, 0)
	dir := filepath.Join(t.TempDir(), "run")
	os.Mkdir(dir, 0o700)
	p := filepath.Join(dir, "t.json")
	for i := 0; i < 2; i++ {
		if err := WriteRunFile(p, []byte("{}\n")); err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(p)
		if fi.Mode().Perm() != 0o600 {
			t.Fatalf("mode %v after write %d", fi.Mode().Perm(), i)
		}
	}
	// a run file someone widened is 0600 again after the next write (the
	// spawner's restore before agent_exit; renameio.WriteFile would have
	// kept 0644)
	os.Chmod(p, 0o644)
	if err := WriteRunFile(p, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v after rewriting a widened file", fi.Mode().Perm())
	}
	os.Chmod(dir, 0o750)
	if err := WriteRunFile(p, []byte("{}\n")); err == nil {
		t.Fatal("a group-readable run directory was written")
	}
}

// TestWriteRunFileStaysInRunDir: the temporary file of a run file (the run
// table holds raw values) is made in the run directory, never in $TMPDIR:
// renameio, told no directory, first tries os.TempDir() and uses it when
// it is on the run directory's file system, so the raw table passed
// through /tmp, outside the 0700 run directory, the work-tree check
// (run-dir-in-worktree) and the run sweep, and stayed there when the
// writer was killed. $TMPDIR's modification time shows whether anything
// was created or removed in it.
func TestWriteRunFileStaysInRunDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	os.Mkdir(dir, 0o700)
	tmpdir := t.TempDir() // the same file system as dir
	t.Setenv("TMPDIR", tmpdir)
	past := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(tmpdir, past, past); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "t.json")
	for i := 0; i < 2; i++ {
		if err := WriteRunFile(p, []byte(`{"values":["ghp_abcdefgh12345678"]}`+"\n")); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(tmpdir)
	if err != nil {
		t.Fatal(err)
	}
	if es, _ := os.ReadDir(tmpdir); len(es) > 0 || !fi.ModTime().Equal(past) {
		t.Errorf("writing a run file touched $TMPDIR (entries %d, modified %v)", len(es), fi.ModTime())
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("the run directory holds %d entries, want the file alone", len(es))
	}
}

// BenchmarkContainsProse: Contains on 64 KiB of prose holding no value,
// where one value's first byte ('s') is frequent and the others' ('v')
// absent, with 1,001 values: linear (the library's IsMatch was quadratic
// here).
func BenchmarkContainsProse(b *testing.B) {
	values := map[string]string{"[API_KEY]": "sk-live-7f3a9c21"}
	for i := 0; i < 1000; i++ {
		values[fmt.Sprintf("[V%d]", i)] = fmt.Sprintf("value-%06d-xyz", i)
	}
	m, err := NewMatcher(values)
	if err != nil {
		b.Fatal(err)
	}
	text := []byte(strings.Repeat("lorem ipsum ", 64<<10/12))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if m.Contains(text) {
			b.Fatal("found a value in prose")
		}
	}
}
