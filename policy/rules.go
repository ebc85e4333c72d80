package policy

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/hookwarden/hookwarden/internal/reason"
)

// rulesJSON is the one wording source of the built-in policy: rule ids, the
// two halves of every refusal text, the text-rule patterns and the
// normalisation the text rules run on.
//
//go:embed rules.json
var rulesJSON []byte

// Rule ids of the built-in policy, in priority order. They are stable:
// corpora, audits and the rendered interceptors name them. The wording of
// each is in rules.json (Refusal).
const (
	// RuleScanBoundCommand: the command is over MaxCommandBytes.
	RuleScanBoundCommand = "scan-bound-command"
	// RuleScanBoundLine: a line of the command is over MaxLineBytes.
	RuleScanBoundLine = "scan-bound-line"
	// RuleScanBoundNesting: scripts (bash -c, eval, git aliases, launcher
	// scripts) nested past maxDepth, or parentheses past maxParenDepth.
	RuleScanBoundNesting = "scan-bound-nesting"
	// RuleScanBoundWords: more than maxLauncherWords launcher steps before
	// the command they run.
	RuleScanBoundWords = "scan-bound-words"
	// RuleScanBoundTargets: more than MaxTargetOperands directory operands;
	// denied by the target scan (ScanTargets, which the engine runs before
	// it judges), not by Judge.
	RuleScanBoundTargets = "scan-bound-targets"
	// RuleScanBoundSteps: the evaluator's run of the command took more than
	// maxEvalSteps simple commands or evalBudget (loops), or a glob read a
	// directory of more than maxGlobEntries entries.
	RuleScanBoundSteps = "scan-bound-steps"
	// RuleGitNoVerify: --no-verify or an abbreviation git accepts for it.
	RuleGitNoVerify = "git-no-verify"
	// RuleGitNoVerifyShort: -n on git commit or git am.
	RuleGitNoVerifyShort = "git-no-verify-short"
	// RuleCommitToolSkip: a tool that commits or pushes for you told to
	// skip the hooks (committools.go).
	RuleCommitToolSkip = "commit-tool-skip"
	// RuleHookManagerEnv: LEFTHOOK=0|false, LEFTHOOK_EXCLUDE, LEFTHOOK_CONFIG, HUSKY=0,
	// HUSKY_SKIP_HOOKS or SKIP for a git call or exported.
	RuleHookManagerEnv = "hook-manager-env"
	// RuleHookManagerConfig: a hook manager's config, start-up file or
	// binary written, moved or removed, or PATH-like variables set for a
	// hook-running git command (hookManagerPath, hookSteerVar).
	RuleHookManagerConfig = "hook-manager-config"
	// RuleHooksPathConfig: setting, unsetting or including away core.hooksPath.
	RuleHooksPathConfig = "hooks-path-config"
	// RuleGitConfigFileWrite: writing a git config file directly.
	RuleGitConfigFileWrite = "git-config-file-write"
	// RuleGitConfigRedirect: git configuration read from a file or value the
	// judge cannot see, or a command key whose command is unknown
	// (gitconfigcmd.go).
	RuleGitConfigRedirect = "git-config-redirect"
	// RuleHooksDirTamper: removing, moving, overwriting or re-permissioning a
	// hooks directory (.git/hooks, .husky, .lefthook, .githooks).
	RuleHooksDirTamper = "hooks-dir-tamper"
	// RuleSelfProtect: deleting, moving, truncating, overwriting,
	// re-permissioning or redirecting into the guard's own files
	// (GuardPaths other than the client hook files), or naming them in
	// code an interpreter runs.
	RuleSelfProtect = "self-protect"
	// RuleSelfProtectClientHooks: the same for a client hook file adopt
	// manages (.claude/settings.json, .codex/hooks.json,
	// .gemini/settings.json).
	RuleSelfProtectClientHooks = "self-protect-client-hooks"
	// RuleGovernanceRollback: a git command that takes the guard's files
	// out of a governed repository's work tree without naming them (git
	// clean and stash of untracked ones, checkout, switch, reset --hard,
	// revert, rebase and worktree add of a revision that lacks them;
	// engine only, governance.go).
	RuleGovernanceRollback = "governance-rollback"
	// RuleUnknownContentsOverGuard: an archive extracted, or a directory's
	// contents copied, into a governed repository's root, a folder holding
	// one or a guard directory (unknowncontents.go).
	RuleUnknownContentsOverGuard = "unknown-contents-over-guard"
	// RuleUnknownOperands: a command that changes files given operands
	// from pipeline data in a governed repository (unknowncontents.go).
	RuleUnknownOperands = "unknown-operands"
	// RuleNestedClientHooks: a nested agent client started past its rows or
	// with another engine, or a client's machine-wide settings written
	// (nestedclients.go).
	RuleNestedClientHooks = "nested-client-hooks"
	// RuleShellStartupWrite: a shell start-up file written (words.go
	// shellStartupPath).
	RuleShellStartupWrite = "shell-startup-write"
	// RuleGitPlumbing: git plumbing past the commit or push hooks, or index
	// input that cannot be read (gitplumbing.go).
	RuleGitPlumbing = "git-plumbing"
	// RulePatchUnreadable: a patch (git apply, GNU patch, apply_patch) whose
	// text cannot be read, so the paths it writes are unknown (patches.go).
	RulePatchUnreadable = "patch-unreadable"
	// RuleHookManagerUninstall: lefthook, pre-commit or husky uninstall.
	RuleHookManagerUninstall = "hook-manager-uninstall"
	// RulePrivilegeEscalation: sudo, doas, pkexec, run0, su -c, runas, gsudo,
	// Start-Process -Verb RunAs at command position.
	RulePrivilegeEscalation = "privilege-escalation"
	// RuleForgeAdminMerge: gh pr merge --admin, the REST merge endpoint, the
	// GraphQL mergePullRequest mutation.
	RuleForgeAdminMerge = "forge-admin-merge"
	// RuleGitDynamicOption: a command substitution, an unquoted expansion or
	// a quoted expansion of a variable the command does not set in option
	// position of a hook-running git subcommand (engine only).
	RuleGitDynamicOption = "git-dynamic-option"
	// RuleDecodedCodeToShell: decoded or unescaped text run by a shell or
	// an interpreter (the engine judges every form; the text pattern only
	// base64/xxd/openssl decoding piped straight into a shell or
	// interpreter).
	RuleDecodedCodeToShell = "decoded-code-to-shell"
	// RulePowerShellDynamic: PowerShell code builds a hook-relevant
	// command's words at run time (engine only; powershell.go).
	RulePowerShellDynamic = "powershell-dynamic"
	// RuleCodeDynamic: interpreter code runs a command, evaluates code or
	// writes a path known only at run time while it names a hook-sensitive
	// word (engine only; codescan.go).
	RuleCodeDynamic = "code-dynamic"
	// RuleScriptUnknown: a script or task-runner recipe the command runs
	// whose content cannot be read where it could change the verdict
	// (engine only; scripts.go).
	RuleScriptUnknown = "script-unknown"
	// RuleOutputAsCode: a program's output known only at run time is run as
	// shell code (eval "$(prog)", prog | sh, source <(prog)) (engine only;
	// eval.go evalDynOut).
	RuleOutputAsCode = "output-as-code"
	// RuleIndirectionUnjudgeable: an encoding that cannot be decoded, a git
	// alias known only at run time, or a defect caught while judging (engine
	// only, no text pattern).
	RuleIndirectionUnjudgeable = "indirection-unjudgeable"
	// RuleEnvLefthookDisabled: CheckEnvironment's deny.
	RuleEnvLefthookDisabled = "env-lefthook-disabled"
)

// Scan bounds. A command longer than MaxCommandBytes bytes (UTF-8), or with
// one line ("\n"-separated, before any normalisation) longer than MaxLineBytes
// bytes, is denied with RuleScanBoundCommand or RuleScanBoundLine; it is never
// truncated. Renderers must count UTF-8 bytes, not characters.
const (
	MaxCommandBytes = 64 * 1024
	MaxLineBytes    = 2 * 1024
)

// MaxTargetOperands bounds the directory operands (cd, pushd, git -C,
// --git-dir, --work-tree, GIT_DIR/GIT_WORK_TREE, env -C) the engine resolves
// in one command to find the repositories it acts in; more is denied with
// RuleScanBoundTargets (ScanTargets).
const MaxTargetOperands = 256

// MaxReasonBytes caps every refusal text (internal/reason, DESIGN.md
// conventions).
const MaxReasonBytes = reason.MaxBytes

// Substitution is one step of the text normalisation: every match of Pattern
// (a regular expression valid alike in RE2, Python re and JavaScript RegExp)
// in the command is replaced by Replacement (a literal, no group references),
// left to right and non-overlapping (Python re.sub, JS replace with the g
// flag, Go ReplaceAllLiteralString). Why documents the step.
type Substitution struct {
	Pattern     string
	Replacement string
	Why         string
}

type ruleData struct {
	ID       string   `json:"id"`
	Kind     string   `json:"kind"`
	Why      string   `json:"why"`
	Instead  string   `json:"instead"`
	Pattern  string   `json:"pattern"`
	Requires []string `json:"requires"`
}

type rulesFile struct {
	Normalise []struct {
		Pattern     string `json:"pattern"`
		Replacement string `json:"replacement"`
		Why         string `json:"why"`
	} `json:"normalise"`
	Fragments map[string]string `json:"fragments"`
	Rules     []ruleData        `json:"rules"`
	Operator  struct {
		Why     string `json:"why"`
		Instead string `json:"instead"`
	} `json:"operator"`
}

// catalog is the parsed rules file. It is immutable once built; its
// patterns are expanded on first use (expanded), since a deny needs only the
// wording and the expansion is most of the parse (measured: about 70% of
// BenchmarkCatalogParse).
type catalog struct {
	rules     []ruleData // patterns as written, with {fragments}
	byID      map[string]ruleData
	normalise []Substitution
	opWhy     string
	opInstead string
	// expanded returns rules with every pattern expanded, computed once.
	expanded func() ([]ruleData, error)
}

// loadCatalog parses the embedded rules file once per process; the result is a
// pure function of embedded data and never changes afterwards.
var loadCatalog = sync.OnceValues(parseCatalog)

// parseCatalog parses and expands the embedded rules file.
func parseCatalog() (*catalog, error) {
	var f rulesFile
	if err := json.Unmarshal(rulesJSON, &f); err != nil {
		return nil, fmt.Errorf("policy: rules.json: %w", err)
	}
	c := &catalog{byID: map[string]ruleData{}, opWhy: f.Operator.Why, opInstead: f.Operator.Instead}
	for _, n := range f.Normalise {
		c.normalise = append(c.normalise, Substitution{Pattern: n.Pattern, Replacement: n.Replacement, Why: n.Why})
	}
	for _, r := range f.Rules {
		if _, dup := c.byID[r.ID]; dup {
			return nil, fmt.Errorf("policy: rules.json: duplicate rule id %s", r.ID)
		}
		c.rules = append(c.rules, r)
		c.byID[r.ID] = r
	}
	c.expanded = sync.OnceValues(func() ([]ruleData, error) {
		out := make([]ruleData, len(c.rules))
		for i, r := range c.rules {
			if r.Pattern != "" {
				p, err := expandPattern(r.Pattern, f.Fragments)
				if err != nil {
					return nil, fmt.Errorf("policy: rules.json: rule %s: %w", r.ID, err)
				}
				r.Pattern = p
			}
			out[i] = r
		}
		return out, nil
	})
	return c, nil
}

// expandPattern replaces {NAME} fragments (repeatedly, they may nest) and then
// {ci:text} case-insensitive literals.
func expandPattern(p string, frags map[string]string) (string, error) {
	for range 8 {
		var out strings.Builder
		changed := false
		for {
			i := strings.IndexByte(p, '{')
			if i < 0 {
				out.WriteString(p)
				break
			}
			j := i + 1
			for j < len(p) && p[j] >= 'A' && p[j] <= 'Z' {
				j++
			}
			if j == i+1 || j >= len(p) || p[j] != '}' {
				out.WriteString(p[:i+1])
				p = p[i+1:]
				continue
			}
			v, ok := frags[p[i+1:j]]
			if !ok {
				return "", fmt.Errorf("unknown fragment %s", p[i:j+1])
			}
			out.WriteString(p[:i])
			out.WriteString(v)
			p = p[j+1:]
			changed = true
		}
		p = out.String()
		if !changed {
			break
		}
	}
	var b strings.Builder
	for {
		i := strings.Index(p, "{ci:")
		if i < 0 {
			b.WriteString(p)
			return b.String(), nil
		}
		j := strings.IndexByte(p[i:], '}')
		if j < 0 {
			return "", fmt.Errorf("unterminated {ci:")
		}
		b.WriteString(p[:i])
		for _, r := range p[i+4 : i+j] {
			switch {
			case r >= 'a' && r <= 'z':
				b.WriteString("[" + string(r-32) + string(r) + "]")
			case r >= 'A' && r <= 'Z':
				b.WriteString("[" + string(r) + string(r+32) + "]")
			case r == '.':
				b.WriteString(`\.`)
			default:
				b.WriteRune(r)
			}
		}
		p = p[i+j+1:]
	}
}

func mustCatalog() *catalog {
	c, err := loadCatalog()
	if err != nil {
		// The rules file is embedded and covered by tests; a broken one is a
		// build defect, not a runtime condition.
		panic(err)
	}
	return c
}

// TextRules returns the built-in text rules in priority order (the first that
// matches decides), with every {fragment} and {ci:} macro expanded. Each
// Pattern is meant to be searched (not anchored) in the command after
// Normalisations() and after the scan bounds; it uses only constructs that mean
// the same in RE2, Python re and JavaScript RegExp (no \s \b \w \d ., no
// lookaround, backreferences or inline flags), and no flags are needed. No
// match spans a newline, so searching each "\n"-separated line of the
// normalised command gives the same answer as searching the whole. Requires
// lists literals of which at least one occurs, ASCII-lowercased, in any line
// the pattern matches: a renderer may skip the search on lines holding none.
func TextRules() []TextRule {
	rules, err := mustCatalog().expanded()
	if err != nil {
		panic(err) // embedded data covered by tests, as in mustCatalog
	}
	var out []TextRule
	for _, r := range rules {
		if r.Kind == "text" {
			out = append(out, TextRule{ID: r.ID, Pattern: r.Pattern, Why: r.Why, Instead: r.Instead, Requires: append([]string(nil), r.Requires...)})
		}
	}
	return out
}

// Normalisations returns the substitutions, in order, that turn a command into
// the text the text rules search: backslash-newline joining and quote removal.
func Normalisations() []Substitution {
	return append([]Substitution(nil), mustCatalog().normalise...)
}

// RuleIDs returns every built-in rule id in priority order (operator rules,
// "operator:<layer name>:<line>", come after all of them).
func RuleIDs() []string {
	c := mustCatalog()
	out := make([]string, 0, len(c.rules))
	for _, r := range c.rules {
		out = append(out, r.ID)
	}
	return out
}

// Refusal returns the refusal text "[BLOCKED BY hookwarden:<id>] <why>; <instead>"
// for a built-in rule id, capped at MaxReasonBytes; ok is false for an unknown id.
func Refusal(id string) (reason string, ok bool) {
	r, ok := mustCatalog().byID[id]
	if !ok {
		return "", false
	}
	return refusal(id, r.Why, r.Instead), true
}

func refusal(id, why, instead string) string {
	return reason.Cap("[BLOCKED BY hookwarden:" + id + "] " + why + "; " + instead)
}
