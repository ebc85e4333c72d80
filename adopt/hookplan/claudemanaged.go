package hookplan

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/hookwarden/hookwarden/clientjson"
)

// claudeManagedDir returns the directory of Claude Code 2.1.328's
// managed-settings.json for the platform goos: "/Library/Application
// Support/ClaudeCode" (darwin), "C:\\Program Files\\ClaudeCode" (windows),
// "/etc/claude-code" (others). No variable moves it (bundle: the managed
// file path is `qS()`, whose override hook returns undefined, then a switch
// on the platform; the same text names /etc/claude-code for WSL).
func claudeManagedDir(goos string) string {
	switch goos {
	case "darwin":
		return "/Library/Application Support/ClaudeCode"
	case "windows":
		return `C:\Program Files\ClaudeCode`
	}
	return "/etc/claude-code"
}

// claudeManagedFiles returns Claude Code 2.1.328's managed settings files
// below sysRoot ("" the real root) in the order it merges them:
// managed-settings.json, then every entry of managed-settings.d whose name
// ends in ".json" and does not start with "." (a file or a symlink), sorted
// by name (bundle: the managed loader reads the base file, then the
// drop-in folder's `readdirSync(...).filter(isFile||isSymbolicLink,
// name.endsWith(".json") && !name.startsWith("."))` names sorted; later
// files merge over earlier ones).
func claudeManagedFiles(sysRoot, goos string) []string {
	dir := filepath.Join(sysRoot, claudeManagedDir(goos))
	out := []string{filepath.Join(dir, "managed-settings.json")}
	entries, err := os.ReadDir(filepath.Join(dir, "managed-settings.d"))
	if err != nil {
		return out
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if (e.Type().IsRegular() || e.Type()&os.ModeSymlink != 0) && strings.HasSuffix(n, ".json") && !strings.HasPrefix(n, ".") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		out = append(out, filepath.Join(dir, "managed-settings.d", n))
	}
	return out
}

// settingTrue reports whether a settings file (JSON with comments) sets the
// top-level key to the boolean true.
func settingTrue(src []byte, key string) bool {
	var doc map[string]any
	if !standardJSON(src, &doc) {
		return false
	}
	v, ok := doc[key].(bool)
	return ok && v
}

// claudeSwitches sets Client.Off for Claude Code 2.1.328. Its hook snapshot
// (bundle chunk-5xh8t7w1.js, the function `r` behind the snapshot store)
// returns no hook at all when the managed settings (policySettings) set
// disableAllHooks === true; only the managed settings' hooks when they set
// allowManagedHooksOnly === true (the key is "only honored from managed
// settings", its schema description: "only hooks from managed settings and
// from plugins that managed settings enable run. User, project, and local
// hooks and the hooks of plugins the user installed are ignored"); and only
// the managed settings' hooks when the merged settings of the other files
// set disableAllHooks (so a repository's own disableAllHooks does not switch
// a managed hook off; the plugin loader likewise keeps only managed plugins
// under "allowManagedHooksOnly / disableAllHooks"). A managed file is taken
// to set a switch when any of them sets it true (a later drop-in's false
// is not taken to lift it: not measured). The other files' disableAllHooks
// is read restrictively, as clientjson.HooksDisabled reads it (the settings
// merge keeps any value but false).
func (pl *clientPlanner) claudeSwitches(files []loaded) {
	usable := func(l loaded) bool { return l.ok && l.f.ReasonID == "" }
	for _, l := range files {
		if usable(l) && l.f.Managed && settingTrue(l.data, "disableAllHooks") {
			pl.c.Off, pl.c.OffID, pl.c.OffFile, pl.c.OffLine = "disableAllHooks in the managed settings "+l.f.Path+" switches every hook off, the managed settings' own and ours included", ReasonDisabled, l.f.Path, lineOf(l.data, `"disableAllHooks"`)
			return
		}
	}
	for _, l := range files {
		if usable(l) && l.f.Managed && settingTrue(l.data, "allowManagedHooksOnly") {
			pl.c.Off, pl.c.OffID, pl.c.OffFile, pl.c.OffLine = "allowManagedHooksOnly in the managed settings "+l.f.Path+" admits only the managed settings' hooks and those of plugins they enable, so Claude Code skips every user, project and local hook, ours included", ReasonManagedOnly, l.f.Path, lineOf(l.data, `"allowManagedHooksOnly"`)
			pl.c.OffSparesManaged = true
			return
		}
	}
	for _, l := range files {
		if !usable(l) || l.f.Managed {
			continue
		}
		if off, err := clientjson.HooksDisabled(l.f.Path, l.data, "claude"); err == nil && off {
			pl.c.Off, pl.c.OffID, pl.c.OffFile, pl.c.OffLine = "disableAllHooks in "+l.f.Path+" switches every hook off but the managed settings' (and those of plugins they enable), ours included", ReasonDisabled, l.f.Path, lineOf(l.data, `"disableAllHooks"`)
			pl.c.OffSparesManaged = true
			return
		}
	}
}

// pluginPref is one plugin's enabledPlugins state: on, the file that set
// it last, and whether that file is a managed one.
type pluginPref struct {
	on      bool
	from    string
	managed bool
}

// installedPlugin is one install record of Claude Code's
// installed_plugins.json (version 2; bundle schema: scope "managed",
// "user", "project" or "local", projectPath for the last two, installPath
// the absolute versioned plugin directory).
type installedPlugin struct {
	Scope       string `json:"scope"`
	ProjectPath string `json:"projectPath"`
	InstallPath string `json:"installPath"`
	Version     string `json:"version"`
}

// claudePlugins lists the hooks of the plugins the settings files enable
// (audit --plan --workstation), after the settings' hooks. Claude Code
// 2.1.328 (bundle):
//   - enabledPlugins is an object of "plugin@marketplace" → value, merged
//     over the settings files in load order (user, project, local, managed;
//     a later file's value wins); a value other than false enables.
//   - The plugins directory is $CLAUDE_CODE_PLUGIN_CACHE_DIR, else
//     <config dir>/plugins (`sc()`); installed_plugins.json there records
//     each plugin's installs ({"version":2,"plugins":{id:[{scope,
//     projectPath,installPath,...}]}}); an enabled plugin without an
//     install is not loaded ("plugin-cache-miss").
//   - A plugin's hooks are hooks/hooks.json of its directory ("Plugin hooks
//     (~/.claude/plugins/*/hooks/hooks.json)", Claude's settings shape):
//     the install's installPath, or the source folder of a plugin of a
//     local (directory) marketplace (pluginDir, measured);
//     extra files its plugin.json names are not read here (a stated
//     limit).
//   - Under allowManagedHooksOnly or disableAllHooks only the plugins the
//     managed settings enable keep their hooks ("only managed plugins and
//     built-in plugins run (allowManagedHooksOnly / disableAllHooks /
//     --safe-mode)"); under the managed settings' disableAllHooks none do.
func (pl *clientPlanner) claudePlugins(files []loaded, home string) {
	prefs := map[string]pluginPref{}
	for _, l := range files {
		if !l.ok || l.f.ReasonID != "" {
			continue
		}
		var doc struct {
			EnabledPlugins map[string]any `json:"enabledPlugins"`
		}
		if !standardJSON(l.data, &doc) {
			continue
		}
		for id, v := range doc.EnabledPlugins {
			b, isBool := v.(bool)
			prefs[id] = pluginPref{on: !isBool || b, from: l.f.Path, managed: l.f.Managed}
		}
	}
	var ids []string
	for id, p := range prefs {
		if p.on {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return
	}
	sort.Strings(ids)
	dir := pl.getenv("CLAUDE_CODE_PLUGIN_CACHE_DIR")
	if dir == "" {
		if home == "" {
			return
		}
		dir = filepath.Join(home, "plugins")
	}
	regPath := filepath.Join(dir, "installed_plugins.json")
	data, exists, err := pl.read(regPath)
	var reg struct {
		Version int                          `json:"version"`
		Plugins map[string][]installedPlugin `json:"plugins"`
	}
	regWhy := ""
	switch {
	case err != nil:
		regWhy = "cannot be read safely: " + err.Error()
	case !exists:
		regWhy = "absent, so no enabled plugin is installed and Claude Code loads none of their hooks"
	case json.Unmarshal(data, &reg) != nil || reg.Version != 2:
		regWhy = "not an installed_plugins.json of version 2 as Claude Code 2.1.328 writes it, so the plan cannot find the enabled plugins' hooks"
	}
	if regWhy != "" {
		pl.c.Files = append(pl.c.Files, File{Path: pl.display(regPath), Scope: ScopePlugin, Exists: exists, Why: regWhy, abs: regPath})
		return
	}
	order := map[string]int{}
	for _, h := range pl.c.Hooks {
		order[h.NativeEvent]++
	}
	for _, id := range ids {
		p := prefs[id]
		inst, ok := pl.pickInstall(reg.Plugins[id])
		if !ok {
			why := fmt.Sprintf("plugin %s is enabled in %s but installed for other projects only, so Claude Code does not load it here", id, p.from)
			if len(reg.Plugins[id]) == 0 {
				why = fmt.Sprintf("plugin %s is enabled in %s but not installed (no record here), so Claude Code does not load it", id, p.from)
			}
			pl.c.Files = append(pl.c.Files, File{Path: pl.display(regPath), Scope: ScopePlugin, Exists: true, abs: regPath, Managed: p.managed, Why: why})
			continue
		}
		abs := filepath.Join(pl.pluginDir(dir, id, inst), "hooks", "hooks.json")
		f := File{Path: pl.display(abs), Scope: ScopePlugin, abs: abs, Managed: p.managed}
		src, exists, err := pl.read(abs)
		f.Exists = exists
		var found []clientjson.Found
		switch {
		case err != nil:
			f.ReasonID, f.Why = ReasonUnparseable, "cannot be read safely: "+err.Error()
		case exists:
			found, err = clientjson.Registered(f.Path, src, "claude", pl.owner)
			if err != nil {
				f.ReasonID, f.Why = ReasonUnparseable, "Claude Code cannot load plugin "+id+"'s hooks (hook-load-failed): "+err.Error()
			}
		}
		pl.c.Files = append(pl.c.Files, f)
		for _, h := range found {
			order[h.NativeEvent]++
			hk := Hook{NativeEvent: h.NativeEvent, Order: order[h.NativeEvent], File: f.Path, Line: h.Line, Scope: ScopePlugin,
				Matcher: h.Matcher, Timeout: h.Timeout, HasTimeout: h.HasTimeout, TimeoutUnit: unitOf(pl.table, pl.c.Client),
				Command: h.Command, Args: h.Args, Ours: h.Claim.Ours(), Kind: kindName(h.Claim.Kind), Fires: true, Allowed: true}
			if hk.Ours {
				hk.Event = h.Claim.Event
			}
			switch {
			case pl.c.Off != "" && !(pl.c.OffSparesManaged && p.managed):
				hk.Fires, hk.ReasonID, hk.Why = false, pl.c.OffID, pl.c.Off
			case f.ReasonID != "":
				hk.Fires, hk.ReasonID, hk.Why = false, f.ReasonID, f.Why
			}
			if !hk.Ours && len(pl.allow) > 0 {
				hk.Allowed = allowed(pl.allow, h.Command, h.Args)
			}
			pl.c.Hooks = append(pl.c.Hooks, hk)
		}
	}
}

// pluginDir returns the directory Claude Code 2.1.328 loads plugin id
// from: for a plugin of a local marketplace (known_marketplaces.json in the
// plugins directory dir names its source "directory") the plugin's folder
// inside the marketplace, as its marketplace.json names it ("./lint"
// relative to the marketplace's installLocation); otherwise the install's
// installPath. Measured on 2.1.328 (testdata/clients/claude/2.1.328/
// plugins): a plugin of a directory marketplace ran the hooks/hooks.json of
// its source folder, not of the cache copy at installPath (`claude plugin
// list` prints it as "Read from:"); bundle: local marketplaces are those
// whose source is "file" or "directory".
func (pl *clientPlanner) pluginDir(dir, id string, inst installedPlugin) string {
	name, mkt, ok := strings.Cut(id, "@")
	if !ok {
		return inst.InstallPath
	}
	data, exists, err := pl.read(filepath.Join(dir, "known_marketplaces.json"))
	if err != nil || !exists {
		return inst.InstallPath
	}
	var known map[string]struct {
		Source struct {
			Source string `json:"source"`
		} `json:"source"`
		InstallLocation string `json:"installLocation"`
	}
	if json.Unmarshal(data, &known) != nil || known[mkt].Source.Source != "directory" || !filepath.IsAbs(known[mkt].InstallLocation) {
		return inst.InstallPath
	}
	loc := known[mkt].InstallLocation
	data, exists, err = pl.read(filepath.Join(loc, ".claude-plugin", "marketplace.json"))
	if err != nil || !exists {
		return inst.InstallPath
	}
	var manifest struct {
		Plugins []struct {
			Name   string `json:"name"`
			Source any    `json:"source"`
		} `json:"plugins"`
	}
	if json.Unmarshal(data, &manifest) != nil {
		return inst.InstallPath
	}
	for _, p := range manifest.Plugins {
		if src, ok := p.Source.(string); ok && p.Name == name && strings.HasPrefix(src, "./") {
			return filepath.Join(loc, filepath.FromSlash(src))
		}
	}
	return inst.InstallPath
}

// pickInstall returns the install of a plugin that applies to the plan's
// repository: a project or local install recorded for the repository root,
// else a user or managed install.
func (pl *clientPlanner) pickInstall(recs []installedPlugin) (installedPlugin, bool) {
	for _, r := range recs {
		if (r.Scope == "project" || r.Scope == "local") && filepath.Clean(r.ProjectPath) == pl.p.Root && r.InstallPath != "" {
			return r, true
		}
	}
	for _, r := range recs {
		if slices.Contains([]string{"user", "managed"}, r.Scope) && r.InstallPath != "" {
			return r, true
		}
	}
	return installedPlugin{}, false
}
