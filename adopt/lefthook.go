package adopt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/tailscale/hujson"
	"go.yaml.in/yaml/v3"

	"github.com/hookwarden/hookwarden/internal/safewrite"
	"github.com/hookwarden/hookwarden/templates"
)

// The lefthook config files, as lefthook 2.x finds them at the repository
// root (evilmartians/lefthook internal/config/loader.go at tag v2.1.10:
// MainConfigNames, LocalConfigNames and Extensions; loadFirst tries each
// extension in turn and, within it, each name, and reads only the first
// file it finds). Checked with the real lefthook 2.2.1 from npm: with
// lefthook.yml, .lefthook.yml and .config/lefthook.yml present, only
// lefthook.yml's jobs ran. $LEFTHOOK_CONFIG, which replaces the main config,
// is not followed here.
var (
	lefthookMainNames  = []string{"lefthook", ".lefthook", ".config/lefthook"}
	lefthookLocalNames = []string{"lefthook-local", ".lefthook-local", ".config/lefthook-local"}
	lefthookExtensions = []string{".yml", ".yaml", ".json", ".jsonc", ".toml"}
)

// lefthookBlockBody is what the managed block of a YAML lefthook config
// holds: the `extends:` entry naming templates.LefthookJobsPath. lefthook
// 2.x joins a relative entry to the repository root and merges the file it
// names into the main config (loader.go extendRecursive, v2.1.10; observed
// on lefthook 2.2.1).
var lefthookBlockBody = []string{
	"# Managed by hookwarden: lefthook reads hookwarden's jobs from the file below;",
	"# edits inside this block are replaced by adopt and conform.",
	"extends:",
	"  - " + templates.LefthookJobsPath,
}

// LefthookConfigs returns the repository-relative paths (slash separated)
// of the lefthook configs lefthook 2.x reads at root: the main config and
// the local one ("" when there is none), each the first of its names that
// exists, in lefthook's order (lefthookMainNames, lefthookLocalNames).
func LefthookConfigs(root string) (main, local string) {
	first := func(names []string) string {
		for _, ext := range lefthookExtensions {
			for _, n := range names {
				// lefthook asks afero.Exists, which follows a symlink;
				// reading it later refuses one (safewrite).
				if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(n+ext))); err == nil {
					return n + ext
				}
			}
		}
		return ""
	}
	return first(lefthookMainNames), first(lefthookLocalNames)
}

// LefthookYAML reports whether rel is a lefthook config adopt edits (YAML);
// the JSON, JSONC and TOML forms are read, never written.
func LefthookYAML(rel string) bool {
	return strings.HasSuffix(rel, ".yml") || strings.HasSuffix(rel, ".yaml")
}

// parseLefthook decodes a lefthook config of rel's format (by its
// extension) into its top-level mapping; an empty file is an empty
// mapping. YAML is read as lefthook's koanf yaml parser reads it: the first
// document only.
func ParseLefthook(rel string, data []byte) (map[string]any, error) {
	out := map[string]any{}
	var err error
	switch {
	case LefthookYAML(rel):
		err = yaml.Unmarshal(data, &out)
	case strings.HasSuffix(rel, ".json"), strings.HasSuffix(rel, ".jsonc"):
		std, serr := hujson.Standardize(append([]byte{}, data...))
		if serr != nil {
			return nil, serr
		}
		if len(bytes.TrimSpace(std)) > 0 {
			err = json.Unmarshal(std, &out)
		}
	case strings.HasSuffix(rel, ".toml"):
		err = toml.Unmarshal(data, &out)
	default:
		return nil, fmt.Errorf("%s: not a lefthook config extension", rel)
	}
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = map[string]any{}
	}
	return out, nil
}

// lefthookExtends returns cfg's `extends` entries (nil when absent) and
// whether one names templates.LefthookJobsPath (relative to the root,
// "./" and the like cleaned away).
func lefthookExtends(cfg map[string]any) (entries []string, present, ours bool) {
	v, present := cfg["extends"]
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok {
				entries = append(entries, s)
			}
		}
	case string:
		entries = []string{x}
	}
	for _, e := range entries {
		if path.Clean(e) == templates.LefthookJobsPath {
			ours = true
		}
	}
	return entries, present, ours
}

// LefthookOverride is a setting in a repository's lefthook config that
// changes one of our jobs. Key "" is a job that carries the name of one of
// ours: lefthook merges jobs of one name across files field by field
// (loader.go mergeJobsSlice, v2.1.10), so such a job changes ours. Observed
// on lefthook 2.2.1: a `hookwarden pre-tool` job with `skip: true` in
// lefthook.yml skipped ours; one in lefthook-local.yml replaced our run
// command. Key "skip", "only" or "exclude_tags" is that setting on the hook
// holding one of our jobs: observed on 2.2.1, a hook-level `skip: true`, an
// `only:` condition that does not hold and an `exclude_tags:` naming our
// job each skip ours (lefthook exits 0, so the agent's call goes through).
// File is the config, Line the 1-based line of the job's name or the key
// (0 unknown), Hook the lefthook hook and Name our job's name.
type LefthookOverride struct {
	File string
	Line int
	Hook string
	Name string
	Key  string
}

// LefthookOverrides returns the settings of cfg (the parsed config rel,
// whose bytes are data) that change one of our jobs (templates.LefthookJobs):
// a job named like one of ours under any hook, and a hook-level skip, only
// (any value: a condition may hold when the agent calls) or exclude_tags
// naming our job on a hook that holds one. A job of ours never lives in a
// user's config: adopt writes its jobs only to templates.LefthookJobsPath.
func LefthookOverrides(rel string, data []byte, cfg map[string]any) []LefthookOverride {
	jobs, err := templates.LefthookJobs()
	if err != nil {
		return nil
	}
	var names []string
	ours := map[string]string{} // hook → our job's name
	for _, j := range jobs {
		names = append(names, j.Name)
		ours[j.Hook] = j.Name
	}
	var out []LefthookOverride
	hooks := make([]string, 0, len(cfg))
	for k := range cfg {
		hooks = append(hooks, k)
	}
	slices.Sort(hooks)
	for _, hook := range hooks {
		h, ok := cfg[hook].(map[string]any)
		if !ok {
			continue
		}
		if name, ok := ours[hook]; ok {
			for _, key := range []string{"skip", "only", "exclude_tags"} {
				v, set := h[key]
				if !set || (key == "exclude_tags" && !mentions(v, name)) || (key == "skip" && v == false) {
					continue
				}
				out = append(out, LefthookOverride{File: rel, Line: lineAfter(data, hook+":", key+":"), Hook: hook, Name: name, Key: key})
			}
		}
		list, _ := h["jobs"].([]any)
		for _, j := range list {
			m, ok := j.(map[string]any)
			if !ok {
				continue
			}
			if n, _ := m["name"].(string); slices.Contains(names, n) {
				out = append(out, LefthookOverride{File: rel, Line: lineAfter(data, "", "name", n), Hook: hook, Name: n})
			}
		}
	}
	return out
}

// mentions reports whether v (a string or a list) names s.
func mentions(v any, s string) bool {
	switch x := v.(type) {
	case string:
		return x == s
	case []any:
		for _, e := range x {
			if e == s {
				return true
			}
		}
	}
	return false
}

// lineAfter returns the 1-based line of data's first line, at or after
// the first line containing from ("": the first line), that contains every
// string of want; 0 when there is none (a JSON or TOML config may spell
// them otherwise).
func lineAfter(data []byte, from string, want ...string) int {
	seen := from == ""
	for i, l := range strings.Split(string(data), "\n") {
		seen = seen || strings.Contains(l, from)
		if seen && !slices.ContainsFunc(want, func(w string) bool { return !strings.Contains(l, w) }) {
			return i + 1
		}
	}
	return 0
}

// LefthookPlan is what the lefthook-jobs step would do to a repository's
// main lefthook config: File the config (repository-relative; "lefthook.yml"
// to be created when the repository has none), Out its planned bytes
// (equal to the input when nothing changes; nil when the step cannot write
// it), Change what the write does ("" none), and Problem why the jobs are
// not (or cannot be) extended ("" when they are, or will be once Out is
// written): a config that does not parse, a JSON or TOML config, or an
// `extends:` list of the user's own without our file.
type LefthookPlan struct {
	File    string
	Out     []byte
	Change  string
	Problem string
}

// PlanLefthookConfig plans the `extends:` entry naming
// templates.LefthookJobsPath in the main lefthook config rel (found by
// LefthookConfigs; "" for none) whose bytes are data (exists whether it
// exists). selected false plans the block's retraction (conform, lefthook
// no longer selected). The entry goes in as a managed block (BlockBegin …
// BlockEnd, appended; an older block is replaced in place) when the config
// has no `extends:` key of its own; a config whose own `extends:` already
// names the file is left alone; one whose own list does not is not edited
// (inserting into a user's list is not done: Problem says what to add). A
// new lefthook.yml holding only the block is planned when the repository has
// no main config. Every planned YAML is parsed again and must list the file,
// else Problem (nothing written). Errors: a malformed block (*BlockError).
func PlanLefthookConfig(rel string, data []byte, exists, selected bool) (LefthookPlan, error) {
	if rel == "" {
		rel = "lefthook.yml"
	}
	lp := LefthookPlan{File: rel, Out: data}
	if !LefthookYAML(rel) {
		if !selected {
			return lp, nil
		}
		cfg, err := ParseLefthook(rel, data)
		if err != nil {
			lp.Out, lp.Problem = nil, rel+" does not parse ("+err.Error()+"), so lefthook runs none of its jobs, ours included"
			return lp, nil
		}
		if _, _, ours := lefthookExtends(cfg); !ours {
			lp.Out, lp.Problem = nil, "hookwarden writes its extends entry into YAML lefthook configs only; add \""+templates.LefthookJobsPath+"\" to the extends list of "+rel+" by hand"
		}
		return lp, nil
	}
	if !selected {
		if !exists {
			return lp, nil
		}
		out, err := removeBlock(data)
		if err != nil {
			return lp, err
		}
		lp.Out = out
		if !bytes.Equal(out, data) {
			lp.Change = "removed the extends block naming " + templates.LefthookJobsPath + " (lefthook no longer selected)"
		}
		return lp, nil
	}
	rest, err := removeBlock(data)
	if err != nil {
		return lp, err
	}
	cfg, err := ParseLefthook(rel, rest)
	if err != nil {
		lp.Out, lp.Problem = nil, rel+" does not parse ("+firstLine(err.Error())+"), so lefthook runs none of its jobs, ours included; hookwarden does not edit it"
		return lp, nil
	}
	if entries, present, ours := lefthookExtends(cfg); present {
		if ours && bytes.Equal(rest, data) {
			return lp, nil // the user's own list names our file
		}
		lp.Out = nil
		lp.Problem = rel + " has an extends: list of its own (" + strings.Join(entries, ", ") + ") without " + templates.LefthookJobsPath + "; hookwarden does not edit a list of yours: add \"- " + templates.LefthookJobsPath + "\" to it"
		if ours {
			lp.Problem = rel + " names " + templates.LefthookJobsPath + " in its own extends: list and in hookwarden's block; lefthook refuses a file extended twice: remove one"
		}
		return lp, nil
	}
	out, err := ensureBlock(data, lefthookBlockBody)
	if err != nil {
		return lp, err
	}
	if after, err := ParseLefthook(rel, out); err != nil {
		lp.Out, lp.Problem = nil, "with hookwarden's extends block appended, "+rel+" would not parse ("+firstLine(err.Error())+"); add \"extends: ["+templates.LefthookJobsPath+"]\" by hand"
		return lp, nil
	} else if _, _, ours := lefthookExtends(after); !ours {
		lp.Out, lp.Problem = nil, "with hookwarden's extends block appended, "+rel+" would still not extend "+templates.LefthookJobsPath+" (a second YAML document, or a top-level value that is not a mapping); add it by hand"
		return lp, nil
	}
	lp.Out = out
	switch {
	case !exists:
		lp.Change = "created with the extends block naming " + templates.LefthookJobsPath
	case !bytes.Equal(out, data) && bytes.Equal(rest, data):
		lp.Change = "added the extends block naming " + templates.LefthookJobsPath
	case !bytes.Equal(out, data):
		lp.Change = "restored the extends block naming " + templates.LefthookJobsPath
	}
	return lp, nil
}

// firstLine returns s up to its first line break.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// planLefthook is the lefthook-jobs step's config half (the rendered
// .hookwarden/lefthook.yml is planned with the other rendered files): with
// lefthook selected, the `extends:` block in the repository's main lefthook
// config (PlanLefthookConfig; a problem is a warning and the file is left
// alone), and a warning per foreign job named like ours in the main or
// local config (never edited); for conform with lefthook not selected, the
// block's retraction and a warning about the rendered file left behind.
func (s *planState) planLefthook(planStep) error {
	main, local := LefthookConfigs(s.root)
	if !s.lefthook && (!s.conform || main == "") {
		return nil
	}
	rel := main
	if rel == "" {
		rel = "lefthook.yml"
	}
	if s.lefthook && s.declined(templates.StepLefthookJobs) {
		s.p.rep.Files = append(s.p.rep.Files, &FileReport{Path: rel, Step: templates.StepLefthookJobs, Client: "lefthook", Action: ActionDeclined, Reason: "declined"})
		return nil
	}
	snap, err := safewrite.Preflight(s.root, rel)
	if err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	lp, err := PlanLefthookConfig(main, snap.Data, snap.Exists, s.lefthook)
	if err != nil {
		var be *BlockError
		if errors.As(err, &be) {
			return fmt.Errorf("%s: %w", filepath.Join(s.root, filepath.FromSlash(rel)), err)
		}
		return err
	}
	rep := &FileReport{Path: rel, Step: templates.StepLefthookJobs, Client: "lefthook"}
	if !s.lefthook {
		if lp.Change != "" {
			rep.Action, rep.Reason, rep.Changes = ActionMerged, "client no longer selected in "+ManifestFile, []string{lp.Change}
			s.add(rep, snap, lp.Out, 0o644)
		}
		if _, err := os.Lstat(filepath.Join(s.root, filepath.FromSlash(templates.LefthookJobsPath))); err == nil {
			s.p.rep.Warnings = append(s.p.rep.Warnings, fmt.Sprintf("lefthook is no longer selected in %s but %s is still there; hookwarden deletes no file, remove it by hand", ManifestFile, templates.LefthookJobsPath))
		}
		return nil
	}
	for _, f := range []string{main, local} {
		if f == "" {
			continue
		}
		data := snap.Data
		if f != rel {
			ls, err := safewrite.Preflight(s.root, f)
			if err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
			data = ls.Data
		}
		cfg, err := ParseLefthook(f, data)
		if err != nil {
			continue
		}
		for _, o := range LefthookOverrides(f, data, cfg) {
			s.p.rep.Warnings = append(s.p.rep.Warnings, fmt.Sprintf("finding: %s:%d: %s (hookwarden does not edit it)", o.File, o.Line, o.Describe()))
		}
	}
	if lp.Problem != "" {
		rep.Action, rep.Reason = ActionSkipped, lp.Problem
		s.p.rep.Files = append(s.p.rep.Files, rep)
		s.p.rep.Warnings = append(s.p.rep.Warnings, "finding: "+rel+": "+lp.Problem)
		return nil
	}
	rep.Action = action(snap, lp.Out, ActionMerged)
	if lp.Change != "" {
		rep.Changes = []string{lp.Change}
	}
	s.add(rep, snap, lp.Out, 0o644)
	return nil
}

// Describe says what o does to our job and how to repair it, for adopt's
// warning and audit's finding.
func (o LefthookOverride) Describe() string {
	if o.Key == "" {
		return fmt.Sprintf("a job named %q under %s is not hookwarden's: lefthook merges jobs of one name across files field by field, so it changes ours (a skip: there skips it, a run: there replaces ours); rename or remove it", o.Name, o.Hook)
	}
	return fmt.Sprintf("the %s hook sets %s:, which makes lefthook skip hookwarden's %q job whenever it holds (lefthook then exits 0 and the call goes through); remove it from %s or move the jobs it should govern to a hook of their own", o.Hook, o.Key, o.Name, o.Hook)
}
