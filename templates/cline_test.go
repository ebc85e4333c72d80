package templates

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/policy"
)

func clineFile(t *testing.T) File {
	t.Helper()
	files, err := Render([]string{"cline"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Path == ClineHookPath {
			return f
		}
	}
	t.Fatalf("Render([cline]) has no %s", ClineHookPath)
	return File{}
}

// TestClineHookHeader: the Cline file starts with its shebang, is 0755, and
// its header on the second line is read by ParseHeaderAt for that path
// only; an edit of any byte but the header line is seen.
func TestClineHookHeader(t *testing.T) {
	f := clineFile(t)
	if f.Mode != 0o755 || f.Step != StepClineHook || !bytes.HasPrefix(f.Body, []byte("#!/bin/sh\n# hookwarden-render: ")) {
		t.Fatalf("mode %o step %s, starts %q", f.Mode, f.Step, f.Body[:min(len(f.Body), 40)])
	}
	h, ok := ParseHeaderAt(ClineHookPath, f.Body)
	if !ok || h.Edited {
		t.Fatalf("ParseHeaderAt: %+v %v, want a clean header", h, ok)
	}
	if _, ok := ParseHeader(f.Body); ok {
		t.Error("ParseHeader reads a header off the first line's place for the Cline file")
	}
	if _, ok := ParseHeaderAt(LauncherPath, f.Body); ok {
		t.Error("ParseHeaderAt reads the second-line header for a path other than the Cline file")
	}
	for _, edit := range []func([]byte) []byte{
		func(b []byte) []byte { return bytes.Replace(b, []byte("#!/bin/sh"), []byte("#!/bin/ba"), 1) },
		func(b []byte) []byte {
			return bytes.Replace(b, []byte(`[ "$2" -ne 0 ] || return 0`), []byte(`return 0`), 1)
		},
		func(b []byte) []byte { return append(b, "exit 0\n"...) },
	} {
		h, ok := ParseHeaderAt(ClineHookPath, edit(bytes.Clone(f.Body)))
		if ok && !h.Edited {
			t.Errorf("an edited Cline file reads as a clean render")
		}
	}
	if _, ok := ParseHeaderAt(ClineHookPath, []byte("#!/bin/sh\necho '{\"cancel\":false}'\n")); ok {
		t.Error("an operator's own PreToolUse reads as ours")
	}
}

// TestClineHookFailsClosed runs the rendered .clinerules/hooks/PreToolUse
// as Cline does (the file itself, by its absolute path) with a fake engine
// answering each way, the engine missing and the launcher missing: only
// two exact {"cancel":false} answers let the call through, and every other
// path prints one {"cancel":true,…} line with exit 0 (Cline lets a call
// through on a non-zero exit or output it cannot parse).
func TestClineHookFailsClosed(t *testing.T) {
	need(t, "sh")
	dir := renderRepo(t, "cline")
	hook := filepath.Join(dir, filepath.FromSlash(ClineHookPath))
	fake := filepath.Join(t.TempDir(), "hookwarden")
	// The fake engine answers the launcher's probe (`hookwarden hook`) with
	// both cline pairs, then answers each call as $FAKE_PRE / $FAKE_EDIT say.
	script := `#!/bin/sh
if [ $# -eq 1 ]; then printf 'cline pre-tool\ncline pre-edit\n'; exit 0; fi
cat >/dev/null
case $3 in pre-tool) a=$FAKE_PRE ;; *) a=$FAKE_EDIT ;; esac
case $a in
allow) printf '%s\n' '{"cancel":false}' ;;
deny) printf '%s\n' '{"cancel":true,"errorMessage":"[BLOCKED BY hookwarden:sudo] no"}' ;;
crash) echo 'panic: boom' >&2; exit 2 ;;
signal) kill -9 $$ ;;
garbage) echo 'not json' ;;
twolines) printf '%s\n%s\n' '{"cancel":true,"errorMessage":"x"}' 'more' ;;
allowexit1) printf '%s\n' '{"cancel":false}'; exit 1 ;;
esac
`
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	payload := `{"clineVersion":"3.82.0","hookName":"PreToolUse","workspaceRoots":["` + dir + `"],"preToolUse":{"toolName":"execute_command","parameters":{"command":"sudo true"}}}`
	run := func(env ...string) (string, int) {
		cmd := exec.Command(hook)
		cmd.Dir = t.TempDir()
		cmd.Env = append(noEngineEnv(t, "sh", "cat", "rm", "mkdir", "sleep", "kill"), "HOME="+t.TempDir())
		cmd.Env = append(cmd.Env, env...)
		cmd.Stdin = strings.NewReader(payload)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		var exitErr *exec.ExitError
		if err := cmd.Run(); err != nil && !errors.As(err, &exitErr) {
			t.Fatal(err)
		}
		return out.String(), cmd.ProcessState.ExitCode()
	}
	cancel := `{"cancel":true,"errorMessage":"[BLOCKED BY hookwarden:`
	for _, tc := range []struct{ pre, edit, want string }{
		{"allow", "allow", `{"cancel":false}` + "\n"},
		{"deny", "allow", `{"cancel":true,"errorMessage":"[BLOCKED BY hookwarden:sudo] no"}` + "\n"},
		{"allow", "deny", `{"cancel":true,"errorMessage":"[BLOCKED BY hookwarden:sudo] no"}` + "\n"},
		{"crash", "allow", cancel + "launcher]"},
		{"allow", "crash", cancel + "launcher]"},
		{"signal", "allow", cancel},
		{"garbage", "allow", cancel + "launcher] cline pre-tool gave no answer"},
		{"twolines", "allow", cancel + "launcher] cline pre-tool gave no answer"},
		{"allowexit1", "allow", cancel},
		{"", "allow", cancel},
	} {
		out, code := run("HOOKWARDEN_BIN="+fake, "FAKE_PRE="+tc.pre, "FAKE_EDIT="+tc.edit)
		if code != 0 || !strings.HasPrefix(out, tc.want) || strings.Count(out, "\n") != 1 {
			t.Errorf("engine %s/%s: exit %d stdout %q; want exit 0 and one line starting %q", tc.pre, tc.edit, code, out, tc.want)
		}
	}
	if out, code := run(); code != 0 || !strings.HasPrefix(out, cancel) || strings.Count(out, "\n") != 1 {
		t.Errorf("no engine: exit %d stdout %q; want one cancel line, exit 0", code, out)
	}
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(LauncherPath))); err != nil {
		t.Fatal(err)
	}
	if out, code := run("HOOKWARDEN_BIN="+fake, "FAKE_PRE=allow", "FAKE_EDIT=allow"); code != 0 || !strings.HasPrefix(out, cancel+"launcher] the launcher .hookwarden/hook.sh is missing") {
		t.Errorf("launcher missing: exit %d stdout %q; want a cancel, exit 0", code, out)
	}
}

// TestClineHookInterceptor runs the rendered .clinerules/hooks/PreToolUse
// with no engine installed and python3 on PATH, fed the payloads the npm
// Cline CLI 3.0.65 sent (testdata/clients/cline/3.0.65) and the extension's
// documented one: the launcher hands pre-tool to the standalone interceptor,
// whose deny reaches Cline as one {"cancel":true,…} line carrying the
// rule's refusal (not the launcher's), whose allow lets the call go on, and
// the pre-edit row, which no interceptor judges, is the launcher's stated
// skip {"cancel":false}; every answer is exactly one line, exit 0.
func TestClineHookInterceptor(t *testing.T) {
	need(t, "sh")
	dir := renderRepo(t, "cline")
	hook := filepath.Join(dir, filepath.FromSlash(ClineHookPath))
	env := append(noEngineEnv(t, "sh", "cat", "rm", "mkdir", "sleep", "kill", "python3"), "HOME="+t.TempDir())
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "clients", "cline", name))
		if err != nil {
			t.Fatal(err)
		}
		return strings.ReplaceAll(string(b), "$REPO", dir)
	}
	pol, err := policy.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	// deny is the engine's Cline deny line for command (Go's JSON escaping).
	deny := func(command string) string {
		d := pol.Judge(command)
		if d.Allowed {
			t.Fatalf("policy allows %q; the case wants a deny", command)
		}
		b, _ := json.Marshal(map[string]any{"cancel": true, "errorMessage": d.Reason})
		return string(b)
	}
	for _, tc := range []struct{ name, payload, want string }{
		{"CLI run_commands --no-verify", read("3.0.65/pre-tool.commands-array.json"), deny("touch hw_denied.txt && git commit -q --no-verify -m conformance")},
		{"CLI run_commands deny", read("3.0.65/pre-tool.deny.json"), deny("git commit --no-verify -m x")},
		{"CLI run_commands plain", read("3.0.65/pre-tool.json"), `{"cancel":false}`},
		{"extension execute_command plain", read("documented/pre-tool.json"), `{"cancel":false}`},
		{"extension write_to_file", read("documented/pre-edit.json"), `{"cancel":false}`},
		{"CLI tool_call.name another tool", strings.Replace(read("3.0.65/pre-tool.commands-array.json"), `"name":"run_commands"`, `"name":"read_files"`, 1), `{"cancel":true,"errorMessage":"[BLOCKED BY hookwarden:invalid-input]`},
	} {
		cmd := exec.Command(hook)
		cmd.Dir = dir
		cmd.Env = env
		cmd.Stdin = strings.NewReader(tc.payload)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v (stderr %q)", tc.name, err, errb.String())
		}
		if got := out.String(); !strings.HasPrefix(got, tc.want) || strings.Count(got, "\n") != 1 || !strings.HasSuffix(got, "}\n") {
			t.Errorf("%s: stdout %q (stderr %q); want one line starting %q", tc.name, got, errb.String(), tc.want)
		}
	}
}
