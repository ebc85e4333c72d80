package editguard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/hookwarden/hookwarden/lefthookcfg"
	"github.com/hookwarden/hookwarden/policy"
	"github.com/hookwarden/hookwarden/protocol/verdict"
	"github.com/hookwarden/hookwarden/templates"
)

// Kinds of config file whose keys can switch our rows or jobs off without
// holding them (configHit).
const (
	kindCodexConfig = "codex-config"
	kindLefthook    = "lefthook"
)

// configHit returns the hit for t (a resolved absolute path) when it is a
// config file whose keys can switch our rows or jobs off: a Codex
// config.toml in a .codex directory at any depth of a governed repository
// (root or a root of roots), or the user's ~/.codex/config.toml (through
// the hook's $HOME; CODEX_HOME is not read); or a lefthook config at a
// root (lefthookcfg.Candidates, main or local). Compared by name, folded
// where the root's file system folds case, and by identity (a hard link to
// one at the root, or to the user's). Codex CLI 0.169.0 reads [features]
// hooks = false and inline [hooks] from the user's config.toml and a
// trusted project's .codex/config.toml, and from every .codex/ between the
// repository root and the session's start directory (adopt/hookplan
// testdata plan-codex-project-features-off, plan-codex-subdir-features-off;
// codex-rs config/src/loader/README.md).
func (g *guard) configHit(roots []string, t string) *hit {
	for _, root := range roots {
		rel, ok := within(root, t)
		if !ok {
			continue
		}
		// Names compare folded when the root's file system folds case;
		// that is asked (two stats) only for a name that matches folded.
		lower := strings.ToLower(rel)
		match := func(name string) bool { return rel == name || (lower == name && caseInsensitive(root)) }
		tail := path.Base(path.Dir(rel)) + "/" + path.Base(rel)
		if tail == ".codex/config.toml" || (strings.ToLower(tail) == ".codex/config.toml" && caseInsensitive(root)) {
			return &hit{root: root, rel: rel, file: t, entry: kindEntry(rel, kindCodexConfig)}
		}
		if strings.Contains(lower, "lefthook") {
			for _, c := range append(lefthookcfg.Candidates(false), lefthookcfg.Candidates(true)...) {
				if match(c) {
					return &hit{root: root, rel: c, file: t, entry: kindEntry(c, kindLefthook)}
				}
			}
		}
	}
	if g.in.Home != "" && filepath.IsAbs(g.in.Home) && strings.HasSuffix(t, string(filepath.Separator)+"config.toml") {
		if p, err := resolve(filepath.Join(g.in.Home, ".codex", "config.toml")); err == nil && p == t {
			return &hit{rel: "~/.codex/config.toml", file: p, entry: kindEntry("~/.codex/config.toml", kindCodexConfig)}
		}
	}
	// By identity: only a file that exists with more than one name can be
	// a hard link to one.
	tfi, err := os.Stat(t)
	if err != nil || tfi.IsDir() || !mayBeHardLink(tfi) {
		return nil
	}
	if g.known == nil {
		g.known = g.configFiles(roots[0])
	}
	for _, k := range g.known {
		if os.SameFile(tfi, k.fi) {
			h := k.h
			return &h
		}
	}
	return nil
}

// knownConfig is a config file configHit compares by identity: its hit and
// its FileInfo.
type knownConfig struct {
	h  hit
	fi os.FileInfo
}

// configFiles returns the config files of configHit that exist at root
// (.codex/config.toml and the lefthook configs, found with one directory
// read of the root and, when it exists, of .config) and the user's
// ~/.codex/config.toml, for the identity comparison (a hard link to one).
// It is built once per judgement, the first time a target with more than
// one name is not one of them by name. Never nil.
func (g *guard) configFiles(root string) []knownConfig {
	out := []knownConfig{}
	add := func(p, rel, kind string) {
		if fi, err := os.Stat(p); err == nil {
			out = append(out, knownConfig{hit{root: root, rel: rel, file: p, entry: kindEntry(rel, kind)}, fi})
		}
	}
	add(filepath.Join(root, ".codex", "config.toml"), ".codex/config.toml", kindCodexConfig)
	cands := append(lefthookcfg.Candidates(false), lefthookcfg.Candidates(true)...)
	for _, dir := range []string{"", ".config"} {
		entries, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			continue
		}
		for _, e := range entries {
			rel := path.Join(dir, e.Name())
			if slices.Contains(cands, rel) {
				add(filepath.Join(root, filepath.FromSlash(rel)), rel, kindLefthook)
			}
		}
	}
	if g.in.Home != "" && filepath.IsAbs(g.in.Home) {
		if p, err := resolve(filepath.Join(g.in.Home, ".codex", "config.toml")); err == nil {
			add(p, "~/.codex/config.toml", kindCodexConfig)
		}
	}
	return out
}

// kindEntry names a config hit: Path how reasons name it, Client its kind.
func kindEntry(rel, kind string) policy.GuardPath {
	return policy.GuardPath{Path: rel, Client: kind}
}

// configEdit judges an edit of a config hit (configHit) by its kind.
func (g *guard) configEdit(h hit) (verdict.Verdict, error) {
	if h.entry.Client == kindCodexConfig {
		return g.codexConfigEdit(h)
	}
	return g.lefthookEdit(h)
}

// codexConfigEdit lets an edit of a Codex config.toml through only when
// every result the client could write parses as TOML (go-toml/v2, the
// spellings Codex's toml crate reads: dotted keys, inline tables, quoted
// keys), switches no hooks off (codexHooksOff: features hooks and
// codex_hooks absent or true, at the top level and in profiles), and
// leaves the hooks key (inline [hooks] handlers and [hooks.state] trust
// records; Codex 0.169.0 runs inline handlers beside hooks.json's, codex-rs
// hooks/src/engine/discovery.rs) as it was, compared as canonical JSON.
func (g *guard) codexConfigEdit(h hit) (verdict.Verdict, error) {
	_, before, results, refuse, err := g.edited(h, h.rel+" is Codex's config, where [features] hooks = false or a [hooks] table switches hookwarden's rows off or runs hooks unjudged",
		"that keeps hooks on", "so it cannot check that hooks stay on; the edit is refused. Re-read the file and copy old_string exactly, or change the file outside the agent")
	if err != nil || refuse != nil {
		return deref(refuse), err
	}
	hooksBefore := "null"
	if len(before) > 0 {
		var doc map[string]any
		if toml.Unmarshal(before, &doc) == nil {
			hooksBefore = canonical(doc["hooks"])
		}
	}
	for _, after := range results {
		if err := g.alive(); err != nil {
			return verdict.Verdict{}, err
		}
		var doc map[string]any
		if err := toml.Unmarshal(after, &doc); err != nil {
			return deny(RuleClientHooks, "the edit would leave %s not parsing as TOML (%s), so hookwarden cannot show that Codex's hooks stay on; the edit is refused", h.rel, firstLine(err.Error())), nil
		}
		if why := codexHooksOff(doc); why != "" {
			return deny(RuleClientHooks, "the edit would set %s in %s, which Codex does not read as hooks on (it switches every Codex hook off, hookwarden's rows included, or breaks the config); the edit is refused", why, h.rel), nil
		}
		if got := canonical(doc["hooks"]); got != hooksBefore {
			return deny(RuleClientHooks, "the edit would add or change the [hooks] table of %s; Codex runs those handlers unjudged beside hookwarden's, so agents may not change them. A person changes hooks outside the agent, then runs `hookwarden conform`", h.rel), nil
		}
	}
	return verdict.Verdict{Kind: verdict.Allow}, nil
}

// codexHooksOff returns what in a parsed Codex config.toml may switch
// hooks off ("" when nothing): a features key that is not a table, or a
// features hooks or codex_hooks (the deprecated alias; the 0.169.0 binary's
// codex_features::legacy) that is not the boolean true, at the top level
// or in a profile's features (profiles.NAME.features: the binary's
// ConfigProfile, applied when profile = NAME selects it). Codex 0.169.0
// also has a one-field FeatureToggleToml table form; it is refused with
// every other value but true, since what it reads there is not measured.
func codexHooksOff(doc map[string]any) string {
	check := func(where string, f any, set bool) string {
		if !set {
			return ""
		}
		ft, ok := f.(map[string]any)
		if !ok {
			return where + " = " + canonical(f)
		}
		for _, k := range []string{"hooks", "codex_hooks"} {
			if v, set := ft[k]; set && v != true {
				return "[" + where + "] " + k + " = " + canonical(v)
			}
		}
		return ""
	}
	f, set := doc["features"]
	if why := check("features", f, set); why != "" {
		return why
	}
	profiles, _ := doc["profiles"].(map[string]any)
	for _, n := range slices.Sorted(maps.Keys(profiles)) {
		p, ok := profiles[n].(map[string]any)
		if !ok {
			continue
		}
		f, set := p["features"]
		if why := check("profiles."+n+".features", f, set); why != "" {
			return why
		}
	}
	return ""
}

// canonical returns v as JSON with sorted keys ("null" for nil or a value
// JSON cannot hold).
func canonical(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("unencodable %T", v)
	}
	return string(b)
}

// lefthookEdit lets an edit of a lefthook config through only when
// hookwarden's jobs file (templates.LefthookJobsPath) is absent at the root
// (lefthook is not governed there), or when every result the client could
// write parses in the file's format (lefthookcfg.Parse), a main config
// (lefthookcfg.Candidates(false)) still extends the jobs file (unless it
// existed before without doing so: audit reports that one), its extends
// list names no file it did not name before (a file no rule guards could
// hold a skip), its lefthookFixedKeys are unchanged, and it holds no
// setting that changes one of our jobs it did not hold before
// (lefthookcfg.Overrides: a job named like ours, a hook-level skip, only or
// exclude_tags; observed on lefthook 2.2.1).
func (g *guard) lefthookEdit(h hit) (verdict.Verdict, error) {
	if _, err := os.Lstat(filepath.Join(h.root, filepath.FromSlash(templates.LefthookJobsPath))); err != nil {
		return verdict.Verdict{Kind: verdict.Allow}, nil //nolint:nilerr // no jobs file: lefthook is not governed in this repository
	}
	tjobs, err := templates.LefthookJobs()
	if err != nil {
		return verdict.Verdict{}, err
	}
	var jobs []lefthookcfg.Job
	for _, j := range tjobs {
		jobs = append(jobs, lefthookcfg.Job{Hook: j.Hook, Name: j.Name})
	}
	_, before, results, refuse, err := g.edited(h, h.rel+" is read by lefthook, where a dropped extends: entry or a skip switches hookwarden's jobs off",
		"that keeps them", "so it cannot check that hookwarden's jobs stay; the edit is refused. Re-read the file and copy old_string exactly, or change the file outside the agent")
	if err != nil || refuse != nil {
		return deref(refuse), err
	}
	main := slices.Contains(lefthookcfg.Candidates(false), h.rel)
	needOurs := true
	fixed := map[string]string{}
	var extendsBefore []string
	var offBefore []string
	if len(bytes.TrimSpace(before)) > 0 {
		cfg, err := lefthookcfg.Parse(h.rel, before)
		if err == nil {
			var ours bool
			extendsBefore, _, ours = lefthookcfg.Extends(cfg, templates.LefthookJobsPath)
			needOurs = ours
			for _, k := range lefthookFixedKeys {
				fixed[k] = canonical(cfg[k])
			}
			offBefore = overrideKeys(lefthookcfg.Overrides(h.rel, before, cfg, jobs))
		}
	}
	for _, after := range results {
		if err := g.alive(); err != nil {
			return verdict.Verdict{}, err
		}
		cfg, err := lefthookcfg.Parse(h.rel, after)
		if err != nil {
			return deny(RuleClientHooks, "the edit would leave %s not parsing (%s), and lefthook then runs none of its jobs, hookwarden's included; the edit is refused", h.rel, firstLine(err.Error())), nil
		}
		entries, _, ours := lefthookcfg.Extends(cfg, templates.LefthookJobsPath)
		if main && needOurs && !ours {
			return deny(RuleClientHooks, "the edit would drop %s from the extends: list of %s, and lefthook would then run none of hookwarden's jobs; the edit is refused (other keys are yours to change)", templates.LefthookJobsPath, h.rel), nil
		}
		for _, e := range entries {
			if path.Clean(e) != templates.LefthookJobsPath && !slices.Contains(extendsBefore, e) {
				return deny(RuleClientHooks, "the edit would add %q to the extends: list of %s; a file lefthook merges in can skip hookwarden's jobs, so agents may not add one. A person adds it outside the agent", e, h.rel), nil
			}
		}
		for _, k := range lefthookFixedKeys {
			was, ok := fixed[k]
			if !ok {
				was = "null"
			}
			if canonical(cfg[k]) != was {
				return deny(RuleClientHooks, "the edit would change %s: in %s, which changes how lefthook runs hookwarden's jobs (other configs, environment, the lefthook binary, scripts or version checks); the edit is refused. A person changes it outside the agent", k, h.rel), nil
			}
		}
		off := lefthookcfg.Overrides(h.rel, after, cfg, jobs)
		if countMissing(overrideKeys(off), offBefore) > 0 {
			have := append([]string(nil), offBefore...)
			for _, o := range off {
				if i := slices.Index(have, overrideKey(o)); i >= 0 {
					have = slices.Delete(have, i, i+1)
					continue
				}
				return deny(RuleClientHooks, "the edit would change hookwarden's lefthook job in %s: %s; the edit is refused", h.rel, o.Describe()), nil
			}
		}
	}
	return verdict.Verdict{Kind: verdict.Allow}, nil
}

// lefthookFixedKeys are the top-level lefthook settings an agent may not
// change, since each changes how or whether lefthook runs our jobs
// (lefthook 2.x configuration reference, docs/configuration.md): remotes
// (configs fetched from other repositories and merged in), rc (a file
// sourced for the hooks' environment), lefthook (the executable the git
// hook scripts run), min_version (a lefthook older than it refuses to run),
// templates (text substituted into run commands), source_dir and
// source_dir_local (where scripts are read from).
var lefthookFixedKeys = [...]string{"remotes", "rc", "lefthook", "min_version", "templates", "source_dir", "source_dir_local"}

func overrideKeys(l []lefthookcfg.Override) []string {
	var out []string
	for _, o := range l {
		out = append(out, overrideKey(o))
	}
	return out
}

func overrideKey(o lefthookcfg.Override) string {
	return o.Hook + "\x00" + o.Name + "\x00" + o.Key
}

// firstLine returns s up to its first line break.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
