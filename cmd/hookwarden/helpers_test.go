package main

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/internal/testbin"
	"github.com/hookwarden/hookwarden/skewguard"
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

// testIO returns streams a run function can be called with in a test:
// stdin reads in, stdout and stderr go to the returned builders, the
// environment is env (NAME=value entries, nothing of the test process's)
// and the working directory dir.
func testIO(in string, env []string, dir string) (*ioStreams, *strings.Builder, *strings.Builder) {
	var out, errOut strings.Builder
	get := skewguard.Getenv(env)
	lookup := func(name string) (string, bool) {
		for _, e := range env {
			if strings.HasPrefix(e, name+"=") {
				return get(name), true
			}
		}
		return "", false
	}
	return &ioStreams{In: strings.NewReader(in), Out: &out, ErrOut: &errOut, Environ: env, LookupEnv: lookup,
		Getwd: func() (string, error) { return dir, nil }}, &out, &errOut
}

// runExit returns the exit code and message a run function's error err
// gives the process (main's exitStatus), so a test reads what a user would:
// 0 and "" for nil.
func runExit(err error) (int, string) {
	var msg strings.Builder
	code := exitStatus(&msg, err)
	return code, strings.TrimSuffix(msg.String(), "\n")
}
