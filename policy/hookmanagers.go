package policy

import (
	"mvdan.cc/sh/v3/syntax"
	"strings"
)

// This file holds what the policy knows of the hook managers a governed
// repository may use (issue 29 item 4): the variables that switch each one
// off or replace what its hook script runs, and the files (configuration,
// start-up scripts, a binary found on PATH) whose change does the same.
// Every entry names the source it was read from.

// hookProgram reports the programs (base names, as written) that run or
// install a repository's hooks: git and git-SUBCOMMAND, hookwarden, and
// the hook managers' executables lefthook, pre-commit and husky.
func hookProgram(name string) bool {
	switch name {
	case "git", "hookwarden", "lefthook", "pre-commit", "husky":
		return true
	}
	return strings.HasPrefix(name, "git-")
}

// hookManagerOff reports whether name=v switches a hook manager off or
// replaces what its installed hook runs. A value known only at run time
// counts as off. Sources:
//   - lefthook: LEFTHOOK=0|false and LEFTHOOK_EXCLUDE (lefthook docs/usage.md,
//     "ENV variables"); LEFTHOOK_CONFIG replaces the main config, and with it
//     our extends entry (measured on lefthook 2.2.1: only the named file's
//     jobs ran); LEFTHOOK_BIN: the hook script lefthook 2.2.2 installs (npm
//     lefthook 2.2.2, `lefthook install`, .git/hooks/pre-commit) runs
//     "$LEFTHOOK_BIN" "$@" in place of lefthook whenever it is non-empty, so
//     LEFTHOOK_BIN=true passes every hook (engine/conformance
//     TestRealLefthookBin).
//   - husky: HUSKY=0 (husky 9.1.7's hook runner husky/husky: `[ "${HUSKY-}" =
//     "0" ] && exit 0`); HUSKY_SKIP_HOOKS (husky v4 README, "Skip all hooks").
//   - pre-commit: SKIP=<ids> (pre-commit docs, "Temporarily disabling
//     hooks"); PRE_COMMIT_ALLOW_NO_CONFIG (pre-commit 3.0.4, Debian 13's
//     package, pre_commit/commands/hook_impl.py _validate_config: with no
//     .pre-commit-config.yaml and this set, the hook prints "Skipping
//     `pre-commit`" and exits 0; its hook-tmpl runs `python -mpre_commit`,
//     else the first `pre-commit` on PATH, under bash).
//   - simple-git-hooks 2.14.0 (simple-git-hooks.js, PREPEND_SCRIPT, written
//     at the top of every hook): SKIP_SIMPLE_GIT_HOOKS=1 exits 0, and the
//     file named by SIMPLE_GIT_HOOKS_RC is sourced before the hook's command
//     (it may exit 0).
//   - overcommit: OVERCOMMIT_DISABLE=1 (overcommit README, "Disabling
//     Overcommit"; SKIP is its per-hook switch too).
func hookManagerOff(name string, v field) bool {
	d := v.dynamic()
	switch name {
	case "LEFTHOOK":
		return d || v.val == "0" || v.val == "false"
	case "LEFTHOOK_EXCLUDE", "LEFTHOOK_CONFIG", "LEFTHOOK_BIN", "SIMPLE_GIT_HOOKS_RC":
		return true
	case "HUSKY":
		return d || v.val == "0"
	case "SKIP_SIMPLE_GIT_HOOKS", "OVERCOMMIT_DISABLE":
		return d || v.val == "1"
	case "HUSKY_SKIP_HOOKS", "SKIP", "PRE_COMMIT_ALLOW_NO_CONFIG":
		return d || v.val != ""
	}
	return false
}

// hookSteerVar reports an environment variable that changes what an
// installed hook runs without naming a hook manager, so setting it for a
// hook-running git command (or exporting it before one in the same command)
// replaces the hooks: PATH (lefthook 2.2.2's hook runs the first `lefthook`
// on PATH; pre-commit's hook template falls back to `pre-commit` on PATH;
// husky 9.1.7 runs each hook's commands with PATH), PYTHONPATH and
// PYTHONHOME (pre-commit's hook runs `python -m pre_commit`, which imports
// the first pre_commit module on the path), NODE_OPTIONS (--require runs a
// module in every node process a hook starts, lint-staged's included:
// node --help, "NODE_OPTIONS"), BASH_ENV and ENV (a script bash or sh runs
// first in a non-interactive shell: bash(1), INVOCATION; a hook script is
// one), LD_PRELOAD (ld.so(8)) and PRE_COMMIT_HOME (pre-commit's cache of
// hook environments: pre-commit docs, "Managing ci caches").
func hookSteerVar(name string) bool {
	switch name {
	case "PATH", "PYTHONPATH", "PYTHONHOME", "NODE_OPTIONS", "BASH_ENV", "ENV", "LD_PRELOAD", "PRE_COMMIT_HOME":
		return true
	}
	return false
}

// hookManagerPath reports whether comps (a path's lower-cased, cleaned
// components) name a file a hook manager reads or runs when git runs a hook,
// so writing, moving or removing it from a command replaces or skips the
// hooks:
//   - pre-commit: .pre-commit-config.yaml (pre-commit docs, "Adding
//     pre-commit plugins to your project"; the .yml spelling too, which
//     `pre-commit -c` users name), and a pre_commit package directory, which
//     `python -m pre_commit` in the installed hook imports first from the
//     working directory (python(1), -m: the current directory leads
//     sys.path);
//   - husky: husky/init.sh under ~/.config or $XDG_CONFIG_HOME, which husky
//     9.1.7's hook runner sources before every hook (husky/husky: i=
//     "${XDG_CONFIG_HOME:-$HOME/.config}/husky/init.sh"; [ -f "$i" ] && .
//     "$i"), ~/.huskyrc (sourced by husky 4 to 8; husky 9.1.7 still checks
//     for it), and husky 4's .huskyrc, .huskyrc.json, .huskyrc.js and
//     husky.config.js;
//   - simple-git-hooks 2.14.0: its config files (simple-git-hooks.js,
//     _getConfig: .simple-git-hooks.{cjs,js,mjs,json} and
//     simple-git-hooks.{cjs,js,mjs,json});
//   - lefthook: an executable named lefthook (or lefthook.exe) anywhere,
//     which lefthook 2.2.2's hook runs when it comes first on PATH (the
//     lefthook configs themselves are client hook files: shellGuardList);
//   - overcommit: .overcommit.yml (overcommit README, "Configuration").
func hookManagerPath(comps []string) bool {
	n := len(comps)
	if n == 0 {
		return false
	}
	base := comps[n-1]
	switch base {
	case ".pre-commit-config.yaml", ".pre-commit-config.yml",
		".huskyrc", ".huskyrc.json", ".huskyrc.js", "husky.config.js",
		".simple-git-hooks.cjs", ".simple-git-hooks.js", ".simple-git-hooks.mjs", ".simple-git-hooks.json",
		"simple-git-hooks.cjs", "simple-git-hooks.js", "simple-git-hooks.mjs", "simple-git-hooks.json",
		"lefthook", "lefthook.exe", ".overcommit.yml":
		return true
	case "init.sh":
		return n >= 2 && comps[n-2] == "husky"
	}
	for _, c := range comps {
		if c == "pre_commit" {
			return true
		}
	}
	return false
}

// HookManagerFile reports whether p (a path as a tool or command names it,
// absolute or relative, either separator; compared case-insensitively with
// ".." folded) is a file a hook manager reads or runs when git runs a hook
// (hookManagerPath: .pre-commit-config.yaml, husky's init.sh and rc files,
// simple-git-hooks' configs, an executable named lefthook, a pre_commit
// module). The edit guard may use it so an edit and a command meet one
// rule.
func HookManagerFile(p string) bool {
	return classifyPath(p).mgr
}

// declNaked judges a naked word of export, declare, typeset, local or
// readonly: export "HUSKY=0" and declare -x "LEFTHOOK=0" assign as
// NAME=VALUE does (bash(1), SHELL BUILTIN COMMANDS: the argument is a
// word, quoting is removed before it is read), and a word whose name part
// is known only at run time (export $(echo LEFTHOOK=0), export "$v") may
// set any variable, a hook manager's switch included, so it is denied as
// one. Options (-x, -r) and a bare name (export FOO) set nothing.
func (j *judge) declNaked(v field, sc *scope) {
	if v.val == "" || strings.HasPrefix(v.val, "-") {
		return
	}
	name, val, ok := strings.Cut(v.val, "=")
	if strings.Contains(name, dyn) {
		j.hits.add(RuleHookManagerEnv)
		return
	}
	if !ok || !isAssignment(v.val) {
		return
	}
	f := lit(val)
	j.assignment(name, f, true)
	sc.exported(name, f)
}

// exported records a variable the script assigned as a statement of its
// own (NAME=V, export NAME=V, declare -x NAME=V): later commands of the
// script see it (taken as exported: fail closed).
func (sc *scope) exported(name string, v field) {
	sc.claudeDir = sc.claudeDir || name == "CLAUDE_CONFIG_DIR" || name == "HOME"
	if len(sc.env) < maxScriptEnv {
		sc.env = append(sc.env, envVar{name: name, val: v})
	} else {
		sc.envOverflow = true
	}
	if !v.dynamic() {
		sc.vars[name] = v.val
	}
}

// noteSubstVar records whether the assignment name=w gives name a whole
// command substitution's output (o=$(./p), o="$(./p)"; not a ref-printing
// git command, refSubst): "$o" later counts as that substitution, as
// "$(./p)" itself would where an option can stand.
func (sc *scope) noteSubstVar(name string, w *syntax.Word) {
	whole := false
	if w != nil && len(w.Parts) == 1 {
		part := w.Parts[0]
		if dq, ok := part.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
			part = dq.Parts[0]
		}
		if cs, ok := part.(*syntax.CmdSubst); ok && !refSubst(cs) && !gitDirSubstOK(cs) {
			whole = true
		}
	}
	if !whole {
		delete(sc.substVars, name)
		return
	}
	if sc.substVars == nil {
		sc.substVars = map[string]bool{}
	}
	sc.substVars[name] = true
}

// gitDirSubstOK reports gitDirSubst's recognition alone.
func gitDirSubstOK(cs *syntax.CmdSubst) bool {
	_, ok := gitDirSubst(cs)
	return ok
}

// maxScriptEnv bounds the assignments one script keeps for the commands
// after them; past it every later hook-running git command and nested
// client is judged as if any variable were set (envOverflow).
const maxScriptEnv = 256

// hookEnv judges the environment a hook-running git command runs with
// (git's hooks inherit it, githooks(5)): a hook manager switched off, or a
// variable that steers what the hooks run (hookSteerVar), set on the command
// or by an earlier statement of the script (both are in env: stmt adds
// scope.env).
func (j *judge) hookEnv(env []envVar, sc *scope) {
	for _, e := range env {
		if hookManagerOff(e.name, e.val) {
			j.hits.add(RuleHookManagerEnv)
		}
		if hookSteerVar(e.name) {
			j.hits.add(RuleHookManagerConfig)
		}
	}
	if sc.envOverflow {
		j.hits.add(RuleHookManagerConfig)
	}
}
