package main

import (
	"strings"
	"testing"
)

// TestRunStepExitCodes: admit exits with the step's own code, 128+N for a
// signal N, and 127 when the step cannot be started; the step writes to
// the streams admit was given.
func TestRunStepExitCodes(t *testing.T) {
	for _, tc := range []struct {
		argv    []string
		code    int
		wantErr bool
		out     string
	}{
		{[]string{"sh", "-c", "echo ok; echo warn >&2; exit 0"}, 0, false, "ok\n|warn\n"},
		{[]string{"sh", "-c", "exit 7"}, 7, false, "|"},
		{[]string{"sh", "-c", "kill -TERM $$"}, 143, false, "|"},
		{[]string{"/nonexistent/hookwarden-step"}, 127, true, "|"},
	} {
		var out, errOut strings.Builder
		code, err := runStep(tc.argv, strings.NewReader(""), &out, &errOut)
		if code != tc.code || (err != nil) != tc.wantErr {
			t.Errorf("%q: code %d err %v, want %d (error %v)", tc.argv, code, err, tc.code, tc.wantErr)
		}
		if got := out.String() + "|" + errOut.String(); got != tc.out {
			t.Errorf("%q: stdout|stderr %q, want %q", tc.argv, got, tc.out)
		}
	}
}
