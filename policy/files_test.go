package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
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
