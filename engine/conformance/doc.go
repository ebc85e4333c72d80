// Package conformance drives the real agent clients (Claude Code, Codex CLI,
// Gemini CLI, opencode) against scripted model servers on 127.0.0.1, so that
// each client's own hook system runs for real and the suite can check that the
// client called our hook, sent the payload we decode, and honoured our verdict.
// lefthook, which speaks to no model, is run the same way without one
// (lefthook_test.go: `lefthook run <hook>` fed the agent's payload).
//
// Everything here is test code, so no product package can import it: the
// in-process fake model servers (modelserver_test.go), the client recipes and
// the bounded process runner (clientharness_test.go), the Codex hook-trust
// computation (codextrust_test.go) and the cases themselves. The cases run
// only when the pinned clients are found under HOOKWARDEN_CLIENTS_DIR
// (see ../../testdata/clients/FACTS.md for what they measured).
//
// Why a model server of our own beside ../shared/e2e/mock_llm.py, the
// reference harness that spawn, templates/agentcontext and skewguard
// start: that mock (2026-11-29, read-only and outside this repository)
// answers with one call of the client's shell tool whose input is always
// {"command": --command}, then --final-text. The cases here need what it
// cannot script: a file-write call with each client's own write tool and
// arguments (Edit: the pre-edit rows on Claude's Write and Gemini's
// write_file), a sequence of different commands in one run (Commands: a
// denied command, then an allowed one) and the request log as values
// (Requests, MainTurns) rather than a JSONL file. Both speak the same four
// wire APIs; TestScriptedServers holds ours to testdata/mock_cases.json.
//
// Client facts encoded here come from ../shared/e2e/README.md (measured on
// 2026-11-29 against Claude Code 2.1.328, codex-cli 0.169.0, Gemini CLI
// 0.61.0 and opencode 1.18.33) unless a comment names another source.
//
// Facts the suite measured itself (testdata/clients/FACTS.md, each asserted
// by a case of TestClientFacts or TestEngineCases):
//
//   - Codex 0.169.0 runs project hooks only in a trusted project
//     ([projects."<repo>"] trust_level = "trusted") and only for handlers
//     trusted by hash ([hooks.state."<key>"] trusted_hash) or with
//     --dangerously-bypass-hook-trust; without a record the hook is silently
//     skipped and the command runs. No feature switch is needed. An untrusted
//     project also gets a read-only sandbox.
//   - Codex accepts provider, project trust and trust records as -c
//     overrides with no config.toml and with --ignore-user-config, but only
//     when the records are one inline table (-c 'hooks.state={"<key>"={…}}');
//     dotted paths (hooks.state."<key>".trusted_hash=…) are silently lost.
//   - Codex's shell tool is exec_command {"cmd"}; its PreToolUse payload says
//     tool_name "Bash", tool_input {"command"}.
//   - Gemini 0.61.0 needs no enable switch (hooksConfig.enabled false turns
//     hooks off) but needs folder trust headless (else exit 55, nothing runs).
//   - Claude, Codex and Gemini all fail open on a hook that exits 1, prints
//     non-JSON, or outlives its timeout: the command runs. Only exit 2 (or a
//     documented deny JSON) blocks.
//   - opencode runs plugin hooks in sequence and a throw ends the chain.
package conformance
