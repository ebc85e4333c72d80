package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryImports keeps the packages that slow every hook process off the
// hookwarden binary's import graph: os/user and runtime/cgo make the binary
// dynamically linked (ld.so and libc loaded on every call), go-git brought
// both plus encoding/gob's initialisation, and urfave/cli/v2's man-page
// support initialised blackfriday. Measured with GODEBUG=inittrace=1 and
// strace; README "Benchmarks".
func TestBinaryImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatal("go list printed no packages")
	}
	for _, banned := range []string{"github.com/go-git/", "runtime/cgo", "os/user", "encoding/gob",
		"github.com/russross/blackfriday", "github.com/cpuguy83/go-md2man", "github.com/urfave/cli/v2"} {
		for _, dep := range deps {
			if dep == banned || strings.HasPrefix(dep, banned) && strings.HasSuffix(banned, "/") || strings.HasPrefix(dep, banned+"/") {
				t.Errorf("hookwarden imports %s", dep)
			}
		}
	}
}
