package spawn

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hookwarden/hookwarden/internal/codexhash"
	"github.com/hookwarden/hookwarden/internal/shellquote"

	"github.com/pelletier/go-toml/v2"
)

// ShellQuote joins argv into one POSIX shell command line that a POSIX
// shell splits back into exactly argv (internal/shellquote.Join).
func ShellQuote(argv []string) string { return shellquote.Join(argv) }

// claudePostToolFailure is Claude Code 2.1.328's event for a tool call
// that failed (its bundle: hook_event_name "PostToolUseFailure" with
// tool_name, tool_input, tool_use_id, error, is_interrupt; its
// hookSpecificOutput takes additionalContext only, so a hook cannot
// replace the error text; {"continue":false} ends the session).
const claudePostToolFailure = "PostToolUseFailure"

// claudeNoFailClosed are the events on which Claude Code 2.1.328 ignores
// onFailure "block" (its bundle: a failed hook "counts as a block" when
// onFailure is "block" and the event is not in
// ["Stop","SubagentStop","TaskCompleted","TeammateIdle"]); the entry's Stop
// row cannot fail closed, which docs/redaction.md records as the missing
// capability claude:Stop.fail_closed.
var claudeNoFailClosed = []string{"Stop", "SubagentStop", "TaskCompleted", "TeammateIdle"}

// commandOf is the command string a hook handler carries: the legacy string
// as written, else the shell-quoted argv.
func commandOf(h CompiledHook) string {
	if h.legacy != "" {
		return h.legacy
	}
	return ShellQuote(h.Argv)
}

// renderClaude writes <home>/run/hooks/<run id>.settings.json (created
// exclusively, mode 0600) holding the compiled hooks in Claude Code's
// settings shape {"hooks":{Native:[{"matcher"?,"hooks":[{"type":"command",
// "command","timeout" (seconds), "onFailure":"block" on PreToolUse}]}]}} plus the caller's settings keys the
// table allows, and returns the render with the argv additions
// --setting-sources "" --strict-mcp-config --settings <file>
// (Claude Code 2.1.328 CLI flags; measured in TestRealClients/claude: a user
// and a project hook do not run, the settings file's hook does), and under
// a redaction entry --tools with claudeGatedTools, the arbiter posture in
// the settings (renderPosture), --permission-mode default and
// --permission-prompts none.
func (c *compiler) renderClaude() (*Render, error) {
	settings := map[string]any{}
	if c.opts.CallerSettingSources != nil && *c.opts.CallerSettingSources != "" {
		return nil, refuse(ReasonSettingSources, "the caller asks for setting sources %q; a spawn loads none", *c.opts.CallerSettingSources)
	}
	if c.opts.CallerSettings != nil {
		var caller map[string]json.RawMessage
		if err := json.Unmarshal(c.opts.CallerSettings, &caller); err != nil {
			return nil, refuse(ReasonSettingsKey, "the caller's settings are not a JSON object: %v", err)
		}
		keys := make([]string, 0, len(caller))
		for k := range caller {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if k == "hooks" || k == "disableAllHooks" {
				return nil, refuse(ReasonCallerHooks, "the caller's settings carry %q; hooks come from the registry only", k)
			}
			if err := c.checkPostureKey(k, caller[k]); err != nil {
				return nil, err
			}
			v, err := c.admitSettingsKey(k, caller[k])
			if err != nil {
				return nil, err
			}
			settings[k] = v
		}
	}
	hooks := map[string][]any{}
	if c.redaction != "" {
		if err := c.renderPosture(settings, hooks); err != nil {
			return nil, err
		}
	}
	for _, h := range c.engineHooks() {
		handler := map[string]any{"type": "command", "command": commandOf(h), "timeout": h.Timeout}
		entryRow := c.redaction != "" && h.Hook == c.redaction
		if h.Native == "PreToolUse" || (entryRow && !slices.Contains(claudeNoFailClosed, h.Native)) {
			// a hook that cannot start, times out or exits with an
			// unexpected code blocks the call instead of letting it through
			// (templates.OnFailure: Claude Code 2.1.295 release notes, the
			// 2.1.328 settings schema; TestRealClaudePreToolFailClosed);
			// under the redaction entry on every row Claude honours it on
			// (claudeNoFailClosed)
			handler["onFailure"] = "block"
		}
		group := map[string]any{"hooks": []any{handler}}
		if h.Matcher != "" {
			group["matcher"] = h.Matcher
		}
		hooks[h.Native] = append(hooks[h.Native], group)
		if entryRow && h.Native == "PostToolUse" {
			// a failed tool call's output reaches the model through
			// PostToolUseFailure, not PostToolUse: the entry's post-tool
			// hook is attached there too (spawn/redact PostTool)
			hooks[claudePostToolFailure] = append(hooks[claudePostToolFailure], group)
		}
	}
	settings["hooks"] = hooks
	body, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("hookwarden: spawn: settings: %w", err)
	}
	r, err := c.baseRender()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(c.opts.Home, RunHooksDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, refuse(ReasonRunFileUnwritable, "%s: %v", dir, err)
	}
	if c.opts.Runtime {
		// spawn exec: sweep the files of runs whose spawn exec is gone, then
		// hold this run's lock before its first file (sweep.go)
		r.Notes = append(r.Notes, sweepRunDir(dir).Notes()...)
		if r.lock, err = acquireRunLock(dir, r.RunID); err != nil {
			return nil, err
		}
	}
	path := filepath.Join(dir, r.RunID+".settings.json")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		r.lock.release()
		return nil, refuse(ReasonRunFileExists, "%s already exists", path)
	}
	if err != nil {
		r.lock.release()
		return nil, refuse(ReasonRunFileUnwritable, "%s: %v", path, err)
	}
	_, werr := f.Write(append(body, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(path)
		r.lock.release()
		return nil, refuse(ReasonRunFileUnwritable, "%s: %v", path, werr)
	}
	r.Files = append(r.Files, path)
	r.Args = append(r.Args, "--setting-sources", "", "--strict-mcp-config", "--settings", path)
	if c.redaction != "" {
		// under a redaction entry the engine is offered only the tools the
		// pre-tool hook has a route for (claudeGatedTools; ADR-0134 D7)
		r.Args = append(r.Args, "--tools", strings.Join(claudeGatedTools, ","))
		// after the caller's argv, so these are the values Claude reads
		// (commander: the last one wins); --permission-prompts none: no
		// SDK host or prompt tool answers a call the arbiter left
		// undecided (Claude Code 2.1.328 --help: "anything that would
		// prompt is denied automatically"); the arbiter is still asked
		// (TestRealClaudeRedactionRun, TestRealClaudeMCPProxyRun)
		r.Args = append(r.Args, "--permission-mode", claudeArbiterMode, "--permission-prompts", "none")
	}
	return r, nil
}

// Claude Code 2.1.328's permission posture under the redaction entry
// (TestRealClaudePermissionRequestArbiter, TestRealClaudePreToolFailClosed
// row "arbiter"): in default mode, with permissions.ask ["*"] every call
// that reaches Claude's permission check, the pre-tool hook's allow of a
// rewritten command included (its rule check meets the ask rule), fires
// PermissionRequest; the entry's pre-tool argv answers it as the arbiter
// (spawn/redact Permission), allowing only the shell route's rewrite and
// the admitted MCP calls. A pre-tool hook that exits 0 without a decision
// so no longer leaves a read-only command or a Read to Claude's own
// check, which allows them in every mode by itself. In dontAsk mode the
// arbiter is never asked, so the mode is default.
const (
	claudeArbiterMode  = "default"
	claudeArbiterEvent = "PermissionRequest"
)

// checkPostureKey refuses, under the redaction entry, a caller settings
// key that would widen the posture: permissions with any sub-key but deny
// (allow, ask and defaultMode let a call run that the arbiter is not asked
// about, or move the mode; deny only narrows) (redaction-posture).
func (c *compiler) checkPostureKey(k string, raw json.RawMessage) error {
	if c.redaction == "" || k != "permissions" {
		return nil
	}
	var sub map[string]json.RawMessage
	if err := json.Unmarshal(raw, &sub); err != nil {
		return refuse(ReasonSettingsKey, "the caller's settings key %q is not an object", k)
	}
	for _, n := range slices.Sorted(maps.Keys(sub)) {
		if n != "deny" {
			return refuse(ReasonRedactionPosture, "the caller's settings carry permissions.%s; under the redaction entry the permission posture is the render's (default mode, every tool asked, the entry's arbiter answering)", n)
		}
	}
	return nil
}

// renderPosture writes the entry's posture into the run file's settings:
// permissions.ask ["*"] and defaultMode beside the caller's
// permissions.deny, and a PermissionRequest handler (matcher "*") whose
// command, timeout and onFailure are the entry's PreToolUse handler's, so
// the approval and pin of that argv cover it.
func (c *compiler) renderPosture(settings map[string]any, hooks map[string][]any) error {
	perms := map[string]any{}
	if raw, ok := settings["permissions"].(json.RawMessage); ok {
		var sub map[string]json.RawMessage
		if err := json.Unmarshal(raw, &sub); err != nil {
			return refuse(ReasonSettingsKey, "the caller's settings key \"permissions\" is not an object")
		}
		for k, v := range sub {
			perms[k] = v
		}
	}
	perms["ask"] = []string{"*"}
	perms["defaultMode"] = claudeArbiterMode
	settings["permissions"] = perms
	for _, h := range c.engineHooks() {
		if h.Hook == c.redaction && h.Event == "pre_tool" {
			hooks[claudeArbiterEvent] = append(hooks[claudeArbiterEvent], map[string]any{"matcher": "*",
				"hooks": []any{map[string]any{"type": "command", "command": commandOf(h), "timeout": h.Timeout, "onFailure": "block"}}})
			return nil
		}
	}
	return refuse(ReasonRedactionIncomplete, "the redaction entry %q has no pre_tool hook to answer PermissionRequest", c.redaction)
}

// admitSettingsKey returns the caller's value of settings key k when the
// table admits it: a key the table lists whole ("k") is taken as is; a key
// the table lists only by sub-keys ("k.sub", each measured alone) must be
// a JSON object every one of whose sub-keys is listed. Anything else is a
// refusal (settings-key): a key or sub-key nobody measured, such as
// permissions.allow or permissions.defaultMode, which widen what the engine
// may do (ADR-0134 D4, A8), never enters the run file.
func (c *compiler) admitSettingsKey(k string, raw json.RawMessage) (json.RawMessage, error) {
	if hasKey(c.table.SettingsKeys, k) {
		return raw, nil
	}
	listed := false
	for tk := range c.table.SettingsKeys {
		listed = listed || strings.HasPrefix(tk, k+".")
	}
	if !listed {
		return nil, refuse(ReasonSettingsKey, "the caller's settings key %q is not in claude %s settings_keys", k, c.version)
	}
	var sub map[string]json.RawMessage
	if err := json.Unmarshal(raw, &sub); err != nil || sub == nil {
		return nil, refuse(ReasonSettingsKey, "the caller's settings key %q is not an object; claude %s settings_keys admits only some of its sub-keys", k, c.version)
	}
	names := make([]string, 0, len(sub))
	for n := range sub {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if !hasKey(c.table.SettingsKeys, k+"."+n) {
			return nil, refuse(ReasonSettingsKey, "the caller's settings key %q is not in claude %s settings_keys (it may widen what the engine is allowed)", k+"."+n, c.version)
		}
	}
	return raw, nil
}

// CodexSessionFlagsSource is the source path codex-cli 0.169.0 gives hooks
// declared by -c overrides: their trust keys are
// "/<session-flags>/config.toml:<snake event>:<group>:<handler>" (measured
// with `codex app-server -c hooks=…` hooks/list on 2026-11-29, see the
// package doc).
const CodexSessionFlagsSource = "/<session-flags>/config.toml"

// CodexTrustHash returns Codex 0.169.0's trust hash "sha256:<hex>" of one
// command handler of event (native or snake-case name) with command, timeout
// in seconds and matcher ("" = none), computed by internal/codexhash
// (matched Codex's own currentHash, and a -c inline hook trusted this way ran
// in TestRealClients/codex).
func CodexTrustHash(event, command string, timeout int, matcher string) string {
	h := codexhash.Handler{Event: event, Command: command, TimeoutSeconds: int64(timeout)}
	if matcher != "" {
		h.Matcher = &matcher
	}
	return codexhash.Hash(h)
}

// tomlString returns s as a TOML string, written by go-toml/v2. TOML strings
// hold Unicode text only, so a string that is not valid UTF-8 is an error:
// any spelling of it (the replacement character U+FFFD, or go-toml's \u00XX
// for each byte) names other bytes than the command Codex would hash, so the
// trust record would not match and Codex would silently not run the hook.
func tomlString(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("%q is not valid UTF-8, which a TOML string cannot hold", s)
	}
	b, err := toml.Marshal(map[string]string{"k": s})
	if err != nil {
		return "", fmt.Errorf("%q as a TOML string: %w", s, err)
	}
	v, ok := strings.CutPrefix(strings.TrimSuffix(string(b), "\n"), "k = ")
	if !ok {
		return "", fmt.Errorf("%q as a TOML string: go-toml wrote %q", s, b)
	}
	return v, nil
}

// CodexHooksOverride returns the one inline -c value carrying hooks and
// their trust records, "hooks={<Native>=[{matcher=…,hooks=[{type="command",
// command=…,timeout=…}]}],…,state={"<key>"={trusted_hash="sha256:…"},…}}",
// and the trust keys in order. One group per hook, so each key ends in
// ":<group>:0". Measured on codex-cli 0.169.0: trust records given as a
// separate dotted -c are not honoured; inside the same inline table they
// are (package doc). It returns an error naming the hook when a command or
// matcher is not valid UTF-8 (tomlString).
func CodexHooksOverride(hooks []CompiledHook) (string, []string, error) {
	byEvent := map[string][]CompiledHook{}
	var order []string
	for _, h := range hooks {
		if _, ok := byEvent[h.Native]; !ok {
			order = append(order, h.Native)
		}
		byEvent[h.Native] = append(byEvent[h.Native], h)
	}
	var ev, state []string
	var keys []string
	for _, native := range order {
		var groups []string
		for gi, h := range byEvent[native] {
			cmd := commandOf(h)
			key := codexhash.Key(CodexSessionFlagsSource, native, gi, 0)
			var vals [4]string
			for i, s := range []string{h.Matcher, cmd, key, CodexTrustHash(native, cmd, h.Timeout, h.Matcher)} {
				v, err := tomlString(s)
				if err != nil {
					return "", nil, fmt.Errorf("hook %q: %w", h.Hook, err)
				}
				vals[i] = v
			}
			g := "{"
			if h.Matcher != "" {
				g += "matcher=" + vals[0] + ","
			}
			g += `hooks=[{type="command",command=` + vals[1] + ",timeout=" + strconv.Itoa(h.Timeout) + "}]}"
			groups = append(groups, g)
			keys = append(keys, key)
			state = append(state, vals[2]+"={trusted_hash="+vals[3]+"}")
		}
		ev = append(ev, native+"=["+strings.Join(groups, ",")+"]")
	}
	parts := append(ev, "state={"+strings.Join(state, ",")+"}")
	return "hooks={" + strings.Join(parts, ",") + "}", keys, nil
}

// renderCodex checks the Codex project layers and returns the render with
// --ignore-user-config and, when there are hooks, one -c inline layer with
// the hooks and their computed trust records (never the bypass flag).
func (c *compiler) renderCodex() (*Render, error) {
	if err := c.checkCodexProjectLayers(); err != nil {
		return nil, err
	}
	r, err := c.baseRender()
	if err != nil {
		return nil, err
	}
	r.Args = append(r.Args, "--ignore-user-config")
	if hs := c.engineHooks(); len(hs) > 0 {
		v, _, err := CodexHooksOverride(hs)
		if err != nil {
			return nil, refuse(ReasonHookNotUTF8, "%v", err)
		}
		r.Args = append(r.Args, "-c", v)
	}
	return r, nil
}

// checkCodexProjectLayers refuses when a .codex/ layer in any directory from
// cwd up to the project root (the nearest directory holding .git; cwd alone
// when there is none) declares hooks (a hooks.json, or hooks in
// config.toml), MCP servers, or any config key outside the table's
// project_layer_keys, or when the layer set cannot be established: an
// entry whose existence cannot be checked (an Lstat error other than
// absence, on .git or a layer file, is never read as "absent"), a .codex
// that is a symbolic link (its layer lives outside the tree walked), or a
// config.toml that cannot be read or parsed. The walk runs from cwd as
// given and, when it differs, from cwd's real path, which is what the
// engine's getcwd reports and walks from.
func (c *compiler) checkCodexProjectLayers() error {
	cwd := filepath.Clean(c.opts.Cwd)
	starts := []string{cwd}
	real, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		return refuse(ReasonCodexLayersUnknown, "%s: %v", cwd, err)
	}
	if real != cwd {
		starts = append(starts, real)
	}
	lstat := c.opts.lstat
	if lstat == nil {
		lstat = os.Lstat
	}
	for _, start := range starts {
		if err := c.checkCodexLayersFrom(start, lstat); err != nil {
			return err
		}
	}
	return nil
}

func (c *compiler) checkCodexLayersFrom(cwd string, lstat func(string) (os.FileInfo, error)) error {
	dirs := []string{cwd}
	for d := cwd; ; {
		g := filepath.Join(d, ".git")
		if _, err := lstat(g); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return refuse(ReasonCodexLayersUnknown, "%s: %v", g, err)
		}
		p := filepath.Dir(d)
		if p == d {
			dirs = []string{cwd}
			break
		}
		d = p
		dirs = append(dirs, d)
	}
	for _, d := range dirs {
		cd := filepath.Join(d, ".codex")
		if fi, err := lstat(cd); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return refuse(ReasonCodexLayersUnknown, "%s is a symbolic link; its layer lies outside the walked tree", cd)
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return refuse(ReasonCodexLayersUnknown, "%s: %v", cd, err)
		}
		hj := filepath.Join(d, ".codex", "hooks.json")
		if _, err := lstat(hj); err == nil {
			return refuse(ReasonCodexProjectLayer, "%s declares hooks; a spawn runs only the registry's", hj)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return refuse(ReasonCodexLayersUnknown, "%s: %v", hj, err)
		}
		ct := filepath.Join(d, ".codex", "config.toml")
		b, err := readSmall(ct)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return refuse(ReasonCodexLayersUnknown, "%s: %v", ct, err)
		}
		var doc map[string]any
		if err := toml.Unmarshal(b, &doc); err != nil {
			return refuse(ReasonCodexLayersUnknown, "%s: %v", ct, err)
		}
		keys := make([]string, 0, len(doc))
		for k := range doc {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			switch {
			case k == "hooks":
				return refuse(ReasonCodexProjectLayer, "%s declares hooks", ct)
			case k == "mcp_servers":
				return refuse(ReasonCodexProjectLayer, "%s declares MCP servers", ct)
			case !hasKey(c.table.ProjectLayerKeys, k):
				return refuse(ReasonCodexProjectLayer, "%s sets %q, outside codex %s project_layer_keys", ct, k, c.version)
			}
		}
	}
	return nil
}
