package record

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hookwarden/hookwarden/internal/posixtest"
)

var namePattern = regexp.MustCompile(`^claude-pre-tool-\d{8}T\d{6}\.\d{9}Z-[0-9a-f]{16}\.json$`)

func TestWriteCreatesPrivateFiles(t *testing.T) {
	posixtest.Umask(t, 0)
	dir := filepath.Join(t.TempDir(), "new", "rec")
	now := time.Date(2026, 11, 29, 19, 32, 37, 809000000, time.FixedZone("x", 3600))
	payload := []byte(`{"hook_event_name":"PreToolUse"}`)
	p1, err := Write(dir, "claude", "pre-tool", payload, now)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := Write(dir, "claude", "pre-tool", payload, now)
	if err != nil {
		t.Fatal(err)
	}
	if p1 == p2 {
		t.Fatal("two calls wrote the same file")
	}
	if !namePattern.MatchString(filepath.Base(p1)) || !strings.Contains(p1, "20261129T183237.809000000Z") {
		t.Fatalf("file name %s", filepath.Base(p1))
	}
	st, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != DirMode {
		t.Errorf("dir mode %v, want %v", st.Mode().Perm(), DirMode)
	}
	for _, p := range []string{p1, p2} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != FileMode {
			t.Errorf("%s: mode %v, want %v", p, st.Mode().Perm(), FileMode)
		}
		got, _ := os.ReadFile(p)
		if !bytes.Equal(got, payload) {
			t.Errorf("%s: content %q", p, got)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("dir holds %d entries (temporary files left behind?)", len(entries))
	}
}

func TestWriteFailures(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(file, "claude", "pre-tool", nil, time.Now()); err == nil {
		t.Fatal("record dir that is a file accepted")
	}
	if _, err := Write("", "claude", "pre-tool", nil, time.Now()); err == nil {
		t.Fatal("empty record dir accepted")
	}
}

type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, errors.New("no entropy") }

func TestFileNameRandomFailure(t *testing.T) {
	if _, err := FileName("a", "b", time.Now(), failing{}); err == nil {
		t.Fatal("random failure ignored")
	}
}
