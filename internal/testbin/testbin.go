// Package testbin builds this module's binaries for tests, once per source
// state: every test process (go test runs each package in a process of its
// own) that asks for cmd/hookwarden gets the same file, built by the first
// one and kept in a cache directory named after the SHA-256 of the sources
// that go into it. Only tests import it (cmd/hookwarden TestImportGraph).
package testbin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/lockedfile"
)

// Module is the import path of the module whose binaries Build makes.
const Module = "github.com/hookwarden/hookwarden"

// builds memoises Build per package path within one test process.
var builds sync.Map // string -> func() (string, error)

// Hookwarden returns the path of cmd/hookwarden built from this checkout's
// sources; a failed build fails t.
func Hookwarden(t testing.TB) string { return Build(t, "./cmd/hookwarden") }

// MCPProxy returns the path of cmd/hookwarden-mcp-proxy built from this
// checkout's sources; a failed build fails t.
func MCPProxy(t testing.TB) string { return Build(t, "./cmd/hookwarden-mcp-proxy") }

// Build returns the path of the binary of pkg (a path relative to the
// module root, "./cmd/…"), named after its last element. The binary lives
// in $TMPDIR/hookwarden-testbin-<uid>/<hash>/, where hash covers the Go
// toolchain, GOOS/GOARCH, GOFLAGS and every source file of the module
// (tests, testdata and dot-directories excepted); a process that finds it
// there reuses it, one that does not builds it under an exclusive lock, so
// concurrent test processes build it once; the binaries of one source state
// share that directory (spawn exec finds hookwarden-mcp-proxy beside
// hookwarden). A failed build fails t.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	f, _ := builds.LoadOrStore(pkg, sync.OnceValues(func() (string, error) { return build(pkg) }))
	p, err := f.(func() (string, error))()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// ModuleRoot returns the directory holding this module's go.mod, found by
// walking up from the working directory; an error when there is none.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("testbin: %w", err)
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(b), "module "+Module+"\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("testbin: no go.mod of " + Module + " above the working directory")
		}
		dir = parent
	}
}

func build(pkg string) (string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	key, err := sourceHash(root)
	if err != nil {
		return "", err
	}
	base := filepath.Join(os.TempDir(), fmt.Sprintf("hookwarden-testbin-%d", os.Getuid()))
	dir := filepath.Join(base, key[:24])
	bin := filepath.Join(dir, filepath.Base(pkg))
	if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil { // tests run it as other users too
		return "", fmt.Errorf("testbin: %w", err)
	}
	unlock, err := lock(filepath.Join(dir, ".lock-"+filepath.Base(pkg)))
	if err != nil {
		return "", err
	}
	defer unlock()
	if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() {
		return bin, nil // another process built it while we waited
	}
	tmp := bin + ".tmp"
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", tmp, pkg)
	cmd.Dir = root
	// Built as every install route builds it (README "Install", the
	// release): without cgo, so the binary is static.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("testbin: go build %s: %w\n%s", pkg, err, out)
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", fmt.Errorf("testbin: %w", err)
	}
	return bin, nil
}

// lock takes an exclusive lock on path (go-internal's lockedfile: flock
// on Unix, LockFileEx on Windows) and returns its release.
func lock(path string) (func(), error) {
	unlock, err := lockedfile.MutexAt(path).Lock()
	if err != nil {
		return nil, fmt.Errorf("testbin: lock %s: %w", path, err)
	}
	return unlock, nil
}

// sourceHash is the hex SHA-256 of what a build depends on: the
// toolchain, target, GOFLAGS, the cgo setting, and the path and bytes of every file
// under root except test files, testdata directories, directories whose
// name starts with a dot, and dist/, bin/ and docs/ at the root (no
// binary embeds a page, so editing one does not rebuild).
func sourceHash(root string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s %s/%s %q CGO_ENABLED=0\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, os.Getenv("GOFLAGS"))
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata" || rel == "dist" || rel == "bin" || rel == "docs") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(rel), len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("testbin: hashing the sources: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// longFlag is -long: run the whole corpus of the heavy suites (registered
// in every test binary that imports this package).
var longFlag = flag.Bool("long", false, "hookwarden: run the whole corpus of the heavy parity and doctor suites, not their sample")

// Require reports whether a missing program or client must fail the test
// instead of skipping it: HOOKWARDEN_E2E=require, which .ci/run sets after
// installing everything.
func Require() bool { return os.Getenv("HOOKWARDEN_E2E") == "require" }

// Long reports whether the heavy suites run their whole corpus: -long,
// HOOKWARDEN_TEST_LONG=1, or HOOKWARDEN_E2E=require (CI). Otherwise they
// run a representative sample, so `go test ./...` on a developer's machine
// stays within minutes.
func Long() bool {
	return *longFlag || os.Getenv("HOOKWARDEN_TEST_LONG") == "1" || Require()
}

// Sample returns every element of all when Long, else the ones whose index
// is a multiple of every (at least one; the first and last are always
// kept), so a sample still covers the corpus from end to end.
func Sample[T any](all []T, every int) []T {
	if Long() || every <= 1 || len(all) <= 2 {
		return all
	}
	var out []T
	for i, v := range all {
		if i%every == 0 || i == len(all)-1 {
			out = append(out, v)
		}
	}
	return out
}

// Need returns the path of program on PATH; when it is missing the test
// is skipped saying so (a stated skip), or fails under Require.
func Need(t testing.TB, program string) string {
	t.Helper()
	p, err := exec.LookPath(program)
	if err == nil {
		return p
	}
	if Require() {
		t.Fatalf("%s is required (HOOKWARDEN_E2E=require): %v", program, err)
	}
	t.Skipf("stated skip: %s is not on PATH (HOOKWARDEN_E2E=require makes this a failure)", program)
	return ""
}

// ExitCode returns the exit code of a finished command from the error its
// Run, Output or CombinedOutput returned: 0 for nil, the code of an
// *exec.ExitError; any other error (the command did not start) fails t.
func ExitCode(t testing.TB, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatal(err)
	return -1
}
