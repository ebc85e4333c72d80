package dialect

// Qwen Code facts (observed on @qwen-code/qwen-code 0.24.4 from the npm
// registry, run under Node 22.23.3 (the `node` package; the CLI declares
// node >= 22 and made no model request under Node 20) against the loopback
// chat-completions model with --auth-type openai --openai-base-url; the
// payloads are in testdata/clients/qwen/0.24.4/ and engine/conformance
// TestRealQwen replays the rows):
//
//   - Hooks come from .qwen/settings.json of the session's start directory
//     (bundle loadSettings(workspaceDir = process.cwd())) and
//     ~/.qwen/settings.json, in Claude Code's shape
//     {"hooks":{EVENT:[{"matcher":M,"hooks":[{"type":"command","command":C,
//     "timeout":SECONDS}]}]}}; the file is read with strip-json-comments
//     after a UTF-8 BOM is stripped (comments and a BOM are fine; a trailing
//     comma fails JSON.parse, and a workspace file that fails to parse is
//     skipped). A top-level "disableAllHooks": true switches every hook off
//     (settings schema: "Temporarily disable all hooks").
//   - A command hook runs as `bash -c COMMAND` with cwd the payload's cwd
//     (the session directory, also below the root) and GEMINI_PROJECT_DIR,
//     CLAUDE_PROJECT_DIR and QWEN_PROJECT_DIR all set to that directory
//     (bundle executeCommandHook); the timeout is in seconds (values from
//     the legacy millisecond range are read as milliseconds).
//   - PreToolUse stdin is Claude's shape plus an ISO 8601 "timestamp":
//     {session_id, transcript_path, cwd, hook_event_name, timestamp,
//     permission_mode, prompt_id, tool_name, tool_input, tool_use_id,
//     tool_call_id}; the shell tool is run_shell_command {command, …}, the
//     edit tools edit, write_file and notebook_edit. Exit 2 blocks the call
//     and stderr reaches the model as the tool's result.
//   - Stop stdin adds stop_hook_active and last_assistant_message; exit 2
//     continues the turn with stderr as the next user message, and the next
//     Stop carries stop_hook_active true.
//
// The rows are decoded by decodeClaudeFamily and answered as Claude Code's
// (Encode); Qwen Code does not read .claude/settings.json (no reference to
// it in the bundle), so no Claude row receives its payload.
