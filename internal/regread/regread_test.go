//go:build unix

package regread

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookwarden/hookwarden/internal/posixtest"
)

// TestFile covers what a settings layer path can be on a workstation: a
// file (empty, at the bound, past it), a symlink to one, a missing path, a
// directory, a device, a FIFO (refused at once: os.Open would block until a
// writer appears) and a symlink to a FIFO.
func TestFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "fifo")
	posixtest.Mkfifo(t, fifo, 0o644)
	fifoLink := filepath.Join(dir, "fifo-link")
	if err := os.Symlink(fifo, fifoLink); err != nil {
		t.Fatal(err)
	}
	regular := write("config.yaml", "version: 1\n")
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(regular, link); err != nil {
		t.Fatal(err)
	}
	const max = 16
	cases := []struct {
		name, path, want string
		err              func(error) bool
	}{
		{"regular", regular, "version: 1\n", nil},
		{"empty", write("empty", ""), "", nil},
		{"at the bound", write("bound", strings.Repeat("x", max)), strings.Repeat("x", max), nil},
		{"past the bound", write("big", strings.Repeat("x", max+1)), "", func(err error) bool { return strings.Contains(err.Error(), "larger than 16 bytes") }},
		{"much larger", write("huge", strings.Repeat("x", 100_000)), "", func(err error) bool { return strings.Contains(err.Error(), "larger than 16 bytes") }},
		{"symlink to regular", link, "version: 1\n", nil},
		{"missing", filepath.Join(dir, "nope"), "", func(err error) bool { return errors.Is(err, fs.ErrNotExist) }},
		{"directory", dir, "", func(err error) bool { return errors.Is(err, ErrNotRegular) }},
		{"character device", os.DevNull, "", func(err error) bool { return errors.Is(err, ErrNotRegular) }},
		{"fifo", fifo, "", func(err error) bool { return errors.Is(err, ErrNotRegular) }},
		{"symlink to fifo", fifoLink, "", func(err error) bool { return errors.Is(err, ErrNotRegular) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan struct{})
			var got []byte
			var err error
			go func() { got, err = File(tc.path, max); close(done) }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatalf("File(%s) blocked", tc.path)
			}
			if tc.err == nil {
				if err != nil || string(got) != tc.want {
					t.Fatalf("got %q, err %v; want %q", got, err, tc.want)
				}
				return
			}
			if err == nil || !tc.err(err) {
				t.Fatalf("err = %v, want the case's error", err)
			}
			if !strings.Contains(err.Error(), tc.path) {
				t.Fatalf("error %q does not name the path", err)
			}
		})
	}
}
