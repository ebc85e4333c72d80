package redact

import (
	"strings"
	"testing"
)

// TestUsageMessage: only stderr that is exactly one usage message (around
// whitespace) is returned; a message with anything else beside it is not.
func TestUsageMessage(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{UsagePromptValues + "\n", true},
		{"  " + UsageEngine + "\r\n", true},
		{UsageHook, true},
		{UsageEngine + "\nghp_abcdefgh12345678\n", false},
		{"ghp_abcdefgh12345678 " + UsageEngine, false},
		{"hookwarden redact: values: open /x: no such file or directory", false},
		{"", false},
	} {
		msg, ok := UsageMessage([]byte(c.in))
		if ok != c.want || (ok && msg != strings.TrimSpace(c.in)) || (!ok && msg != "") {
			t.Errorf("UsageMessage(%q) = %q, %v; want ok %v", c.in, msg, ok, c.want)
		}
	}
}
