// Package clientname is the one table of the agent clients hookwarden
// knows: the name a manifest's `clients:` list, a registration row and a
// command line use ("claude", "codex", "gemini", "agy", "opencode",
// "lefthook", "copilot", "cursor", "windsurf", "qwen", "droid", "kiro", "cline", "devin"), and the name a person knows each by, for messages. The
// settings reader, the renderer and every message take their client names
// from here.
package clientname

// table holds each client's name and title, in the order manifests and
// listings name them.
func table() [][2]string {
	return [][2]string{
		{"claude", "Claude Code"},
		{"codex", "Codex CLI"},
		{"gemini", "Gemini CLI"},
		{"agy", "Antigravity"},
		{"opencode", "opencode"},
		{"lefthook", "lefthook"},
		{"copilot", "GitHub Copilot CLI"},
		{"cursor", "Cursor"},
		{"windsurf", "Windsurf"},
		{"qwen", "Qwen Code"},
		{"droid", "Factory Droid"},
		{"kiro", "Kiro CLI"},
		{"cline", "Cline"},
		{"devin", "Devin CLI"},
	}
}

// All returns, as a new slice, every client name hookwarden knows, in
// table order: claude, codex, gemini, agy, opencode, lefthook, copilot,
// cursor, windsurf, qwen, droid, kiro, cline, devin.
func All() []string {
	t := table()
	out := make([]string, len(t))
	for i, c := range t {
		out[i] = c[0]
	}
	return out
}

// Known reports whether name is one of All (exact, case-sensitive).
func Known(name string) bool {
	for _, c := range table() {
		if c[0] == name {
			return true
		}
	}
	return false
}

// Title returns the name a person knows client by, for messages: "Claude
// Code", "Codex CLI", "Gemini CLI", "Antigravity" (agy), "opencode",
// "lefthook", "GitHub Copilot CLI" (copilot), "Cursor", "Windsurf", "Qwen Code" (qwen), "Factory Droid" (droid), "Kiro CLI" (kiro), "Cline", "Devin CLI" (devin); a name not in the table is returned as it is.
func Title(client string) string {
	for _, c := range table() {
		if c[0] == client {
			return c[1]
		}
	}
	return client
}
