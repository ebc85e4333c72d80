package gitrun

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestCommandEnvironment: an inherited GIT_DIR or LC_ALL does not reach
// git, LC_ALL=C does, and the global options come before the question.
func TestCommandEnvironment(t *testing.T) {
	t.Setenv("GIT_DIR", "/elsewhere/.git")
	t.Setenv("LC_ALL", "de_DE.UTF-8")
	cmd := Command(context.Background(), "/repo", "status", "--porcelain")
	for _, kv := range cmd.Env {
		if strings.HasPrefix(kv, "GIT_") || kv == "LC_ALL=de_DE.UTF-8" {
			t.Errorf("git would inherit %s", kv)
		}
	}
	if !slices.Contains(cmd.Env, "LC_ALL=C") {
		t.Error("LC_ALL=C missing")
	}
	want := append(append([]string{"git"}, GlobalArgs()...), "status", "--porcelain")
	if !slices.Equal(cmd.Args, want) || cmd.Dir != "/repo" || cmd.WaitDelay != WaitDelay {
		t.Errorf("Command: args %q dir %q wait %v", cmd.Args, cmd.Dir, cmd.WaitDelay)
	}
}
