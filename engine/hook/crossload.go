package hook

import (
	"bytes"
	"io"
	"os"
	"path/filepath"

	"github.com/hookwarden/hookwarden/engine/registration"
)

// CopilotHooksFile is the file adopt renders for GitHub Copilot CLI in a
// governed repository (templates.CopilotHooksPath; a test keeps the two
// equal): Copilot CLI 1.0.102 runs every *.json of .github/hooks at the git
// root (engine/dialect, copilot.go).
const CopilotHooksFile = ".github/hooks/hookwarden.json"

// maxOwnRowFile bounds how much of the caller's hook file crossLoaded reads.
const maxOwnRowFile = 1 << 20

// crossLoaded returns why a call of row by caller (a client other than the
// row's own, dialect.Payload.Caller) is left to the caller's own hookwarden
// row, or "" when it is judged here. It is left only when all hold, each a
// positive sign that the caller's own row runs for this call:
//
//   - the caller is Copilot CLI (Cursor's own rows are not observed, so a
//     Claude row called by Cursor is judged);
//   - the registration table has the caller's row for the same event;
//   - the environment says Copilot CLI ran the command: COPILOT_CLI=1,
//     which Copilot CLI 1.0.102 sets for every hook it runs, Claude-format
//     ones included (observed);
//   - the governed root's .github/hooks/hookwarden.json holds that row's
//     command (the end of the launcher call, `.hookwarden/hook.sh copilot
//     EVENT"`). Copilot CLI 1.0.102 runs the .github/hooks files before
//     the .claude ones, each for every call (observed).
//
// Anything else is judged here, in the caller's dialect: judging twice costs
// time, skipping a call no row judges would be an allow.
func crossLoaded(t *registration.Table, row registration.Row, caller, root string, lookup func(string) (string, bool)) string {
	if caller != "copilot" || caller == row.Client || t == nil {
		return ""
	}
	if _, ok := t.Lookup(caller, row.Event); !ok {
		return ""
	}
	if v, _ := lookup("COPILOT_CLI"); v != "1" {
		return ""
	}
	f, err := os.Open(filepath.Join(root, filepath.FromSlash(CopilotHooksFile)))
	if err != nil {
		return ""
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxOwnRowFile))
	if err != nil || !bytes.Contains(data, []byte(".hookwarden/hook.sh "+caller+" "+row.Event+`"`)) {
		return ""
	}
	return "Copilot CLI called this " + row.Client + " " + row.Event + " row and also runs hookwarden's own " + caller + " " + row.Event + " row (" + CopilotHooksFile + "), which judges the call; this row leaves it to that one so it is judged once"
}
