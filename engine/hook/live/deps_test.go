package live

import (
	"os/exec"
	"strings"
	"testing"
)

// TestHookPathImports keeps heavy packages off the hook path's import graph:
// go-git (and its gob-initialising config parser) and the CLI framework cost
// start-up time in every hook process (measured with GODEBUG=inittrace=1;
// README "Benchmarks").
func TestHookPathImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, banned := range []string{"github.com/go-git/", "github.com/urfave/cli", "encoding/gob"} {
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("the hook path imports %s", dep)
			}
		}
	}
}
