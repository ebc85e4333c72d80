package hookplan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/hookwarden/hookwarden/adopt/codextrust"
)

// codexSystemDir is Codex CLI 0.169.0's machine-wide directory on Unix:
// config.toml there is the System config layer (its hooks are managed: they
// run without a trusted_hash), hooks.json beside it that layer's hooks file,
// and requirements.toml the administrator's requirements (binary strings
// "/etc/codex/config.toml", "/etc/codex/requirements.toml"; codex-rs
// config/src/loader/README.md, "System config (/etc/codex/config.toml …)";
// hooks/src/engine/discovery.rs hook_metadata_for_config_layer_source:
// System is managed).
const codexSystemDir = "/etc/codex"

// codexHooksView returns the JSON view {"hooks": {...}} of a Codex
// config.toml's inline [hooks] tables, [hooks.state] (trust records, not
// hooks) left out, so the hooks.json readers key and hash them. Codex CLI
// 0.169.0 reads inline [hooks] in every config layer beside that layer's
// hooks.json, with the same event and handler fields (codex-rs config/src/
// hook_config.rs HooksToml flattens HookEventsToml; hooks/src/engine/
// discovery.rs load_toml_hooks_from_layer; binary strings "failed to parse
// TOML hooks in", "loading hooks from both … prefer a single representation
// for this layer": both run). It returns an error for text that is not
// TOML or a hooks key that is not a table: Codex then uses none of them.
func codexHooksView(src []byte) ([]byte, error) {
	var doc map[string]any
	if err := toml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("not valid TOML: %w", err)
	}
	view := map[string]any{}
	if raw, ok := doc["hooks"]; ok {
		hooks, ok := raw.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("hooks is not a table")
		}
		for k, v := range hooks {
			if k != "state" {
				view[k] = v
			}
		}
	}
	out, err := json.MarshalIndent(map[string]any{"hooks": view}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("hooks: %w", err)
	}
	return out, nil
}

// codexSwitches sets Client.Off for Codex CLI 0.169.0:
//   - [features] hooks = false (or the deprecated codex_hooks) in the
//     effective config switches every hook off (developers.openai.com/codex/
//     hooks.md). The layers merge with the higher one winning: the system
//     config.toml (read with --workstation), the user's $CODEX_HOME/
//     config.toml, then each project .codex/config.toml from the root down
//     to the start directory, which counts only when its directory is
//     trusted (codexProjectTrust; an untrusted layer is disabled: codex-rs
//     config/src/loader/README.md, "Layering model"). A trusted
//     repository's own config.toml can therefore switch our rows off. The
//     legacy /etc/codex/managed_config.toml (--workstation) is applied
//     last, above them all.
//   - allow_managed_hooks_only = true in /etc/codex/requirements.toml (read
//     with --workstation) admits only managed hooks: the system layer's (and
//     a requirements [hooks] table's, not read here); user and project hooks
//     are skipped (codex-rs hooks/src/engine/discovery.rs
//     HookDiscoveryPolicy::allows).
func (pl *clientPlanner) codexSwitches(files []loaded) {
	type layer struct {
		path string
		data []byte
	}
	var layers []layer
	for _, l := range files {
		if l.raw != nil && l.f.Managed && filepath.Base(l.f.abs) == "config.toml" {
			layers = append(layers, layer{l.f.Path, l.raw})
		}
	}
	cfgPath, err := codextrust.ConfigPath(pl.getenv)
	var user []byte
	if err == nil {
		if data, err := os.ReadFile(cfgPath); err == nil {
			user = data
			layers = append(layers, layer{cfgPath, data})
		}
	}
	for _, l := range files {
		if l.raw != nil && l.f.Scope == ScopeProject {
			if ok, _ := codexProjectTrust(user, pl.p.Root, filepath.Dir(filepath.Dir(l.f.abs))); ok {
				layers = append(layers, layer{l.f.Path, l.raw})
			}
		}
	}
	// The legacy managed_config.toml is applied above every other layer.
	for _, l := range files {
		if l.raw != nil && l.f.Managed && filepath.Base(l.f.abs) == "managed_config.toml" {
			layers = append(layers, layer{l.f.Path, l.raw})
		}
	}
	on, from, file, line := true, "", "", 0
	for _, ly := range layers {
		var doc struct {
			Features map[string]any `toml:"features"`
		}
		if toml.Unmarshal(ly.data, &doc) != nil {
			continue
		}
		for _, k := range []string{"hooks", "codex_hooks"} {
			if v, ok := doc.Features[k].(bool); ok {
				on, from, file, line = v, "[features] "+k+" = false in "+ly.path, ly.path, lineOf(ly.data, k)
				break
			}
		}
	}
	if !on {
		pl.c.Off, pl.c.OffID, pl.c.OffFile, pl.c.OffLine = from+" switches Codex hooks off, ours included", ReasonDisabled, file, line
		return
	}
	if !pl.p.Workstation {
		return
	}
	req := filepath.Join(pl.sysRoot, codexSystemDir, "requirements.toml")
	data, exists, err := pl.read(req)
	if err != nil || !exists {
		return
	}
	var doc struct {
		AllowManagedHooksOnly *bool `toml:"allow_managed_hooks_only"`
	}
	if toml.Unmarshal(data, &doc) == nil && doc.AllowManagedHooksOnly != nil && *doc.AllowManagedHooksOnly {
		pl.c.Off, pl.c.OffID, pl.c.OffFile, pl.c.OffLine = "allow_managed_hooks_only = true in "+req+" admits only managed hooks (the system layer's and the requirements' own), so Codex CLI 0.169.0 skips every user and project hook, ours included", ReasonManagedOnly, req, lineOf(data, "allow_managed_hooks_only")
		pl.c.OffSparesManaged = true
	}
}

// codexTreeFiles returns the hooks.json and config.toml of every .codex
// directory strictly below root down to start (root's own are specs of
// their own), shallowest first, each directory's hooks.json before its
// config.toml. Codex CLI 0.169.0 loads a project layer for each directory
// from the project root (the nearest ancestor holding a project root
// marker, .git by default) down to the session's directory that has a
// .codex folder, the deeper ones overriding (codex-rs config/src/loader/
// mod.rs load_project_layers: "ordered in increasing precedence, starting
// from folders closest to project_root").
func codexTreeFiles(root, start string) []string {
	rel, err := filepath.Rel(root, start)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil
	}
	var out []string
	dir := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		dir = filepath.Join(dir, part)
		if fi, err := os.Lstat(filepath.Join(dir, ".codex")); err == nil && fi.IsDir() {
			out = append(out, filepath.Join(dir, ".codex", "hooks.json"), filepath.Join(dir, ".codex", "config.toml"))
		}
	}
	return out
}

// codexProjectTrust reports whether Codex CLI 0.169.0 trusts the project
// layer of the .codex folder in dir, and the [projects] key that decides
// it: the directory's own key, else the project root's (the repository
// root), else none (untrusted). codex-rs config/src/loader/mod.rs
// ProjectTrustContext::decision_for_dir (its third fallback, the main
// repository of a linked worktree, is not followed here); binary strings
// "is marked as untrusted in", "as a trusted project in". cfg is the user's
// config.toml (nil when absent).
func codexProjectTrust(cfg []byte, root, dir string) (bool, string) {
	var doc struct {
		Projects map[string]struct {
			TrustLevel *string `toml:"trust_level"`
		} `toml:"projects"`
	}
	if toml.Unmarshal(cfg, &doc) != nil {
		return false, root
	}
	for _, key := range []string{dir, root} {
		if p, ok := doc.Projects[key]; ok && p.TrustLevel != nil {
			return *p.TrustLevel == "trusted", key
		}
	}
	return false, root
}

// lineFrom returns the 1-based line of the first occurrence of text in src
// at or after *from and moves *from past it; 0 (and *from unchanged) when
// text does not occur there (a TOML string written with escapes).
func lineFrom(src []byte, text string, from *int) int {
	if text == "" || *from > len(src) {
		return 0
	}
	i := bytes.Index(src[*from:], []byte(text))
	if i < 0 {
		return 0
	}
	at := *from + i
	*from = at + len(text)
	return 1 + bytes.Count(src[:at], []byte("\n"))
}
