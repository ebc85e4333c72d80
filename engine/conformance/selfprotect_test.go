package conformance

import (
	"os"
	"path/filepath"
	"testing"
)

// selfProtectCommand is the one-line way a governed agent ungoverned its
// repository before issue 14 (every later call became a stated skip).
const selfProtectCommand = "rm .hookwarden.yaml"

// selfProtectCases: for every client whose pre-tool row adopt writes, the
// adopted row refuses `rm .hookwarden.yaml` (rule self-protect), the
// manifest is still there byte for byte afterwards, and the model's next
// request carries the refusal (the model server's request log is the
// oracle for what the model saw).
func selfProtectCases() []engineCase {
	var cases []engineCase
	for _, client := range []string{"claude", "codex", "gemini", "opencode"} {
		cases = append(cases, engineCase{name: "self-protect-rm-manifest", client: client, rows: []string{"pre-tool"}, launcher: "path",
			check:    "self-protection: the adopted pre-tool row refused rm .hookwarden.yaml, the manifest is unchanged and the refusal reached the model",
			manifest: manifestWith(""),
			script:   func(*Sandbox) Script { return Script{Command: selfProtectCommand} },
			verify: func(t *testing.T, r *caseRun) {
				r.wantExit(t, 0)
				r.wantTurns(t, 2)
				r.wantCarried(t, "[BLOCKED BY hookwarden:self-protect]")
				b, err := os.ReadFile(filepath.Join(r.sb.Repo, ".hookwarden.yaml"))
				if err != nil {
					t.Fatalf(".hookwarden.yaml after the refused rm: %v", err)
				}
				if want := r.settings["repo/.hookwarden.yaml"]; string(b) != want {
					t.Errorf(".hookwarden.yaml changed although the rm was refused:\n%s\nwant\n%s", b, want)
				}
			}})
	}
	return cases
}
