package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	agentcontext "github.com/hookwarden/hookwarden/templates/agentcontext"
)

// TestCompileContextCLI calls compile-context's run function as the verb
// does and reads its output and exit code as a user would: exit 0 when it writes the
// files and again when they are up to date; exit 1 from --verify once
// AGENTS.md changed, naming the stale file; exit 2 for an unknown client or a
// missing source, writing nothing.
func TestCompileContextCLI(t *testing.T) {
	dir := t.TempDir()
	// run takes the flags this test uses: --clients LIST and --verify.
	run := func(args ...string) (string, int) {
		t.Helper()
		streams, out, errOut := testIO("", nil, dir)
		o := &compileContextOptions{IO: streams, Source: "AGENTS.md", TargetDir: dir, LineBudget: agentcontext.DefaultLineBudget}
		for i := 0; i < len(args); i++ {
			switch args[i] {
			case "--clients":
				i++
				o.Clients = strings.Split(args[i], ",")
			case "--verify":
				o.Verify = true
			default:
				t.Fatalf("run: flag %q not mapped", args[i])
			}
		}
		code, msg := runExit(runCompileContext(context.Background(), o))
		return out.String() + errOut.String() + msg, code
	}
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// exit 2: missing source, then an unknown client; nothing written.
	if out, code := run(); code != 2 || !strings.Contains(out, "AGENTS.md") {
		t.Fatalf("missing source: exit %d, want 2 naming AGENTS.md:\n%s", code, out)
	}
	write("AGENTS.md", "# Project\n\nRun the tests before you commit.\n")
	if out, code := run("--clients", "claude,vscode"); code != 2 || !strings.Contains(out, "vscode") {
		t.Fatalf("unknown client: exit %d, want 2 naming vscode:\n%s", code, out)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("a usage error wrote files: %v", entries)
	}

	// exit 0: written, then up to date.
	out, code := run("--clients", "claude,gemini")
	if code != 0 || !strings.Contains(out, "wrote      CLAUDE.md") || !strings.Contains(out, "wrote      GEMINI.md") {
		t.Fatalf("first run: exit %d, want 0 writing CLAUDE.md and GEMINI.md:\n%s", code, out)
	}
	claude, err := os.ReadFile(filepath.Join(dir, "CLAUDE.md"))
	if err != nil || !strings.Contains(string(claude), "@AGENTS.md") {
		t.Fatalf("CLAUDE.md = %q, %v; want an import of AGENTS.md", claude, err)
	}
	if out, code := run("--clients", "claude,gemini"); code != 0 || strings.Contains(out, "wrote") || !strings.Contains(out, "unchanged  CLAUDE.md") {
		t.Fatalf("second run: exit %d, want 0 with nothing written:\n%s", code, out)
	}
	if out, code := run("--clients", "claude,gemini", "--verify"); code != 0 || !strings.Contains(out, "up to date") {
		t.Fatalf("--verify on fresh files: exit %d, want 0:\n%s", code, out)
	}

	// exit 1: --verify after AGENTS.md changed names the stale file and writes nothing.
	stale, err := os.ReadFile(filepath.Join(dir, "AGENTS.readonly.md"))
	if err != nil {
		t.Fatal(err)
	}
	write("AGENTS.md", "# Project\n\nRun the tests and the linter before you commit.\n")
	out, code = run("--clients", "claude,gemini", "--verify")
	if code != 1 || !strings.Contains(out, "AGENTS.readonly.md") || !strings.Contains(out, "stale") {
		t.Fatalf("--verify after editing AGENTS.md: exit %d, want 1 naming the stale AGENTS.readonly.md:\n%s", code, out)
	}
	if ro, _ := os.ReadFile(filepath.Join(dir, "AGENTS.readonly.md")); string(ro) != string(stale) {
		t.Fatal("--verify wrote AGENTS.readonly.md")
	}
	if out, code := run("--clients", "claude,gemini"); code != 0 || !strings.Contains(out, "wrote      AGENTS.readonly.md") {
		t.Fatalf("recompile: exit %d, want 0 rewriting AGENTS.readonly.md:\n%s", code, out)
	}
	if out, code := run("--clients", "claude,gemini", "--verify"); code != 0 {
		t.Fatalf("--verify after recompiling: exit %d, want 0:\n%s", code, out)
	}
}
