package main

import (
	"os"
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

// TestStackWarmedFirst: the hookwarden binary grows its main goroutine stack
// (internal/stackwarm) before any package whose initialisation does real
// work, which is where the gain comes from; a rename or a new import that
// moved it later would silently lose it. The order is read from the
// runtime's own initialisation trace of the built binary.
func TestStackWarmedFirst(t *testing.T) {
	bin := buildBinary(t)
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("hookwarden --version: %v\n%s", err, out)
	}
	pos, firstHeavy := -1, -1
	n := 0
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "init" {
			continue
		}
		switch {
		case f[1] == "github.com/hookwarden/hookwarden/internal/stackwarm":
			pos = n
		case firstHeavy < 0 && (f[1] == "go.yaml.in/yaml/v3" ||
			strings.HasPrefix(f[1], "mvdan.cc/sh/") || f[1] == "unicode" || f[1] == "regexp/syntax" ||
			strings.HasPrefix(f[1], "github.com/urfave/cli")):
			firstHeavy = n
		}
		n++
	}
	if pos < 0 {
		t.Fatalf("internal/stackwarm is not initialised in the binary:\n%s", out)
	}
	if firstHeavy >= 0 && pos > firstHeavy {
		t.Fatalf("internal/stackwarm is initialised %dth, after a heavy package (%dth)", pos+1, firstHeavy+1)
	}
}
