package spawn

import (
	"errors"
	"fmt"
)

// Reason is the stable code of one refusal kind. Orchestrators match on it;
// the set only grows.
type Reason string

// Refusal reasons, one per kind of refusal listed in issue 8.
const (
	ReasonEngineNoRenderer      Reason = "engine-no-renderer"     // engine is neither claude nor codex
	ReasonEngineWrapper         Reason = "engine-wrapper"         // argv[0] is a wrapper such as env, not the engine
	ReasonEngineNotFound        Reason = "engine-not-found"       // binary cannot be resolved to an executable file
	ReasonEngineVersion         Reason = "engine-version"         // the --version probe failed or printed no version
	ReasonRegistryUnreadable    Reason = "registry-unreadable"    // hooks/agents.json exists but cannot be read
	ReasonRegistryInvalid       Reason = "registry-invalid"       // hooks/agents.json is not a version-1 registry
	ReasonLibraryUnreadable     Reason = "library-unreadable"     // hooks/library.json cannot be read (or is absent while attached to)
	ReasonLibraryInvalid        Reason = "library-invalid"        // hooks/library.json is not valid
	ReasonHookUnknown           Reason = "hook-unknown"           // an attachment names an entry the library lacks
	ReasonLayerInvalid          Reason = "layer-invalid"          // a profile or operator layer file is unreadable or invalid
	ReasonRequirementUnreadable Reason = "requirement-unreadable" // HOOKWARDEN_HOOKS_REQUIREMENT names a missing/unreadable file
	ReasonRequirementInvalid    Reason = "requirement-invalid"    // the requirement is not absolute or not valid JSON of version 1
	ReasonRequirementNoRegistry Reason = "requirement-registry-absent"
	ReasonRequirementElsewhere  Reason = "requirement-registry-elsewhere"
	ReasonRequirementMissing    Reason = "requirement-attachment-missing"
	ReasonRequirementWeakened   Reason = "requirement-attachment-weakened"
	ReasonApprovalMissing       Reason = "approval-missing"     // no approval for the final argv
	ReasonApprovalStale         Reason = "approval-stale"       // approved, but resolved path or content digest changed
	ReasonApprovalsUnreadable   Reason = "approvals-unreadable" // approvals.json cannot be read or parsed
	ReasonEventUnknown          Reason = "event-unknown"        // not a hookwarden spawn event (includes post_response)
	ReasonEventNotRendered      Reason = "event-not-rendered"   // the engine table at this version has no such event
	ReasonCapabilityMissing     Reason = "capability-missing"   // a `requires` capability the table lacks
	ReasonArgvEmpty             Reason = "argv-empty"
	ReasonHookNotUTF8           Reason = "hook-not-utf8" // a Codex hook command or matcher is not valid UTF-8 (no TOML string holds it)
	ReasonArgv0Relative         Reason = "argv0-relative"
	ReasonArgv0NotExecutable    Reason = "argv0-not-executable"
	ReasonTimeoutInvalid        Reason = "timeout-invalid"     // timeout absent, not a number, or not positive
	ReasonPinMissing            Reason = "pin-missing"         // a required entry without a pin
	ReasonPinIncomplete         Reason = "pin-incomplete"      // the pin leaves out an absolute file its argv names
	ReasonPinMismatch           Reason = "pin-mismatch"        // a pinned file's SHA-256 differs
	ReasonPinFileMissing        Reason = "pin-file-missing"    // a pinned file is absent
	ReasonWritableByOthers      Reason = "writable-by-others"  // a trusted file or its directory is group/world writable
	ReasonLegacyCommand         Reason = "legacy-command"      // a legacy `command` string attached by the registry or a profile
	ReasonCallerHooks           Reason = "caller-hooks"        // the caller brings hooks (settings, -c hooks, plugin dir, trust bypass)
	ReasonSettingsKey           Reason = "settings-key"        // a caller settings key outside the table's settings_keys
	ReasonSettingSources        Reason = "setting-sources"     // a non-empty caller --setting-sources
	ReasonCodexProjectLayer     Reason = "codex-project-layer" // a .codex layer between cwd and project root declares hooks/MCP/other keys
	ReasonCodexLayersUnknown    Reason = "codex-layers-unknown"
	ReasonRedaction             Reason = "redaction-unsupported"   // a complete redaction entry passed every check; its spawn-time runtime is not built
	ReasonRedactionIncomplete   Reason = "redaction-incomplete"    // a redaction entry held on some of agent_prompt, pre_tool, post_tool, the engine's Stop, agent_exit, not all
	ReasonRedactionPromptFile   Reason = "redaction-prompt-file"   // under a redaction entry, a prompt-file flag or an @-mention in the prompt of an existing path (the engine would read the file itself)
	ReasonRunDirInsecure        Reason = "run-dir-insecure"        // under a redaction entry, run/hooks, run or the home is not the account's, or run/hooks is not 0700
	ReasonRunDirInWorktree      Reason = "run-dir-in-worktree"     // under a redaction entry, the run directory's real path or an ancestor holds .git, or cannot be checked
	ReasonRedactionResume       Reason = "redaction-resume"        // under a redaction entry, a native resume no run record ties to this baseline (-c, --continue, --fork-session, --from-pr, --teleport, --resume without an id or of a session unrecorded, recorded under another baseline or cwd, or whose transcript changed or holds a table value)
	ReasonRedactionMCP          Reason = "redaction-mcp-unproxied" // under a redaction entry, an MCP server that cannot be put behind the run's proxy (not stdio or HTTP, unknown members, an unreadable config, a repeated or rewritten name, no hookwarden-mcp-proxy installed)
	ReasonRedactionArgv         Reason = "redaction-argv"          // under a redaction entry, an engine option spawn exec cannot place (model input it cannot see)
	ReasonRedactionTools        Reason = "redaction-tools"         // under a redaction entry, a caller option that would offer a tool outside the mediated routes (--tools, --allowedTools naming another tool, --agent, an --agents entry widening tools or carrying servers, hooks or a permission mode)
	ReasonRedactionPosture      Reason = "redaction-posture"       // under a redaction entry, a caller flag or settings key that would widen the permission posture the render sets (--allowedTools, --dangerously-skip-permissions, --permission-mode other than default, --permission-prompt-tool, --permission-prompts other than none, permissions.allow/ask/defaultMode…)
	ReasonRedactionPromptHook   Reason = "redaction-prompt-hook"   // the agent_prompt hook failed, timed out or replied in another shape
	ReasonRedactionPromptRaw    Reason = "redaction-prompt-raw"    // a text the agent_prompt hook returned still holds a table value
	ReasonRedactionSchema       Reason = "redaction-schema-value"  // the output schema (--json-schema) holds a table value
	ReasonRedactionTable        Reason = "redaction-table-invalid" // after agent_prompt the table is missing, unreadable, invalid or not this account's 0600 file, or a named value cannot enter it
	ReasonRedactionUpstream     Reason = "redaction-upstream"      // under a redaction entry, a model upstream the tripwire cannot front (a Bedrock, Vertex, Foundry or other cloud provider switch: signed requests; an ANTHROPIC_BASE_URL that is not an http(s) URL; the gateway cannot listen)
	ReasonBaselineWeakened      Reason = "baseline-weakened"       // a later layer removes, narrows, re-argues or disables a required attachment
	ReasonBaselineAddition      Reason = "baseline-addition"       // a later layer adds outside inert_events under a required baseline
	ReasonRunFileExists         Reason = "run-file-exists"
	ReasonRunFileUnwritable     Reason = "run-file-unwritable"
	ReasonCapabilityTable       Reason = "capability-table-invalid"   // a shipped or supplied table does not parse or names another version
	ReasonCompileFailed         Reason = "compile-failed"             // any other compile error (its detail says which); never reported as run-file-unwritable
	ReasonCallerSettings        Reason = "caller-settings-unreadable" // the caller's --settings file cannot be read (missing, FIFO, too large)
	ReasonAutoFinish            Reason = "auto-finish-unsupported"    // --auto-finish on an argv it cannot continue (not claude -p with --output-format json or stream-json, an option it cannot place, --no-session-persistence, --input-format stream-json, --from-pr, --teleport)
)

// Refusal is the typed error of a spawn that must not start. Reason is the
// stable code; Detail names the file, hook or key concerned (never a judged
// command) and is capped at 4096 bytes by Error.
type Refusal struct {
	Reason Reason
	Detail string
}

// Error returns "<reason>: <detail>", at most 4096 bytes.
func (r *Refusal) Error() string {
	s := string(r.Reason)
	if r.Detail != "" {
		s += ": " + r.Detail
	}
	if len(s) > 4096 {
		s = s[:4093] + "..."
	}
	return s
}

func refuse(reason Reason, format string, a ...any) *Refusal {
	return &Refusal{Reason: reason, Detail: fmt.Sprintf(format, a...)}
}

// AsRefusal returns the *Refusal in err's chain, or nil.
func AsRefusal(err error) *Refusal {
	var r *Refusal
	if errors.As(err, &r) {
		return r
	}
	return nil
}
