package adopt

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/adopt/codextrust"
	"github.com/hookwarden/hookwarden/internal/shellquote"
)

// TestCodexTrustAfterAdopt: adopt names the exact codex-trust command; that
// command trusts our rows only (never the foreign one), keeps the operator's
// config bytes, backs the config up, and afterwards adopt no longer asks.
func TestCodexTrustAfterAdopt(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	foreign := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./audit.sh", "timeout": 5}]}]}}` + "\n"
	makeRepo(t, root, true, map[string]string{".codex/hooks.json": foreign}, nil)
	root, _ = filepath.EvalSymlinks(root)
	opts := testOptions(t)
	opts.Clients = []string{"codex"}
	codexHome := opts.Getenv("CODEX_HOME")
	cfgPath := filepath.Join(codexHome, "config.toml")
	orig := "# operator's config\nmodel = \"o3\"   # keep\n\n[projects.\"/elsewhere\"]\ntrust_level = \"trusted\"\n"
	os.WriteFile(cfgPath, []byte(orig), 0o600)

	rep, err := Adopt(context.Background(), []string{root}, opts)
	if err != nil || rep.Failed() {
		t.Fatalf("%v %+v", err, rep.Repositories[0])
	}
	next := rep.Repositories[0].Next
	if len(next) != 1 || next[0] != "hookwarden codex-trust --trust-project "+shellquote.Word(root) {
		t.Fatalf("next = %q", next)
	}

	tr, err := CodexTrust([]string{root}, TrustOptions{TrustProject: true, Getenv: opts.Getenv, Now: fixedNow})
	if err != nil || tr.Failed() {
		t.Fatalf("%v %+v", err, tr.Repositories)
	}
	states := map[string]int{}
	for _, r := range tr.Repositories[0].Rows {
		states[r.State]++
		if r.State == "will trust" && !isOurs(t, "codex", r.Command) {
			t.Errorf("would trust a foreign row: %s", r.Command)
		}
	}
	if states["will trust"] != defaultRowCount(t, "codex") || states["foreign, not trusted"] != 1 {
		t.Fatalf("row states %v", states)
	}
	cfg, _ := os.ReadFile(cfgPath)
	if !strings.HasPrefix(string(cfg), orig) {
		t.Fatalf("operator bytes not kept:\n%s", cfg)
	}
	if strings.Count(string(cfg), "trusted_hash") != defaultRowCount(t, "codex") {
		t.Fatalf("want exactly our %d rows trusted:\n%s", defaultRowCount(t, "codex"), cfg)
	}
	bak, err := os.ReadFile(filepath.Join(codexHome, "config.toml.hookwarden-"+fixedStamp+".bak"))
	if err != nil || string(bak) != orig {
		t.Fatalf("backup: %v %q", err, bak)
	}
	hooks, _ := os.ReadFile(filepath.Join(root, ".codex/hooks.json"))
	entries, _ := codextrust.Entries(filepath.Join(root, ".codex/hooks.json"), hooks, func(c string) bool { return isOurs(t, "codex", c) })
	st, _ := codextrust.Check(cfg, root, entries)
	if !st.ProjectTrusted || len(st.Pending) != 0 {
		t.Fatalf("after codex-trust: %+v", st)
	}

	// Idempotent, and adopt stops asking.
	tr2, err := CodexTrust([]string{root}, TrustOptions{TrustProject: true, Getenv: opts.Getenv, Now: fixedNow})
	if err != nil || tr2.Changed {
		t.Fatalf("second codex-trust changed the config: %v", err)
	}
	rep2, _ := Adopt(context.Background(), []string{root}, opts)
	if len(rep2.Repositories[0].Next) != 0 {
		t.Fatalf("adopt still asks: %v", rep2.Repositories[0].Next)
	}
}

// TestCodexTrustWithoutOurRows: a repository without .codex/hooks.json, or
// with foreign rows only, is an error and the config is not touched.
func TestCodexTrustWithoutOurRows(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	makeRepo(t, a, true, nil, nil)
	makeRepo(t, b, true, map[string]string{".codex/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}`}, nil)
	opts := testOptions(t)
	tr, err := CodexTrust([]string{a, b}, TrustOptions{TrustProject: true, Getenv: opts.Getenv, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Failed() || tr.Changed {
		t.Fatalf("failed=%v changed=%v", tr.Failed(), tr.Changed)
	}
	if !anyContains(tr.Repositories[0].Errors, "absent") || !anyContains(tr.Repositories[1].Errors, "none of our rows") {
		t.Fatalf("errors %v / %v", tr.Repositories[0].Errors, tr.Repositories[1].Errors)
	}
	if _, err := os.Stat(filepath.Join(opts.Getenv("CODEX_HOME"), "config.toml")); err == nil {
		t.Fatal("config written without any row of ours")
	}
}

// TestCodexTrustDryRunWritesNothing: issue 15 — `codex-trust --dry-run`
// created $CODEX_HOME. A dry run against a missing home plans the records
// and leaves the home absent.
func TestCodexTrustDryRunWritesNothing(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	makeRepo(t, root, true, nil, nil)
	opts := testOptions(t)
	opts.Clients = []string{"codex"}
	if rep, err := Adopt(context.Background(), []string{root}, opts); err != nil || rep.Failed() {
		t.Fatalf("%v %+v", err, rep.Repositories[0])
	}
	home := filepath.Join(t.TempDir(), "codex-home")
	getenv := func(k string) string {
		if k == "CODEX_HOME" {
			return home
		}
		return ""
	}
	tr, err := CodexTrust([]string{root}, TrustOptions{DryRun: true, TrustProject: true, Getenv: getenv, Now: fixedNow})
	if err != nil || tr.Failed() || !tr.Changed || !strings.Contains(tr.Diff(), "trusted_hash") {
		t.Fatalf("dry run: %v %+v", err, tr)
	}
	if _, err := os.Lstat(home); !os.IsNotExist(err) {
		t.Fatalf("codex-trust --dry-run created %s (%v)", home, err)
	}
}
