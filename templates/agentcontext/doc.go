// Package agentcontext compiles a repository's AGENTS.md into the instruction
// files each agent client reads (CLAUDE.md, GEMINI.md,
// .github/copilot-instructions.md, .cursor/rules/agents.mdc) and into the
// read-only projection AGENTS.readonly.md, which drops every instruction to
// change the repository. It lives in templates/agentcontext/; import it as
// agentcontext (the directory name would shadow the standard context package).
//
// The flow is Compile (read everything, decide every file, write nothing) →
// Verify (compare the plan with the disk) or Apply (write the plan's changed
// files atomically). The projection rules are data: rules.json, embedded.
package agentcontext
