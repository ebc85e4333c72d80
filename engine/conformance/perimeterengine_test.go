package conformance

import (
	"os"
	"path/filepath"
	"testing"
)

// perimeterEngineCases (issue 29 items 1 and 2) on the real Claude Code:
// a nested repository made with `git init` does not take the calls made
// from it out of the governed tree around it, and an env block in
// .claude/settings.local.json cannot set HOOKWARDEN_* (the record-mode
// switch the issue observed landing on 2.1.328).
func perimeterEngineCases() []engineCase {
	return []engineCase{
		{name: "perimeter-nested-escape", client: "claude", rows: []string{"pre-tool"}, launcher: "path",
			check:    "outermost governed tree: after mkdir x && cd x && git init -q, the adopted pre-tool row refused rm ../.hookwarden.yaml from the nested repository and the manifest is unchanged",
			manifest: manifestWith(""),
			script: func(*Sandbox) Script {
				return Script{Commands: []string{"mkdir x && cd x && git init -q", "rm ../.hookwarden.yaml"}, MaxToolCalls: 2}
			},
			verify: func(t *testing.T, r *caseRun) {
				r.wantExit(t, 0)
				// The refusal answers the second command: the model's third
				// turn carries it.
				turns := r.srv.MainTurns()
				if len(turns) < 3 || !turns[2].Carries("[BLOCKED BY hookwarden:self-protect]") {
					t.Errorf("%d model turns; the third does not carry the self-protect refusal of rm ../.hookwarden.yaml from the nested repository", len(turns))
				}
				// The client kept the nested directory as the next call's
				// cwd (what made the call a stated skip before): the user
				// level recorder saw the refused command's PreToolUse from x.
				seen := 0
				for _, p := range r.payloads(t, r.user, "pre-tool") {
					if ti, _ := p["tool_input"].(map[string]any); ti != nil && ti["command"] == "rm ../.hookwarden.yaml" {
						seen++
						if p["cwd"] != filepath.Join(r.sb.Repo, "x") {
							t.Errorf("the refused call's cwd is %v, not the nested repository", p["cwd"])
						}
					}
				}
				if seen == 0 {
					t.Errorf("the user-level recorder saw no PreToolUse of rm ../.hookwarden.yaml")
				}
				if _, err := os.Stat(filepath.Join(r.sb.Repo, "x", ".git")); err != nil {
					t.Errorf("the nested git init did not run (creating a repository inside a governed one stays allowed): %v", err)
				}
				b, err := os.ReadFile(filepath.Join(r.sb.Repo, ".hookwarden.yaml"))
				if err != nil || string(b) != r.settings["repo/.hookwarden.yaml"] {
					t.Errorf(".hookwarden.yaml changed although the rm from the nested repository was refused (err %v):\n%s", err, b)
				}
			}},
		// opencode 1.18.33 loads no plugin from plugin_origins, the
		// project's .opencode/plugins/ among them, when started with --pure
		// or OPENCODE_PURE (its binary: `let A=Q.pure?[]:w.plugin_origins`),
		// so our row does not run. Measured as the client's fact (a client
		// update that loads project plugins under --pure fails it); the
		// policy refuses a nested opencode started that way
		// (nested-client-hooks).
		{name: "perimeter-opencode-pure", client: "opencode", rows: []string{"pre-tool"}, launcher: "path",
			check:    "client fact: opencode run --pure loads no project plugin, so the adopted row did not run and the --no-verify commit ran (the policy refuses a nested opencode --pure)",
			manifest: manifestWith(""), args: []string{"--pure"},
			script: func(*Sandbox) Script { return Script{Commands: []string{denyCommand}} },
			verify: func(t *testing.T, r *caseRun) {
				r.wantExit(t, 0)
				r.wantFile(t, deniedMarker, true)
				r.wantNotCarried(t, blockedPrefix)
			}},
		{name: "perimeter-env-switch", client: "claude", rows: []string{"pre-edit"}, needs: "pre-edit", launcher: "path",
			check:    "env switch: a Write of .claude/settings.local.json with an env block setting HOOKWARDEN_RECORD_DIR was refused by the adopted pre-edit row (env-switch-edit) and the file was not written",
			manifest: manifestWith(""),
			script: func(sb *Sandbox) Script {
				return Script{Edit: &Edit{Path: filepath.Join(sb.Repo, ".claude", "settings.local.json"), Content: `{"env":{"HOOKWARDEN_RECORD_DIR":"/tmp/r"}}` + "\n"}}
			},
			verify: func(t *testing.T, r *caseRun) {
				r.wantExit(t, 0)
				r.wantCarried(t, "env-switch-edit")
				r.wantFile(t, ".claude/settings.local.json", false)
			}},
	}
}
