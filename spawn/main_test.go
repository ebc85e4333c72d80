package spawn

import (
	"errors"
	"fmt"
	"github.com/hookwarden/hookwarden/internal/testbin"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// runRoot is the directory, made by TestMain, under which runTempDir puts
// the test worlds whose run homes a redaction entry checks: under
// $HOOKWARDEN_SPAWN_TEST_ROOT, else beside Go's build cache in the user's
// cache directory (os.UserCacheDir()/hookwarden-spawn-tests), never /tmp.
// Codex 0.169.0's bubblewrap sandbox leaves an empty /tmp/.git behind
// while the conformance suite runs it (seen on this project's CI machine,
// 2026-12-01, issue 18's notes), and a run directory whose real path has a
// .git ancestor is refused under the entry (run-dir-in-worktree,
// checkRunDir): a world under /tmp made the redaction tests that ran
// beside a Codex run refuse. TestMain refuses a root with a .git ancestor.
var runRoot string

func TestMain(m *testing.M) {
	if os.Getenv(mcpUpstreamEnv) != "" {
		os.Exit(serveTestMCPUpstream())
	}
	root, err := makeRunRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "spawn tests:", err)
		os.Exit(1)
	}
	runRoot = root
	code := m.Run()
	os.RemoveAll(root)
	os.Exit(code)
}

// mcpProxyBin returns cmd/hookwarden-mcp-proxy, built beside
// hookwardenBin's binary (internal/testbin puts the binaries of one source
// state in one directory, where `hookwarden spawn exec` looks for it).
func mcpProxyBin(t *testing.T) string {
	t.Helper()
	p := testbin.MCPProxy(t)
	if filepath.Dir(p) != filepath.Dir(hookwardenBin(t)) || filepath.Base(p) != MCPProxyName {
		t.Fatalf("%s is not %s beside %s", p, MCPProxyName, hookwardenBin(t))
	}
	return p
}

// hookwardenBin returns the path of cmd/hookwarden built from this tree
// (internal/testbin).
func hookwardenBin(t *testing.T) string {
	t.Helper()
	return testbin.Hookwarden(t)
}

// makeRunRoot makes this test binary's runRoot (a fresh directory under
// the base) and returns it; an error when the base cannot be found or
// made, or when it or an ancestor holds a .git entry (every redaction
// test under it would be refused). Roots under the base untouched for a
// day (a killed test binary's) are removed first.
func makeRunRoot() (string, error) {
	base := os.Getenv("HOOKWARDEN_SPAWN_TEST_ROOT")
	if base == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("no directory for the test worlds (set HOOKWARDEN_SPAWN_TEST_ROOT): %w", err)
		}
		base = filepath.Join(c, "hookwarden-spawn-tests")
	}
	if err := os.MkdirAll(base, 0o700); err != nil {
		return "", fmt.Errorf("the test worlds' directory: %w", err)
	}
	// the roots of test binaries that were killed: untouched for a day
	if es, err := os.ReadDir(base); err == nil {
		for _, e := range es {
			if fi, err := e.Info(); err == nil && e.IsDir() && strings.HasPrefix(e.Name(), "run-") && time.Since(fi.ModTime()) > 24*time.Hour {
				os.RemoveAll(filepath.Join(base, e.Name()))
			}
		}
	}
	root, err := os.MkdirTemp(base, "run-")
	if err != nil {
		return "", fmt.Errorf("the test worlds' directory: %w", err)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		os.RemoveAll(root)
		return "", fmt.Errorf("the test worlds' directory %s: %w", root, err)
	}
	for _, a := range ancestry(real) {
		if _, err := os.Lstat(filepath.Join(a, ".git")); err == nil || !errors.Is(err, fs.ErrNotExist) {
			os.RemoveAll(root)
			return "", fmt.Errorf("the test worlds' directory %s has %s/.git above it (or it cannot be checked): every redaction run under it would be refused; set HOOKWARDEN_SPAWN_TEST_ROOT", real, a)
		}
	}
	return root, nil
}

// unsafeName matches what runTempDir replaces in a test's name.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// runTempDir is t.TempDir under runRoot instead of os.TempDir(): a fresh
// directory named after the test, removed when the test ends.
func runTempDir(t testing.TB) string {
	t.Helper()
	if runRoot == "" {
		t.Fatal("runTempDir: TestMain made no runRoot")
	}
	name := unsafeName.ReplaceAllString(t.Name(), "_")
	if len(name) > 64 {
		name = name[:64]
	}
	d, err := os.MkdirTemp(runRoot, name+"-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(d); err != nil {
			t.Errorf("runTempDir cleanup: %v", err)
		}
	})
	return d
}
