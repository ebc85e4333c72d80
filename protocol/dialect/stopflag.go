package dialect

import (
	"bytes"
	"encoding/json"

	"github.com/hookwarden/hookwarden/protocol/registration"
)

// StopFlag reads only the repeated-pass flag of a stop payload that Decode
// refused (a member of the wrong type, a null where a string belongs, an
// unknown event name), so that a dispatcher deny on the repeated pass can
// still be bounded (issue 14 item 6). data must be one JSON object; the flag
// is stop_hook_active for claude, codex, gemini, copilot, qwen and droid (a boolean) and an
// executionNum above 1 for agy (an integer), a loop_count above 0 for
// cursor (an integer). ok is false when the flag
// cannot be read: data is not a JSON object, or the flag is absent or of
// another type. Other members are not looked at.
func StopFlag(row registration.Row, data []byte) (repeated, ok bool) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return false, false
	}
	switch row.Client {
	case "claude", "codex", "gemini", "copilot", "qwen", "droid":
		raw, present := members["stop_hook_active"]
		if !present {
			return false, false
		}
		switch string(bytes.TrimSpace(raw)) {
		case "true":
			return true, true
		case "false":
			return false, true
		}
	case "agy":
		raw, present := members["executionNum"]
		if !present {
			return false, false
		}
		var n int64
		if err := json.Unmarshal(raw, &n); err == nil {
			return n > 1, true
		}
	case "cursor":
		raw, present := members["loop_count"]
		if !present {
			return false, false
		}
		var n int64
		if err := json.Unmarshal(raw, &n); err == nil && n >= 0 {
			return n > 0, true
		}
	}
	return false, false
}
