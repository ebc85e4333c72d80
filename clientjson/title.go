package clientjson

// Title returns the name a person knows client by, for messages: "Claude
// Code", "Codex CLI", "Gemini CLI", "Antigravity" (agy), "opencode",
// "lefthook"; any other name is returned as it is. It is the one client-name
// table of hookwarden's messages.
func Title(client string) string {
	switch client {
	case "claude":
		return "Claude Code"
	case "codex":
		return "Codex CLI"
	case "gemini":
		return "Gemini CLI"
	case "agy":
		return "Antigravity"
	}
	return client
}
