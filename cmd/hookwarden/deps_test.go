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

// layerOrder is DESIGN.md "Layout", top to bottom: each top-level folder is
// one layer and imports only point down this list. Folders on one line share
// a layer (cmd and tools/release both build artefacts from everything below,
// and docs holds only the tests that run the pages' examples; clientjson and
// lefthookcfg are sibling file editors).
var layerOrder = [][]string{
	{"cmd", "tools", "docs"},
	{"adopt"},
	{"spawn"},
	{"engine"},
	{"admit"},
	{"templates"},
	{"skewguard"},
	{"protocol"},
	{"policy"},
	{"settings"},
	{"clientjson", "lefthookcfg"},
	{"internal"},
}

// testSupport names the packages only tests may import: the real-client
// harness (engine/conformance itself; its observed/ table is product) and the
// corpus loaders, so a harness never ships in the binary.
var testSupport = []string{"engine/conformance", "policy/policycases", "adopt/codextrust/codextrusttest", "internal/testbin"}

// listedPackage is one package of `go list -json=ImportPath,Deps`: its import
// path and the transitive dependencies of its non-test files.
type listedPackage struct {
	ImportPath string
	Deps       []string
}

// layerViolations takes the module path (with its trailing slash), the
// packages go list printed and the layer order, and returns one line per
// dependency that points up the order, or into test support, or into a
// top-level folder the order does not name. Dependencies outside the module
// are not layered.
func layerViolations(mod string, pkgs []listedPackage, order [][]string) []string {
	rank := map[string]int{}
	for i, layer := range order {
		for _, dir := range layer {
			rank[dir] = i
		}
	}
	var bad []string
	for _, p := range pkgs {
		name := strings.TrimPrefix(p.ImportPath, mod)
		from, ok := rank[strings.Split(name, "/")[0]]
		if !ok {
			bad = append(bad, name+": top-level folder is in no layer of DESIGN.md")
			continue
		}
		for _, d := range p.Deps {
			dep, inModule := strings.CutPrefix(d, mod)
			if !inModule {
				continue
			}
			if slices.Contains(testSupport, dep) {
				bad = append(bad, name+" depends on test support "+dep)
				continue
			}
			to, ok := rank[strings.Split(dep, "/")[0]]
			switch {
			case !ok:
				bad = append(bad, name+" depends on "+dep+", whose folder is in no layer")
			case to < from:
				bad = append(bad, name+" depends on "+dep+", a layer above it")
			}
		}
	}
	return bad
}

// TestImportGraph holds the whole layer order of DESIGN.md "Layout" over the
// module's real import graph (go list's own: each package's transitive Deps,
// test files excluded): no product package depends on a package of a layer
// above its own, or on test support (the real-client harness and corpus
// loaders are imported by tests only, so a harness never ships in the
// binary). Test packages (engine/conformance and the corpus loaders) are
// themselves layered like any other package.
func TestImportGraph(t *testing.T) {
	const mod = "github.com/hookwarden/hookwarden/"
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Deps", "./...")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	var pkgs []listedPackage
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("go list -json: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 40 {
		t.Fatalf("go list named only %d packages:\n%s", len(pkgs), out)
	}
	for _, line := range layerViolations(mod, pkgs, layerOrder) {
		t.Error(line)
	}
}

// TestLayerViolationsSeeAnUpwardImport: the checker TestImportGraph relies on
// reports an import that points up the order (policy reaching engine), a
// dependency on test support, and a folder outside every layer, and passes
// imports that point down or stay in one layer.
func TestLayerViolationsSeeAnUpwardImport(t *testing.T) {
	const mod = "m/"
	pkgs := []listedPackage{
		{ImportPath: "m/engine/hook", Deps: []string{"m/policy", "m/engine/workspace", "fmt"}},
		{ImportPath: "m/policy", Deps: []string{"m/engine/hook"}},
		{ImportPath: "m/adopt", Deps: []string{"m/engine/conformance"}},
		{ImportPath: "m/stray", Deps: nil},
	}
	got := layerViolations(mod, pkgs, layerOrder)
	want := []string{
		"policy depends on engine/hook, a layer above it",
		"adopt depends on test support engine/conformance",
		"stray: top-level folder is in no layer of DESIGN.md",
	}
	if !slices.Equal(got, want) {
		t.Errorf("layerViolations = %q, want %q", got, want)
	}
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
