package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hookwarden/hookwarden/adopt/hookplan"
	"github.com/hookwarden/hookwarden/internal/execpath"
	"github.com/hookwarden/hookwarden/templates"
)

// PluginLoad is the proof that the installed opencode loads the rendered
// plugin (.opencode/plugins/hookwarden.js) and that the hook it registered
// judges: the launcher canaries prove the launcher, not that opencode ever
// calls it (a plugin of the other API major loads nowhere and says nothing:
// OpenCode 2 rejects a 1.x-only plugin, 1.18.33 one whose default export
// lacks server()). Opencode is the version run and Command the opencode
// command that loaded the plugin; API the plugin API its host called ("v1":
// the default export's server(), "v2": its setup()); Deny and Allow how the
// loaded hook judged the canary commands (a refusal is the thrown message);
// Millis the run; Skipped why the load was not checked (no opencode on
// PATH); Problem why the load is not proven ("" when it is).
type PluginLoad struct {
	Opencode string          `json:"opencode,omitempty"`
	Command  string          `json:"command,omitempty"`
	API      string          `json:"api,omitempty"`
	Deny     *PluginLoadCall `json:"deny,omitempty"`
	Allow    *PluginLoadCall `json:"allow,omitempty"`
	Millis   float64         `json:"ms,omitempty"`
	Skipped  string          `json:"skipped,omitempty"`
	Problem  string          `json:"problem,omitempty"`
}

// PluginLoadCall is one canary command as the loaded plugin's hook judged
// it: Blocked when the hook threw, Message the thrown text, Rule the
// hookwarden rule it names ("" none).
type PluginLoadCall struct {
	Command string `json:"command"`
	Blocked bool   `json:"blocked"`
	Message string `json:"message,omitempty"`
	Rule    string `json:"rule,omitempty"`
}

// opencodeLoadLimit bounds the opencode run that loads the plugin
// (`opencode debug config` took 3-5 s on opencode 1.18.33 with its npm
// install of @opencode-ai/plugin failing fast offline, 2026-12-05).
const opencodeLoadLimit = 60 * time.Second

// opencodeLoadArgs returns the opencode command that loads the project's
// plugins without a model for the installed version: `debug config
// --print-logs` on 1.x
// (measured on 1.18.33: it loads .opencode/plugins/*.js and calls each
// plugin, logging "failed to load plugin" for one it rejects) and, on 2.x,
// `plugin list` (not observed: npm serves no 2.x; OpenCode 2's plugin list
// shows a plugin's load state, code-review-graph issue 1038). An unknown
// version is read as 1.x.
func opencodeLoadArgs(version string) []string {
	if version != "" && !templates.VersionLess(version, "2") {
		return []string{"plugin", "list"}
	}
	return []string{"debug", "config", "--print-logs"}
}

// probeOpencodeLoad starts the installed opencode (first in getenv("PATH"))
// in root with templates.OpencodeCanaryEnv naming a fresh directory that
// holds the deny and allow canary commands, and reads the result the
// loaded plugin wrote there. The load is proven when the plugin's hook
// refused deny naming wantRule and did not refuse allow for a fault. The
// run is offline (npm_config_offline, no model fetch, no autoupdate);
// opencode 1.18.33 writes .opencode/.gitignore when it is absent, as any
// opencode start in the repository does.
func probeOpencodeLoad(ctx context.Context, root string, env []string, getenv func(string) string, deny, allow, wantRule string) *PluginLoad {
	bin, ok := execpath.Find("opencode", getenv("PATH"), "")
	if !ok {
		return &PluginLoad{Skipped: "opencode is not on PATH, so whether it loads the plugin was not checked"}
	}
	version, _ := hookplan.InstalledVersion("opencode", getenv)
	args := opencodeLoadArgs(version)
	l := &PluginLoad{Opencode: version, Command: "opencode " + strings.Join(args, " ")}
	dir, err := os.MkdirTemp("", "hookwarden-doctor-opencode-")
	if err != nil {
		l.Problem = "no directory for the canary: " + err.Error()
		return l
	}
	defer os.RemoveAll(dir)
	req, _ := json.Marshal(map[string][]string{"commands": {deny, allow}})
	if err := os.WriteFile(filepath.Join(dir, "canary.json"), req, 0o600); err != nil {
		l.Problem = "cannot write the canary: " + err.Error()
		return l
	}
	ctx, cancel := context.WithTimeout(ctx, opencodeLoadLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = root
	cmd.Env = append(slices.Clone(env), "PWD="+root, templates.OpencodeCanaryEnv+"="+dir,
		"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1", "npm_config_offline=true")
	cmd.Stdin = bytes.NewReader(nil)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = time.Second
	start := time.Now()
	runErr := cmd.Run()
	l.Millis = float64(time.Since(start).Microseconds()) / 1000
	readLoadResult(l, dir, deny, allow, wantRule)
	if l.Problem != "" && l.API == "" {
		if ctx.Err() != nil {
			l.Problem += fmt.Sprintf(" (`%s` did not finish within %s)", l.Command, opencodeLoadLimit)
		} else if runErr != nil {
			l.Problem += fmt.Sprintf(" (`%s`: %v)", l.Command, runErr)
		}
		if line := failedLoadLine(out.String()); line != "" {
			l.Problem += ": " + line
		}
	}
	return l
}

// readLoadResult reads result-v1.json or result-v2.json from dir into l
// and sets l.Problem unless the deny canary was refused by wantRule and
// the allow canary was not refused for a fault.
func readLoadResult(l *PluginLoad, dir, deny, allow, wantRule string) {
	var doc struct {
		API     string           `json:"api"`
		Results []PluginLoadCall `json:"results"`
	}
	found := false
	for _, api := range []string{"v1", "v2"} {
		b, err := os.ReadFile(filepath.Join(dir, "result-"+api+".json"))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil || json.Unmarshal(b, &doc) != nil || doc.API != api {
			l.Problem = "the plugin's canary result " + api + " is unreadable"
			return
		}
		found = true
		break
	}
	if !found {
		l.Problem = "opencode ran but the plugin wrote no canary result: opencode did not load " + templates.OpencodePluginPath + ", or loaded it without calling it"
		return
	}
	l.API = doc.API
	for i := range doc.Results {
		c := &doc.Results[i]
		if m := ruleRE().FindStringSubmatch(c.Message); m != nil && c.Blocked {
			c.Rule = m[1] + m[2]
		}
		switch c.Command {
		case deny:
			l.Deny = c
		case allow:
			l.Allow = c
		}
	}
	switch {
	case l.Deny == nil || l.Allow == nil:
		l.Problem = "the loaded plugin did not judge both canary commands"
	case !l.Deny.Blocked:
		l.Problem = fmt.Sprintf("the loaded plugin let `%s` through", deny)
	case l.Deny.Rule != wantRule:
		l.Problem = fmt.Sprintf("the loaded plugin refused `%s` by %q, not by %s", deny, l.Deny.Rule, wantRule)
	case l.Allow.Blocked && (l.Allow.Rule == "" || slices.Contains(faultRules, l.Allow.Rule)):
		l.Problem = fmt.Sprintf("the loaded plugin refused `%s` for a fault: %s", allow, firstLine(l.Allow.Message))
	}
}

// failedLoadLine returns the first line of opencode's output that reports
// a plugin it could not load (opencode 1.18.33 logs `message="failed to
// load plugin"` with the plugin's path and the error), or "".
func failedLoadLine(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "failed to load plugin") {
			return strings.TrimSpace(line)
		}
	}
	return ""
}
