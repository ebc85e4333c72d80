package templates

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/internal/buildinfo"
	"github.com/hookwarden/hookwarden/policy"
	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/skewguard"
)

func renderAll(t *testing.T) map[string]File {
	t.Helper()
	files, err := Render([]string{"claude", "codex", "gemini", "agy", "opencode", "lefthook"})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]File{}
	for _, f := range files {
		if _, dup := out[f.Path]; dup {
			t.Fatalf("%s rendered twice", f.Path)
		}
		out[f.Path] = f
	}
	return out
}

// TestRenderFileSet: which files each client set gets, with which adopt step.
func TestRenderFileSet(t *testing.T) {
	for _, tc := range []struct {
		clients []string
		want    map[string]string
	}{
		{[]string{"claude"}, map[string]string{LauncherPath: StepLauncher, PyLauncherPath: StepLauncher, InterceptorPath: StepInterceptor}},
		{[]string{"claude", "codex", "gemini", "lefthook"}, map[string]string{LauncherPath: StepLauncher, PyLauncherPath: StepLauncher, InterceptorPath: StepInterceptor, LefthookJobsPath: StepLefthookJobs}},
		{[]string{"agy"}, map[string]string{LauncherPath: StepLauncher, PyLauncherPath: StepLauncher, InterceptorPath: StepInterceptor,
			AgyPluginJSONPath: StepAgyPlugin, AgyHooksJSONPath: StepAgyPlugin, AgyLauncherPath: StepAgyPlugin}},
		{[]string{"opencode"}, map[string]string{LauncherPath: StepLauncher, PyLauncherPath: StepLauncher, InterceptorPath: StepInterceptor, OpencodePluginPath: StepOpencodePlugin}},
	} {
		files, err := Render(tc.clients)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for i, f := range files {
			got[f.Path] = f.Step
			if i > 0 && files[i-1].Path >= f.Path {
				t.Errorf("%v: files not sorted by path", tc.clients)
			}
			if f.Mode != 0o644 || strings.Contains(f.Path, "\\") || strings.HasPrefix(f.Path, "/") {
				t.Errorf("%s: mode %o or path not slash-separated and relative", f.Path, f.Mode)
			}
		}
		if len(got) != len(tc.want) {
			t.Errorf("%v: rendered %v, want %v", tc.clients, got, tc.want)
		}
		for p, s := range tc.want {
			if got[p] != s {
				t.Errorf("%v: %s step %q, want %q", tc.clients, p, got[p], s)
			}
		}
	}
	if _, err := Render([]string{"claude", "vscode"}); err == nil || !strings.Contains(err.Error(), `unknown client "vscode"`) {
		t.Errorf("unknown client: err %v", err)
	}
}

// TestRenderIsDeterministicAndFromPolicy: two renders are byte-identical; the
// agy launcher copy is byte-identical to the launcher; every text rule's
// pattern and refusal text reaches both interceptors; every registration row
// reaches the launcher's table.
func TestRenderIsDeterministicAndFromPolicy(t *testing.T) {
	a, b := renderAll(t), renderAll(t)
	for p, f := range a {
		if !bytes.Equal(f.Body, b[p].Body) {
			t.Errorf("%s differs between two renders", p)
		}
	}
	if !bytes.Equal(a[LauncherPath].Body, a[AgyLauncherPath].Body) {
		t.Errorf("%s is not a byte-identical copy of %s", AgyLauncherPath, LauncherPath)
	}
	js := string(a[OpencodePluginPath].Body)
	py := string(a[InterceptorPath].Body)
	for _, r := range policy.TextRules() {
		reason, _ := policy.Refusal(r.ID)
		pat, _ := jsonText(r.Pattern)
		rs, _ := jsonText(reason)
		if !strings.Contains(js, string(pat)) || !strings.Contains(js, string(rs)) {
			t.Errorf("opencode plugin lacks rule %s's pattern or refusal", r.ID)
		}
		// In the Python file the data is a JSON text inside a string literal.
		pat2, _ := jsonText(string(pat))
		if !strings.Contains(py, strings.Trim(string(pat2), `"`)) {
			t.Errorf("interceptor.py lacks rule %s's pattern", r.ID)
		}
	}
	tbl, _ := registration.Default()
	for _, r := range tbl.Rows {
		key, _ := jsonText(r.Client + " " + r.Event)
		k2, _ := jsonText(string(key))
		if !strings.Contains(string(a[PyLauncherPath].Body), strings.Trim(string(k2), `"`)) {
			t.Errorf("Python launcher table lacks row %s %s", r.Client, r.Event)
		}
		if row := fmt.Sprintf(";%s/%s=%d;", r.Client, r.Event, skewguard.DeadlineMillis(r)); !strings.Contains(string(a[LauncherPath].Body), row) {
			t.Errorf("sh launcher rows lack %s", row)
		}
	}
	if strings.Contains(js, "@opencode-ai/plugin") && strings.Contains(js, "import {") && strings.Contains(js, "from \"@opencode-ai/plugin\"") {
		t.Errorf("the opencode plugin imports @opencode-ai/plugin")
	}
}

// TestHeaders: every rendered file parses as rendered by this version and not
// edited; a one-byte edit is detected; an older version is visible; a file
// hookwarden did not render has no header.
func TestHeaders(t *testing.T) {
	for p, f := range renderAll(t) {
		h, ok := ParseHeader(f.Body)
		if !ok || h.Version != buildinfo.Current() || h.Edited || len(h.Digest) != 64 {
			t.Errorf("%s: header %+v ok=%v", p, h, ok)
			continue
		}
		edited := append(append([]byte(nil), f.Body...), '\n')
		if h2, ok := ParseHeader(edited); !ok || !h2.Edited {
			t.Errorf("%s: an edit of the body is not detected: %+v ok=%v", p, h2, ok)
		}
		stale := bytes.Replace(f.Body, []byte("version="+buildinfo.Current()+" "), []byte("version=0.0.9 "), 1)
		if h3, ok := ParseHeader(stale); !ok || h3.Version != "0.0.9" || h3.Edited {
			t.Errorf("%s: an older render reads %+v ok=%v, want version 0.0.9, not edited", p, h3, ok)
		}
		if strings.HasSuffix(p, ".json") {
			var v map[string]any
			if err := json.Unmarshal(f.Body, &v); err != nil {
				t.Errorf("%s is not valid JSON with its header: %v", p, err)
			}
		}
	}
	for _, body := range []string{"", "#!/usr/bin/env python3\nprint(1)\n", "{\n  \"name\": \"x\"\n}\n", "# hookwarden-render: version=1 sha256=abc\nx"} {
		if _, ok := ParseHeader([]byte(body)); ok {
			t.Errorf("ParseHeader(%q) found a header", body)
		}
	}
}

// TestRegistrationCommand: every row has one command naming the launcher
// and the pair, read by the client's own shell where the client starts one
// (claude, codex, gemini, agy) and run by sh otherwise (opencode, lefthook,
// copilot); the forms earlier
// versions wrote are its legacy forms; pairs that are not rows are errors.
func TestRegistrationCommand(t *testing.T) {
	tbl, _ := registration.Default()
	for _, r := range tbl.Rows {
		cmd, err := RegistrationCommand(r.Client, r.Event)
		if err != nil {
			t.Errorf("%s %s: %v", r.Client, r.Event, err)
			continue
		}
		if strings.Contains(cmd, "python") || strings.Contains(cmd, "$(") || !strings.Contains(cmd, "hook.sh") {
			t.Errorf("%s %s: %q does not run the sh launcher without a subprocess", r.Client, r.Event, cmd)
		}
		legacy, err := LegacyRegistrationCommands(r.Client, r.Event)
		if err != nil {
			t.Errorf("%s %s: legacy forms: %v", r.Client, r.Event, err)
		}
		py, wantPy := legacy, 2
		switch r.Client {
		case "opencode", "lefthook", "copilot":
			if r.Client == "copilot" { // first rendered with the sh launcher: no earlier form
				wantPy = 0
			}
			if cmd != "sh .hookwarden/hook.sh "+r.Client+" "+r.Event {
				t.Errorf("%s %s: %q, want the launcher run by sh", r.Client, r.Event, cmd)
			}
		case "cline":
			// Run by sh from the rendered PreToolUse file, which sets hw_root
			// and cancels on every answer but an exact allow (cline.go).
			wantPy = 0
			if cmd != `sh "$hw_root/.hookwarden/hook.sh" `+r.Client+" "+r.Event {
				t.Errorf("%s %s: %q, want the launcher run by sh from hw_root", r.Client, r.Event, cmd)
			}
		default:
			gating := r.Event == "pre-tool" || r.Event == "pre-skill-shell" || r.Event == "pre-edit" || r.Event == "pre-dispatch" || r.Event == "pre-handback"
			if !strings.HasPrefix(cmd, "hw_") || !strings.Contains(cmd, "; set -- "+r.Client+" "+r.Event+`; command . "$hw_self"; `) ||
				gating && r.Client != "agy" && !strings.HasSuffix(cmd, ">&2; exit 2") || !gating && !strings.HasSuffix(cmd, ">&2; exit 1") {
				t.Errorf("%s %s: %q is not the sourced form with its fail-closed tail", r.Client, r.Event, cmd)
			}
			// `.` looks a name without a slash up on PATH (dash: only
			// there), so the launcher's path must hold one (agy's did not).
			if self := strings.SplitN(strings.SplitN(cmd, "hw_self=", 2)[1], ";", 2)[0]; !strings.Contains(self, "/") {
				t.Errorf("%s %s: hw_self=%s has no slash: `.` would search PATH for it", r.Client, r.Event, self)
			}
			if r.Client == "cursor" || r.Client == "windsurf" || r.Client == "qwen" || r.Client == "droid" || r.Client == "kiro" || r.Client == "devin" { // first rendered with the sourced form: no earlier form
				if len(legacy) != 0 {
					t.Errorf("%s %s: legacy forms %q of a client first rendered with the sourced form", r.Client, r.Event, legacy)
				}
				py, wantPy = nil, 0
				break
			}
			if len(legacy) == 0 || !strings.HasPrefix(legacy[0], "sh ") || !strings.HasSuffix(legacy[0], " "+r.Client+" "+r.Event) {
				t.Errorf("%s %s: the sh form written before the sourced form is not the first legacy form: %q", r.Client, r.Event, legacy)
			} else {
				py = legacy[1:]
			}
		}
		if len(py) != wantPy {
			t.Errorf("%s %s: python legacy forms %q", r.Client, r.Event, py)
		}
		for _, l := range py {
			if !strings.HasPrefix(l, "python3 ") || !strings.HasSuffix(l, "hook.py"+tail(l, "hook.py")) || !strings.HasSuffix(l, " "+r.Client+" "+r.Event) || l == cmd {
				t.Errorf("%s %s: legacy form %q is not a python3 hook.py form of the pair", r.Client, r.Event, l)
			}
		}
	}
	if l, _ := LegacyRegistrationCommands("claude", "pre-tool"); len(l) < 2 || l[0] != `sh "${CLAUDE_PROJECT_DIR}/.hookwarden/hook.sh" claude pre-tool` || l[1] != `python3 -I -S "${CLAUDE_PROJECT_DIR}/.hookwarden/hook.py" claude pre-tool` {
		t.Errorf("the forms written until the sourced form are not the first legacy forms: %q", l)
	}
	for _, bad := range [][2]string{{"claude", "nope"}, {"vscode", "pre-tool"}, {"agy", "pre-edit"}, {"", ""}} {
		if _, err := RegistrationCommand(bad[0], bad[1]); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func tail(cmd, launcher string) string {
	i := strings.LastIndex(cmd, launcher)
	if i < 0 {
		return "\x00"
	}
	return cmd[i+len(launcher):]
}
