package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"testing"
)

// buildBinary builds this command into a temporary directory and returns
// its path; the test is skipped with -short.
func buildBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := filepath.Join(t.TempDir(), "hookwarden")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// exitCode returns the exit code of a finished command's Run error: 0 for
// nil, the process's code for an *exec.ExitError; any other error (the
// command did not run) fails the test.
func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}
