// Package lefthookcfg reads lefthook configs: which names lefthook 2.x
// reads at a repository root, how each format parses, whether a config
// extends hookwarden's jobs file and which of its settings change one of
// hookwarden's jobs. adopt, audit and doctor use it to plan and report;
// the policy's shell rules and the pre-edit judge (engine/editguard) use it
// to refuse a change that would drop or skip our jobs. It imports nothing
// of hookwarden's, so the policy package can use it.
package lefthookcfg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/tailscale/hujson"
	"go.yaml.in/yaml/v3"
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
	mainNames  = [...]string{"lefthook", ".lefthook", ".config/lefthook"}
	localNames = [...]string{"lefthook-local", ".lefthook-local", ".config/lefthook-local"}
	extensions = [...]string{".yml", ".yaml", ".json", ".jsonc", ".toml"}
)

// Candidates returns the repository-relative paths (slash separated) of
// the main (local false) or local lefthook config names lefthook 2.x tries,
// in its order: each extension in turn, within it each name. A new slice
// each call.
func Candidates(local bool) []string {
	names := mainNames[:]
	if local {
		names = localNames[:]
	}
	out := make([]string, 0, len(names)*len(extensions))
	for _, ext := range extensions {
		for _, n := range names {
			out = append(out, n+ext)
		}
	}
	return out
}

// IsConfig reports whether rel (repository-relative, slash separated,
// cleaned) is one of the names of Candidates, main or local.
func IsConfig(rel string) bool {
	return slices.Contains(Candidates(false), rel) || slices.Contains(Candidates(true), rel)
}

// BaseNames returns the file names (no directory) of every main and local
// config name: "lefthook.yml", ".lefthook-local.toml", ... A new slice each
// call.
func BaseNames() []string {
	var out []string
	for _, c := range append(Candidates(false), Candidates(true)...) {
		b := path.Base(c)
		if !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	return out
}

// IsYAML reports whether rel is a YAML lefthook config (by extension).
func IsYAML(rel string) bool {
	return strings.HasSuffix(rel, ".yml") || strings.HasSuffix(rel, ".yaml")
}

// Parse decodes a lefthook config of rel's format (by its extension) into
// its top-level mapping; an empty file is an empty mapping. YAML is read as
// lefthook's koanf yaml parser reads it: the first document only. Errors:
// a syntax error, a top-level value that is not a mapping, an extension
// lefthook does not read.
func Parse(rel string, data []byte) (map[string]any, error) {
	out := map[string]any{}
	var err error
	switch {
	case IsYAML(rel):
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

// Extends returns cfg's `extends` entries (nil when absent), whether the
// key is present, and whether one entry names jobsPath (a
// repository-relative path; "./" and the like are cleaned away before the
// comparison). lefthook 2.x joins a relative entry to the repository root
// (loader.go extendRecursive, v2.1.10).
func Extends(cfg map[string]any, jobsPath string) (entries []string, present, ours bool) {
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
		if path.Clean(e) == jobsPath {
			ours = true
		}
	}
	return entries, present, ours
}

// Job is one of hookwarden's lefthook jobs as Overrides needs it: Hook the
// lefthook hook holding it, Name the job's name.
type Job struct {
	Hook string
	Name string
}

// Override is a setting in a repository's lefthook config that changes one
// of our jobs. Key "" is a job that carries the name of one of ours:
// lefthook merges jobs of one name across files field by field (loader.go
// mergeJobsSlice, v2.1.10), so such a job changes ours. Observed on
// lefthook 2.2.1: a `hookwarden pre-tool` job with `skip: true` in
// lefthook.yml skipped ours; one in lefthook-local.yml replaced our run
// command. Key "skip", "only" or "exclude_tags" is that setting on the hook
// holding one of our jobs: observed on 2.2.1, a hook-level `skip: true`, an
// `only:` condition that does not hold and an `exclude_tags:` naming our
// job each skip ours (lefthook exits 0, so the agent's call goes through).
// File is the config, Line the 1-based line of the job's name or the key
// (0 unknown), Hook the lefthook hook and Name our job's name.
type Override struct {
	File string
	Line int
	Hook string
	Name string
	Key  string
}

// Overrides returns the settings of cfg (the parsed config rel, whose
// bytes are data) that change one of jobs (ours): a job named like one of
// ours under any hook, and a hook-level skip (any value but false), only
// (any value: a condition may hold when the agent calls) or exclude_tags
// naming our job on a hook that holds one. A job of ours never lives in a
// user's config: adopt writes its jobs only to its own jobs file.
func Overrides(rel string, data []byte, cfg map[string]any, jobs []Job) []Override {
	var names []string
	ours := map[string]string{} // hook → our job's name
	for _, j := range jobs {
		names = append(names, j.Name)
		ours[j.Hook] = j.Name
	}
	var out []Override
	for _, hook := range slices.Sorted(maps.Keys(cfg)) {
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
				out = append(out, Override{File: rel, Line: lineAfter(data, hook+":", key+":"), Hook: hook, Name: name, Key: key})
			}
		}
		list, _ := h["jobs"].([]any)
		for _, j := range list {
			m, ok := j.(map[string]any)
			if !ok {
				continue
			}
			if n, _ := m["name"].(string); slices.Contains(names, n) {
				out = append(out, Override{File: rel, Line: lineAfter(data, "", "name", n), Hook: hook, Name: n})
			}
		}
	}
	return out
}

// Describe says what o does to our job and how to repair it, for adopt's
// warning, audit's finding and the pre-edit judge's refusal.
func (o Override) Describe() string {
	if o.Key == "" {
		return fmt.Sprintf("a job named %q under %s is not hookwarden's: lefthook merges jobs of one name across files field by field, so it changes ours (a skip: there skips it, a run: there replaces ours); rename or remove it", o.Name, o.Hook)
	}
	return fmt.Sprintf("the %s hook sets %s:, which makes lefthook skip hookwarden's %q job whenever it holds (lefthook then exits 0 and the call goes through); remove it from %s or move the jobs it should govern to a hook of their own", o.Hook, o.Key, o.Name, o.Hook)
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
