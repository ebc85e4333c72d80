// Package gitrun builds the git child processes hookwarden starts to ask a
// repository a question (engine/checkpoint's status, policy's
// governance-rollback questions), so they run alike: the same global
// options, the same environment and the same wait for their pipes.
package gitrun

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"time"
)

// GlobalArgs are the global options of every question: --no-optional-locks
// so a status never takes .git/index.lock while the agent runs its own git
// commands (git(1), GIT_OPTIONAL_LOCKS); core.fsmonitor=false so a
// repository configured for the builtin fsmonitor does not make us start a
// daemon that outlives the hook, and a configured fsmonitor hook command is
// not run (git-config(1) core.fsmonitor); core.quotepath=false keeps
// non-ASCII names as bytes.
func GlobalArgs() []string {
	return []string{"--no-optional-locks", "-c", "core.fsmonitor=false", "-c", "core.quotepath=false"}
}

// Env returns the environment for git: the process environment without
// any GIT_* variable (an inherited GIT_DIR, GIT_WORK_TREE or GIT_INDEX_FILE,
// e.g. from a git hook that started the agent, would make git answer for
// another checkout than the directory asked about), with LC_ALL=C so
// diagnostics are stable.
func Env() []string {
	env := os.Environ()
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if strings.HasPrefix(kv, "GIT_") || strings.HasPrefix(kv, "LC_ALL=") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "LC_ALL=C")
}

// WaitDelay is how long a git whose context ended may keep its pipes open
// before they are closed (exec.Cmd.WaitDelay).
const WaitDelay = 250 * time.Millisecond

// Command returns git with GlobalArgs then args, run in dir with Env and
// WaitDelay, killed when ctx ends; the caller sets its output and runs it.
func Command(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", append(GlobalArgs(), args...)...)
	cmd.Dir = dir
	cmd.Env = Env()
	cmd.WaitDelay = WaitDelay
	return cmd
}
