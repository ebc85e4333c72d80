package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/templates"
)

// skillCommand is a project slash command (.claude/commands/hw-skill.md)
// whose body holds one inline shell command (the !`…` form): Claude Code
// runs it while it expands the command, before the model is asked, so no
// tool call and no PreToolUse row sees it. Claude Code 2.1.332 fires
// PreSkillShellCommand for it first (bundle, the hook input schema:
// tool_name Bash, tool_input.command the command with its arguments
// filled in, command_name the skill's name); allowed-tools lets the
// command run without a permission prompt in -p mode.
func skillCommand(command string) string {
	return "---\ndescription: hookwarden conformance skill\nallowed-tools: Bash(touch:*), Bash(git commit:*)\n---\n" +
		"Result of the setup step: !`" + command + "`\n\nSay done.\n"
}

// TestRealClaudeSkillShell runs the real Claude Code with the rows `hookwarden
// adopt` writes and a slash command whose inline shell command is
// `touch hw_denied.txt && git commit --no-verify …` (refused by the
// pre-skill-shell row: the marker never appears and the refusal reaches the
// model in the expanded prompt) or `touch hw_allowed.txt` (runs). A
// recorder row on PreSkillShellCommand beside ours saves the payload
// (recorded as testdata/clients/claude/<version>/pre-skill-shell.*.json).
// Claude Code older than the row's gate (templates.RowGate) has no such
// event: the test says so and skips.
func TestRealClaudeSkillShell(t *testing.T) {
	s := theSuite
	c, version := s.client(t, "claude")
	gate, ok := templates.RowGate("claude", "pre-skill-shell")
	if !ok {
		t.Fatal("templates has no version gate for claude pre-skill-shell")
	}
	if templates.VersionLess(version, gate.Since) {
		t.Skipf("stated skip: Claude Code %s is older than %s, which added PreSkillShellCommand (%s)", version, gate.Since, gate.Source)
	}
	bin := s.hookwarden(t)
	if ok, why := s.adoptWorks(t, bin); !ok {
		s.unavailable(t, "the case needs a working `hookwarden adopt`: "+why)
	}
	cases := []struct {
		name, command, marker string
		denied                bool
	}{
		{"skill-shell-deny", denyCommand, deniedMarker, true},
		{"skill-shell-allow", allowCommand, allowedMarker, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s.observe(t, "claude", version, "pre-skill-shell", tc.name+": a slash command's inline shell command `"+tc.command+"` is "+
				map[bool]string{true: "refused (never ran; the refusal reaches the model)", false: "run"}[tc.denied]+" (rows written by hookwarden adopt)")
			sb := s.sandbox(t)
			srv, err := NewServer(c.API, Script{FinalText: "done"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(srv.Close)
			inv, err := c.Setup(sb, s.clientsDir, srv.URL())
			if err != nil {
				t.Fatal(err)
			}
			inv.Args[2] = "/hw-skill" // the prompt: the slash command
			rec := filepath.Join(sb.Out, "repo")
			if err := sb.WriteFile("repo/.claude/settings.json", hooksDoc(nil, []hookRow{
				{Native: "PreSkillShellCommand", Matcher: "Bash", Command: s.testHookCommand(rec, "record"), Timeout: 15}})); err != nil {
				t.Fatal(err)
			}
			if err := sb.WriteFile("repo/.claude/commands/hw-skill.md", []byte(skillCommand(tc.command))); err != nil {
				t.Fatal(err)
			}
			if err := sb.WriteFile("repo/.hookwarden.yaml", []byte("version: 1\nclients: [claude]\n")); err != nil {
				t.Fatal(err)
			}
			path := filepath.Dir(bin) + string(os.PathListSeparator) + pathWithout("hookwarden")
			inv.Env = append(inv.Env, "PATH="+path)
			if out, err := s.hookwardenCmd(t, bin, sb, path, "adopt", sb.Repo); err != nil {
				t.Fatalf("hookwarden adopt: %v\n%s", err, out)
			}
			settings, _ := os.ReadFile(filepath.Join(sb.Repo, ".claude", "settings.json"))
			if !strings.Contains(string(settings), "set -- claude pre-skill-shell;") {
				t.Fatalf("adopt wrote no pre-skill-shell row:\n%s", settings)
			}
			if err := sb.Commit(t.Context(), "governed"); err != nil {
				t.Fatal(err)
			}
			r := &caseRun{c: c, version: version, sb: sb, srv: srv, res: s.run(t, inv)}
			r.wantExit(t, 0)
			if got := calls(t, rec, "PreSkillShellCommand"); len(got) != 1 || toolCommand(got[0]) != tc.command {
				t.Errorf("PreSkillShellCommand recorder saw %d calls (want 1 with the skill's command)", len(got))
			}
			r.wantFile(t, tc.marker, !tc.denied)
			turns := srv.MainTurns()
			if len(turns) == 0 {
				t.Fatal("the expanded slash command never reached the model")
			}
			if carried := turns[0].Carries(blockedPrefix); carried != tc.denied {
				t.Errorf("the model's first turn carries the refusal = %v, want %v", carried, tc.denied)
			}
			if t.Failed() {
				t.Logf("client output:\n%s\nsettings:\n%s", r.res.Tail(3000), settings)
				return
			}
			s.recordPayloads(t, sb, rec, "claude", version, tc.name)
		})
	}
}
