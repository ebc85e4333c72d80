package dialect

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/protocol/verdict"
)

// Cross-loading: two clients run the hooks of Claude Code's settings files
// as well as their own, so a Claude row of an adopted repository receives
// their payloads.
//
//   - GitHub Copilot CLI 1.0.102 runs the hooks of .claude/settings.json and
//     .claude/settings.local.json (observed; see copilot.go) with a
//     Claude-shaped payload that carries a "timestamp" member holding an
//     ISO 8601 string. Claude Code 2.1.328 sends no "timestamp" member (the
//     recorded payloads in testdata/clients/claude/2.1.328 and
//     ../shared/e2e/payloads/claude). The mark is not Copilot's alone: Qwen
//     Code 0.24.4's own Claude-shaped payloads carry an ISO "timestamp" too
//     (observed on its UserPromptSubmit, .qwen/settings.json), so it names
//     "a client other than Claude Code speaking Claude's shape"; the answers
//     below are read alike by each of them, and the skip of a call to
//     Copilot's own row needs Copilot's environment as well (engine/hook
//     crossLoaded).
//   - Cursor runs the hooks of .claude/settings.local.json,
//     .claude/settings.json and ~/.claude/settings.json when third-party
//     configs are enabled (https://cursor.com/docs/reference/third-party-hooks,
//     "Claude Code Hooks", "Configuration Locations"), and every Cursor hook
//     input carries the common field "cursor_version"
//     (https://cursor.com/docs/agent/hooks, "Common schema"). Not observed:
//     Cursor does not install from a package registry.
//
// A caller is recognised by a member it sends, never by one that is missing;
// a payload that carries the markers of two callers, or a marker of the
// wrong type, is not recognisable and is refused (a deny).

// claudeRowCaller returns the client that sent o to a Claude row: "copilot",
// "cursor", or "" for Claude Code itself.
func claudeRowCaller(o object) (string, error) {
	ts, copilot := o.get("timestamp")
	cv, cursor := o.get("cursor_version")
	switch {
	case copilot && cursor:
		return "", errors.New("members timestamp and cursor_version: the payload carries the marks of both Copilot CLI and Cursor; its caller is not recognisable")
	case copilot:
		if jsonType(ts) != "a string" {
			return "", fmt.Errorf("member timestamp: want a string (Copilot CLI's Claude-format payload), got %s", jsonType(ts))
		}
		return "copilot", nil
	case cursor:
		if jsonType(cv) != "a string" {
			return "", fmt.Errorf("member cursor_version: want a string, got %s", jsonType(cv))
		}
		return "cursor", nil
	}
	return "", nil
}

// EncodeFor renders v for row as answered to caller (Payload.Caller). When
// caller is "" or the row's own client it is Encode. On a Claude row called
// by another client the answer is one that both readers take the same way
// (a misrecognised caller can never turn a deny into an allow):
//
//	caller   pre-tool/pre-edit deny                                   stop deny (continue the turn)
//	copilot  Claude's hookSpecificOutput deny JSON on stdout,         {"decision":"block","reason":R}, exit 0
//	         reason on stderr, exit 0
//	cursor   {"permission":"deny","user_message":R,"agent_message":R}  {"decision":"block","reason":R,"followup_message":R}, exit 0
//	         on stdout, reason on stderr, exit 2
//
// Claude Code blocks on exit 2 with stderr as the reason and ignores stdout
// then; on exit 0 it reads the hookSpecificOutput deny (observed: the
// deny-json scenario of ../shared/e2e/README.md section 1) and continues a
// stop on {"decision":"block"} (observed there, the manual Stop row).
// Copilot CLI 1.0.102 on a Claude-format hook denies on exit 2 but then
// ignores stdout, so the model sees only "hook exited with code 2"; on exit
// 0 it reads the deny JSON and the reason reaches the model (both
// observed, TestRealCopilot); it continues a stop only on
// {"decision":"block"}: a Stop exit 2 lets the agent stop (observed). So
// the Copilot form is the deny JSON on exit 0, which both read as a deny
// with its reason. Cursor reads "permission" and "followup_message"
// (https://cursor.com/docs/agent/hooks; exit 2 blocks like a deny there);
// not observed. Every other verdict is encoded as for Claude Code.
func EncodeFor(row registration.Row, caller string, v verdict.Verdict) Answer {
	a := Encode(row, v)
	if caller == "" || caller == row.Client || row.Client != "claude" || a.Exit != DenyExit(row.Client) {
		return a
	}
	reason := strings.TrimSuffix(string(a.Stderr), "\n")
	if row.Event == "stop" {
		w := struct {
			Decision        string `json:"decision"`
			Reason          string `json:"reason"`
			FollowupMessage string `json:"followup_message,omitempty"`
		}{Decision: "block", Reason: reason}
		if caller == "cursor" {
			w.FollowupMessage = reason
		}
		b, _ := json.Marshal(w)
		return Answer{Stdout: append(b, '\n')}
	}
	switch caller {
	case "copilot":
		a.Stdout, a.Exit = claudeDenyJSON(reason), 0
	case "cursor":
		a.Stdout = cursorDenyJSON(reason)
	}
	return a
}
