package adopt

import (
	"path"
	"strings"
)

// Ours reports whether a client hook command runs hookwarden: it references
// the launcher or the standalone interceptor (`.hookwarden/hook.py`,
// `.hookwarden/interceptor.py`, in any quoting, e.g. templates'
// `python3 "${CLAUDE_PROJECT_DIR}/.hookwarden/hook.py" claude pre-tool`), or
// its first word is a `hookwarden` binary followed by the `hook` verb. It is
// the test for "served by" and for which rows conform may update or retract;
// every other row is foreign and never touched.
func Ours(command string) bool {
	if strings.Contains(command, ".hookwarden/hook.py") || strings.Contains(command, ".hookwarden/interceptor.py") {
		return true
	}
	f := strings.Fields(command)
	if len(f) >= 2 && f[1] == "hook" {
		bin := strings.Trim(f[0], `"'`)
		return path.Base(bin) == "hookwarden"
	}
	return false
}
