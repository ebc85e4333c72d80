package dialect

// Factory Droid facts (documented, not observed: the npm package
// @factory/cli 0.225.1 is a loader whose platform package
// @factory/cli-linux-x64 0.225.1 is not on the registry, and its postinstall
// fetches the binary from Factory's own servers, which this machine cannot
// reach; `hookwarden clients` shows the rows unverified). Sources:
//
//   - docs.factory.ai/reference/hooks-reference: hooks in
//     ~/.factory/settings.json, .factory/settings.json and
//     .factory/settings.local.json, in Claude Code's shape
//     {"hooks":{EVENT:[{"matcher":M,"hooks":[{"type":"command","command":C,
//     "timeout":SECONDS}]}]}}; the matcher is case-sensitive, a plain name
//     matches exactly, a regex is allowed, "*" and "" match every tool;
//     commands run from Droid's current working directory ("which may
//     change during execution") with $FACTORY_PROJECT_DIR naming the
//     project.
//   - docs.factory.ai/harness/hooks (newer): hooks live in
//     .factory/hooks.json and ~/.factory/hooks.json; "If hooks.json is
//     absent, Droid also reads hook declarations from the hooks key in the
//     matching settings.json". Factory-AI/factory issue 3 (droid 0.186.0):
//     .factory/hooks.json was never read and only the settings.json hooks
//     key fired. So our rows go into .factory/settings.json, and audit
//     reports a .factory/hooks.json beside it (newer Droids would read that
//     file instead).
//   - The shell tool is Execute (rtk-ai/rtk pull 2267 registers a
//     PreToolUse hook with matcher Execute); the payload and the answers are
//     Claude Code's (tool_name, tool_input.command; exit 2 blocks with
//     stderr as the reason; Stop exit 2 continues), as the reference
//     documents them.
//   - The file tools are Create (a new or overwritten file) and Edit: the
//     hooks reference (docs.factory.ai/reference/hooks-reference, read
//     2026-12-01) says the matcher "Create" matches only the Create tool
//     and "Edit|Create" both; Droid's tool set is Read, LS, Grep, Glob,
//     Create, Edit, ApplyPatch, Execute, WebSearch, FetchUrl, TodoWrite,
//     Task, AskUser, with Claude's Write mapped to Create and MultiEdit to
//     Edit (EveryInc/compound-engineering-plugin,
//     src/converters/claude-to-droid.ts). Their PreToolUse input names the
//     target as tool_input.file_path (the reference's PreToolUse input
//     example: tool_input {file_path, content}); nothing documents Edit's
//     other members, so the edit guard does not reproduce a Droid edit: an
//     edit of a file holding our rows is refused whole (engine/editguard),
//     other files are judged by their path. The pre-edit row matches
//     ^(Create|Edit|MultiEdit|ApplyPatch)$ (MultiEdit in case a Droid
//     offers it; matchers are case-sensitive). A Create or Edit without a
//     string tool_input.file_path is invalid input (a deny).
//   - ApplyPatch (offered to some models; `droid exec --enabled-tools
//     ApplyPatch`, docs.factory.ai/reference/cli-reference) carries a
//     patch text naming its files, not a file_path; its input members are
//     not documented, so the patch is found by its apply_patch envelope and
//     every file it names is judged (applypatch.go); a call whose patch
//     cannot be found or read is a deny.
//   - UserPromptSubmit carries Claude's common members and prompt; on exit
//     0 {"hookSpecificOutput":{"hookEventName":"UserPromptSubmit",
//     "additionalContext":T}} adds T to the context (hooks reference,
//     "UserPromptSubmit Decision Control", read 2026-12-02 as archived in
//     mobasak/fabrik docs/archive/factory-hooks.md), so the prompt row
//     carries the clock line in Claude's form. The same reference: Droid
//     snapshots hooks at startup, so an edit of the settings file's hooks
//     takes effect only after review in /hooks.
//
// The rows are decoded by decodeClaudeFamily and answered as Claude Code's.
