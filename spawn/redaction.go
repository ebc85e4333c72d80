package spawn

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/hookwarden/hookwarden/internal/fileowner"
)

// redactionCapabilities are what the engine's table must list for a spawn
// under a redaction entry (ADR-0134 D7): the pre-tool hook denies, rewrites
// a shell command, holds when it crashes, times out or answers garbage, and
// sees every tool call; the post-tool hook blocks a result.
var redactionCapabilities = []string{"pre_tool.deny", "pre_tool.rewrite", "pre_tool.fail_closed", "all_tools_gated", "post_tool.block"}

// PostureClaudeArbiter is the posture a capability table may name as the
// condition of a capability (Table.Conditions): Claude in default
// permission mode with permissions.ask ["*"] and the entry's pre-tool argv
// as PermissionRequest arbiter, no caller flag or setting widening it
// (renderPosture, claudePostureFlags, checkPostureKey).
const PostureClaudeArbiter = "claude-permission-arbiter"

// postureRendered reports whether spawn exec renders posture for engine
// under the redaction entry: renderClaude always writes
// PostureClaudeArbiter under the entry; no other posture exists.
func postureRendered(engine, posture string) bool {
	return engine == "claude" && posture == PostureClaudeArbiter
}

// capabilityGap returns "" when the spawn gets capability cp from the
// engine's table, else why not: the table does not list it, or lists it
// under a posture (Table.Conditions) this spawn does not render: the
// Claude arbiter posture is rendered only under the redaction entry
// (underEntry), for Claude.
func (c *compiler) capabilityGap(cp string, underEntry bool) string {
	if _, ok := c.table.Capabilities[cp]; !ok {
		return fmt.Sprintf("which the real-client suite has not shown on %s %s", c.opts.Engine, c.version)
	}
	if cond, ok := c.table.Conditions[cp]; ok && (!underEntry || !postureRendered(c.opts.Engine, cond)) {
		return fmt.Sprintf("which %s %s shows only under the posture %q; spawn exec renders that posture only for claude under a redaction entry", c.opts.Engine, c.version, cond)
	}
	return ""
}

// redactionEventsFor returns the events a redaction entry must be held on
// for engine, in the order a refusal names them.
func redactionEventsFor(engine string) []string {
	return []string{"agent_prompt", "pre_tool", "post_tool", engine + ":Stop", "agent_exit"}
}

// checkRedaction applies the redaction entry's compile-time rules (ADR-0134
// D7, D4, D6). A redaction entry is a library entry the registry attaches
// on agent_prompt or agent_exit for any engine. For the spawn's engine,
// such an entry held on some of agent_prompt, pre_tool, post_tool, the
// engine's Stop and agent_exit must be held on all of them, and on
// pre_tool and post_tool for every tool (no matcher, or "*")
// (redaction-incomplete). A spawn is under the entry when it is held on
// agent_prompt; then, in order: a caller's prompt-file flag refuses
// (redaction-prompt-file); the run directory must be safe to hold raw
// values (checkRunDir); the engine's table must list every capability in
// redactionCapabilities (capability-missing); and the spawn must be one
// that runs the entry's events: a compile without Options.Runtime
// (`spawn compile`, whose caller would start the engine itself) and a
// Codex spawn (its session id arrives only on the stream and its rollout
// layout is not recorded, so agent_exit could not find the transcript)
// are refused (redaction-unsupported). A Claude spawn under `spawn exec`
// passes, with the entry recorded for the render.
func (c *compiler) checkRedaction() error {
	engine := c.opts.Engine
	var entries []string
	for _, a := range c.registry.Attachments {
		if slices.Contains(redactionEvents, a.Event) && !slices.Contains(entries, a.Hook) {
			entries = append(entries, a.Hook)
		}
	}
	slices.Sort(entries)
	need := redactionEventsFor(engine)
	under := ""
	for _, r := range entries {
		var held []string
		for _, l := range c.atts {
			if l.att.Hook == r && appliesTo(l.att, engine) {
				held = append(held, l.att.Event)
			}
		}
		var missing []string
		any := false
		for _, ev := range need {
			if slices.Contains(held, ev) {
				any = true
			} else {
				missing = append(missing, ev)
			}
		}
		if !any {
			continue // not attached for this engine
		}
		if len(missing) > 0 {
			return refuse(ReasonRedactionIncomplete, "the redaction entry %q is attached for %s without %s; it must be held on %s", r, engine, strings.Join(missing, ", "), strings.Join(need, ", "))
		}
		for _, l := range c.atts {
			if l.att.Hook == r && appliesTo(l.att, engine) && (l.att.Event == "pre_tool" || l.att.Event == "post_tool") && l.att.Matcher != "" && l.att.Matcher != "*" {
				return refuse(ReasonRedactionIncomplete, "the redaction entry %q is attached on %s with matcher %q; it must see every tool call (no matcher, or \"*\")", r, l.att.Event, l.att.Matcher)
			}
		}
		if under == "" {
			under = r
		}
	}
	if under == "" {
		return nil
	}
	if len(c.opts.PromptFiles) > 0 {
		return refuse(ReasonRedactionPromptFile, "under the redaction entry %q the caller passes %s; the engine would read that file itself, past the prompt hook", under, strings.Join(c.opts.PromptFiles, ", "))
	}
	if err := c.checkRunDir(); err != nil {
		return err
	}
	for _, cp := range redactionCapabilities {
		if gap := c.capabilityGap(cp, true); gap != "" {
			return refuse(ReasonCapabilityMissing, "the redaction entry %q needs %s, %s", under, cp, gap)
		}
	}
	if !c.opts.Runtime {
		return refuse(ReasonRedaction, "the redaction entry %q runs only under spawn exec, which fires agent_prompt and agent_exit and keeps the run's table and receipts", under)
	}
	if engine != "claude" {
		return refuse(ReasonRedaction, "the redaction entry %q passed every compile check, but spawn exec runs it for claude only: a %s session id arrives on its stream and its rollout layout is not recorded, so agent_exit could not find the transcript", under, engine)
	}
	c.redaction = under
	return nil
}

// checkRunDir refuses a run directory that could expose the run files'
// raw values (ADR-0134 D4, D6): the home or home/run not this account's
// or writable by group or others; an existing home/run/hooks that is not this
// account's directory with mode 0700; and a real path of the run directory
// (every symbolic link of its existing part resolved) that holds a .git
// entry at itself or any ancestor, or where that cannot be checked.
func (c *compiler) checkRunDir() error {
	home := c.opts.Home
	lstat := c.opts.lstat
	if lstat == nil {
		lstat = os.Lstat
	}
	for _, p := range []string{home, filepath.Join(home, "run")} {
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return refuse(ReasonRunDirInsecure, "%s: %v", p, err)
		}
		if fi.Mode().Perm()&0o022 != 0 || !fileowner.Self(fi) {
			return refuse(ReasonRunDirInsecure, "%s is writable by another account or not this account's (mode %v)", p, fi.Mode().Perm())
		}
	}
	dir := filepath.Join(home, RunHooksDir)
	if fi, err := os.Lstat(dir); err == nil {
		if !fi.IsDir() || fi.Mode().Perm() != 0o700 || !fileowner.Self(fi) {
			return refuse(ReasonRunDirInsecure, "%s must be this account's directory with mode 0700 (is %v)", dir, fi.Mode())
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return refuse(ReasonRunDirInsecure, "%s: %v", dir, err)
	}
	real, err := realPathOf(dir)
	if err != nil {
		return refuse(ReasonRunDirInWorktree, "the run directory %s cannot be resolved: %v", dir, err)
	}
	for _, a := range ancestry(real) {
		g := filepath.Join(a, ".git")
		if _, err := lstat(g); err == nil {
			return refuse(ReasonRunDirInWorktree, "the run directory %s (real path %s) lies in a Git work tree (%s); its files would hold raw values", dir, real, g)
		} else if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return refuse(ReasonRunDirInWorktree, "%s cannot be checked: %v", g, err)
		}
	}
	return nil
}

// realPathOf resolves every symbolic link in the existing part of path and
// appends the part that does not exist yet.
func realPathOf(path string) (string, error) {
	p := filepath.Clean(path)
	var rest []string
	for {
		r, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(append([]string{r}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", err
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = parent
	}
}
