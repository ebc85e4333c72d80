package dialect

import (
	"encoding/json"
	"testing"

	"github.com/hookwarden/hookwarden/protocol/verdict"
)

// reader is how one client takes a hook's answer: blocks reports whether
// the answer stops the tool call (pre-tool, pre-edit) or continues the turn
// (stop). Each encodes the facts cited in caller.go and copilot.go.
type reader func(event string, a Answer) bool

func stdoutMember(a Answer, path ...string) string {
	var v any
	if json.Unmarshal(a.Stdout, &v) != nil {
		return ""
	}
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = m[k]
	}
	s, _ := v.(string)
	return s
}

var readers = map[string]reader{
	// Claude Code 2.1.328: exit 2 blocks (stdout ignored); on exit 0 the
	// hookSpecificOutput deny (PreToolUse) or decision block (Stop).
	"claude": func(event string, a Answer) bool {
		if a.Exit == 2 {
			return true
		}
		if a.Exit != 0 {
			return false
		}
		if event == "stop" {
			return stdoutMember(a, "decision") == "block"
		}
		return stdoutMember(a, "hookSpecificOutput", "permissionDecision") == "deny"
	},
	// Copilot CLI 1.0.102 on a Claude-format file (observed): any non-zero
	// exit denies a tool call (and stdout is then ignored); a deny JSON
	// (either form) on exit 0 denies; a stop continues only on decision
	// block with exit 0.
	"copilot": func(event string, a Answer) bool {
		if event == "stop" {
			return a.Exit == 0 && stdoutMember(a, "decision") == "block"
		}
		return a.Exit != 0 || stdoutMember(a, "permissionDecision") == "deny" ||
			stdoutMember(a, "hookSpecificOutput", "permissionDecision") == "deny"
	},
	// Cursor (documented, not observed): exit 2 blocks; permission deny on
	// exit 0; a stop continues on a followup_message.
	"cursor": func(event string, a Answer) bool {
		if event == "stop" {
			return a.Exit == 0 && stdoutMember(a, "followup_message") != ""
		}
		return a.Exit == 2 || (a.Exit == 0 && stdoutMember(a, "permission") == "deny")
	},
}

// A deny on a Claude row blocks under the rules of the caller it names and
// under Claude Code's own: a caller misrecognised, or a payload shaped to be
// taken for another client's, never reads our deny as an allow.
func TestCrossAnswersBlockUnderEveryReader(t *testing.T) {
	for _, caller := range []string{"", "copilot", "cursor"} {
		for _, ev := range []string{"pre-tool", "pre-edit", "stop"} {
			a := EncodeFor(row(t, "claude", ev), caller, verdict.Verdict{Kind: verdict.Deny, RuleID: "r", Reason: "[BLOCKED BY hookwarden:r] why"})
			want := []string{"claude"}
			if caller != "" {
				want = append(want, caller)
			}
			for _, rd := range want {
				if !readers[rd](ev, a) {
					t.Errorf("caller %q %s: %s reads the deny %+v as an allow", caller, ev, rd, a)
				}
			}
			// The reason reaches the model: Claude Code reads stderr on exit
			// 2 and the JSON on exit 0; Copilot reads a Claude-format hook's
			// JSON only on exit 0 (observed); Cursor reads agent_message.
			switch {
			case ev == "stop":
			case caller == "copilot" && (a.Exit != 0 || stdoutMember(a, "hookSpecificOutput", "permissionDecisionReason") == ""):
				t.Errorf("copilot %s: %+v: the reason does not reach Copilot's model (needs the deny JSON on exit 0)", ev, a)
			case caller == "cursor" && stdoutMember(a, "agent_message") == "":
				t.Errorf("cursor %s: %+v: no agent_message", ev, a)
			}
		}
	}
}

// Allows, skips and notes stay allows for every reader (nothing is refused
// for its shape).
func TestCrossAnswersAllowUnderEveryReader(t *testing.T) {
	for _, caller := range []string{"", "copilot", "cursor"} {
		for _, ev := range []string{"pre-tool", "pre-edit", "stop"} {
			for _, k := range []verdict.Kind{verdict.Allow, verdict.Skip} {
				a := EncodeFor(row(t, "claude", ev), caller, verdict.Verdict{Kind: k, Reason: "r"})
				for rd, read := range readers {
					if read(ev, a) {
						t.Errorf("caller %q %s %v: %s reads it as a block", caller, ev, k, rd)
					}
				}
			}
		}
	}
}

// Every Copilot CLI native deny blocks under Copilot's rules whatever
// reads stdout: the JSON carries the reason and exit 2 alone still denies.
func TestCopilotDenyBlocks(t *testing.T) {
	for _, ev := range []string{"pre-tool", "pre-edit", "stop"} {
		a := Encode(row(t, "copilot", ev), verdict.Verdict{Kind: verdict.Deny, Reason: "why"})
		if !readers["copilot"](ev, a) {
			t.Errorf("%s: %+v does not block on Copilot CLI", ev, a)
		}
		if ev != "stop" && (a.Exit != 2 || stdoutMember(a, "permissionDecisionReason") != "why") {
			t.Errorf("%s: %+v lacks exit 2 or the reason", ev, a)
		}
	}
}

// Every Cursor native deny blocks under Cursor's documented rules (exit 2,
// or a permission deny on exit 0) and carries the reason for the model; a
// stop deny continues the turn with a follow-up message.
func TestCursorDenyBlocks(t *testing.T) {
	for _, ev := range []string{"pre-tool", "stop"} {
		a := Encode(row(t, "cursor", ev), verdict.Verdict{Kind: verdict.Deny, Reason: "why"})
		if !readers["cursor"](ev, a) {
			t.Errorf("%s: %+v does not block on Cursor", ev, a)
		}
		if ev == "pre-tool" && (a.Exit != 2 || stdoutMember(a, "agent_message") != "why") {
			t.Errorf("%s: %+v lacks exit 2 or the agent_message", ev, a)
		}
		for _, k := range []verdict.Kind{verdict.Allow, verdict.Skip} {
			if a := Encode(row(t, "cursor", ev), verdict.Verdict{Kind: k, Reason: "r"}); readers["cursor"](ev, a) {
				t.Errorf("%s %v: %+v reads as a block on Cursor", ev, k, a)
			}
		}
	}
}
