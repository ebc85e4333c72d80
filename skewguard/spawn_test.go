package skewguard_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/skewguard"
)

// TestSpawnTable checks the one table of how each client spawns a hook
// row: every client of the registration table has an entry with its source;
// the spawns only documented (Cursor, Windsurf, Droid) are marked
// unverified and the measured ones are not; and the recorded facts of the
// clients that run rows from another directory than the session's or set
// variables to it (Copilot CLI 1.0.102: bash, cwd the git root; Qwen Code
// 0.24.4: the project variables name the session directory) hold for a
// session started below the root.
func TestSpawnTable(t *testing.T) {
	table, err := registration.Default()
	if err != nil {
		t.Fatal(err)
	}
	root := "/repo"
	start := filepath.Join(root, "sub")
	unverified := []string{"cursor", "windsurf", "droid", "cline"}
	measured := []string{"claude", "codex", "gemini", "opencode", "copilot", "qwen"}
	seen := map[string]bool{}
	for _, row := range table.Rows {
		if seen[row.Client] {
			continue
		}
		seen[row.Client] = true
		sp, err := skewguard.Spawn(row.Client, row.Event, root, start)
		if err != nil {
			t.Errorf("%s: %v", row.Client, err)
			continue
		}
		if sp.Source == "" || len(sp.Argv("true")) == 0 {
			t.Errorf("%s: entry without source or argv: %+v", row.Client, sp)
		}
		if slices.Contains(unverified, row.Client) && (!sp.Unverified || !strings.Contains(sp.Source, "unverified")) {
			t.Errorf("%s: a documented-only spawn not marked unverified: %+v", row.Client, sp)
		}
		if slices.Contains(measured, row.Client) && sp.Unverified {
			t.Errorf("%s: a measured spawn marked unverified: %+v", row.Client, sp)
		}
	}
	for _, c := range append(unverified, measured...) {
		if !seen[c] {
			t.Errorf("%s: no row in the registration table", c)
		}
	}
	cp, _ := skewguard.Spawn("copilot", "pre-tool", root, start)
	if cp.Dir != root || !slices.Equal(cp.Argv("x"), []string{"bash", "-c", "x"}) ||
		!slices.Contains(cp.Env, "COPILOT_PROJECT_DIR="+root) || !slices.Contains(cp.Env, "CLAUDE_PROJECT_DIR="+root) || !slices.Contains(cp.Env, "COPILOT_CLI=1") {
		t.Errorf("copilot: %+v", cp)
	}
	for _, ev := range []string{"pre-tool", "pre-edit"} {
		cl, _ := skewguard.Spawn("cline", ev, root, start)
		if want := []string{filepath.Join(root, ".clinerules", "hooks", "PreToolUse")}; !slices.Equal(cl.Argv("x"), want) {
			t.Errorf("cline %s: argv %q, want %q (Cline runs the one PreToolUse file for every tool)", ev, cl.Argv("x"), want)
		}
	}
	qw, _ := skewguard.Spawn("qwen", "pre-tool", root, start)
	if qw.Dir != start || !slices.Contains(qw.Env, "CLAUDE_PROJECT_DIR="+start) || !slices.Contains(qw.Env, "QWEN_PROJECT_DIR="+start) {
		t.Errorf("qwen: %+v", qw)
	}
	if _, err := skewguard.Spawn("no-such-client", "pre-tool", root, ""); err == nil || !strings.Contains(err.Error(), "not known") {
		t.Errorf("unknown client: %v", err)
	}
}
