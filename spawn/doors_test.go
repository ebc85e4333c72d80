package spawn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"

	"github.com/hookwarden/hookwarden/internal/posixtest"
)

// TestCodexLayerGitLstatError: an Lstat error on a directory's .git other
// than absence (EACCES from an unreadable directory; this test process may
// be root, so the error is injected) makes the layer set unknown instead of
// reading as "no .git here" and walking on.
func TestCodexLayerGitLstatError(t *testing.T) {
	w := materialise(t, filepath.Join("..", "testdata", "spawn", "base"))
	bin := fakeEngine(t, w.engineDir, "codex", defaultVersion("codex"), w.startLog)
	w.approveAll(t, "", "")
	sub := filepath.Join(w.repo, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	denied := filepath.Join(sub, ".git")
	_, err := Compile(context.Background(), Options{Engine: "codex", Binary: bin, Version: "0.169.0", Cwd: sub, Home: w.home,
		lstat: func(p string) (os.FileInfo, error) {
			if p == denied {
				return nil, &fs.PathError{Op: "lstat", Path: p, Err: syscall.EACCES}
			}
			return os.Lstat(p)
		}})
	if r := AsRefusal(err); r == nil || r.Reason != ReasonCodexLayersUnknown {
		t.Fatalf("want %s, got %v", ReasonCodexLayersUnknown, err)
	}
	if f := w.runFiles(t); len(f) != 0 {
		t.Fatalf("run files left: %v", f)
	}
}

// TestCompileErrorReason: a compile error that is not one of the listed
// refusals (here a capability table that does not parse) is reported with
// its own reason, never as run-file-unwritable, and starts nothing.
func TestCompileErrorReason(t *testing.T) {
	w := materialise(t, filepath.Join("..", "testdata", "spawn", "base"))
	fakeEngine(t, w.engineDir, "claude", defaultVersion("claude"), w.startLog)
	w.approveAll(t, "", "")
	code, err := Exec(context.Background(), ExecOptions{Argv: []string{"claude", "-p", "hi"}, Home: w.home, Cwd: w.repo, Env: w.env(),
		Tables: fstest.MapFS{"claude-2.1.328.json": {Data: []byte("{not json")}}})
	r := AsRefusal(err)
	if r == nil || r.Reason != ReasonCapabilityTable || code != RefusedExit {
		t.Fatalf("want %s and exit %d, got %d %v", ReasonCapabilityTable, RefusedExit, code, err)
	}
	if s := w.started(t); s != "" {
		t.Fatalf("engine started: %s", s)
	}
}

// TestSelectForApproval: `trust approve --all` approves argvs with no
// approval and leaves out (reporting) one whose executable changed since
// its approval; naming the stale one by hash re-approves it.
func TestSelectForApproval(t *testing.T) {
	w := materialise(t, filepath.Join("..", "testdata", "spawn", "base"))
	w.approveAll(t, "", "")
	guard := filepath.Join(w.home, "bin", "guard.sh")
	if err := os.WriteFile(guard, []byte("#!/bin/sh\necho changed\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// a second, never approved argv
	var lib library
	readJSON(t, filepath.Join(w.home, LibraryFile), &lib)
	e := lib.Entries["guard"]
	e.Argv = append(e.Argv, "--extra")
	lib.Entries["other"] = Entry{Argv: e.Argv, Timeout: e.Timeout}
	writeJSONFile(t, filepath.Join(w.home, LibraryFile), lib)
	var reg Layer
	readJSON(t, filepath.Join(w.home, RegistryFile), &reg)
	reg.Attachments = append(reg.Attachments, Attachment{Hook: "other", Event: "claude:Stop"})
	writeJSONFile(t, filepath.Join(w.home, RegistryFile), reg)
	rows, err := TrustList(w.home, "", "")
	if err != nil {
		t.Fatal(err)
	}
	chosen, skipped := SelectForApproval(rows, true, nil)
	if len(chosen) != 1 || chosen[0].Argv[len(chosen[0].Argv)-1] != "--extra" {
		t.Fatalf("--all chose %+v, want only the unapproved argv", chosen)
	}
	if len(skipped) != 1 || skipped[0].State != StateDigestChanged {
		t.Fatalf("--all skipped %+v, want the stale guard", skipped)
	}
	named, _ := SelectForApproval(rows, false, []string{skipped[0].ArgvHash[:12]})
	if len(named) != 1 || named[0].ArgvHash != skipped[0].ArgvHash {
		t.Fatalf("naming the stale argv chose %+v", named)
	}
}

// TestApprovalsCompareAndSwap: an approvals.json changed between an
// update's read and its write (by a process that does not take the lock)
// is not overwritten; the update fails with ErrApprovalsChanged and the
// other writer's bytes stay.
func TestApprovalsCompareAndSwap(t *testing.T) {
	home := t.TempDir()
	guard := filepath.Join(home, "guard.sh")
	if err := os.WriteFile(guard, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Approve(home, [][]string{{guard, "a"}}); err != nil {
		t.Fatal(err)
	}
	other := []byte(`{"version":1,"approvals":[]}` + "\n")
	err := updateApprovals(home, func(s *Approvals) (bool, error) {
		// another writer replaces the store while this update computes
		if err := os.WriteFile(filepath.Join(home, ApprovalsFile), other, 0o600); err != nil {
			t.Fatal(err)
		}
		s.Approvals = nil
		return true, nil
	})
	if !errors.Is(err, ErrApprovalsChanged) {
		t.Fatalf("want ErrApprovalsChanged, got %v", err)
	}
	b, _ := os.ReadFile(filepath.Join(home, ApprovalsFile))
	if string(b) != string(other) {
		t.Fatalf("store overwritten: %s", b)
	}
	// and an undisturbed update still writes
	if err := Approve(home, [][]string{{guard, "b"}}); err != nil {
		t.Fatal(err)
	}
	s, err := ReadApprovals(home)
	if err != nil || len(s.Approvals) != 1 || !strings.HasSuffix(s.Approvals[0].Argv[1], "b") {
		t.Fatalf("after approve: %+v %v", s, err)
	}
}

// TestFileDigestRefusesFIFO: a pinned file or an executable replaced by a
// FIFO is an error at once, not a read that waits for a writer.
func TestFileDigestRefusesFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	posixtest.Mkfifo(t, p, 0o600)
	if _, err := fileDigest(p); err == nil {
		t.Fatal("a FIFO was digested")
	}
}

// TestRunDirAncestorUnreadable: under a redaction entry, an ancestor of
// the run directory whose .git cannot be checked (EACCES, injected: this
// test may run as root) refuses instead of reading as "no work tree".
func TestRunDirAncestorUnreadable(t *testing.T) {
	w := materialise(t, filepath.Join("..", "testdata", "spawn", "refusals", "redaction-capabilities-missing"))
	bin := fakeEngine(t, w.engineDir, "claude", defaultVersion("claude"), w.startLog)
	w.approveAll(t, "", "")
	denied := filepath.Join(filepath.Dir(w.home), ".git")
	_, err := Compile(context.Background(), Options{Engine: "claude", Binary: bin, Version: "2.1.328", Cwd: w.repo, Home: w.home,
		lstat: func(p string) (os.FileInfo, error) {
			if p == denied {
				return nil, &fs.PathError{Op: "lstat", Path: p, Err: syscall.EACCES}
			}
			return os.Lstat(p)
		}})
	if r := AsRefusal(err); r == nil || r.Reason != ReasonRunDirInWorktree || !strings.Contains(r.Detail, "cannot be checked") {
		t.Fatalf("want %s (cannot be checked), got %v", ReasonRunDirInWorktree, err)
	}
}

// TestRunDirGitAncestorRefuses: the shape Codex 0.169.0's sandbox leaves
// at /tmp/.git (an empty directory, not a repository; runRoot) three
// levels above the run directory's real path, reached through a symbolic
// link to the home, refuses a spawn under a redaction entry
// (run-dir-in-worktree, naming it). The same world without it is refused
// only for the table's missing capabilities: the test worlds living
// outside /tmp (runTempDir) left the rule as strict as it was.
func TestRunDirGitAncestorRefuses(t *testing.T) {
	w := materialise(t, filepath.Join("..", "testdata", "spawn", "refusals", "redaction-capabilities-missing"))
	bin := fakeEngine(t, w.engineDir, "claude", defaultVersion("claude"), w.startLog)
	w.approveAll(t, "", "")
	compile := func() *Refusal {
		// 2.1.327 has no capability table: past the run directory's
		// checks the entry is refused for its capabilities
		_, err := Compile(context.Background(), Options{Engine: "claude", Binary: bin, Version: "2.1.327", Cwd: w.repo, Home: w.home})
		return AsRefusal(err)
	}
	if r := compile(); r == nil || r.Reason != ReasonCapabilityMissing {
		t.Fatalf("without a .git above the run directory: want %s, got %v", ReasonCapabilityMissing, r)
	}
	tmp := runTempDir(t) // stands for /tmp
	deep := filepath.Join(tmp, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(w.home, filepath.Join(deep, "home")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(deep, "home"), w.home); err != nil {
		t.Fatal(err)
	}
	if r := compile(); r == nil || r.Reason != ReasonCapabilityMissing {
		t.Fatalf("the home moved behind a symbolic link, no .git yet: want %s, got %v", ReasonCapabilityMissing, r)
	}
	git := filepath.Join(tmp, ".git")
	if err := os.Mkdir(git, 0o755); err != nil {
		t.Fatal(err)
	}
	r := compile()
	if r == nil || r.Reason != ReasonRunDirInWorktree || !strings.Contains(r.Detail, git) {
		t.Fatalf("an empty %s above the run directory: want %s naming it, got %v", git, ReasonRunDirInWorktree, r)
	}
	if _, err := os.Stat(filepath.Join(deep, "home", RunHooksDir)); err == nil {
		if es, _ := os.ReadDir(filepath.Join(deep, "home", RunHooksDir)); len(es) > 0 {
			t.Errorf("the refused spawn left run files: %v", es)
		}
	}
}

// TestRedactionOnlyUnderExec: a complete redaction entry whose engine
// table lists every needed capability passes every compile check, but a
// compile that does not run the entry (`spawn compile`, whose caller would
// start the engine without agent_prompt and agent_exit) is refused
// (redaction-unsupported) and writes no run file.
func TestRedactionOnlyUnderExec(t *testing.T) {
	w := materialise(t, filepath.Join("..", "testdata", "spawn", "refusals", "redaction-capabilities-missing"))
	bin := fakeEngine(t, w.engineDir, "claude", defaultVersion("claude"), w.startLog)
	w.approveAll(t, "", "")
	_, err := Compile(context.Background(), Options{Engine: "claude", Binary: bin, Cwd: w.repo, Home: w.home, Tables: fullRedactionTable("claude", "2.1.328")})
	if r := AsRefusal(err); r == nil || r.Reason != ReasonRedaction {
		t.Fatalf("want %s, got %v", ReasonRedaction, err)
	}
	if f := w.runFiles(t); len(f) != 0 {
		t.Fatalf("run files left: %v", f)
	}
}

// fullRedactionTable is a capability table for engine at version that
// renders pre_tool, post_tool and the engine's Stop and lists every
// capability the redaction entry needs (tests of what follows the
// capability check; no shipped table is like it).
func fullRedactionTable(engine, version string) fstest.MapFS {
	table := `{"engine":"` + engine + `","version":"` + version + `","source":"test","events":{"pre_tool":{"native":"PreToolUse","source":"t"},"post_tool":{"native":"PostToolUse","source":"t"},"` + engine + `:Stop":{"native":"Stop","source":"t"}},
	"capabilities":{"pre_tool.deny":"t","pre_tool.rewrite":"t","pre_tool.fail_closed":"t","all_tools_gated":"t","post_tool.block":"t"},"settings_keys":{},"project_layer_keys":{},"inert_events":{},"exec_form":false}`
	return fstest.MapFS{engine + "-" + version + ".json": {Data: []byte(table)}}
}

// TestCapabilityConditions: a capability the table grants only under a
// posture (Table.Conditions) counts under the redaction entry only when
// spawn exec renders that posture for the engine: Claude's permission
// arbiter passes the capability check (and the compile then reaches the
// spawn-compile refusal), an unknown posture and the Claude posture named
// for Codex are capability-missing, naming the posture.
func TestCapabilityConditions(t *testing.T) {
	for _, c := range []struct {
		engine, posture string
		want            Reason
	}{
		{"claude", PostureClaudeArbiter, ReasonRedaction},
		{"claude", "some-other-posture", ReasonCapabilityMissing},
		{"codex", PostureClaudeArbiter, ReasonCapabilityMissing},
	} {
		w := materialise(t, filepath.Join("..", "testdata", "spawn", "refusals", "redaction-capabilities-missing"))
		version := map[string]string{"claude": "2.1.328", "codex": "0.169.0"}[c.engine]
		bin := fakeEngine(t, w.engineDir, c.engine, defaultVersion(c.engine), w.startLog)
		if c.engine == "codex" {
			reg := filepath.Join(w.home, RegistryFile)
			b, _ := os.ReadFile(reg)
			b = bytes.ReplaceAll(bytes.ReplaceAll(b, []byte(`"claude:Stop"`), []byte(`"codex:Stop"`)), []byte(`"claude"`), []byte(`"codex"`))
			os.WriteFile(reg, b, 0o644)
		}
		w.approveAll(t, "", "")
		tables := fullRedactionTable(c.engine, version)
		name := c.engine + "-" + version + ".json"
		var tab Table
		if err := json.Unmarshal(tables[name].Data, &tab); err != nil {
			t.Fatal(err)
		}
		tab.Conditions = map[string]string{"pre_tool.fail_closed": c.posture}
		tables[name].Data, _ = json.Marshal(tab)
		_, err := Compile(context.Background(), Options{Engine: c.engine, Binary: bin, Version: version, Cwd: w.repo, Home: w.home, Tables: tables})
		r := AsRefusal(err)
		if r == nil || r.Reason != c.want || (c.want == ReasonCapabilityMissing && !strings.Contains(r.Detail, c.posture)) {
			t.Errorf("%s under %q: want %s, got %v", c.engine, c.posture, c.want, err)
		}
	}
}
