package adopt

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hookwarden/hookwarden/clientjson"
	"github.com/hookwarden/hookwarden/policy"
	"github.com/hookwarden/hookwarden/templates"
)

// TestAdoptWritesOnlyGuardPaths: every file adopt writes in a repository
// (every client, every event, backups of replaced files, the context step)
// is one of policy.GuardPaths, except the .gitignore block and the context
// files compiled from AGENTS.md, which are not the guard's. A new rendered
// file or settings file that the self-protection rules and the pre-edit
// judge would not know fails here. Each client settings file adopt merges
// into is a guard path marked as a client hook file, and only those are.
func TestAdoptWritesOnlyGuardPaths(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	files := map[string]string{
		"AGENTS.md": "# Agents\n\nBe careful.\n",
		// A governed repository with every neutral event, so every row kind
		// is written; the operator files make adopt write backups too.
		ManifestFile: string(ManifestText(templates.DefaultClients(), nil, []string{"pre-tool", "pre-edit", "post-tool", "stop"})),
	}
	for p, b := range operatorFiles {
		files[p] = b
	}
	makeRepo(t, root, true, files, nil)
	before := tree(t, root)
	opts := testOptions(t)
	rep, err := Conform(context.Background(), []string{root}, opts)
	if err != nil || rep.Failed() {
		t.Fatalf("conform: %v %+v", err, rep.Repositories[0])
	}
	notGuard := map[string]bool{}
	for _, f := range rep.Repositories[0].Files {
		if f.Step == StepContext || f.Step == StepGitIgnore {
			notGuard[f.Path] = true
		}
	}
	written := 0
	for p, body := range tree(t, root) {
		if before[p] == body {
			continue
		}
		written++
		guard, client := policy.IsGuardPath(p, false)
		if notGuard[p] {
			if guard {
				t.Errorf("%s: a %s file is listed as a guard path", p, "context or git-ignore")
			}
			continue
		}
		if !guard {
			t.Errorf("adopt wrote %s, which policy.GuardPaths does not cover", p)
		}
		_, settingsFile := map[string]bool{".claude/settings.json": true, ".codex/hooks.json": true, ".gemini/settings.json": true}[p]
		if client != settingsFile {
			t.Errorf("%s: client hook file %v, want %v", p, client, settingsFile)
		}
	}
	if written < 10 {
		t.Fatalf("adopt wrote %d files; the test needs a full adoption", written)
	}
	for _, c := range templates.DefaultClients() {
		p, ok := SettingsFile(c)
		if !ok {
			continue
		}
		g, found := policy.LookupGuardPath(p, false)
		if !found || !g.ClientHooks || g.Client != c {
			t.Errorf("%s's settings file %s: guard entry %+v %v, want a client hook file of %s", c, p, g, found, c)
		}
	}
}

// TestShellRulesCoverEveryGuardPath: the built-in command policy refuses
// overwriting every guard path and every client settings file adopt
// manages, and Claude's local settings file (clientjson.ClaudeLocalSettings,
// whose disableAllHooks switches our rows off), each with its rule.
func TestShellRulesCoverEveryGuardPath(t *testing.T) {
	p, err := policy.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{clientjson.ClaudeLocalSettings: policy.RuleSelfProtectClientHooks}
	for _, g := range policy.GuardPaths() {
		rule := policy.RuleSelfProtect
		if g.ClientHooks {
			rule = policy.RuleSelfProtectClientHooks
		}
		path := g.Path
		if g.Dir {
			path += "/hook.sh"
		}
		want[path] = rule
	}
	for _, c := range templates.DefaultClients() {
		if f, ok := SettingsFile(c); ok && want[f] != policy.RuleSelfProtectClientHooks {
			t.Errorf("%s's settings file %s is not a client hook guard path", c, f)
		}
	}
	for path, rule := range want {
		for _, cmd := range []string{"echo x > " + path, "rm -f " + path} {
			if d := p.Judge(cmd); d.Allowed || d.RuleID != rule {
				t.Errorf("%q: %+v, want a deny by %s", cmd, d, rule)
			}
		}
	}
}
