package conformance

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// CodexTrust is one persisted Codex hook-trust record: Key is
// "<abs path of the hooks file>:<snake event>:<group index>:<handler index>"
// and Hash "sha256:<hex>", as codex-cli 0.169.0 stores them under
// [hooks.state."<Key>"] trusted_hash in $CODEX_HOME/config.toml.
type CodexTrust struct {
	Key  string
	Hash string
}

// codexEvents maps Codex's hook event names to the snake names used in
// trust keys and hashes (codex-cli 0.169.0; ../shared/e2e/tools/codex_trust_hooks.py).
func codexEvents() map[string]string {
	return map[string]string{"PreToolUse": "pre_tool_use", "PostToolUse": "post_tool_use",
		"PermissionRequest": "permission_request", "Stop": "stop", "SubagentStop": "subagent_stop",
		"SubagentStart": "subagent_start", "UserPromptSubmit": "user_prompt_submit",
		"SessionStart": "session_start", "SessionEnd": "session_end", "PreCompact": "pre_compact",
		"PostCompact": "post_compact"}
}

var camelBoundary = regexp.MustCompile(`([a-z0-9])([A-Z])`)

// ComputeCodexTrust returns the trust records for every command handler in
// the Codex hooks file at path (a .codex/hooks.json or $CODEX_HOME/hooks.json),
// computed offline the way codex-cli 0.169.0 does: the hash is the SHA-256
// of the compact, key-sorted JSON
// {"event_name":E,"hooks":[{"async":A,"command":C,"timeout":T,"type":"command"[,"statusMessage":S]}][,"matcher":M]}
// where T defaults to 600 seconds and the matcher is left out for stop and
// user_prompt_submit. Measured equal to Codex's own currentHash
// (../shared/e2e/README.md §2, "Hook loading"); the conformance suite checks
// it again by running Codex without the bypass flag. path is made absolute
// and symlink-free, as Codex keys it. It returns an error naming path when
// the file cannot be read or parsed.
//
// This is the harness's stand-in until `hookwarden codex-trust` exists.
func ComputeCodexTrust(path string) ([]CodexTrust, error) {
	abs, err := filepath.Abs(path)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return nil, fmt.Errorf("hookwarden: codex trust %s: %w", path, err)
	}
	b, err := os.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("hookwarden: codex trust: %w", err)
	}
	var doc struct {
		Hooks map[string][]struct {
			Matcher *string `json:"matcher"`
			Hooks   []struct {
				Type          string   `json:"type"`
				Command       string   `json:"command"`
				Timeout       *float64 `json:"timeout"`
				Async         bool     `json:"async"`
				StatusMessage *string  `json:"statusMessage"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("hookwarden: codex trust %s: %w", abs, err)
	}
	names := codexEvents()
	var out []CodexTrust
	// Go map order is random; sort events for a stable output.
	events := make([]string, 0, len(doc.Hooks))
	for e := range doc.Hooks {
		events = append(events, e)
	}
	slices.Sort(events)
	for _, event := range events {
		snake, ok := names[event]
		if !ok {
			snake = strings.ToLower(camelBoundary.ReplaceAllString(event, "${1}_${2}"))
		}
		for gi, g := range doc.Hooks[event] {
			for hi, h := range g.Hooks {
				timeout := 600
				if h.Timeout != nil {
					timeout = max(1, int(*h.Timeout))
				}
				handler := map[string]any{"async": h.Async, "command": h.Command, "timeout": timeout, "type": "command"}
				if h.StatusMessage != nil {
					handler["statusMessage"] = *h.StatusMessage
				}
				ident := map[string]any{"event_name": snake, "hooks": []any{handler}}
				if g.Matcher != nil && snake != "stop" && snake != "user_prompt_submit" {
					ident["matcher"] = *g.Matcher
				}
				var buf bytes.Buffer
				enc := json.NewEncoder(&buf)
				enc.SetEscapeHTML(false)
				if err := enc.Encode(ident); err != nil {
					return nil, fmt.Errorf("hookwarden: codex trust %s: %w", abs, err)
				}
				sum := sha256.Sum256(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
				out = append(out, CodexTrust{
					Key:  fmt.Sprintf("%s:%s:%d:%d", abs, snake, gi, hi),
					Hash: "sha256:" + hex.EncodeToString(sum[:]),
				})
			}
		}
	}
	return out, nil
}

// CodexTrustTOML renders records as config.toml tables
// `[hooks.state."<key>"]` with `trusted_hash = "<hash>"`, ready to append to
// $CODEX_HOME/config.toml.
func CodexTrustTOML(records []CodexTrust) string {
	var b strings.Builder
	for _, r := range records {
		fmt.Fprintf(&b, "\n[hooks.state.%s]\ntrusted_hash = %s\n", TOMLString(r.Key), TOMLString(r.Hash))
	}
	return b.String()
}
