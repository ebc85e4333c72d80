package live

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestDepsFloorLinksTheHookPath keeps BenchmarkHookProcess's depsfloor
// reference honest: the packages it links are exactly those outside this
// module that testdata/enginemain (the hook path) links, as `go list -deps`
// reports them with CGO_ENABLED=0 (the build both are measured with). A
// library the hook path gains or loses fails here until depsfloor's import
// list follows.
func TestDepsFloorLinksTheHookPath(t *testing.T) {
	deps := func(pkg string) []string {
		cmd := exec.Command("go", "list", "-deps", pkg)
		cmd.Env = append(cmd.Environ(), "CGO_ENABLED=0")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		var got []string
		for _, p := range strings.Fields(string(out)) {
			if !strings.HasPrefix(p, "github.com/hookwarden/hookwarden/") {
				got = append(got, p)
			}
		}
		slices.Sort(got)
		return got
	}
	hookPath, floor := deps("./testdata/enginemain"), deps("./testdata/depsfloor")
	if len(hookPath) < 50 {
		t.Fatalf("enginemain links only %d packages outside the module: %v", len(hookPath), hookPath)
	}
	for _, p := range hookPath {
		if _, ok := slices.BinarySearch(floor, p); !ok {
			t.Errorf("the hook path links %s; testdata/depsfloor does not: add it to its imports", p)
		}
	}
	for _, p := range floor {
		if _, ok := slices.BinarySearch(hookPath, p); !ok {
			t.Errorf("testdata/depsfloor links %s, which the hook path does not: remove it from its imports", p)
		}
	}
}
