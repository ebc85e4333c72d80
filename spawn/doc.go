// Package spawn is the spawn compiler (issue 8): for one `claude -p` or
// `codex exec` an orchestrator starts, it compiles the hooks that process
// must run from one registry with additive layers, isolates the engine from
// every other hook source, and refuses the spawn before it starts when it
// cannot deliver what the registry requires.
//
// # Files
//
// Under the home (HOOKWARDEN_HOME, default ~/.hookwarden):
//
//	hooks/library.json   {"version":1,"entries":{name:{description,argv:[abs argv0,…],pin:{abs path:sha256 hex},timeout:seconds}}}
//	                     a legacy {"command":"…"} entry is readable; only the operator layer may attach it
//	hooks/agents.json    the registry {"version":1,"attachments":[{hook,event,matcher?,required?,engines?,args?,requires?}]}
//	approvals.json       {"version":1,"approvals":[{argv_hash,argv,path,digest}]}; argv_hash = SHA-256 of
//	                     Python's json.dumps(argv) (PyJSONArgv), path = argv0 resolved, digest = "sha256:<hex>" of it
//	run/hooks/<run id>.settings.json   Claude's per-run settings (0600, exclusive), removed when the run ends
//	run/sessions/<session id>.json    the run record of a session whose runs passed agent_exit under a redaction entry
//	                                   (0600 in a 0700 directory): {version,engine,session_id,baseline,table_sha256,cwd,
//	                                   transcript,transcript_sha256,receipted_tool_calls,recorded}; a native resume is checked against it
//	run/hooks/<run id>.lock            spawn exec's hold on its run: flock'ed for the run's life, {"version":1,"pid","started"};
//	                                   the next spawn exec sweeps the files of a run whose lock is free (sweep.go)
//	cache/engine-versions.json         --version probe results keyed by path, device, inode, size, mtime, ctime
//
// The requirement file is named only by HOOKWARDEN_HOOKS_REQUIREMENT
// (absolute): {"version":1,"registry":"/abs/…/hooks/agents.json","mandatory":[{hook,event,matcher?,args?,engines?}]}.
// Profile and operator layers (--profile, --operator) have the registry's
// shape; they may not mark attachments required and only add: a
// "disable":true in any layer refuses (ADR-0134 D1; an attachment that
// should not run is deleted from the file that attaches it).
//
// Every file the compiler reads (registry, library, approvals, layers,
// requirement, a caller's --settings file, a Codex project config.toml, the
// version cache) is read through internal/regread: at most
// MaxHomeFileBytes, a FIFO, socket, device or directory refused at once
// without blocking. Pinned files and approved executables are opened
// non-blocking and fstat'ed before they are hashed. The writable-by-others
// check covers a trusted file and every directory above it (sticky
// directories such as /tmp excepted), on the path as written and on its
// real path, and an owner other than this account or root counts as
// another writer. approvals.json is updated under a lock file
// (approvals.json.lock) and compared before the rename, so a concurrent
// writer's change is never overwritten; `trust approve --all` approves only
// argvs with no approval, never one whose executable changed.
//
// # Compile
//
// Layers apply registry < profile < operator; an attachment equal in hook,
// event, matcher and final argv to an earlier one collapses into it. The
// registry's required attachments are the baseline: a later layer that
// names a baseline hook on its event with another matcher, other args,
// fewer engines or disable refuses (baseline-weakened), and under a
// baseline a later layer may add only on the table's inert_events
// (baseline-addition). {engine} in args is the only substitution.
//
// A capability table (capabilities/<engine>-<version>.json) holds only what
// the real-client suite observed at that exact version; a version without a
// table renders no event, so any attachment for it refuses. The shipped
// tables list pre_tool (deny observed) and the engine's Stop for
// Claude Code 2.1.328 and codex-cli 0.169.0, and post_tool for both
// and post_tool.block for both (TestRealClaudePostToolBlock: Claude's
// {"decision":"block"} alone does not withhold the result, but the redact
// hook's hookSpecificOutput.updatedToolOutput replaces it with the
// tokenised result the model then receives; TestRealCodexPostToolBlock:
// Codex's block replaces it with the reason); Claude's settings_keys holds
// only the sub-key "permissions.deny" (TestRealClaudeCallerPermissions: a
// caller's permissions.deny ["Bash"] merged into the run file withholds
// Bash from the model). A key listed only by sub-keys is merged when it is
// an object all of whose sub-keys are listed, so permissions.allow,
// permissions.ask, permissions.defaultMode or additionalDirectories, which
// widen what the engine may do, refuse (settings-key). project_layer_keys
// and inert_events are empty because nothing was measured for them. Each
// key maps to the source of its observation.
//
// # Claude Code 2.1.328
//
// The render appends --setting-sources "" --strict-mcp-config --settings
// <run file>; the run file holds only the compiled hooks, each argv joined
// with POSIX shell quoting (the table has no exec form). Measured by
// TestRealClients/claude on 2026-11-29: hooks planted in
// $CLAUDE_CONFIG_DIR/settings.json and in the repository's
// .claude/settings.json run in a control run without spawn and do not run
// under spawn; the registry hook runs, its exit-2 deny reaches the model
// and the tool does not run; the hook's parent process carries the
// rendered flags. A caller's --settings is merged only for settings_keys,
// a caller's hooks or a non-empty --setting-sources refuse.
//
// # codex-cli 0.169.0 (measured on 2026-11-29, not yet in testdata/clients/FACTS.md)
//
//   - Hooks given as -c overrides are listed by `codex app-server -c hooks=…`
//     (hooks/list) with source "sessionFlags" and trust keys
//     "/<session-flags>/config.toml:<snake event>:<group>:<handler>"; their
//     currentHash equals CodexTrustHash (the same formula as for files).
//   - A trust record given as a separate dotted override
//     -c 'hooks.state."<key>".trusted_hash=…' left the hook "untrusted";
//     the same record inside one inline layer
//     -c 'hooks={PreToolUse=[…],state={"<key>"={trusted_hash="sha256:…"}}}'
//     made it "trusted". The render therefore emits exactly one -c with
//     hooks and state together.
//   - With --ignore-user-config and that one -c layer, `codex exec` ran the
//     inline hook (no bypass flag) and honoured its exit-2 deny ("Command
//     blocked by PreToolUse hook: …" in the model's next request). A hook in
//     $CODEX_HOME/config.toml and one in $CODEX_HOME/hooks.json, both
//     trusted by records in that config.toml (and run in a control run
//     without spawn), did not run (TestRealClients/codex). So -c overrides
//     and --ignore-user-config keep both hooks and trust working.
//   - Project layers: a .codex/hooks.json, or a .codex/config.toml with
//     hooks, mcp_servers or any key outside project_layer_keys, in any
//     directory from cwd up to the project root (nearest .git), refuses
//     the spawn; an unreadable or unparsable layer refuses too.
//   - The version cache stamps node_modules/.bin/codex, a JS launcher that
//     execs a platform binary; replacing only the platform binary does not
//     change the stamp (re-probe by touching the launcher).
//
// # The redaction entry (ADR-0134 D7)
//
// Every child under the entry sends its model requests through the run's
// model-traffic tripwire (issue 30; tripwire.go, spawn/gateway,
// run as `hookwarden-mcp-proxy gateway`): a loopback gateway that stops,
// and fails the run (123), any request holding a table value in any form
// the wire matcher knows; the engine's stdout and stderr pass the run's
// matchers (outguard.go); and after agent_exit spawn exec scrubs the
// client's session directory and the engine's CLAUDE_CODE_TMPDIR.
//
// A library entry the registry attaches on agent_prompt or agent_exit is a
// redaction entry; only the registry may attach those events. For the
// spawn's engine it must be held on agent_prompt, pre_tool, post_tool, the
// engine's Stop and agent_exit, pre_tool and post_tool for every tool (no
// matcher or "*"), or on none of them (redaction-incomplete). A spawn
// under it (held on agent_prompt) is refused, in order, for a prompt-file
// flag (redaction-prompt-file), an unsafe run directory (run-dir-insecure:
// the home, run or run/hooks not this account's, the first two writable
// by others, run/hooks not 0700; run-dir-in-worktree: the run directory's
// real path, or any ancestor, holds .git or cannot be checked), an engine
// table without pre_tool.deny, pre_tool.rewrite, pre_tool.fail_closed,
// all_tools_gated and post_tool.block, or listing one under a posture
// (Table.Conditions) spawn exec does not render for the engine
// (capability-missing), a compile
// that does not run the entry (`spawn compile`) or a Codex spawn
// (redaction-unsupported: Codex's session id arrives only on its stream
// and its rollout layout is not recorded).
//
// Shipped tables: pre_tool.rewrite on Claude Code 2.1.328
// (TestRealClaudeRedactShellRoute) and codex-cli 0.169.0
// (TestRealCodexPreToolRewrite); post_tool.block on both
// (TestRealClaudePostToolBlock, TestRealCodexPostToolBlock); Claude Code
// 2.1.328 has pre_tool.fail_closed under the condition
// claude-permission-arbiter (below), codex-cli 0.169.0 does not (it fails
// open on exit 1, bad JSON and a timeout, testdata/clients/FACTS.md).
// Claude Code 2.1.328
// has all_tools_gated (TestRealClaudeAllToolsGated, 2026-12-02): under the
// render's --tools claudeGatedTools every call either reached the pre-tool
// hook or was refused by the engine before any hook in one of the table's
// pre_hook_refusals forms, which spawn exec hands to agent_exit so such a
// call does not fail the run (spawn/redact refusedBeforeHooks); codex
// 0.169.0 has no all_tools_gated. So a Claude Code 2.1.328 spawn under
// the entry runs with the shipped table (TestRealClaudeRedactionRun).
//
// Claude Code 2.1.328 and pre_tool.fail_closed (TestRealClaudePreToolFailClosed,
// testdata/spawn/failclosed-claude-2.1.328.json, 2026-12-01): with the
// render's "onFailure": "block", a pre-tool hook that crashes, times out,
// exits 1, is gone, or answers an unknown permissionDecision or "ask"
// refuses the call under every posture measured. One that exits 0 with no
// decision (garbage, or JSON without one) does not decide, and the bundle's
// hook resolver (bin/claude.exe, the function logging "Hook denied tool use
// for …") hands such a call to canUseTool, Claude's own permission check,
// which allows read-only shell commands ("Read-only command is allowed")
// and Read in the working directories by itself, in every permission mode
// including dontAsk. A Read deny rule also refuses the Read tool in its
// validateInput, before any PreToolUse hook ("File is in a directory that
// is denied by your permission settings."), and an ask rule on Bash turns
// the hook's allow of the rewritten command into a full permission check
// ("Hook returned 'allow' for Bash, but the rule check objected…") that
// -p and dontAsk refuse. So no permission posture alone (default, dontAsk,
// ask or deny rules on Read and Bash) both refuses the undecided call and
// keeps the Read and shell routes. With permissions.ask ["*"] in default
// mode, a PermissionRequest hook that allows only the shell route's
// rewritten command let that command run and refused every other call
// (Bash, Read, ToolSearch, Agent), and one printing garbage left -p
// refusing (TestRealClaudePermissionRequestArbiter). That is the entry's
// posture (render.go renderPosture): the run file sets permissions.ask
// ["*"] and defaultMode default beside the caller's permissions.deny, a
// PermissionRequest handler with the entry's pre-tool command (the same
// argv, approval and pin; spawn/redact answers a PermissionRequest
// payload as the arbiter, Permission), and the argv ends with
// --permission-mode default --permission-prompts none (no SDK host or
// prompt tool answers what the arbiter leaves undecided); a caller flag or settings key that would
// widen it refuses (redaction-posture, claudePostureFlags,
// checkPostureKey). Under it every injected failure, garbage and JSON
// without a decision included, refused touch, cat, Read, git log and pwd,
// and the Read and shell routes delivered tokens (the record's arbiter
// row, 2026-12-02), so the table grants pre_tool.fail_closed with
// conditions {"pre_tool.fail_closed": "claude-permission-arbiter"}:
// capabilityGap counts it only for a Claude spawn under the entry, and an
// attachment outside the entry requiring it is capability-missing.
//
// The runtime (execRedacted, Claude): the caller's argv is read with
// Claude Code 2.1.328's option list (redactargs.go); any option outside
// the list refuses (redaction-argv); one that would offer the engine a
// tool outside claudeGatedTools, which the render passes as --tools
// (a caller --tools or --allowedTools naming another tool, --agent, an
// --agents entry with other tools or with servers, hooks or a permission
// mode), refuses (redaction-tools); and so does a native resume
// (redaction-resume: -c, --continue, --fork-session, --from-pr,
// --teleport, --resume without a session id) except `--resume <id>` / `-r
// <id>` of a session whose run record (resume.go) shows that its runs
// passed agent_exit under the same redaction baseline (engine, version and
// every hook of the entry by event, matcher, argv, timeout and argv[0]'s
// content digest), in the same working directory, with the transcript
// this spawn derives still holding the bytes agent_exit passed and none of
// this run's table values. A resumed run passes no --session-id, starts
// its receipts with the record's receipted tool calls (route "resumed"),
// and its agent_exit scans the whole continued transcript; a run that
// passes writes the record, one that fails removes it. The caller's --mcp-config values (JSON strings or files) are the
// run's complete MCP server set (the render's --strict-mcp-config stays):
// each server must be stdio or streamable HTTP with only the members the
// proxy keeps (command, args, env; url, headers) under a name of
// [A-Za-z0-9_-]{1,64}, given once, and hookwarden-mcp-proxy must be
// installed beside hookwarden (ExecOptions.MCPProxy); anything else refuses
// (redaction-mcp-unproxied) before any hook runs. The caller's
// --mcp-config arguments are left out of the engine's argv and one
// --mcp-config <run id>.mcp.json takes their place, naming per server a
// stdio command that starts the proxy (`hookwarden-mcp-proxy --engine
// claude --server NAME --mcp-config <run id>.mcp-upstream.json`, the run's
// table and receipts in its configured env); the upstream file holds the
// caller's servers as given (spawn/mcpconfig RunConfig), so headers and
// env never enter an argv; their credential-named env and header values
// join the table's named part (mcpSecrets). Beside the render it creates <run
// id>.table.json (empty), .receipts.jsonl (empty) and .policy.json
// ({"version":1,"allow":[cwd's real path, --add-dir…],"deny":[run/hooks],
// "mcp_servers":[name…]}) and the two MCP files, each exclusive and 0600,
// and passes the first three paths to every hook in HOOKWARDEN_HOOK_TABLE,
// _RECEIPTS and _POLICY; the MCP files are compared with their bytes at the
// exit like the table. agent_prompt gets {"version":1,"run_id","engine","child":n,
// "texts":[{channel,text}]} (channels prompt, system_prompt,
// append_system_prompt, agents.<name>.description, agents.<name>.prompt)
// and must exit 0 within its timeout with {"texts":[…]} of the same
// channels in order (redaction-prompt-hook; the refusal shows none of the
// hook's stderr except one of `hookwarden redact`'s usage messages on exit
// 2, redact.UsageMessage, a constant holding no input). The table it wrote must be
// this account's valid 0600 file (redaction-table-invalid); spawn exec adds
// the named part (declared --secret-name variables at any length;
// variables, assignment arguments and the argument after one whose text
// matches key|token|secret|password|passwd|auth|credential, case-blind,
// from eight bytes) under tokens minted from the name, writes the table
// through a temporary file and a rename, and refuses a returned text that
// still holds a value (redaction-prompt-raw) or a --json-schema holding
// one (redaction-schema-value). It chooses the session id (--session-id,
// unless the caller passed one), spawns with the returned texts and an
// empty stdin, and when the engine exits compares the table, read policy
// and render with its bytes (a difference fails the run; its bytes are
// written back), checks that no receipt names a transcript other than the
// derived <CLAUDE_CONFIG_DIR or $HOME/.claude>/projects/<slug of cwd>/<session
// id>.jsonl, and fires agent_exit with {"version":1,"run_id","engine",
// "child":n,"table_sha256","exit":{"code"}|{"signal"},"session_id",
// "transcript"}, shielded from cancellation, under its timeout. A failure
// after the spawn exits RunFailedExit (123) with *RunFailure. The hook
// itself ships as `hookwarden redact` (spawn/redact).
//
// # The continuation (--auto-finish)
//
// `spawn exec --auto-finish PROMPT -- claude -p … --output-format
// json|stream-json` (ExecOptions.AutoFinish, continuation.go) is ADR-0134
// D3/D4's auto_finish: one run with a second child when the first did not
// finish. spawn exec reads child 1's stdout as it passes to the caller and
// keeps its last result object (Claude Code 2.1.328's
// {"type":"result","subtype":…,"session_id":…}; one line under json, the
// last element of the array under json --verbose, the last result line of
// stream-json). Only the subtype error_max_turns starts child 2
// (measured: `--max-turns 1` after a tool call ends with it and exit 1);
// success, a budget stop, an execution error, no result, a session id
// that is not a UUID, a cancelled context or a SIGINT, SIGTERM or SIGHUP to
// spawn exec (relayed to a running child; caught for the whole run, so one
// between the children ends it after the cleanup) end the run with child
// 1's code. Child 2's argv is child 1's options as the caller wrote them
// minus --session-id, -r/--resume, -c/--continue and --fork-session, and
// minus the prompt, then `--resume <child 1's session> -- PROMPT`, with
// the same render file (no second compile, no second file) and an empty
// stdin; there is never a third child, and the run's exit code is child
// 2's. The session is known before child 1 starts: under the entry spawn
// exec chooses it (D4), and without it child 1 gets --session-id with a
// fresh id unless the caller's argv names one (--session-id, --resume
// <id>) or leaves it to the engine (--continue, --fork-session: then the
// result's id is taken); a result naming another session fails the run
// and starts no child 2. Child 1's stdout reaches the caller through a
// pipe then, closed engineIODelay (5 s) after the engine exits, so a
// process it left holding that pipe does not hold the run. Refused before anything is compiled (auto-finish-unsupported): an
// engine other than claude, a blank prompt, an argv without -p or without
// --output-format json or stream-json, --no-session-persistence,
// --input-format stream-json, --from-pr, --teleport, and any option
// outside redactargs.go's Claude Code 2.1.328 list (a value spawn exec
// cannot tell from a prompt). Without a redaction entry, spawn exec
// compares the render's bytes, owner and mode with what the compile wrote
// before child 2; a difference fails the run (123, *RunFailure) and
// child 2 does not start.
//
// Under a redaction entry each child follows D7's order (redactRun.child,
// redactRun.exit): child 2 starts only when child 1's agent_exit passed;
// before its spawn spawn exec compares every held file (table, read
// policy, render, the MCP files) with its bytes, owner and mode, and a
// difference (an edit, a widened mode) fails the run; agent_prompt runs
// with "child":2 on every model-input text of child 2's argv (the
// continuation's prompt, the system prompt, its appendix, the agents');
// the table is never read from disk again: spawn exec adds the named part
// of child 2's environment and argv that the held table lacks and writes
// the table from memory; the prompt and schema checks run against the
// whole table, and so does a check of the session's transcript, which
// the engine loads and which child 1's agent_exit scanned against the
// table as it was then (a hit is scrubbed, since no agent_exit follows
// for a child that never started, and fails the run: redaction-resume;
// spawn/redact ScrubTranscript, the exit hook's own scrub); child 2
// gets --resume and no --session-id; agent_exit fires with "child":2 and
// the digest of the table as last written. Any failure of either child
// fails the one run (123), removes the session's run record and starts no
// further child; a run whose children passed writes the record once, after
// child 2. A failure before child 2's spawn is a run failure naming
// "child 2: <reason>", not a refusal: child 1 already ran.
//
// # Refusals
//
// Every refusal is a *Refusal with a stable Reason (refusal.go); the
// fixtures in testdata/spawn/refusals hold one home per refusal kind.
// Compile creates its only file (Claude's run file) after every check, so a
// refusal leaves nothing behind; Exec removes the run file when the engine
// exits. Exec refuses a wrapper (argv[0] not named claude or codex) and
// caller hook sources: Claude --plugin-dir, and --bare, --safe-mode,
// CLAUDE_CODE_SIMPLE or CLAUDE_CODE_SAFE_MODE in the environment (each
// turned a --settings hook off, TestRealClaudeHookSwitches); Codex config overrides of
// hooks…, profile, profiles…, the features table or features.hooks /
// codex_hooks / plugin_hooks, a profile (-p/--profile), --enable or
// --disable of those features, and --dangerously-bypass-hook-trust, in
// every spelling codex-cli 0.169.0's clap parser accepts ("-c K=V",
// "-cK=V", "-c=K=V", "--config K=V", "--config=K=V"; the same for -p,
// --profile, --enable and --disable). Long options are not abbreviated
// there: `--conf`, `--prof` and `--enab` are rejected as unexpected
// arguments. Measured 2026-12-01 with `codex … features list`, which
// showed -c=features.hooks=false, -cfeatures.hooks=false,
// -c 'features={hooks=false}', --disable=hooks and --disable codex_hooks
// each turning the hooks feature off. A compile error that is not a
// listed refusal is compile-failed or capability-table-invalid, never
// run-file-unwritable.
package spawn
