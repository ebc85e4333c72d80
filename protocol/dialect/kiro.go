package dialect

// Kiro CLI facts (documented, not observed: kiro-cli ships as a download
// from kiro.dev, not as a registry package, so no real Kiro ran these rows;
// `hookwarden clients` shows them unverified). Sources, read 2026-12-01:
//
//   - kiro.dev/docs/cli/v3/hooks: hooks in v3 are standalone files
//     .kiro/hooks/<name>.json {"version":"v1","hooks":[{"name":N,
//     "trigger":T,"matcher":M,"action":{"type":"command","command":C},
//     "timeout":30,"enabled":true}]} that "apply across all agents in the
//     workspace"; the matcher of PreToolUse is a regular expression on the
//     tool name; a command action receives the hook context as JSON on
//     stdin and its exit code decides (0 success, 2 blocks PreToolUse and
//     UserPromptSubmit); embedded hooks in agent configuration files
//     (.kiro/agents/*.json, key "hooks") still work during the transition.
//     So our row is a file of ours alone, .kiro/hooks/hookwarden.json
//     (templates.KiroHooksPath): no operator byte is merged into.
//   - kiro.dev/docs/cli/hooks (the agent-configuration hooks, v2): stdin
//     {"hook_event_name":"preToolUse","cwd":D,"tool_name":T,
//     "tool_input":{…}}; exit 2 (PreToolUse only) blocks the tool and
//     STDERR is returned to the LLM; any other non-zero exit is a failed
//     hook whose stderr is shown as a warning and the call goes on (so a
//     launcher that cannot run must exit 2: templates sourcedForm does).
//     The v3 page does not spell out hook_event_name, so the row accepts
//     the v3 trigger name PreToolUse and the v2 name preToolUse.
//   - The shell tool is execute_bash (kiro.dev/docs/cli/chat/permissions),
//     alias shell (kiro.dev/docs/cli/reference/built-in-tools: tool names
//     read, write, shell), its input tool_input.command (git-ai-project/
//     git-ai pull 1302, a Kiro preset reading execute_bash/shell and
//     fs_write/write payloads).
//   - The file-write tool is fs_write (permissions page), alias write
//     (built-in-tools page), its target tool_input.path, relative to the
//     payload's cwd (git-ai pull 1302); the kiro pre-edit row reads path
//     as the edited file. The edit guard does not reproduce fs_write's
//     edits, so an fs_write of a client hook settings file is refused
//     rather than checked row by row; our own files are refused outright.
//   - The Kiro IDE's .kiro/hooks/*.kiro.hook files are another format
//     ({"when":{"type":"preToolUse"},"then":{"type":"runCommand"}}), and a
//     preToolUse runCommand there receives nothing about the tool
//     (kirodotdev/Kiro issue 7408): an IDE hook cannot judge a call, so the
//     IDE is not served.
//
// The rows are decoded by decodeClaudeFamily (hook_event_name, cwd,
// tool_name, tool_input.command or tool_input.path) and answered in the claude column of
// Encode: exit 2 with the reason on stderr.
