package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBinaryImports keeps the packages that slow every hook process off the
// hookwarden binary's import graph, as every install route builds it
// (CGO_ENABLED=0: README "Install", docs/install.md, the release): runtime/cgo
// makes the binary dynamically linked (ld.so and libc loaded on every call).
// os/user is allowed: mvdan.cc/sh/v3's expand and interp (the shell
// evaluator) import it, and without cgo it is the pure-Go /etc/passwd
// reader with no initialisation of its own. go-git brought
// both plus encoding/gob's initialisation, and urfave/cli/v2's man-page
// support initialised blackfriday, and the MCP SDK links encoding/gob,
// net/http and a JSON Schema validator (+0.6 ms per process; it lives in
// cmd/hookwarden-mcp-proxy). Measured with GODEBUG=inittrace=1 and
// strace; README "Benchmarks".
func TestBinaryImports(t *testing.T) {
	list := exec.Command("go", "list", "-deps", ".")
	list.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatal("go list printed no packages")
	}
	for _, banned := range []string{"github.com/go-git/", "runtime/cgo", "encoding/gob",
		"github.com/russross/blackfriday", "github.com/cpuguy83/go-md2man", "github.com/urfave/cli/v2",
		"github.com/modelcontextprotocol/"} {
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

// TestImportGraph holds the layering of DESIGN.md "Layout": cmd → adopt →
// templates → skewguard → engine → policy → clientjson, with small helpers
// under internal/ (lefthookcfg sits beside clientjson). No product package
// (test files aside) under engine/, policy/, clientjson/, lefthookcfg/,
// templates/, skewguard/ or internal/ may depend,
// directly or through another package, on adopt or cmd: the live engine must
// not link adopt's planning. And no product package at all may depend on
// test support (the real-client harness is test files of engine/conformance;
// policycases and codextrusttest are imported by tests only), so a harness
// never ships in the binary (issue 21). The graph is go list's own
// (-json: each package's transitive Deps, test files excluded).
func TestImportGraph(t *testing.T) {
	const mod = "github.com/hookwarden/hookwarden/"
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Deps", "./...")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	lower := []string{"engine", "policy", "clientjson", "lefthookcfg", "templates", "skewguard", "internal"}
	upper := []string{"adopt", "cmd"}
	testSupport := []string{"engine/conformance", "policy/policycases", "adopt/codextrust/codextrusttest", "internal/testbin"}
	checked := 0
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var p struct {
			ImportPath string
			Deps       []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("go list -json: %v", err)
		}
		name := strings.TrimPrefix(p.ImportPath, mod)
		for _, d := range p.Deps {
			dep := strings.TrimPrefix(d, mod)
			if dep == d {
				continue // outside the module
			}
			if slices.ContainsFunc(testSupport, func(s string) bool { return dep == s }) {
				t.Errorf("%s depends on test support %s", name, dep)
			}
			if slices.ContainsFunc(lower, func(l string) bool { return under(name, l) }) &&
				slices.ContainsFunc(upper, func(u string) bool { return under(dep, u) }) {
				t.Errorf("%s depends on %s", name, dep)
			}
		}
		if slices.ContainsFunc(lower, func(l string) bool { return under(name, l) }) {
			checked++
		}
	}
	if checked < 10 {
		t.Fatalf("go list named only %d packages under %v:\n%s", checked, lower, out)
	}
}

// under reports whether the import path p is dir or a package below it.
func under(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// TestInstallLinesDisableCgo: the install lines a reader copies build the
// binary TestBinaryImports checks (CGO_ENABLED=0); a plain `go install` on a
// machine with a C compiler would link runtime/cgo through os/user and load
// ld.so and libc in every hook process.
func TestInstallLinesDisableCgo(t *testing.T) {
	for _, page := range []string{"../../README.md", "../../docs/install.md"} {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "go install ./cmd/hookwarden") {
				t.Errorf("%s: install line without CGO_ENABLED=0: %s", page, line)
			}
			found = found || strings.HasPrefix(line, "CGO_ENABLED=0 go install ./cmd/hookwarden")
		}
		if !found {
			t.Errorf("%s: no `CGO_ENABLED=0 go install ./cmd/hookwarden` line", page)
		}
	}
}
