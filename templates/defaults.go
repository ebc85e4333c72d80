package templates

// DefaultClients returns, as a new slice, the clients adopt selects when
// neither --clients nor an existing manifest names them: every client
// hookwarden can govern from files inside a repository. Claude, Codex and
// Gemini get rows merged into their settings files; agy and opencode get
// their rendered plugin files. A repository is protected whichever of these
// clients a developer opens it with; an operator narrows the list with
// --clients.
func DefaultClients() []string {
	return []string{"claude", "codex", "gemini", "agy", "opencode"}
}

// GovernableClients returns, as a new slice, every client adopt can govern:
// DefaultClients plus "copilot" (GitHub Copilot CLI: .github/hooks/
// hookwarden.json), which an operator selects with --clients or the
// manifest's clients list. It is not a default yet: Copilot CLI also runs
// Claude Code's rows (protocol/dialect caller.go), so a repository adopted for
// Claude is already guarded under Copilot.
//
// "cursor" (Cursor: our rows merged into .cursor/hooks.json) is opt-in the
// same way: its rows are rendered from Cursor's documented contract and not
// observed on a real Cursor (protocol/dialect cursor.go).
//
// "windsurf" (Windsurf: our rows merged into .windsurf/hooks.json) is
// opt-in and unverified alike (protocol/dialect windsurf.go).
//
// "qwen" (Qwen Code: our rows merged into .qwen/settings.json) is opt-in
// and observed on the real CLI (protocol/dialect qwen.go). "droid" (Factory
// Droid: .factory/settings.json) is opt-in and unverified
// (protocol/dialect droid.go). "kiro" (Kiro CLI: .kiro/hooks/hookwarden.json,
// a file of ours alone) is opt-in and unverified (protocol/dialect kiro.go).
// "cline" (Cline: the executable .clinerules/hooks/PreToolUse, a file of
// ours alone; a deny cancels Cline's whole task) is opt-in and observed on
// the real npm Cline CLI 3.0.65, not on the VS Code extension (protocol/dialect
// cline.go).
// "lefthook" (hookwarden's lefthook jobs: .hookwarden/lefthook.yml, named
// by an extends: entry in the repository's lefthook config; LefthookJobs)
// is opt-in and observed on the real lefthook 2.2.1.
// "devin" (Devin CLI, which Devin Desktop runs: our rows merged into
// .devin/hooks.v1.json, whose events sit at the top level) is opt-in and
// unverified (protocol/dialect devin.go; no Devin package is in the npm
// registry here).
func GovernableClients() []string {
	return append(DefaultClients(), "copilot", "cursor", "windsurf", "qwen", "droid", "kiro", "cline", "devin", "lefthook")
}

// DefaultEvents returns, as a new slice, the neutral events registered when
// the manifest sets no hooks.events: the pre-tool gate, its file-edit half
// (pre-edit: the guard's own files and the git hooks directory, issue 14
// item 3), the stop gate and the prompt rows (the clock line on every
// prompt, protocol/clock; issue 19 item 1).
func DefaultEvents() []string {
	return []string{"pre-tool", "pre-edit", "stop", "prompt"}
}
