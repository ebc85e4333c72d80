// Package codexhash computes Codex's per-hook trust keys and hashes: the one
// implementation shared by `hookwarden codex-trust` (adopt/codextrust), the
// spawn compiler (spawn) and the real-client suite (engine/conformance).
//
// Client facts (Codex CLI 0.169.0, measured: ../shared/e2e/README.md section 2
// "Hook loading", ../shared/e2e/tools/codex_trust_hooks.py, and checked against
// `codex app-server` hooks/list in adopt/codextrust's tests):
//   - a loaded, non-managed hook runs only when `[hooks.state."<key>"]
//     trusted_hash = "<hash>"` matches it; otherwise it is skipped silently;
//   - key = "<source>:<event in snake case>:<group index>:<handler index>",
//     where source is the absolute hooks.json path (or, for hooks given by -c
//     overrides, "/<session-flags>/config.toml");
//   - hash = "sha256:" + hex SHA-256 of the compact, key-sorted JSON
//     {"event_name":E,"hooks":[{"async":A,"command":C[,"statusMessage":S],"timeout":T,"type":"command"}][,"matcher":M]},
//     strings escaped as serde_json writes them; T defaults to 600 seconds and
//     is at least 1; the matcher is left out when the group has none and for
//     the stop and user_prompt_submit events.
package codexhash

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/hookwarden/hookwarden/internal/jsonstr"
)

// DefaultTimeoutSeconds is the timeout Codex 0.169.0 assumes for a handler
// without one, in seconds (codex_trust_hooks.py; ../shared/e2e/README.md §2).
const DefaultTimeoutSeconds = 600

// Handler is one Codex command handler as its trust hash covers it. Event is
// the hooks.json event name (PreToolUse); Matcher is the group's matcher, nil
// when the group has none; TimeoutSeconds is the handler's timeout in whole
// seconds (use DefaultTimeoutSeconds when the file gives none; values below 1
// count as 1); StatusMessage is nil when absent.
type Handler struct {
	Event          string
	Matcher        *string
	Command        string
	TimeoutSeconds int64
	Async          bool
	StatusMessage  *string
}

// SnakeEvent returns Codex's snake-case name of a hooks.json event name
// (PreToolUse → pre_tool_use, UserPromptSubmit → user_prompt_submit): a
// lower-case letter or digit followed by an upper-case letter gets an "_"
// between them, then everything is lower-cased. This reproduces every name
// in codex_trust_hooks.py's EVENTS table.
func SnakeEvent(event string) string {
	var b strings.Builder
	for i := 0; i < len(event); i++ {
		c := event[i]
		if i > 0 && 'A' <= c && c <= 'Z' {
			p := event[i-1]
			if ('a' <= p && p <= 'z') || ('0' <= p && p <= '9') {
				b.WriteByte('_')
			}
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Key returns the trust key "<source>:<snake event>:<group>:<handler>" of the
// handler at index handler of group index group under event in source.
func Key(source, event string, group, handler int) string {
	return fmt.Sprintf("%s:%s:%d:%d", source, SnakeEvent(event), group, handler)
}

// Hash returns the trust hash "sha256:<64 hex digits>" of h.
func Hash(h Handler) string {
	snake := SnakeEvent(h.Event)
	var b strings.Builder
	b.WriteString(`{"event_name":`)
	writeString(&b, snake)
	b.WriteString(`,"hooks":[{"async":`)
	b.WriteString(strconv.FormatBool(h.Async))
	b.WriteString(`,"command":`)
	writeString(&b, h.Command)
	if h.StatusMessage != nil {
		b.WriteString(`,"statusMessage":`)
		writeString(&b, *h.StatusMessage)
	}
	b.WriteString(`,"timeout":`)
	b.WriteString(strconv.FormatInt(max(1, h.TimeoutSeconds), 10))
	b.WriteString(`,"type":"command"}]`)
	if h.Matcher != nil && snake != "stop" && snake != "user_prompt_submit" {
		b.WriteString(`,"matcher":`)
		writeString(&b, *h.Matcher)
	}
	b.WriteByte('}')
	sum := sha256.Sum256([]byte(b.String()))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// writeString writes s as a JSON string the way serde_json (Codex is Rust)
// and Python's json.dumps(ensure_ascii=False) do: `"`, `\` and the control
// characters escaped (\b \f \n \r \t short forms, others \u00XX in lower-case
// hex), everything else, non-ASCII and U+2028 included, as it is.
func writeString(b *strings.Builder, s string) {
	b.WriteByte('"')
	jsonstr.Append(b, s, jsonstr.Style{})
	b.WriteByte('"')
}
