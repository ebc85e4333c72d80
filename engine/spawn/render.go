package spawn

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/hookwarden/hookwarden/internal/codexhash"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"
)

var shellSafe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`) })

// ShellQuote joins argv into one POSIX shell command line that a POSIX
// shell splits back into exactly argv: words made only of
// [A-Za-z0-9_@%+=:,./-] stay bare, every other word is single-quoted with
// each ' written as '\”; the empty word is ”.
func ShellQuote(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if shellSafe().MatchString(a) {
			parts[i] = a
			continue
		}
		parts[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(parts, " ")
}

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
// "command","timeout" (seconds)}]}]}} plus the caller's settings keys the
// table allows, and returns the render with the argv additions
// --setting-sources "" --strict-mcp-config --settings <file>
// (Claude Code 2.1.328 CLI flags; measured in TestRealClients/claude: a user
// and a project hook do not run, the settings file's hook does).
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
			if !hasKey(c.table.SettingsKeys, k) {
				return nil, refuse(ReasonSettingsKey, "the caller's settings key %q is not in claude %s settings_keys", k, c.version)
			}
			settings[k] = caller[k]
		}
	}
	hooks := map[string][]any{}
	for _, h := range c.hooks {
		group := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": commandOf(h), "timeout": h.Timeout}}}
		if h.Matcher != "" {
			group["matcher"] = h.Matcher
		}
		hooks[h.Native] = append(hooks[h.Native], group)
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
	path := filepath.Join(dir, r.RunID+".settings.json")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil, refuse(ReasonRunFileExists, "%s already exists", path)
	}
	if err != nil {
		return nil, refuse(ReasonRunFileUnwritable, "%s: %v", path, err)
	}
	_, werr := f.Write(append(body, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(path)
		return nil, refuse(ReasonRunFileUnwritable, "%s: %v", path, werr)
	}
	r.Files = append(r.Files, path)
	r.Args = append(r.Args, "--setting-sources", "", "--strict-mcp-config", "--settings", path)
	return r, nil
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

// tomlString returns s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// CodexHooksOverride returns the one inline -c value carrying hooks and
// their trust records, "hooks={<Native>=[{matcher=…,hooks=[{type="command",
// command=…,timeout=…}]}],…,state={"<key>"={trusted_hash="sha256:…"},…}}",
// and the trust keys in order. One group per hook, so each key ends in
// ":<group>:0". Measured on codex-cli 0.169.0: trust records given as a
// separate dotted -c are not honoured; inside the same inline table they
// are (package doc).
func CodexHooksOverride(hooks []CompiledHook) (string, []string) {
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
			g := "{"
			if h.Matcher != "" {
				g += "matcher=" + tomlString(h.Matcher) + ","
			}
			g += `hooks=[{type="command",command=` + tomlString(cmd) + ",timeout=" + strconv.Itoa(h.Timeout) + "}]}"
			groups = append(groups, g)
			key := codexhash.Key(CodexSessionFlagsSource, native, gi, 0)
			keys = append(keys, key)
			state = append(state, tomlString(key)+"={trusted_hash="+tomlString(CodexTrustHash(native, cmd, h.Timeout, h.Matcher))+"}")
		}
		ev = append(ev, native+"=["+strings.Join(groups, ",")+"]")
	}
	parts := append(ev, "state={"+strings.Join(state, ",")+"}")
	return "hooks={" + strings.Join(parts, ",") + "}", keys
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
	if len(c.hooks) > 0 {
		v, _ := CodexHooksOverride(c.hooks)
		r.Args = append(r.Args, "-c", v)
	}
	return r, nil
}

// checkCodexProjectLayers refuses when a .codex/ layer in any directory from
// cwd up to the project root (the nearest directory holding .git; cwd alone
// when there is none) declares hooks (a hooks.json, or hooks in
// config.toml), MCP servers, or any config key outside the table's
// project_layer_keys, or when such a layer cannot be read or parsed.
func (c *compiler) checkCodexProjectLayers() error {
	cwd := filepath.Clean(c.opts.Cwd)
	dirs := []string{cwd}
	for d := cwd; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			break
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
		hj := filepath.Join(d, ".codex", "hooks.json")
		if _, err := os.Lstat(hj); err == nil {
			return refuse(ReasonCodexProjectLayer, "%s declares hooks; a spawn runs only the registry's", hj)
		} else if !os.IsNotExist(err) {
			return refuse(ReasonCodexLayersUnknown, "%s: %v", hj, err)
		}
		ct := filepath.Join(d, ".codex", "config.toml")
		b, err := os.ReadFile(ct)
		if os.IsNotExist(err) {
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
