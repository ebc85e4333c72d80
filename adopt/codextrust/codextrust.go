// Package codextrust computes and records Codex's per-hook trust for the
// hook rows hookwarden registers in a repository's .codex/hooks.json.
//
// Client facts (Codex CLI 0.169.0, measured: ../shared/e2e/README.md section
// 2, "Hook loading", and ../shared/e2e/tools/codex_trust_hooks.py):
//   - project .codex/hooks.json is loaded only when the project is trusted:
//     `[projects."<abs repo>"] trust_level = "trusted"` in $CODEX_HOME/config.toml;
//   - a loaded, non-managed hook runs only when
//     `[hooks.state."<key>"] trusted_hash = "<hash>"` matches it, else it is
//     skipped silently and the command runs;
//   - key = "<absolute hooks.json path>:<event in snake case>:<group index>:<handler index>";
//   - hash = "sha256:" + hex SHA-256 of the compact, key-sorted JSON
//     {"event_name":E,"hooks":[{"async":A,"command":C,"timeout":T,"type":"command"[,"statusMessage":S]}][,"matcher":M]},
//     T defaulting to 600 (and at least 1), the matcher left out when the group
//     has none and for the stop and user_prompt_submit events.
package codextrust

import (
	"encoding/json"
	"fmt"
	"github.com/hookwarden/hookwarden/internal/codexhash"
	"os"
	"path/filepath"
	"strconv"
)

// Entry is one handler of a .codex/hooks.json with its trust key and hash.
// NativeEvent is the file's event name (PreToolUse); Matcher is the group's
// matcher ("" with HasMatcher false when absent); Ours tells whether the
// command runs hookwarden (only those are ever trusted).
type Entry struct {
	Key         string `json:"key"`
	Hash        string `json:"hash"`
	NativeEvent string `json:"event"`
	Matcher     string `json:"matcher,omitempty"`
	HasMatcher  bool   `json:"-"`
	Command     string `json:"command"`
	Ours        bool   `json:"ours"`
}

type rawHandler struct {
	Type          string          `json:"type"`
	Command       *string         `json:"command"`
	Timeout       json.RawMessage `json:"timeout"`
	Async         *bool           `json:"async"`
	StatusMessage *string         `json:"statusMessage"`
}

type rawGroup struct {
	Matcher *string      `json:"matcher"`
	Hooks   []rawHandler `json:"hooks"`
}

// Entries parses a .codex/hooks.json (src) whose absolute, symlink-resolved
// path is hooksPath, and returns one Entry per command handler in file
// order of groups and handlers (events sorted by name). ours decides
// Entry.Ours. It returns an error for a file that is not a JSON object with
// a `hooks` object of arrays, or a handler without a string command.
func Entries(hooksPath string, src []byte, ours func(string) bool) ([]Entry, error) {
	var doc struct {
		Hooks map[string][]rawGroup `json:"hooks"`
	}
	if err := json.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", hooksPath, err)
	}
	events := make([]string, 0, len(doc.Hooks))
	for e := range doc.Hooks {
		events = append(events, e)
	}
	sortStrings(events)
	var out []Entry
	for _, ev := range events {
		for gi, g := range doc.Hooks[ev] {
			for hi, h := range g.Hooks {
				if h.Type != "" && h.Type != "command" {
					continue
				}
				if h.Command == nil {
					return nil, fmt.Errorf("%s: hooks.%s[%d].hooks[%d]: no command string", hooksPath, ev, gi, hi)
				}
				timeout := int64(600)
				if len(h.Timeout) > 0 && string(h.Timeout) != "null" {
					n, err := strconv.ParseUint(string(h.Timeout), 10, 63)
					if err != nil {
						return nil, fmt.Errorf("%s: hooks.%s[%d].hooks[%d]: timeout %s is not a non-negative integer; Codex CLI 0.169.0 then loads no hook at all from this file (measured with codex app-server hooks/list: \"expected u64\"); write whole seconds", hooksPath, ev, gi, hi, h.Timeout)
					}
					timeout = int64(n)
				}
				if timeout < 1 {
					timeout = 1
				}
				e := Entry{
					Key:         codexhash.Key(hooksPath, ev, gi, hi),
					NativeEvent: ev,
					Command:     *h.Command,
					Ours:        ours != nil && ours(*h.Command),
				}
				if g.Matcher != nil {
					e.Matcher, e.HasMatcher = *g.Matcher, true
				}
				e.Hash = codexhash.Hash(codexhash.Handler{
					Event:          ev,
					Matcher:        g.Matcher,
					Command:        *h.Command,
					TimeoutSeconds: timeout,
					Async:          h.Async != nil && *h.Async,
					StatusMessage:  h.StatusMessage,
				})
				out = append(out, e)
			}
		}
	}
	return out, nil
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// ConfigPath returns the Codex config file: $CODEX_HOME/config.toml, else
// ~/.codex/config.toml (Codex CLI 0.169.0; ../shared/e2e/README.md section 2).
// getenv is os.Getenv in production. It returns an error when neither
// CODEX_HOME nor a home directory is known.
func ConfigPath(getenv func(string) string) (string, error) {
	if h := getenv("CODEX_HOME"); h != "" {
		return filepath.Join(h, "config.toml"), nil
	}
	home := getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", fmt.Errorf("codex config: no CODEX_HOME and no home directory: %w", err)
		}
	}
	return filepath.Join(home, ".codex", "config.toml"), nil
}

// Status is what a Codex config says about one repository: ProjectTrusted
// when `[projects."<repo>"] trust_level = "trusted"`, and Pending, our
// entries whose trusted_hash is missing or differs.
type Status struct {
	ProjectTrusted bool
	Pending        []Entry
}

// Check reads config (the bytes of config.toml; nil when absent) for the
// repository at repoAbs (absolute, symlink-resolved) and our entries (only
// entries with Ours are considered). It returns an error when config is not
// valid TOML.
func Check(config []byte, repoAbs string, entries []Entry) (Status, error) {
	var st Status
	lvl, ok, err := getString(config, []string{"projects", repoAbs}, "trust_level")
	if err != nil {
		return st, err
	}
	st.ProjectTrusted = ok && lvl == "trusted"
	for _, e := range entries {
		if !e.Ours {
			continue
		}
		h, ok, err := getString(config, []string{"hooks", "state", e.Key}, "trusted_hash")
		if err != nil {
			return st, err
		}
		if !ok || h != e.Hash {
			st.Pending = append(st.Pending, e)
		}
	}
	return st, nil
}

// Apply returns config with a trusted_hash for every entry with Ours (foreign
// entries are never trusted), and with the project trusted when
// trustProject is set, edited byte-preservingly (setString over go-toml/v2's parse: comments
// and order kept, new tables appended, an existing trusted_hash updated in
// place). It returns an error when config is not valid TOML or an entry
// cannot be edited in place (ErrInline).
func Apply(config []byte, repoAbs string, entries []Entry, trustProject bool) ([]byte, error) {
	out := config
	var err error
	if trustProject {
		if out, _, err = setString(out, []string{"projects", repoAbs}, "trust_level", "trusted"); err != nil {
			return nil, err
		}
	}
	for _, e := range entries {
		if !e.Ours {
			continue
		}
		if out, _, err = setString(out, []string{"hooks", "state", e.Key}, "trusted_hash", e.Hash); err != nil {
			return nil, err
		}
	}
	return out, nil
}
