package codextrust

import (
	"context"
	"encoding/json"
	"github.com/hookwarden/hookwarden/internal/testbin"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookwarden/hookwarden/adopt/codextrust/codextrusttest"
)

func oursForTest(c string) bool { return strings.Contains(c, ".hookwarden/hook.py") }

// TestEntriesMatchRecordedCodexHashes replays hashes Codex 0.169.0 itself
// reported for a file with every shape we know (matcher, empty matcher, no
// matcher, statusMessage, async, missing timeout, non-ASCII and escapes).
func TestEntriesMatchRecordedCodexHashes(t *testing.T) {
	src, err := os.ReadFile("../../testdata/adopt/codextrust/shapes.hooks.json")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("../../testdata/adopt/codextrust/shapes.expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		Entries []struct {
			KeySuffix string `json:"key_suffix"`
			Hash      string `json:"hash"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	got, err := Entries("/r/.codex/hooks.json", src, oursForTest)
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]Entry{}
	for _, e := range got {
		byKey[e.Key] = e
	}
	if len(got) != len(want.Entries) {
		t.Fatalf("got %d entries, Codex listed %d", len(got), len(want.Entries))
	}
	for _, w := range want.Entries {
		e, ok := byKey["/r/.codex/hooks.json:"+w.KeySuffix]
		if !ok {
			t.Fatalf("no entry for key suffix %s", w.KeySuffix)
		}
		if e.Hash != w.Hash {
			t.Errorf("%s: hash %s, Codex says %s", w.KeySuffix, e.Hash, w.Hash)
		}
	}
	if !byKey["/r/.codex/hooks.json:pre_tool_use:0:0"].Ours || byKey["/r/.codex/hooks.json:stop:0:0"].Ours {
		t.Fatal("ours flag wrong")
	}
}

func TestCheckAndApply(t *testing.T) {
	src, _ := os.ReadFile("../../testdata/adopt/codextrust/shapes.hooks.json")
	entries, err := Entries("/r/.codex/hooks.json", src, oursForTest)
	if err != nil {
		t.Fatal(err)
	}
	cfg := []byte("# mine\nmodel = \"o3\"\n")
	st, err := Check(cfg, "/r", entries)
	if err != nil {
		t.Fatal(err)
	}
	if st.ProjectTrusted || len(st.Pending) != 1 {
		t.Fatalf("status = %+v, want untrusted project and our one row pending", st)
	}
	out, err := Apply(cfg, "/r", entries, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), string(cfg)) {
		t.Fatalf("operator bytes not kept: %q", out)
	}
	if strings.Count(string(out), "trusted_hash") != 1 {
		t.Fatalf("foreign rows must never be trusted:\n%s", out)
	}
	st, _ = Check(out, "/r", entries)
	if len(st.Pending) != 0 || st.ProjectTrusted {
		t.Fatalf("after apply: %+v", st)
	}
	out2, err := Apply(out, "/r", entries, true)
	if err != nil {
		t.Fatal(err)
	}
	st, _ = Check(out2, "/r", entries)
	if !st.ProjectTrusted {
		t.Fatal("--trust-project did not trust the project")
	}
}

func codexBin() string {
	if b := os.Getenv("E2E_CLIENTS_BIN"); b != "" {
		return filepath.Join(b, "codex")
	}
	dir := os.Getenv("HOOKWARDEN_CLIENTS_DIR")
	if dir == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache")
		}
		dir = filepath.Join(cache, "hookwarden-clients")
	}
	return filepath.Join(dir, "node_modules", ".bin", "codex")
}

// hooksList asks the real Codex which hooks it lists for repo
// (codextrusttest); a failure or a warning about the hooks files fails
// the test.
func hooksList(t *testing.T, codex, home, repo string) []codextrusttest.Hook {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	hooks, err := codextrusttest.HooksList(ctx, codex, home, repo)
	if err != nil {
		t.Fatal(err)
	}
	return hooks
}

// TestAgainstCodexAppServer compares our keys and hashes with the ones the
// real Codex computes, then writes our trust entries and checks Codex reads
// our rows as trusted and the foreign ones as still untrusted.
func TestAgainstCodexAppServer(t *testing.T) {
	codex := codexBin()
	if _, err := os.Stat(codex); err != nil {
		if os.Getenv("HOOKWARDEN_E2E") == "require" {
			t.Fatalf("HOOKWARDEN_E2E=require but the real codex is absent: %v", err)
		}
		t.Skipf("real codex not installed at %s (see ../shared/e2e/README.md Quick start); set HOOKWARDEN_E2E=require to make this a failure", codex)
	}
	// npm's .bin/codex is a node script (#!/usr/bin/env node).
	testbin.Need(t, "node")
	base, _ := filepath.EvalSymlinks(t.TempDir())
	home, repo := filepath.Join(base, "home"), filepath.Join(base, "repo")
	os.MkdirAll(home, 0o755)
	os.MkdirAll(filepath.Join(repo, ".codex"), 0o755)
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	src, _ := os.ReadFile("../../testdata/adopt/codextrust/shapes.hooks.json")
	hooksPath := filepath.Join(repo, ".codex", "hooks.json")
	os.WriteFile(hooksPath, src, 0o644)
	entries, err := Entries(hooksPath, src, oursForTest)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := Apply(nil, repo, entries, true)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(home, "config.toml"), cfg, 0o600)

	listed := hooksList(t, codex, home, repo)
	if len(listed) != len(entries) {
		t.Fatalf("codex lists %d hooks, we computed %d", len(listed), len(entries))
	}
	mine := map[string]Entry{}
	for _, e := range entries {
		mine[e.Key] = e
	}
	for _, h := range listed {
		e, ok := mine[h.Key]
		if !ok {
			t.Errorf("codex key %s not computed by us", h.Key)
			continue
		}
		if e.Hash != h.CurrentHash {
			t.Errorf("%s: our hash %s, codex %s", h.Key, e.Hash, h.CurrentHash)
		}
		wantStatus := "untrusted"
		if e.Ours {
			wantStatus = "trusted"
		}
		if h.TrustStatus != wantStatus {
			t.Errorf("%s: codex trust status %q, want %q", h.Key, h.TrustStatus, wantStatus)
		}
	}
}

// TestNonIntegerTimeoutRefused: Codex 0.169.0 drops every hook of a
// hooks.json whose timeout is not an unsigned integer (15.0 and 15.7 both,
// measured with hooks/list), so no trust entry can be computed for it.
func TestNonIntegerTimeoutRefused(t *testing.T) {
	for _, v := range []string{"15.0", "15.7", "-1", "1e3", `"15"`} {
		src := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x","timeout":` + v + `}]}]}}`
		if _, err := Entries("/r/.codex/hooks.json", []byte(src), nil); err == nil || !strings.Contains(err.Error(), "loads no hook") {
			t.Errorf("timeout %s: err = %v", v, err)
		}
	}
}
