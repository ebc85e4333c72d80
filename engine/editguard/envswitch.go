package editguard

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tailscale/hujson"
	"go.yaml.in/yaml/v3"

	"github.com/hookwarden/hookwarden/policy"
	"github.com/hookwarden/hookwarden/protocol/verdict"
)

// Kinds of file judged by what they set rather than by our rows (issue 29
// item 2).
const (
	// kindEnvFile is a dotenv file a client loads into its own
	// environment, which its hooks inherit: Gemini CLI 0.61.0 loads the
	// first of `.gemini/.env` and `.env` found walking up from its working
	// directory, then `~/.gemini/.env` and `~/.env` (packages/cli
	// src/config/settings.ts findEnvFile/loadEnvironment); Codex CLI loads
	// `$CODEX_HOME/.env` (~/.codex/.env; codex-rs arg0 load_dotenv, dotenvy).
	// Any file named `.env` is judged: which one a client picks depends on
	// the directory it starts in.
	kindEnvFile = "env-file"
	// kindPreCommit is pre-commit's `.pre-commit-config.yaml` at a root:
	// pre-commit runs the hooks it lists, and none when it lists none.
	kindPreCommit = "pre-commit-config"
)

// PreCommitConfig is the file pre-commit reads at the repository root
// (pre-commit.com, "Adding pre-commit plugins to your project").
const PreCommitConfig = ".pre-commit-config.yaml"

// envHit returns the hit for t when it is a dotenv file (base name `.env`)
// or a root's .pre-commit-config.yaml, else nil.
func envHit(roots []string, t string) *hit {
	if filepath.Base(t) == ".env" {
		return &hit{file: t, rel: t, entry: kindEntry(displayPath(roots, t), kindEnvFile)}
	}
	for _, root := range roots {
		if rel, ok := within(root, t); ok && rel == PreCommitConfig {
			return &hit{root: root, file: t, rel: rel, entry: kindEntry(rel, kindPreCommit)}
		}
	}
	return nil
}

// displayPath names t relative to the first root holding it, else as is.
func displayPath(roots []string, t string) string {
	for _, r := range roots {
		if rel, ok := within(r, t); ok {
			return rel
		}
	}
	return t
}

// envEdit judges an edit of a dotenv file: refused when any result assigns
// a name policy.GuardedEnvName refuses that the file did not assign to the
// same value before. An edit hookwarden cannot reproduce (an ApplyPatch, a
// NotebookEdit) is judged by the text it carries: refused when one of its
// lines (a patch's `+` lines included) assigns such a name.
func (g *guard) envEdit(h hit) (verdict.Verdict, error) {
	what := h.entry.Path + " is a dotenv file a client loads into the environment its hooks run in"
	if !editTool(g.in.Client, g.in.Tool) {
		for _, s := range jsonStrings(g.in.ToolInput) {
			if name := firstGuarded(dotenvNames(s, true), nil); name != "" {
				return deny(RuleEnvSwitch, "%s; this edit sets %s there, which changes which engine, hook manager or git configuration the hooks use; agents may not set it. Other variables stay yours to set", what, name), nil
			}
		}
		return verdict.Verdict{Kind: verdict.Allow}, nil
	}
	_, before, results, refuse, err := g.edited(h, what, "that sets no guarded variable", "so it cannot check which variables it sets; the edit is refused. Re-read the file and copy old_string exactly")
	if err != nil || refuse != nil {
		return deref(refuse), err
	}
	was := dotenvNames(string(before), false)
	for _, after := range results {
		if name := firstGuarded(dotenvNames(string(after), false), was); name != "" {
			return deny(RuleEnvSwitch, "%s; the edit would set %s there, which changes which engine, hook manager or git configuration the hooks use; agents may not set it. Other variables stay yours to set", what, name), nil
		}
	}
	return verdict.Verdict{Kind: verdict.Allow}, nil
}

// dotenvNames returns each NAME=value a dotenv text assigns ("NAME" ->
// the raw value, the last assignment kept), read as dotenv and dotenvy read
// a line: optional `export `, the name, `=` (or `:` for dotenv), the value.
// With patch true a leading `+` (a patch's added line) is dropped first.
func dotenvNames(text string, patch bool) map[string]string {
	out := map[string]string{}
	for _, ln := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if patch {
			ln = strings.TrimPrefix(ln, "+")
		}
		ln = strings.TrimSpace(ln)
		if ln == "" || ln[0] == '#' {
			continue
		}
		if rest, ok := strings.CutPrefix(ln, "export"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			ln = strings.TrimSpace(rest)
		}
		i := strings.IndexAny(ln, "=:")
		if i <= 0 {
			continue
		}
		out[strings.TrimSpace(ln[:i])] = strings.TrimSpace(ln[i+1:])
	}
	return out
}

// firstGuarded returns, in sorted order, the first guarded name (policy.GuardedEnvName)
// set in after to a value it did not have in before ("" when none).
func firstGuarded(after, before map[string]string) string {
	names := make([]string, 0, len(after))
	for n := range after {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if !policy.GuardedEnvName(n) {
			continue
		}
		if old, ok := before[n]; !ok || old != after[n] {
			return n
		}
	}
	return ""
}

// jsonStrings returns every string value in a JSON document (nested
// included; nil when it does not parse).
func jsonStrings(raw []byte) []string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(x any) {
		switch t := x.(type) {
		case string:
			out = append(out, t)
		case []any:
			for _, e := range t {
				walk(e)
			}
		case map[string]any:
			for _, e := range t {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// settingsEnv returns the top-level "env" object of a Claude Code settings
// file (name -> the value as canonical JSON), read as the client reads it
// (JSONC accepted, member names exact). Claude Code 2.1.328 settings
// schema: "env", environment variables applied to every session, which
// the hook processes it starts inherit. nil when the file or its env does
// not parse.
func settingsEnv(src []byte) map[string]string {
	if len(bytes.TrimSpace(src)) == 0 {
		return nil
	}
	std, err := hujson.Standardize(append([]byte(nil), src...))
	if err != nil {
		return nil
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(std, &top) != nil {
		return nil
	}
	var env map[string]any
	if json.Unmarshal(top["env"], &env) != nil {
		return nil
	}
	out := map[string]string{}
	for k, v := range env {
		out[k] = canonical(v)
	}
	return out
}

// envBlockChange returns the reason an edit of a Claude Code settings file
// is refused for its env block ("" when it is not): a result whose env sets
// a guarded name (policy.GuardedEnvName) to a value the file did not give
// it before.
func envBlockChange(rel string, before []byte, results [][]byte) string {
	was := settingsEnv(before)
	for _, after := range results {
		if name := firstGuarded(settingsEnv(after), was); name != "" {
			return "the edit would set " + name + " in the env block of " + rel + "; Claude Code applies that block to every session and the hooks it runs, and " + name + " changes which engine, hook manager or git configuration they use, so agents may not set it there (other variables, NODE_OPTIONS and the like, stay yours to set)"
		}
	}
	return ""
}

// preCommitEdit judges an edit of a root's .pre-commit-config.yaml: refused
// when any result would run fewer of the hooks it lists (a repo's hook id
// dropped, the file emptied or made unparseable: pre-commit then runs
// none, or refuses to run), or when hookwarden cannot reproduce the edit.
// Adding hooks, and editing a file that lists none, stay allowed.
func (g *guard) preCommitEdit(h hit) (verdict.Verdict, error) {
	file := h.file
	before, exists, err := readBounded(file)
	if err != nil {
		return verdict.Verdict{}, err
	}
	if err := shapeBound(file, before); err != nil {
		return deny(RuleParseBound, "%s is past what hookwarden parses within its budget (%v); the edit is refused", h.rel, err), nil
	}
	want := preCommitHooks(before)
	if !exists || len(want) == 0 {
		return verdict.Verdict{Kind: verdict.Allow}, nil
	}
	what := h.rel + " lists the hooks pre-commit runs on every commit"
	_, _, results, refuse, err := g.edited(h, what, "that keeps every hook", "so it cannot check that the hooks stay; the edit is refused. Re-read the file and copy old_string exactly")
	if err != nil || refuse != nil {
		return deref(refuse), err
	}
	for _, after := range results {
		if n := countMissing(want, preCommitHooks(after)); n > 0 {
			return deny(RuleClientHooks, "%s; the edit would drop %d of them (or leave the file unreadable for pre-commit), which switches those checks off; agents may not remove them. A person changes the list outside the agent", what, n), nil
		}
	}
	return verdict.Verdict{Kind: verdict.Allow}, nil
}

// preCommitHooks returns "repo\x00id" for every hook a pre-commit config
// lists (nil when it does not parse or lists none).
func preCommitHooks(src []byte) []string {
	var cfg struct {
		Repos []struct {
			Repo  string `yaml:"repo"`
			Hooks []struct {
				ID string `yaml:"id"`
			} `yaml:"hooks"`
		} `yaml:"repos"`
	}
	if yaml.Unmarshal(src, &cfg) != nil {
		return nil
	}
	var out []string
	for _, r := range cfg.Repos {
		for _, hk := range r.Hooks {
			out = append(out, r.Repo+"\x00"+hk.ID)
		}
	}
	return out
}
