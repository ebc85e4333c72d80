package skewguard_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hookwarden/hookwarden/templates"
)

// TestRealClients runs the real Claude Code, Codex, Gemini CLI and opencode
// (../shared/e2e recipes against its mock model) in a repository holding the
// rendered launcher and interceptor, registered with
// templates.RegistrationCommand (opencode: the rendered plugin), with the
// engine on PATH and with no engine installed. The scripted model runs
// `git commit --no-verify …`; every run must block it (the sentinel file is
// absent) and hand the refusal to the model. Needs HOOKWARDEN_CLIENTS_DIR
// (as the e2e README installs it); without it this is a stated skip, a
// failure under HOOKWARDEN_E2E=require (the conformance suite's convention).
func TestRealClients(t *testing.T) {
	e2eDir := e2eHarness(t)
	w := newWorld(t)
	engineDir := filepath.Dir(realEngine(t))
	driver, _ := filepath.Abs("../testdata/templates/e2e_launcher.py")
	sem := make(chan struct{}, 2) // 2 cores on the shared machine
	var wg sync.WaitGroup
	for _, client := range []string{"claude", "codex", "gemini", "opencode"} {
		reg, err := templates.RegistrationCommand(client, "pre-tool")
		if err != nil {
			t.Fatal(err)
		}
		for _, eng := range []string{"-", engineDir} {
			wg.Add(1)
			go func(client, eng string) {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				label := client + " with the engine on PATH"
				if eng == "-" {
					label = client + " with no engine installed"
				}
				out, err := exec.Command("python3", driver, e2eDir, client, w.repo, eng, reg).Output()
				if err != nil {
					t.Errorf("%s: driver: %v", label, err)
					return
				}
				var r struct {
					RC         int     `json:"rc"`
					Seconds    float64 `json:"seconds"`
					ToolRan    bool    `json:"tool_ran"`
					Turns      int     `json:"turns"`
					DenialSeen bool    `json:"denial_seen"`
					NoteSeen   bool    `json:"interceptor_note_seen"`
				}
				if err := json.Unmarshal(out, &r); err != nil {
					t.Errorf("%s: driver output %q: %v", label, strings.TrimSpace(string(out)), err)
					return
				}
				t.Logf("%s: rc %d, %.1f s, tool ran %v, %d model turns, refusal reached the model %v", label, r.RC, r.Seconds, r.ToolRan, r.Turns, r.DenialSeen)
				// The launcher's note says who judged; opencode's plugin keeps
				// only the refusal line, so the note cannot reach its model.
				if client != "opencode" && r.NoteSeen != (eng == "-") {
					t.Errorf("%s: the interceptor note reached the model: %v; want it exactly when no engine is installed", label, r.NoteSeen)
				}
				if r.RC != 0 || r.ToolRan || !r.DenialSeen {
					t.Errorf("%s: rc %d, tool ran %v, refusal reached the model %v; want the deny honoured", label, r.RC, r.ToolRan, r.DenialSeen)
				}
			}(client, eng)
		}
	}
	wg.Wait()
}

// TestRealClaudeOnFailure runs the real Claude Code 2.1.328 (../shared/e2e's
// recipe and mock model) with one PreToolUse handler for Bash that fails:
// it cannot start (a launcher path that does not exist, run directly: status
// 127), it crashes (the shell kills itself with SIGSEGV), or it sleeps past
// its 2 s timeout. With "onFailure": "block" (as adopt writes it on our
// pre-tool and pre-edit rows) each blocks the harmless Bash call; without it
// (the control) each lets the call through, which is why the field is
// written. The sourced row (templates.RegistrationCommand) whose launcher
// file is missing blocks the call with or without the field: its own last
// statements answer exit 2. Needs HOOKWARDEN_CLIENTS_DIR, like
// TestRealClients.
func TestRealClaudeOnFailure(t *testing.T) {
	e2eDir := e2eHarness(t)
	driver, _ := filepath.Abs("../testdata/templates/e2e_onfailure.py")
	if f, _ := templates.OnFailure("claude", "pre-tool"); f != "block" {
		t.Fatalf("templates.OnFailure(claude, pre-tool) = %q; this test shows why it must be block", f)
	}
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	row, err := templates.RegistrationCommand("claude", "pre-tool")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, command, timeout string
		rowDenies              bool // the row itself answers exit 2, onFailure or not
	}{
		{"launcher missing", `"${CLAUDE_PROJECT_DIR}/.hookwarden/missing.sh" claude pre-tool`, "15", false},
		{"launcher crashes", `kill -SEGV $$`, "15", false},
		{"launcher sleeps past its timeout", `sleep 30`, "2", false},
		// The sourced row whose launcher file is missing: its last
		// statements deny (exit 2), so the call is blocked either way.
		{"sourced row, launcher missing", strings.Replace(row, "/.hookwarden/hook.sh", "/.hookwarden/missing.sh", 1), "15", true},
	} {
		for _, onFailure := range []string{"block", "-"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				out, err := exec.Command("python3", driver, e2eDir, tc.command, tc.timeout, onFailure).Output()
				if err != nil {
					t.Errorf("%s, onFailure %s: driver: %v", tc.name, onFailure, err)
					return
				}
				var r struct {
					RC      int     `json:"rc"`
					Seconds float64 `json:"seconds"`
					ToolRan bool    `json:"tool_ran"`
				}
				if err := json.Unmarshal(out, &r); err != nil {
					t.Errorf("%s: driver output %q: %v", tc.name, out, err)
					return
				}
				t.Logf("%s, onFailure %s: rc %d, %.1f s, tool ran %v", tc.name, onFailure, r.RC, r.Seconds, r.ToolRan)
				if want := onFailure == "-" && !tc.rowDenies; r.RC != 0 || r.ToolRan != want {
					t.Errorf("%s, onFailure %s: rc %d, the Bash call ran: %v, want %v", tc.name, onFailure, r.RC, r.ToolRan, want)
				}
			}()
		}
	}
	wg.Wait()
}

// e2eHarness returns the directory of ../shared/e2e's harness
// (HOOKWARDEN_E2E_DIR overrides it). Without HOOKWARDEN_CLIENTS_DIR the test
// is a stated skip, a failure under HOOKWARDEN_E2E=require (the conformance
// suite's convention); a missing harness is a failure.
func e2eHarness(t *testing.T) string {
	t.Helper()
	if os.Getenv("HOOKWARDEN_CLIENTS_DIR") == "" {
		if os.Getenv("HOOKWARDEN_E2E") == "require" {
			t.Fatal("HOOKWARDEN_CLIENTS_DIR is not set and HOOKWARDEN_E2E=require")
		}
		t.Skip("stated skip: HOOKWARDEN_CLIENTS_DIR is not set, so the real clients cannot be found (HOOKWARDEN_E2E=require makes this a failure)")
	}
	dir := os.Getenv("HOOKWARDEN_E2E_DIR")
	if dir == "" {
		dir, _ = filepath.Abs("../../shared/e2e")
	}
	if _, err := os.Stat(filepath.Join(dir, "e2e.py")); err != nil {
		t.Fatalf("the e2e harness is not at %s (set HOOKWARDEN_E2E_DIR): %v", dir, err)
	}
	return dir
}
