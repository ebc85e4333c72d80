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
//
// The rows are decoded by decodeClaudeFamily and answered as Claude Code's.
