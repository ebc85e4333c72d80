package main

import (
	"errors"
	"github.com/hookwarden/hookwarden/internal/testbin"
	"os/exec"
	"testing"
)

// buildBinary returns this command built from this tree
// (internal/testbin); the test is skipped with -short.
func buildBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	return testbin.Hookwarden(t)
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
