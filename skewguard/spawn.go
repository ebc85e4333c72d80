package skewguard

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/hookwarden/hookwarden/internal/execpath"
)

// RowSpawn is how one client runs a registered hook command: Shell is the
// argv prefix the command string is appended to (nil: the client runs no
// shell, see Exec), Exec the argv the client runs instead of a shell command
// (opencode's plugin spawns the launcher itself; the command string is then
// not used), Dir the working directory, Env the variables the client adds
// to its own environment ("NAME=value"), Source where these facts were
// observed or documented, and Unverified true when the spawn was not
// observed on the real client (documented or assumed only).
type RowSpawn struct {
	Client     string
	Shell      []string
	Exec       []string
	Dir        string
	Env        []string
	Source     string
	Unverified bool
}

// Argv returns the argv the client runs for the registered command string
// command: Shell followed by command, or Exec when the client runs no shell.
func (s RowSpawn) Argv(command string) []string {
	if s.Shell == nil {
		return slices.Clone(s.Exec)
	}
	return append(slices.Clone(s.Shell), command)
}

// spawnRule is one client's entry in spawnRules: shell the argv prefix,
// dir the working directory given the repository root and the session's
// start directory, env the added variables (given the same two), exec the argv for a client that
// runs no shell (given the root and the event), unverified true when the
// spawn was not observed on the real client.
type spawnRule struct {
	shell      []string
	dir        func(root, start string) string
	env        func(root, start string) []string
	exec       func(root, event string) []string
	source     string
	unverified bool
}

func atRoot(root, _ string) string      { return root }
func atStart(_, start string) string    { return start }
func claudeEnv(root, _ string) []string { return []string{"CLAUDE_PROJECT_DIR=" + root} }
func geminiEnv(root, _ string) []string {
	return []string{"GEMINI_PROJECT_DIR=" + root, "CLAUDE_PROJECT_DIR=" + root}
}
func qwenEnv(_, start string) []string {
	return []string{"QWEN_PROJECT_DIR=" + start, "GEMINI_PROJECT_DIR=" + start, "CLAUDE_PROJECT_DIR=" + start}
}
func copilotEnv(root, _ string) []string {
	return []string{"COPILOT_CLI=1", "COPILOT_PROJECT_DIR=" + root, "CLAUDE_PROJECT_DIR=" + root}
}
func droidEnv(root, _ string) []string { return []string{"FACTORY_PROJECT_DIR=" + root} }
func devinEnv(root, _ string) []string { return []string{"DEVIN_PROJECT_DIR=" + root} }
func cursorEnv(root, _ string) []string {
	return []string{"CURSOR_PROJECT_DIR=" + root, "CLAUDE_PROJECT_DIR=" + root}
}
func clineExec(root, _ string) []string {
	return []string{filepath.Join(root, ".clinerules", "hooks", "PreToolUse")}
}
func agyDir(root, _ string) string { return filepath.Join(root, ".agents", "plugins", "hookwarden") }
func opencodeExec(root, ev string) []string {
	return []string{"/bin/sh", filepath.Join(root, ".hookwarden", "hook.sh"), "opencode", ev}
}

// spawnRules is the per-client table of how each client spawns a hook row.
// A client added to the registration table gets its entry here, with the
// source of each fact. Built on first use (Spawn serves doctor and audit,
// never the hook call, whose start-up should not build it).
var spawnRules = sync.OnceValue(func() map[string]spawnRule {
	return map[string]spawnRule{
		// Claude Code 2.1.328: a command without `args` runs through a shell,
		// measured as /bin/sh -c with cwd the project and CLAUDE_PROJECT_DIR set
		// (templates.launcherPrefix's doc comment: a probe hook recording argv,
		// cwd and the parent shell through ../shared/e2e's mock, 2026-11-29).
		"claude": {shell: []string{"/bin/sh", "-c"}, dir: atRoot, env: claudeEnv,
			source: "Claude Code 2.1.328: /bin/sh -c, cwd the project, CLAUDE_PROJECT_DIR (measured, templates.launcherPath)"},
		// Codex CLI 0.169.0: /bin/bash -c with cwd the session's directory, no
		// project variable (measured; ../shared/e2e/README.md section 2).
		"codex": {shell: []string{"/bin/bash", "-c"}, dir: atStart,
			source: "Codex CLI 0.169.0: /bin/bash -c, cwd the session directory, no project variable (measured, e2e README section 2)"},
		// Gemini CLI 0.61.0: bash -c (PATH lookup) with cwd the project and
		// GEMINI_PROJECT_DIR and CLAUDE_PROJECT_DIR set (bundle
		// executeCommandHook; measured).
		"gemini": {shell: []string{"bash", "-c"}, dir: atRoot, env: geminiEnv,
			source: "Gemini CLI 0.61.0: bash -c, cwd the project, GEMINI_PROJECT_DIR and CLAUDE_PROJECT_DIR (bundle executeCommandHook)"},
		// agy: plugin hook commands run from the directory holding hooks.json
		// (issue 4); its shell is not recorded, /bin/sh -c is assumed.
		"agy": {shell: []string{"/bin/sh", "-c"}, dir: agyDir,
			source: "agy: cwd the plugin directory (websentry-ai/setup pull 104, agy 1.0.5); /bin/sh -c assumed, not recorded (unverified)", unverified: true},
		// opencode 1.18.33: the rendered plugin's tool.execute.before spawns
		// /bin/sh <root>/.hookwarden/hook.sh opencode EVENT itself (node
		// child_process.spawn, no shell; templates/files/hookwarden.js), cwd the
		// project.
		"opencode": {exec: opencodeExec, dir: atRoot,
			source: "opencode 1.18.33: the plugin spawns /bin/sh .hookwarden/hook.sh without a shell (templates/files/hookwarden.js)"},
		// GitHub Copilot CLI 1.0.102: a .github/hooks command (its `bash`
		// member) runs through bash with cwd the git root, also when the
		// session starts in a subdirectory, with COPILOT_CLI=1 and
		// COPILOT_PROJECT_DIR and CLAUDE_PROJECT_DIR set to the root (measured
		// with a probe hook through the loopback model; protocol/dialect
		// copilot.go, templates.launcherPrefix). bash is looked up on PATH and
		// given the command with -c (the argv form is not recorded); the
		// COPILOT_HOOK_DIR it also sets is left out (its value is not recorded;
		// the row does not read it).
		"copilot": {shell: []string{"bash", "-c"}, dir: atRoot, env: copilotEnv,
			source: "GitHub Copilot CLI 1.0.102: bash, cwd the git root, COPILOT_CLI=1, COPILOT_PROJECT_DIR and CLAUDE_PROJECT_DIR the root (measured, protocol/dialect copilot.go)"},
		// Cursor (documented, not observed): CURSOR_PROJECT_DIR and its alias
		// CLAUDE_PROJECT_DIR are set (radiusmethod/crow issue 417 quoting the
		// Cursor hooks docs); the shell and working directory are not stated
		// (/bin/sh -c from the root assumed; the row needs neither).
		"cursor": {shell: []string{"/bin/sh", "-c"}, dir: atRoot, env: cursorEnv,
			source: "Cursor: CURSOR_PROJECT_DIR and CLAUDE_PROJECT_DIR set (documented); /bin/sh -c from the root assumed (unverified: not observed)", unverified: true},
		// Windsurf (documented, not observed): no project variable and no
		// stated working directory (templates.launcherPath); /bin/sh -c from the
		// root assumed.
		"windsurf": {shell: []string{"/bin/sh", "-c"}, dir: atRoot,
			source: "Windsurf: /bin/sh -c from the workspace root assumed; neither is stated by its docs (unverified: not observed)", unverified: true},
		// Qwen Code 0.24.4: bash -c (PATH lookup) with cwd the session's
		// directory and GEMINI_PROJECT_DIR, CLAUDE_PROJECT_DIR and
		// QWEN_PROJECT_DIR set to it (bundle executeCommandHook; observed,
		// protocol/dialect qwen.go).
		"qwen": {shell: []string{"bash", "-c"}, dir: atStart, env: qwenEnv,
			source: "Qwen Code 0.24.4: bash -c, cwd the session directory, QWEN_PROJECT_DIR, GEMINI_PROJECT_DIR and CLAUDE_PROJECT_DIR set to it (bundle executeCommandHook; observed)"},
		// Factory Droid (documented, not observed): hooks run from Droid's
		// current working directory with FACTORY_PROJECT_DIR set
		// (docs.factory.ai/reference/hooks-reference); the shell is not stated
		// ("the bash command to execute": bash -c assumed).
		"droid": {shell: []string{"bash", "-c"}, dir: atStart, env: droidEnv,
			source: "Factory Droid: bash -c assumed, cwd Droid's working directory, FACTORY_PROJECT_DIR (documented; unverified: not observed)", unverified: true},
		// Devin CLI, run by Devin Desktop (documented, not observed): a command
		// hook is "a shell command" and DEVIN_PROJECT_DIR is set to the project
		// root (docs.devin.ai/cli/extensibility/hooks/overview, read
		// 2026-12-05); the shell and working directory are not stated (/bin/sh
		// -c from the root assumed; the row names the launcher by
		// DEVIN_PROJECT_DIR, templates.launcherPath).
		"devin": {shell: []string{"/bin/sh", "-c"}, dir: atRoot, env: devinEnv,
			source: "Devin CLI: DEVIN_PROJECT_DIR set (documented); /bin/sh -c from the root assumed (unverified: not observed)", unverified: true},
		// Kiro CLI (documented, not observed): the shell and working directory
		// of a hook command are not stated (kiro.dev/docs/cli/hooks; the payload
		// names cwd); /bin/sh -c from the start directory assumed, which the
		// row's walk up from $PWD covers (templates.launcherPath).
		"kiro": {shell: []string{"/bin/sh", "-c"}, dir: atStart,
			source: "Kiro CLI: /bin/sh -c from the session directory assumed; neither is stated by its docs (unverified: not observed)", unverified: true},
		// Cline (documented and read from source, not observed): Cline runs
		// the executable .clinerules/hooks/PreToolUse itself (no shell), for
		// every tool; its working directory is not relied on (the file finds
		// the root from its own path: templates.launcherPrefix). The workspace
		// root is assumed.
		"cline": {dir: atRoot, exec: clineExec,
			source: "Cline: runs .clinerules/hooks/PreToolUse as a program (docs.cline.bot hook-reference; cline/cline hook-factory.ts); cwd the workspace root assumed (unverified: not observed)", unverified: true},
		// lefthook: jobs run from the repository root (lefthook's default root);
		// `run` commands go through sh -c (not observed on the real lefthook).
		"lefthook": {shell: []string{"sh", "-c"}, dir: atRoot,
			source: "lefthook: sh -c from the repository root (documented default root; shell unverified: not observed)", unverified: true},
	}
})

// Spawn returns how client runs a registered hook command of event in the
// repository rooted at root (absolute) when its session started in start
// (root or a directory below it; "" means root). It returns an error for a
// client without an entry in the table.
func Spawn(client, event, root, start string) (RowSpawn, error) {
	rule, ok := spawnRules()[client]
	if !ok {
		return RowSpawn{}, fmt.Errorf("skewguard: client %q: how it spawns hook rows is not known", client)
	}
	if start == "" {
		start = root
	}
	s := RowSpawn{Client: client, Shell: slices.Clone(rule.shell), Dir: rule.dir(root, start), Source: rule.source, Unverified: rule.unverified}
	if rule.env != nil {
		s.Env = rule.env(root, start)
	}
	if rule.exec != nil {
		s.Exec = rule.exec(root, event)
	}
	return s, nil
}

// Command returns the process that runs the registered command string
// command as the client would: Argv(command) in Dir, with env (the
// client's own environment, "NAME=value" entries) plus Env. A first word
// without a slash is looked up in env's PATH, as the client's own spawn
// does, not in this process's; a word not found there makes the command
// fail to start (cmd.Err wraps exec.ErrNotFound), as the client's would.
func (s RowSpawn) Command(ctx context.Context, command string, env []string) *exec.Cmd {
	argv := s.Argv(command)
	full := append(slices.Clone(env), s.Env...)
	missing := false
	if !strings.Contains(argv[0], "/") {
		p, ok := execpath.Find(argv[0], envValue(full, "PATH"), "")
		argv[0], missing = p, !ok
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = s.Dir, full
	if missing {
		// Not this process's PATH: the client's lookup fails.
		cmd.Path, cmd.Err = argv[0], fmt.Errorf("exec: %q: %w in the client's PATH", argv[0], exec.ErrNotFound)
	}
	return cmd
}

// Getenv returns a lookup in env ("NAME=value" entries; the last entry of
// a name wins, as in a process environment; "" when absent), for code that
// reads a client's environment the way os.Getenv reads this process's.
func Getenv(env []string) func(string) string {
	return func(name string) string { return envValue(env, name) }
}

// envValue returns the last value of name in env ("" when absent).
func envValue(env []string, name string) string {
	v := ""
	for _, e := range env {
		if k, val, ok := strings.Cut(e, "="); ok && k == name {
			v = val
		}
	}
	return v
}
