// Package verdict is the engine's client-neutral answer to one hook call. The
// dialects (protocol/dialect) encode a Verdict in each client's own form; the
// judges (policy, stop gate, checkpoint) produce one.
package verdict

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hookwarden/hookwarden/internal/reason"
)

// Kind is what the engine decided for one hook call.
type Kind int

const (
	// Allow lets the call through after judging it. Encoded as the client's
	// neutral allow (exit 0, empty streams; agy {"decision":"allow"}).
	Allow Kind = iota
	// Skip lets the call through without judging it; Reason says why and is
	// written to stderr as a stated skip. Never silent.
	Skip
	// Deny refuses the call (pre-tool/pre-edit: the tool does not run; stop:
	// the agent continues with Reason as feedback).
	Deny
	// Halt ends the agent session cleanly in the client's native form (stop
	// only; e.g. Claude {"continue":false,"stopReason":…}). Used for the stop
	// loop bound instead of denying again.
	Halt
	// Context lets the call through and adds Reason as context for the model
	// in the client's documented field (post-tool annotations; the
	// subagent-start projection).
	Context
	// Rewrite lets the call through with its tool input replaced by Input
	// (pre-dispatch's read-only delivery: Claude's PreToolUse updatedInput,
	// agy's overwrite); Reason names the rewrite. A client without such a
	// channel never receives one (the judge answers Context instead).
	Rewrite
)

// String returns the lower-case name of k: allow, skip, deny, halt, context.
func (k Kind) String() string {
	switch k {
	case Allow:
		return "allow"
	case Skip:
		return "skip"
	case Deny:
		return "deny"
	case Halt:
		return "halt"
	case Context:
		return "context"
	case Rewrite:
		return "rewrite"
	}
	return "unknown"
}

// RuleInvalidInput is the rule id of every deny for a payload the engine
// cannot read, decode or judge for want of a field it needs (the
// dispatcher's unreadable stdin, the edit guard's missing target path, the
// stop gate's pre-edit without a file path), and of the rendered
// interceptor's and launcher's fail-closed answers. One definition, so the
// engine and what templates render cannot drift apart.
const RuleInvalidInput = "invalid-input"

// InvalidInputReason returns the reason of the invalid-input deny for a
// payload of client's event that could not be read (verb "read") or decoded
// (verb "decode"), problem saying why: "[BLOCKED BY hookwarden:invalid-input]
// hookwarden could not <verb> the <client> <event> payload: <problem>; the
// call is refused because it was not judged". The engine's dispatcher
// answers it; templates renders it, with "%s" for client and problem, into
// the standalone interceptor, so the two say the same words. The result is
// neither escaped nor capped (Cap, EscapeControls).
func InvalidInputReason(verb, client, event, problem string) string {
	return "[BLOCKED BY hookwarden:" + RuleInvalidInput + "] hookwarden could not " + verb + " the " +
		client + " " + event + " payload: " + problem + "; the call is refused because it was not judged"
}

// MaxReasonBytes caps every reason the engine emits (internal/reason,
// DESIGN.md conventions).
const MaxReasonBytes = reason.MaxBytes

// Verdict is one decision. RuleID is the stable id of the rule that decided a
// Deny (e.g. "git-no-verify", "checkpoint-due", "invalid-input"), empty
// otherwise. Reason is the text the client shows (Deny, Halt, Context) or the
// stated-skip explanation (Skip); it never contains the judged command text and
// is capped by Cap at MaxReasonBytes.
//
// Input is the replacement of a Rewrite, raw JSON in the client's own shape
// (Claude: the whole tool_input object; agy: the overwrite object); for a
// Context at subagent-start it is the added context itself (UTF-8 text, not
// held to MaxReasonBytes: the projection is longer; Reason then says what
// was added); nil otherwise.
//
// Added is text added to the model's context beside an Allow, Skip or
// Context verdict (the clock line, protocol/clock): the dialects put it where
// the client's event accepts added context (protocol/dialect Encode) and drop
// it from a Deny or Halt, so it never rides on a block.
type Verdict struct {
	Kind   Kind
	RuleID string
	Reason string
	Input  []byte
	Added  string
}

// Cap returns s cut to at most MaxReasonBytes bytes on a UTF-8 boundary.
func Cap(s string) string { return reason.Cap(s) }

// EscapeControls returns s with its control characters (U+0000-U+001F,
// U+007F, U+0080-U+009F, and the line and paragraph separators U+2028 and
// U+2029) written as Go escapes (`\x1b`, `\u0085`), so that text a reason
// quotes from a payload or a file name (a cwd holding an escape sequence or
// a NUL) can neither drive the terminal that shows the reason nor add lines
// to it. With keepLines, '\n' and '\t' stay as they are: the stop gate's
// reasons are paragraphs. Invalid UTF-8 bytes are written as `\xNN`.
func EscapeControls(s string, keepLines bool) string {
	clean := true
	for _, r := range s {
		if isControl(r, keepLines) || r == utf8.RuneError {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case isControl(r, keepLines):
			if r < 0x80 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func isControl(r rune, keepLines bool) bool {
	if keepLines && (r == '\n' || r == '\t') {
		return false
	}
	return r < 0x20 || (r >= 0x7f && r <= 0x9f) || r == 0x2028 || r == 0x2029
}
