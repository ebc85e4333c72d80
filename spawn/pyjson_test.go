package spawn

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPyJSONMatchesPython checks PyJSONArgv and ArgvHash against python3's
// own json.dumps and hashlib on the corpus testdata/spawn/argv_json.json,
// so approval records interoperate with the framework that defined them.
func TestPyJSONMatchesPython(t *testing.T) {
	var corpus struct {
		About string     `json:"about"`
		Argvs [][]string `json:"argvs"`
	}
	p := filepath.Join("..", "testdata", "spawn", "argv_json.json")
	readJSON(t, p, &corpus)
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("HOOKWARDEN_E2E") == "require" {
			t.Fatal("python3 absent and HOOKWARDEN_E2E=require")
		}
		t.Skip("python3 is not on PATH: cannot compare with json.dumps")
	}
	script := `import json, sys, hashlib
for argv in json.load(open(sys.argv[1]))["argvs"]:
    s = json.dumps(argv)
    print(s)
    print(hashlib.sha256(s.encode()).hexdigest())
`
	out, err := exec.Command(py, "-c", script, p).Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 2*len(corpus.Argvs) {
		t.Fatalf("python printed %d lines for %d argvs", len(lines), len(corpus.Argvs))
	}
	for i, argv := range corpus.Argvs {
		if got := PyJSONArgv(argv); got != lines[2*i] {
			t.Errorf("argv %d:\n got %s\nwant %s", i, got, lines[2*i])
		}
		if got := ArgvHash(argv); got != lines[2*i+1] {
			t.Errorf("argv %d: hash %s, python %s", i, got, lines[2*i+1])
		}
	}
}

// TestArgvHashInvalidUTF8 documents the one input Python cannot express:
// an invalid UTF-8 byte hashes as U+FFFD.
func TestArgvHashInvalidUTF8(t *testing.T) {
	got := PyJSONArgv([]string{"/x", "a\xffb"})
	if got != `["/x", "a\ufffdb"]` {
		t.Fatalf("got %s", got)
	}
	sum := sha256.Sum256([]byte(got))
	if ArgvHash([]string{"/x", "a\xffb"}) != hex.EncodeToString(sum[:]) {
		t.Fatal("hash is not the SHA-256 of the serialisation")
	}
}

// TestShellQuoteRoundTrip checks that /bin/sh splits ShellQuote(argv) back
// into exactly argv (the Claude and Codex hook command string).
func TestShellQuoteRoundTrip(t *testing.T) {
	var corpus struct {
		Argvs [][]string `json:"argvs"`
	}
	readJSON(t, filepath.Join("..", "testdata", "spawn", "argv_json.json"), &corpus)
	for i, argv := range corpus.Argvs {
		if len(argv) == 0 || strings.ContainsRune(strings.Join(argv, ""), 0) {
			continue // a NUL cannot be passed through exec at all
		}
		line := "set -- " + ShellQuote(argv[1:]) + `; for a in "$@"; do printf '%s\0' "$a"; done`
		cmd := exec.Command("/bin/sh", "-c", line)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("argv %d: sh: %v", i, err)
		}
		got := strings.Split(string(out), "\x00")
		got = got[:len(got)-1]
		if len(argv) == 1 {
			if len(out) != 0 {
				t.Errorf("argv %d: got %q", i, got)
			}
			continue
		}
		if !bytes.Equal([]byte(strings.Join(got, "\x00")), []byte(strings.Join(argv[1:], "\x00"))) {
			t.Errorf("argv %d: sh split %q, want %q", i, got, argv[1:])
		}
	}
}
