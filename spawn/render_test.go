package spawn

import (
	"github.com/hookwarden/hookwarden/internal/testbin"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/pelletier/go-toml/v2"
)

func testHooks() []CompiledHook {
	return []CompiledHook{
		{Hook: "guard", Event: "pre_tool", Native: "PreToolUse", Matcher: "Bash", Argv: []string{"/opt/guard", "--mode", "deny it's", "codex"}, Timeout: 15},
		{Hook: "audit", Event: "pre_tool", Native: "PreToolUse", Argv: []string{"/opt/audit"}, Timeout: 3},
		{Hook: "stop", Event: "codex:Stop", Native: "Stop", Matcher: "ignored", Argv: []string{"/opt/stop", "café \"q\""}, Timeout: 30},
	}
}

// TestCodexOverrideIsOneInlineLayer parses the rendered -c value as TOML
// (the way Codex parses -c values) and checks it holds the hooks and one
// trust record per hook under the session-flags keys.
func TestCodexOverrideIsOneInlineLayer(t *testing.T) {
	v, keys, err := CodexHooksOverride(testHooks())
	if err != nil {
		t.Fatal(err)
	}
	k, val, ok := strings.Cut(v, "=")
	if !ok || k != "hooks" {
		t.Fatalf("override %q does not set hooks", v)
	}
	var doc struct {
		Hooks map[string]any `toml:"hooks"`
	}
	if err := toml.Unmarshal([]byte("hooks = "+val), &doc); err != nil {
		t.Fatalf("not TOML: %v\n%s", err, v)
	}
	wantKeys := []string{
		"/<session-flags>/config.toml:pre_tool_use:0:0",
		"/<session-flags>/config.toml:pre_tool_use:1:0",
		"/<session-flags>/config.toml:stop:0:0",
	}
	if d := cmp.Diff(wantKeys, keys); d != "" {
		t.Fatalf("keys (-want +got):\n%s", d)
	}
	state, _ := doc.Hooks["state"].(map[string]any)
	if len(state) != 3 {
		t.Fatalf("state has %d records, want 3: %v", len(state), state)
	}
	pre := doc.Hooks["PreToolUse"].([]any)
	g0 := pre[0].(map[string]any)
	h0 := g0["hooks"].([]any)[0].(map[string]any)
	if g0["matcher"] != "Bash" || h0["command"] != `/opt/guard --mode 'deny it'\''s' codex` || h0["timeout"] != int64(15) {
		t.Fatalf("first group = %v", g0)
	}
	if _, has := pre[1].(map[string]any)["matcher"]; has {
		t.Fatal("an attachment without matcher rendered one")
	}
}

// TestCodexTrustHashMatchesReferenceScript writes the rendered hooks as a
// .codex/hooks.json and asks ../shared/e2e/tools/codex_trust_hooks.py
// --compute (whose hashes matched Codex 0.169.0's own) for the hashes
// ($HOOKWARDEN_E2E_DIR/tools when set, as for the mock: a worktree is not
// beside ../shared).
func TestCodexTrustHashMatchesReferenceScript(t *testing.T) {
	script := filepath.Join("..", "..", "shared", "e2e", "tools", "codex_trust_hooks.py")
	if d := os.Getenv("HOOKWARDEN_E2E_DIR"); d != "" {
		script = filepath.Join(d, "tools", "codex_trust_hooks.py")
	}
	if _, err := os.Stat(script); err != nil {
		if os.Getenv("HOOKWARDEN_E2E") == "require" {
			t.Fatalf("%s: %v", script, err)
		}
		t.Skipf("reference script absent (%v)", err)
	}
	python := testbin.Need(t, "python3")
	repo := t.TempDir()
	hooks := testHooks()
	doc := `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":` + jsonQ(commandOf(hooks[0])) + `,"timeout":15}]},` +
		`{"hooks":[{"type":"command","command":` + jsonQ(commandOf(hooks[1])) + `,"timeout":3}]}],` +
		`"Stop":[{"matcher":"ignored","hooks":[{"type":"command","command":` + jsonQ(commandOf(hooks[2])) + `,"timeout":30}]}]}}`
	os.MkdirAll(filepath.Join(repo, ".codex"), 0o755)
	if err := os.WriteFile(filepath.Join(repo, ".codex", "hooks.json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(python, script, "--compute", "--dry-run", repo, repo).Output()
	if err != nil {
		t.Fatalf("reference script: %v", err)
	}
	want := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		k, h, _ := strings.Cut(line, " ")
		parts := strings.Split(k, ":")
		want[strings.Join(parts[len(parts)-3:], ":")] = h
	}
	got := map[string]string{
		"pre_tool_use:0:0": CodexTrustHash("pre_tool_use", commandOf(hooks[0]), 15, "Bash"),
		"pre_tool_use:1:0": CodexTrustHash("pre_tool_use", commandOf(hooks[1]), 3, ""),
		"stop:0:0":         CodexTrustHash("stop", commandOf(hooks[2]), 30, "ignored"),
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("hashes (-reference +ours):\n%s", d)
	}
}

func jsonQ(s string) string {
	var b strings.Builder
	b.WriteString(PyJSONArgv([]string{s})[1:])
	r := b.String()
	return r[:len(r)-1]
}

// TestCodexOverrideRefusesInvalidUTF8: a hook whose command holds bytes that
// are not UTF-8 cannot be written as a TOML string without changing them (the
// old hand-written writer turned them into U+FFFD, so the trust hash of the
// real command no longer matched what Codex read and Codex silently did not
// run the hook): CodexHooksOverride names the hook in an error instead, and
// every valid command still round-trips through TOML byte for byte.
func TestCodexOverrideRefusesInvalidUTF8(t *testing.T) {
	bad := []CompiledHook{{Hook: "latin1", Event: "pre_tool", Native: "PreToolUse", Matcher: "Bash", Argv: []string{"/opt/guard", "caf\xe9"}, Timeout: 15}}
	if v, _, err := CodexHooksOverride(bad); err == nil || !strings.Contains(err.Error(), `hook "latin1"`) {
		t.Fatalf("invalid UTF-8 rendered as %q (err %v); want an error naming the hook", v, err)
	}
	for _, s := range []string{"plain", "quote \" backslash \\ tab \t nl \n", "ctl \x01 del \x7f", "café ✓ 𝄞", "it's", "''" + "'"} {
		v, err := tomlString(s)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		var doc struct{ K string }
		if err := toml.Unmarshal([]byte("k = "+v), &doc); err != nil || doc.K != s {
			t.Errorf("%q written as %s reads back as %q (%v)", s, v, doc.K, err)
		}
	}
}

// TestLoadTableRefusalForms: a capability table whose pre_hook_refusals
// hold a form that cannot be applied exactly (an expression that does not
// compile, a tool_result without a tool group) does not load; the shipped
// claude-2.1.328 table loads with its forms.
func TestLoadTableRefusalForms(t *testing.T) {
	for _, form := range []string{
		`{"name":"bad","tool_result":"(?P<tool>x","tool_use_result":"x"}`,
		`{"name":"no tool","tool_result":"No such tool available: x","tool_use_result":"x"}`,
	} {
		fsys := fstest.MapFS{"claude-9.9.9.json": {Data: []byte(`{"engine":"claude","version":"9.9.9","source":"t","events":{},"capabilities":{},` +
			`"settings_keys":{},"project_layer_keys":{},"inert_events":{},"exec_form":false,"pre_hook_refusals":[` + form + `]}`)}}
		if _, err := LoadTable(fsys, "claude", "9.9.9"); err == nil {
			t.Errorf("a table with the form %s loaded", form)
		}
	}
	tab, err := LoadTable(Tables(), "claude", "2.1.328")
	if err != nil || len(tab.PreHookRefusals) == 0 {
		t.Fatalf("the shipped table: %v, %d forms", err, len(tab.PreHookRefusals))
	}
}
