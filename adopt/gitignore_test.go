package adopt

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzEnsureGitIgnoreBlock: for any input, EnsureGitIgnoreBlock either
// refuses it or returns a file that holds exactly one current block, is
// unchanged by a second application, and gives back the input's own lines
// when the block is removed (an input without a block) — no operator byte
// lost.
func FuzzEnsureGitIgnoreBlock(f *testing.F) {
	for _, s := range []string{"", "a\n", "a", "a\r\nb\r\n", "# BEGIN hookwarden\n", "# END hookwarden\n",
		"x\n# BEGIN hookwarden\nold\n# END hookwarden\ny\n", "# BEGIN hookwarden\n# END hookwarden", "\n\n", "# BEGIN hookwarden  \r\nz\r\n# END hookwarden\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := EnsureGitIgnoreBlock(in)
		if err != nil {
			return
		}
		n := 0
		for _, line := range strings.Split(string(out), "\n") {
			if strings.TrimRight(line, " \t\r") == BlockBegin {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%d BEGIN marker lines in %q", n, out)
		}
		again, err := EnsureGitIgnoreBlock(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %v %q -> %q", err, out, again)
		}
		if !bytes.Contains(in, []byte(BlockBegin)) {
			nl := "\n"
			if i := bytes.IndexByte(in, '\n'); i > 0 && in[i-1] == '\r' {
				nl = "\r\n"
			}
			rest := strings.TrimSuffix(string(out), GitIgnoreBlock(nl))
			if rest != string(in) && rest != string(in)+nl {
				t.Fatalf("operator bytes changed: %q -> %q", in, out)
			}
		}
	})
}
