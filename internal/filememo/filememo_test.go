package filememo

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestRoundTrip: a value put under a key is served under that key and no
// other, from an entry only this user may read and write.
func TestRoundTrip(t *testing.T) {
	s := Store{Dir: filepath.Join(t.TempDir(), "memo")}
	k := KeyOf([]byte("exe"), []byte("version: 1\n"))
	if _, ok := s.Get(k); ok {
		t.Fatal("empty store served a value")
	}
	if err := s.Put(k, []byte("value\n")); err != nil {
		t.Fatal(err)
	}
	got, ok := s.Get(k)
	if !ok || string(got) != "value\n" {
		t.Fatalf("Get = %q, %v; want the value put", got, ok)
	}
	if _, ok := s.Get(KeyOf([]byte("exe"), []byte("version: 2\n"))); ok {
		t.Fatal("another key served a value")
	}
	st, err := os.Stat(s.Dir)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("store dir mode %v (err %v), want 0700", st.Mode().Perm(), err)
	}
	st, err = os.Stat(filepath.Join(s.Dir, k.String()))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("entry mode %v (err %v), want 0600", st.Mode().Perm(), err)
	}
}

// TestKeyOfIsLengthPrefixed: moving a byte between parts changes the key.
func TestKeyOfIsLengthPrefixed(t *testing.T) {
	if KeyOf([]byte("ab"), []byte("c")) == KeyOf([]byte("a"), []byte("bc")) {
		t.Fatal("part boundaries do not change the key")
	}
	if KeyOf([]byte("a")) != KeyOf([]byte("a")) {
		t.Fatal("KeyOf is not deterministic")
	}
}

// TestUnusableEntriesMiss: an entry copied from another key, one writable by
// others, a truncated header, a directory or a FIFO in the entry's place are
// all misses, never served.
func TestUnusableEntriesMiss(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	a, b := KeyOf([]byte("a")), KeyOf([]byte("b"))
	if err := s.Put(a, []byte("for a")); err != nil {
		t.Fatal(err)
	}
	entryA, _ := os.ReadFile(filepath.Join(s.Dir, a.String()))
	pathB := filepath.Join(s.Dir, b.String())
	cases := []struct {
		name  string
		setup func() error
	}{
		{"copied from another key", func() error { return os.WriteFile(pathB, entryA, 0o600) }},
		{"linked to another key", func() error { return os.Symlink(filepath.Join(s.Dir, a.String()), pathB) }},
		{"writable by others", func() error {
			if err := os.WriteFile(pathB, []byte(header+b.String()+"\nforged"), 0o600); err != nil {
				return err
			}
			return os.Chmod(pathB, 0o666)
		}},
		{"no header", func() error { return os.WriteFile(pathB, []byte("forged"), 0o600) }},
		{"header cut short", func() error { return os.WriteFile(pathB, []byte(header+b.String()), 0o600) }},
		{"directory", func() error { return os.Mkdir(pathB, 0o700) }},
		{"fifo", func() error { return mkfifo(pathB) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			os.RemoveAll(pathB)
			if err := tc.setup(); err != nil {
				t.Fatal(err)
			}
			done := make(chan bool, 1)
			go func() { _, ok := s.Get(b); done <- ok }()
			select {
			case ok := <-done:
				if ok {
					t.Fatal("served")
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Get blocked")
			}
		})
	}
}

// TestPutPrunesOnlyItsOwnExpiredFiles: Put removes expired entries and
// temporary files, keeps fresh ones, and never touches a file whose name is
// not one of its own.
func TestPutPrunesOnlyItsOwnExpiredFiles(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	old := time.Now().Add(-Expiry - time.Hour)
	mk := func(name string, mtime time.Time) string {
		p := filepath.Join(s.Dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stale := mk(KeyOf([]byte("stale")).String(), old)
	staleTmp := mk("."+KeyOf([]byte("tmp")).String()+"12345", old)
	fresh := mk(KeyOf([]byte("fresh")).String(), time.Now())
	foreign := mk("notes.txt", old)
	upper := mk(string(bytes.ToUpper([]byte(KeyOf([]byte("u")).String()))), old)
	if err := s.Put(KeyOf([]byte("new")), []byte("v")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{stale, staleTmp} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s kept (err %v), want removed", filepath.Base(p), err)
		}
	}
	for _, p := range []string{fresh, foreign, upper} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", filepath.Base(p), err)
		}
	}
}

// TestDisabledStore: an empty Dir never serves and never writes.
func TestDisabledStore(t *testing.T) {
	var s Store
	k := KeyOf([]byte("a"))
	if err := s.Put(k, []byte("v")); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Get(k); ok {
		t.Fatal("disabled store served a value")
	}
}

// TestExecutableIdentity: the identity is stable within a process and
// differs from that of another file.
func TestExecutableIdentity(t *testing.T) {
	a, err := ExecutableIdentity()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := ExecutableIdentity()
	if !bytes.Equal(a, b) || len(a) == 0 {
		t.Fatalf("identity %q then %q", a, b)
	}
	p := filepath.Join(t.TempDir(), "f")
	os.WriteFile(p, []byte("x"), 0o700)
	c, err := statIdentity(p)
	if err != nil || bytes.Equal(a, c) {
		t.Fatalf("another file's identity %q equals the executable's (err %v)", c, err)
	}
}
