package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckRun calls check's run function as the verb does: the words after
// -- or the text on stdin are judged in the directory given; a deny exits
// 1 naming its rule, an allow 0, an empty command 2; --json prints one
// object.
func TestCheckRun(t *testing.T) {
	dir := t.TempDir()
	env := []string{"HOME=" + t.TempDir()}
	for _, tc := range []struct {
		name   string
		o      checkOptions
		stdin  string
		code   int
		out    string
		errMsg string
	}{
		{"deny from words", checkOptions{Args: []string{"git", "commit", "--no-verify", "-m", "x"}}, "", 1, "verdict: deny\nrule: git-no-verify\nreason: [BLOCKED BY hookwarden:git-no-verify]", ""},
		{"allow as JSON", checkOptions{Args: []string{"ls", "-la"}, JSON: true}, "", 0, `{"verdict":"allow","rule":"","reason":""}` + "\n", ""},
		{"deny from stdin", checkOptions{}, "git commit -n -m x\n", 1, "verdict: deny\nrule: git-no-verify", ""},
		{"allow from stdin in --cwd", checkOptions{Cwd: dir}, "ls\r\n", 0, "verdict: allow\n", ""},
		{"empty stdin", checkOptions{}, "", 2, "", "hookwarden: check: invalid input: no command given"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			streams, out, _ := testIO(tc.stdin, env, dir)
			o := tc.o
			o.IO = streams
			code, msg := runExit(runCheck(context.Background(), &o))
			if code != tc.code || !strings.HasPrefix(out.String(), tc.out) || !strings.HasPrefix(msg, tc.errMsg) {
				t.Fatalf("exit %d, stdout %q, message %q; want exit %d, stdout starting %q, message starting %q", code, out, msg, tc.code, tc.out, tc.errMsg)
			}
		})
	}
}

// TestFleetRunUsageErrors: adopt, conform and audit refuse a contradictory
// or empty invocation with exit 2 and one message before touching any
// repository, and print nothing on stdout.
func TestFleetRunUsageErrors(t *testing.T) {
	repo := t.TempDir()
	empty := t.TempDir()
	for _, tc := range []struct {
		name string
		run  func(*ioStreams) error
		msg  string
	}{
		{"bad --diff", func(s *ioStreams) error {
			return runFleet(context.Background(), &fleetOptions{IO: s, Verb: "adopt", Paths: []string{repo}, Diff: "x", Depth: 1})
		}, `hookwarden: adopt: --diff "x": want settings or all`},
		{"empty --fleet", func(s *ioStreams) error {
			return runFleet(context.Background(), &fleetOptions{IO: s, Verb: "conform", Diff: "settings", FleetSet: true, Depth: 1})
		}, "hookwarden: conform: --fleet: empty directory name"},
		{"--fleet without repositories", func(s *ioStreams) error {
			return runFleet(context.Background(), &fleetOptions{IO: s, Verb: "adopt", Diff: "settings", Fleet: empty, FleetSet: true, Depth: 1})
		}, "hookwarden: adopt: --fleet " + empty + ": no repository found (a directory holding .git) within depth 1"},
		{"--branch without --commit", func(s *ioStreams) error {
			return runFleet(context.Background(), &fleetOptions{IO: s, Verb: "adopt", Paths: []string{repo}, Diff: "settings", Branch: "b", BranchSet: true, Depth: 1})
		}, "hookwarden: adopt: --branch needs --commit"},
		{"--commit with --check", func(s *ioStreams) error {
			return runFleet(context.Background(), &fleetOptions{IO: s, Verb: "conform", Paths: []string{repo}, Diff: "settings", Commit: true, Check: true, Depth: 1})
		}, "hookwarden: conform: --commit writes a branch; drop --dry-run/--check (or drop --commit to see the change)"},
		{"--json and --format disagree", func(s *ioStreams) error {
			return runAudit(context.Background(), &auditOptions{IO: s, Paths: []string{repo}, Format: "sarif", FormatSet: true, JSON: true, Depth: 1})
		}, "hookwarden: audit: --json and --format sarif disagree"},
		{"unknown format", func(s *ioStreams) error {
			return runAudit(context.Background(), &auditOptions{IO: s, Paths: []string{repo}, Format: "xml", Depth: 1})
		}, `hookwarden: audit: --format "xml": want text, json or sarif`},
		{"--workstation without --plan", func(s *ioStreams) error {
			return runAudit(context.Background(), &auditOptions{IO: s, Paths: []string{repo}, Format: "text", Workstation: true, Depth: 1})
		}, "hookwarden: audit: --workstation needs --plan"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			streams, out, _ := testIO("", nil, repo)
			code, msg := runExit(tc.run(streams))
			if code != 2 || msg != tc.msg || out.Len() != 0 {
				t.Fatalf("exit %d, message %q, stdout %q; want exit 2, %q and no output", code, msg, out, tc.msg)
			}
		})
	}
	if entries, _ := os.ReadDir(repo); len(entries) != 0 {
		t.Fatalf("a usage error wrote into the repository: %v", entries)
	}
}

// TestAdoptDryRunRun calls adopt's run function with --dry-run on a fresh
// repository: stdout holds the unified diff of each shared file (the
// manifest, .gitignore, Claude's settings) under a "# PATH" line, one
// summary line per rendered file (the launcher), then the report, and
// nothing is written; with --diff all the launcher's diff is written in
// full. conform --check on the same repository (not governed) exits 0.
func TestAdoptDryRunRun(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	env := []string{"HOME=" + t.TempDir(), "CODEX_HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	run := func(diff string) string {
		t.Helper()
		streams, out, _ := testIO("", env, repo)
		o := &fleetOptions{IO: streams, Verb: "adopt", Paths: []string{repo}, DryRun: true, Diff: diff, Depth: 1, Clients: "claude", ClientSet: true}
		if code, msg := runExit(runFleet(context.Background(), o)); code != 0 {
			t.Fatalf("adopt --dry-run --diff %s: exit %d (%s)\n%s", diff, code, msg, out)
		}
		return out.String()
	}
	out := run("settings")
	for _, want := range []string{
		"# " + repo + ": created .hookwarden.yaml\n--- a/.hookwarden.yaml",
		"+++ b/.claude/settings.json",
		"# " + repo + ": created .hookwarden/hook.sh (",
		"(--diff=all shows it)\n",
		"(dry run) " + repo + ": changed\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("adopt --dry-run output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "+++ b/.hookwarden/hook.sh") {
		t.Errorf("adopt --dry-run wrote the launcher's diff in full without --diff all:\n%s", out)
	}
	if full := run("all"); !strings.Contains(full, "+++ b/.hookwarden/hook.sh") {
		t.Errorf("adopt --dry-run --diff all lacks the launcher's diff:\n%s", full)
	}
	if _, err := os.Stat(filepath.Join(repo, ".hookwarden.yaml")); err == nil {
		t.Fatal("adopt --dry-run wrote the manifest")
	}
}

// TestUnknownVerbIsUsage: a word that names no verb exits 2 (usage, as
// README "Exit codes" says) with one line naming it; it was urfave/cli's
// "No help topic" and exit 3 (found by following the README).
func TestUnknownVerbIsUsage(t *testing.T) {
	for _, args := range [][]string{{"nosuch"}, {"help", "adopt"}} {
		streams, out, _ := testIO("", nil, t.TempDir())
		code, msg := runExit(newApp(streams).Run(context.Background(), append([]string{"hookwarden"}, args...)))
		if code != 2 || msg != `hookwarden: unknown command "`+args[0]+`"; run hookwarden --help for the list` || out.Len() != 0 {
			t.Errorf("%v: exit %d, message %q, stdout %q; want exit 2 naming %q", args, code, msg, out, args[0])
		}
	}
}

// TestUnknownFlagIsOneLine: a usage error of any verb is one line naming
// the verb and the flag with its dashes, and exit 2; neither stream gets
// the help text or urfave/cli's "Incorrect Usage" line (a fresh-user pass
// found the error printed twice around the whole help).
func TestUnknownFlagIsOneLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"audit", "--bogus", "."}, "hookwarden audit: unknown flag --bogus; run hookwarden audit --help for usage"},
		{[]string{"audit", "-x"}, "hookwarden audit: unknown flag -x; run hookwarden audit --help for usage"},
		{[]string{"spawn", "compile", "--nope"}, "hookwarden spawn compile: unknown flag --nope; run hookwarden spawn compile --help for usage"},
		{[]string{"adopt", "--jobs"}, "hookwarden adopt: flag needs an argument: --jobs; run hookwarden adopt --help for usage"},
		{[]string{"--bogus"}, "hookwarden: unknown flag --bogus; run hookwarden --help for usage"},
	} {
		streams, out, errOut := testIO("", nil, t.TempDir())
		code, msg := runExit(newApp(streams).Run(context.Background(), append([]string{"hookwarden"}, tc.args...)))
		if code != 2 || msg != tc.want || out.Len() != 0 || errOut.Len() != 0 {
			t.Errorf("%v: exit %d, message %q, stdout %q, stderr %q; want exit 2, %q and nothing else", tc.args, code, msg, out, errOut, tc.want)
		}
	}
}
