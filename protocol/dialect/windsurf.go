package dialect

import (
	"fmt"
	"path/filepath"

	"github.com/hookwarden/hookwarden/protocol/registration"
)

// Windsurf (Cascade hooks) facts (documented, not observed: Windsurf is an
// editor, not a registry package — `windsurf` on npm is an empty
// placeholder — so no real Windsurf ran these rows; `hookwarden clients`
// shows them unverified). Source: docs.windsurf.com/windsurf/cascade/hooks
// (read 2026-12-01), with the payload fields as third-party hook adapters
// quote the same page:
//
//   - Hook files: the system file (/etc/windsurf/hooks.json on Linux), the
//     user's ~/.codeium/windsurf/hooks.json and the workspace's
//     .windsurf/hooks.json at the workspace root; hooks of all three are
//     merged and every one configured for an event runs, in the order
//     system, user, workspace.
//   - Shape {"hooks":{EVENT:[{"command":C,"show_output":B,
//     "working_directory":D}]}}: a flat handler list per event, no
//     matcher, no timeout member, no version.
//   - A pre-hook blocks its action by exiting 2; the input is one JSON
//     object on stdin {"agent_action_name":EVENT,"trajectory_id",
//     "execution_id","timestamp","model_name","tool_info":{…}}.
//   - pre_run_command: tool_info {command_line, cwd}. pre_write_code:
//     tool_info {file_path, edits:[{old_string,new_string}]}.
//     pre_user_prompt: tool_info {user_prompt}. post_cascade_response runs
//     asynchronously after a response (no stop gate).
//   - A hook returns its result "via exit code and output streams" only
//     (the same page, "How Hooks Work", read 2026-12-02): a pre-hook blocks
//     on exit 2, and no output member adds text to the model's context. So
//     there is no windsurf prompt row (pre_user_prompt could only block the
//     prompt, and our prompt rows judge nothing: they add the clock line,
//     which Windsurf has no channel for) and no windsurf stop row
//     (post_cascade_response cannot hold the turn, so it cannot gate a
//     stop); registering either would run a hook that guards nothing.

// decodeWindsurf decodes a payload of Windsurf's own hooks.json rows. The
// event must be the row's native event (agent_action_name); a pre-edit
// payload names no cwd, so the edited file's directory places the call (a
// relative file_path is refused there: engine/hook baseDirs wants an
// absolute directory).
func decodeWindsurf(row registration.Row, o object) (Payload, error) {
	var p Payload
	var err error
	if p.EventName, err = o.reqStr("agent_action_name", "agent_action_name"); err != nil {
		return p, err
	}
	if p.EventName != row.NativeEvent {
		return p, fmt.Errorf("member agent_action_name: not %s, which the registration %s %s expects", row.NativeEvent, row.Client, row.Event)
	}
	for _, k := range []string{"trajectory_id", "execution_id", "timestamp", "model_name"} {
		if _, _, err := o.str(k, k); err != nil {
			return p, err
		}
	}
	info, err := o.reqObj("tool_info", "tool_info")
	if err != nil {
		return p, err
	}
	switch row.Event {
	case "pre-tool":
		p.ToolName = row.NativeEvent
		if p.Command, err = info.reqStr("command_line", "tool_info.command_line"); err != nil {
			return p, err
		}
		if p.Cwd, _, err = info.str("cwd", "tool_info.cwd"); err != nil {
			return p, err
		}
	case "pre-edit":
		p.ToolName = row.NativeEvent
		if p.FilePath, err = info.reqStr("file_path", "tool_info.file_path"); err != nil {
			return p, err
		}
		if raw, ok := info.get("edits"); ok && jsonType(raw) != "an array" {
			return p, fmt.Errorf("member tool_info.edits: want an array, got %s", jsonType(raw))
		}
		p.ToolInput, _ = o.get("tool_info")
		if filepath.IsAbs(p.FilePath) {
			p.Cwd = filepath.Dir(p.FilePath)
		}
	}
	return p, nil
}
