package audit

import (
	"bytes"
	"context"
	"github.com/hookwarden/hookwarden/internal/testbin"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/adopt"
	"github.com/hookwarden/hookwarden/internal/shellquote"
)

// isCommand reports whether a finding's fix is a shell command (as opposed
// to an instruction for a person).
func isCommand(fix string) bool {
	for _, p := range []string{"hookwarden ", "git ", "cd "} {
		if strings.HasPrefix(fix, p) {
			return true
		}
	}
	return false
}

// TestAuditIsConformsDryRun holds issue 15's two promises over every audit
// fixture: (1) audit is the dry run of conform — the repository has a
// finding whose fix is `hookwarden conform <path>` exactly when conform
// would change a byte; (2) audit's fixes are commands that work — running
// every fix that is a command (with the built binary on PATH) leaves no
// finding whose fix is a command, and a repository whose fixes were all
// commands audits clean.
func TestAuditIsConformsDryRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := buildBinary(t)
	cases := loadCases(t)
	// TestFixtures replays every case; this equivalence runs on every
	// fourth (the first and last kept) unless -long,
	// HOOKWARDEN_TEST_LONG=1 or HOOKWARDEN_E2E=require (CI).
	for _, name := range testbin.Sample(slices.Sorted(maps.Keys(cases)), 4) {
		c := cases[name]
		t.Run(name, func(t *testing.T) {
			repo, getenv := buildCase(t, name, c)
			ctx := context.Background()
			rep, err := Audit(ctx, []string{repo}, Options{Getenv: getenv, Jobs: 1})
			if err != nil {
				t.Fatal(err)
			}
			conformFix := "hookwarden conform " + shellquote.Word(repo)
			saysConform := false
			for _, f := range rep.Repositories[0].Findings {
				saysConform = saysConform || f.Fix == conformFix
			}
			crep, err := adopt.Conform(ctx, []string{repo}, adopt.Options{DryRun: true, Getenv: getenv, Jobs: 1})
			if err != nil {
				t.Fatal(err)
			}
			var writes []string
			for _, f := range crep.Repositories[0].Files {
				if f.Action == adopt.ActionCreated || f.Action == adopt.ActionMerged || f.Action == adopt.ActionUpdated {
					writes = append(writes, f.Action+" "+f.Path)
				}
			}
			for _, rel := range crep.Repositories[0].Removed {
				writes = append(writes, "removed "+rel)
			}
			if saysConform != (len(writes) > 0) {
				t.Fatalf("audit says run conform: %v; conform would write %v\nfindings: %+v", saysConform, writes, rep.Repositories[0].Findings)
			}

			env := []string{"PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")}
			for _, k := range []string{"HOME", "CODEX_HOME", "HOOKWARDEN_CONFIG", "HOOKWARDEN_FLEET_CONFIG", "XDG_CONFIG_HOME"} {
				if v := getenv(k); v != "" {
					env = append(env, k+"="+v)
				}
			}
			// A user runs the fixes and audits again; a fix may reveal the
			// next (codex-trust after conform changed the rows): three rounds.
			allCommands, ran := true, map[string]bool{}
			findings := rep.Repositories[0].Findings
			for round := 0; round < 3; round++ {
				for _, f := range findings {
					if !isCommand(f.Fix) {
						allCommands = false
						continue
					}
					ran[f.Fix] = true
					cmd := exec.Command("sh", "-c", f.Fix)
					cmd.Dir, cmd.Env = t.TempDir(), env
					var out bytes.Buffer
					cmd.Stdout, cmd.Stderr = &out, &out
					if err := cmd.Run(); err != nil {
						t.Fatalf("fix of %s failed: %s: %v\n%s", f.ID, f.Fix, err, out.String())
					}
				}
				after, err := Audit(ctx, []string{repo}, Options{Getenv: getenv, Jobs: 1})
				if err != nil {
					t.Fatal(err)
				}
				findings = after.Repositories[0].Findings
			}
			for _, f := range findings {
				if isCommand(f.Fix) || (allCommands && f.Severity != Note) {
					t.Errorf("after running the fixes %v: still %s (%s) %s: %s; fix %s", slices.Sorted(maps.Keys(ran)), f.ID, f.Severity, f.File, f.Message, f.Fix)
				}
			}
		})
	}
}
