package shellquote

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestJoinRoundTrips: /bin/sh splits Join's line back into the same argv,
// quotes, spaces, newlines and the empty word included.
func TestJoinRoundTrips(t *testing.T) {
	argv := []string{"/bin/x", "a b", "it's", "", "line\nnext", `$HOME "q" \`, "plain-1.2"}
	out, err := exec.Command("/bin/sh", "-c", "printf '%s\\0' "+Join(argv)).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if !slices.Equal(got, argv) {
		t.Fatalf("got %q, want %q", got, argv)
	}
}
