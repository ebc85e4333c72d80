package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/hookwarden/hookwarden/internal/posixtest"
)

// TestScriptSource: a file written earlier in the same command is known from
// the redirection or here-document that wrote it; one on disk is read when
// the directory is known and it is within maxScriptBytes; the rest is unknown.
func TestScriptSource(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "disk.sh"), []byte("git status\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.sh"), []byte(strings.Repeat("#", maxScriptBytes+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		script, path, want string
		known              bool
	}{
		{"printf 'git commit -n -m wip\\n' > run.sh", "run.sh", "git commit -n -m wip\n", true},
		{"echo 'git commit -n' > run.sh", "./run.sh", "git commit -n\n", true},
		{"cat > /tmp/x.py <<'EOF'\nimport os\nEOF", "/tmp/x.py", "import os\n", true},
		{"cat <<EOF > a\none\nEOF\ncat >> a <<< two", "a", "one\ntwo\n", true},
		{"tee t.sh <<< 'git push'", "t.sh", "git push\n", true},
		{"curl -o x https://example.com > run.sh", "run.sh", "", false},
		{"echo \"$X\" > run.sh", "run.sh", "", false},
		{"true", "disk.sh", "git status\n", true},
		{"true", "big.sh", "", false},
		{"true", "missing.sh", "", false},
		{"cd sub; echo hi > run.sh", "sub/run.sh", "hi\n", true},
	}
	p, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		f, err := syntax.NewParser().Parse(strings.NewReader(c.script), "")
		if err != nil {
			t.Fatal(err)
		}
		j := &judge{p: p, hits: &hitSet{}, dir: dir}
		sc := &scope{vars: map[string]string{}}
		for _, st := range f.Stmts {
			j.stmt(st, 0, nil, sc) // cd moves sc.cwd as the walk does
		}
		sc.cwd = ""
		got, known := j.scriptSource(sc, c.path)
		if got != c.want || known != c.known {
			t.Errorf("%q then read %s: got %q known=%v, want %q known=%v", c.script, c.path, got, known, c.want, c.known)
		}
	}
	// With no directory known, nothing relative is read from disk.
	j := &judge{p: p, hits: &hitSet{}}
	if _, known := j.scriptSource(&scope{}, "disk.sh"); known {
		t.Error("disk.sh read with no directory known")
	}
}

// TestFileInSight: the one answer of the xargs file-operand rule and the
// patch rule to "may the command read something from this file": written
// earlier, or there on disk (a symbolic link counted wherever it leads); in
// sight whenever the judge cannot settle it (a run-time path, no directory
// known, a cd to a run-time directory, a file lstat cannot inspect); out of
// sight only when it is known to be missing.
func TestFileInSight(t *testing.T) {
	posixtest.SkipOnWindows(t, "makes a symbolic link")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "disk.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "locked"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	p, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, script, path string
		noDir              bool
		want               bool
	}{
		{"on disk", "true", "disk.txt", false, true},
		{"missing", "true", "missing.txt", false, false},
		{"a path below a file", "true", "disk.txt/x", false, false},
		{"written earlier", "echo a > new.txt", "new.txt", false, true},
		{"a link leading nowhere", "true", "dangling", false, true},
		{"empty", "true", "", false, true},
		{"known only at run time", "true", "x" + dyn, false, true},
		{"no directory known", "true", "missing.txt", true, true},
		{"after a cd to a run-time directory", `cd "$1"`, "missing.txt", false, true},
	}
	judgeAfter := func(script string, noDir bool) (*judge, *scope) {
		f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
		if err != nil {
			t.Fatal(err)
		}
		j := &judge{p: p, hits: &hitSet{}, dir: dir}
		if noDir {
			j.dir = ""
		}
		sc := &scope{vars: map[string]string{}}
		for _, st := range f.Stmts {
			j.stmt(st, 0, nil, sc)
		}
		return j, sc
	}
	for _, c := range cases {
		j, sc := judgeAfter(c.script, c.noDir)
		if got := j.fileInSight(sc, c.path); got != c.want {
			t.Errorf("%s: fileInSight(%q) = %v, want %v", c.name, c.path, got, c.want)
		}
	}
	t.Run("cannot be inspected", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("skipped: permission bits do not stop root")
		}
		if err := os.Chmod(filepath.Join(dir, "locked"), 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(filepath.Join(dir, "locked"), 0o755) })
		j, sc := judgeAfter("true", false)
		if !j.fileInSight(sc, "locked/list") {
			t.Errorf("fileInSight(locked/list) = false for a file lstat cannot inspect, want true")
		}
	})
}
