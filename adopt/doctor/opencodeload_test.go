package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// realOpencode returns the real opencode of $HOOKWARDEN_CLIENTS_DIR
// (pinned in .ci/run): a stated skip without it, a failure under
// HOOKWARDEN_E2E=require.
func realOpencode(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("HOOKWARDEN_CLIENTS_DIR")
	if dir == "" {
		h, _ := os.UserHomeDir()
		dir = filepath.Join(h, ".cache", "hookwarden-clients")
	}
	bin := filepath.Join(dir, "node_modules", ".bin", "opencode")
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("HOOKWARDEN_E2E") == "require" {
			t.Fatalf("HOOKWARDEN_E2E=require but the pinned opencode is not installed: %v", err)
		}
		t.Skipf("stated skip: the pinned opencode is not installed at %s (HOOKWARDEN_E2E=require makes this a failure)", bin)
	}
	return bin
}

// TestDoctorOpencodePluginLoad runs doctor against the real opencode
// (1.18.33, pinned): the rendered plugin is loaded by `opencode debug config`
// and its hook refuses the deny canary (proven, v1 API); a plugin whose
// default export lacks server() (a plugin written for OpenCode 2 alone)
// passes the launcher canaries but is not loaded by 1.18.33, and doctor
// says so with opencode's own "failed to load plugin" line instead of
// reporting a guarding row: the byte-level checks could not tell.
func TestDoctorOpencodePluginLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the real opencode; -short")
	}
	bin := realOpencode(t)
	for _, c := range []struct {
		name, from, to, problem string
	}{
		{name: "rendered"},
		{name: "v2-only default export", from: "export default { id: \"hookwarden\", server: HookwardenPlugin, setup: setupV2 };",
			to: "export default { id: \"hookwarden\", setup: setupV2 };", problem: "must default export an object with server()"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := newMachineFor(t, []string{"opencode"}, "")
			if err := os.Symlink(bin, filepath.Join(m.tools, "opencode")); err != nil {
				t.Fatal(err)
			}
			if c.from != "" {
				m.edit(t, ".opencode/plugins/hookwarden.js", c.from, c.to)
			}
			rep, err := Run(context.Background(), m.repo, Options{Env: m.env})
			if err != nil {
				t.Fatal(err)
			}
			r, ok := rowStates(rep)["opencode pre-tool"]
			if !ok || r.Load == nil {
				t.Fatalf("no opencode pre-tool row with a plugin load: %+v", rep.Rows)
			}
			l := r.Load
			t.Logf("%s: opencode %s, %s, api %q, %.0f ms, problem %q", c.name, l.Opencode, l.Command, l.API, l.Millis, l.Problem)
			if c.problem == "" {
				if !r.Guards || l.Problem != "" || l.API != "v1" || l.Deny == nil || l.Deny.Rule != "git-no-verify" || l.Allow == nil || l.Allow.Blocked {
					t.Errorf("the rendered plugin's load is not proven: guards %v, %+v (deny %+v allow %+v)", r.Guards, l, l.Deny, l.Allow)
				}
				return
			}
			if r.Guards || !strings.Contains(l.Problem, c.problem) || !strings.Contains(r.Problem, "plugin load not proven") {
				t.Errorf("a plugin 1.18.33 does not load: guards %v, problem %q; want it not to guard with %q", r.Guards, r.Problem, c.problem)
			}
			if r.Deny == nil || r.Deny.Verdict != "deny" {
				t.Errorf("the launcher canary should still deny (the bytes of the launcher are fine): %+v", r.Deny)
			}
		})
	}
}
