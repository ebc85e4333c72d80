package main

import "testing"

// TestRunStepExitCodes: admit exits with the step's own code, 128+N for a
// signal N, and 127 when the step cannot be started.
func TestRunStepExitCodes(t *testing.T) {
	for _, tc := range []struct {
		argv    []string
		code    int
		wantErr bool
	}{
		{[]string{"sh", "-c", "exit 0"}, 0, false},
		{[]string{"sh", "-c", "exit 7"}, 7, false},
		{[]string{"sh", "-c", "kill -TERM $$"}, 143, false},
		{[]string{"/nonexistent/hookwarden-step"}, 127, true},
	} {
		code, err := runStep(tc.argv)
		if code != tc.code || (err != nil) != tc.wantErr {
			t.Errorf("%q: code %d err %v, want %d (error %v)", tc.argv, code, err, tc.code, tc.wantErr)
		}
	}
}
