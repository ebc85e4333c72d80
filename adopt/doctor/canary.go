package doctor

import (
	"encoding/json"
	"path/filepath"
	"sync"
)

// canary is one client and event's pair of payloads: tool the client's
// tool name the payload is about, deny and allow the subjects (a command,
// or a path relative to the root for an edit), denyRule the rule the deny
// must name, denyWhat and allowWhat the subjects as the report names
// them, payload the builder (root the repository, dir the hook's working
// directory, subject the command or the relative path).
type canary struct {
	tool, deny, allow, denyRule, denyWhat, allowWhat string
	payload                                          func(root, dir, subject string) []byte
}

// The canary subjects: a commit that skips the git hooks (git-no-verify)
// and `git status`; an edit of the manifest (guard-file-edit) and of an
// ordinary file. Nothing runs or is written: the hook only judges.
const (
	denyCommand  = "git commit --no-verify -m hookwarden-doctor-canary"
	allowCommand = "git status"
	denyEdit     = ".hookwarden.yaml"
	allowEdit    = "hookwarden-doctor-canary.txt"
)

func marshal(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// claudeFamily builds a Claude-shaped payload (Claude Code 2.1.328, Codex
// CLI 0.169.0: session_id, cwd, hook_event_name, tool_name, tool_input;
// recorded in testdata/clients/claude/2.1.328/pre-tool.json and
// testdata/clients/codex/0.169.0/pre-tool.json). Gemini CLI 0.61.0 sends
// the same members with its own event and tool names
// (testdata/clients/gemini/0.61.0/pre-tool.exit2.json, pre-edit.pre-edit-allow.json).
func claudeFamily(event, tool string, edit bool) func(root, dir, subject string) []byte {
	return func(root, dir, subject string) []byte {
		in := map[string]any{"command": subject}
		if edit {
			in = map[string]any{"file_path": filepath.Join(root, subject), "content": "hookwarden doctor canary\n"}
		}
		return marshal(map[string]any{"session_id": "hookwarden-doctor", "cwd": root, "hook_event_name": event, "tool_name": tool, "tool_input": in})
	}
}

// canaries is the per-client table of canary payloads, each shape from a
// payload recorded from the real client (or, for agy, its documented
// contract; protocol/dialect's package doc). A client added to the
// registration table gets its entries here.
var canaries = sync.OnceValue(func() map[string]map[string]canary {
	return map[string]map[string]canary{
		"claude": {
			"pre-tool": {tool: "Bash", payload: claudeFamily("PreToolUse", "Bash", false)},
			"pre-edit": {tool: "Write", payload: claudeFamily("PreToolUse", "Write", true)},
			// Claude Code 2.1.332: a skill's inline shell command
			// (testdata/clients/claude/2.1.332/pre-skill-shell.*.json).
			"pre-skill-shell": {tool: "Bash", payload: claudeFamily("PreSkillShellCommand", "Bash", false)},
		},
		// Codex CLI 0.169.0: apply_patch's PreToolUse tool_input is
		// {"command": PATCH}, an apply_patch envelope
		// (testdata/clients/codex/0.169.0/pre-edit.apply-patch.json).
		"codex": {
			"pre-tool": {tool: "Bash", payload: claudeFamily("PreToolUse", "Bash", false)},
			"pre-edit": {tool: "apply_patch", payload: func(root, dir, subject string) []byte {
				patch := "*** Begin Patch\n*** Add File: " + filepath.Join(root, subject) + "\n+hookwarden doctor canary\n*** End Patch"
				return marshal(map[string]any{"session_id": "hookwarden-doctor", "cwd": root, "hook_event_name": "PreToolUse",
					"tool_name": "apply_patch", "tool_input": map[string]any{"command": patch}})
			}},
		},
		"gemini": {
			"pre-tool": {tool: "run_shell_command", payload: claudeFamily("BeforeTool", "run_shell_command", false)},
			"pre-edit": {tool: "write_file", payload: claudeFamily("BeforeTool", "write_file", true)},
		},
		// agy (unverified on a real agy): {toolCall: {name run_command, args:
		// {CommandLine}}, workspacePaths} (registration table source).
		"agy": {
			"pre-tool": {tool: "run_command", payload: func(root, dir, subject string) []byte {
				return marshal(map[string]any{"conversationId": "hookwarden-doctor", "stepIdx": 1, "workspacePaths": []string{root},
					"toolCall": map[string]any{"name": "run_command", "args": map[string]any{"CommandLine": subject}}})
			}},
		},
		// GitHub Copilot CLI 1.0.102: preToolUse {sessionId, timestamp (Unix
		// ms), cwd, toolName, toolArgs} without an event name; the shell tool
		// bash {command, description}, the edit tool create {path, file_text}
		// (testdata/clients/copilot/1.0.102/pre-tool.json; protocol/dialect
		// copilot.go).
		"copilot": {
			"pre-tool": {tool: "bash", payload: func(root, dir, subject string) []byte {
				return marshal(map[string]any{"sessionId": "hookwarden-doctor", "timestamp": 1796122343450, "cwd": root, "toolName": "bash",
					"toolArgs": map[string]any{"command": subject, "description": "hookwarden doctor canary"}})
			}},
			"pre-edit": {tool: "create", payload: func(root, dir, subject string) []byte {
				return marshal(map[string]any{"sessionId": "hookwarden-doctor", "timestamp": 1796122343450, "cwd": root, "toolName": "create",
					"toolArgs": map[string]any{"path": filepath.Join(root, subject), "file_text": "hookwarden doctor canary\n"}})
			}},
		},
		// Cursor (documented, not observed): beforeShellExecution {hook_event_name,
		// conversation_id, generation_id, workspace_roots, command, cwd} and
		// preToolUse {…, tool_name, tool_input} (protocol/dialect cursor.go;
		// testdata/clients/cursor/documented).
		"cursor": {
			"pre-tool": {tool: "Shell", payload: func(root, dir, subject string) []byte {
				return marshal(map[string]any{"hook_event_name": "beforeShellExecution", "conversation_id": "hookwarden-doctor", "generation_id": "g1",
					"workspace_roots": []string{root}, "command": subject, "cwd": root})
			}},
			// preToolUse of the Write tool {path, contents}
			// (testdata/clients/cursor/documented/pre-edit.json).
			"pre-edit": {tool: "Write", payload: func(root, dir, subject string) []byte {
				return marshal(map[string]any{"hook_event_name": "preToolUse", "conversation_id": "hookwarden-doctor", "generation_id": "g1",
					"workspace_roots": []string{root}, "cwd": root, "tool_name": "Write",
					"tool_input": map[string]any{"path": filepath.Join(root, subject), "contents": "hookwarden doctor canary\n"}})
			}},
		},
		// Qwen Code 0.24.4: Claude's shape with its own tool names
		// (testdata/clients/qwen/0.24.4/pre-tool.json).
		"qwen": {
			"pre-tool": {tool: "run_shell_command", payload: claudeFamily("PreToolUse", "run_shell_command", false)},
			"pre-edit": {tool: "write_file", payload: claudeFamily("PreToolUse", "write_file", true)},
		},
		// Factory Droid (documented, not observed): Claude's shape with the
		// shell tool Execute and the file tool Create {file_path, content}
		// (registration table sources; protocol/dialect droid.go).
		"droid": {
			"pre-tool": {tool: "Execute", payload: claudeFamily("PreToolUse", "Execute", false)},
			"pre-edit": {tool: "Create", payload: claudeFamily("PreToolUse", "Create", true)},
		},
		// Kiro CLI (documented, not observed): {hook_event_name, cwd,
		// tool_name, tool_input} with the shell tool execute_bash and the write
		// tool fs_write, whose target is tool_input.path (protocol/dialect
		// kiro.go).
		"kiro": {
			"pre-tool": {tool: "execute_bash", payload: claudeFamily("preToolUse", "execute_bash", false)},
			"pre-edit": {tool: "fs_write", payload: func(root, dir, subject string) []byte {
				return marshal(map[string]any{"hook_event_name": "preToolUse", "cwd": root, "tool_name": "fs_write",
					"tool_input": map[string]any{"command": "create", "path": filepath.Join(root, subject), "file_text": "hookwarden doctor canary\n"}})
			}},
		},
		// Cline (documented and read from source, not observed): one
		// PreToolUse file for every tool, payload {clineVersion, hookName,
		// workspaceRoots, preToolUse:{toolName, parameters}} with
		// execute_command {command} and write_to_file {path, content}; a deny
		// must print {"cancel":true,…} (protocol/dialect cline.go).
		"cline": {
			"pre-tool": {tool: "execute_command", payload: clinePayload("execute_command", false)},
			"pre-edit": {tool: "write_to_file", payload: clinePayload("write_to_file", true)},
		},
		// Windsurf (documented, not observed): {agent_action_name, trajectory_id,
		// execution_id, timestamp, tool_info} with tool_info {command_line, cwd}
		// (pre_run_command) or {file_path, edits} (pre_write_code)
		// (protocol/dialect windsurf.go).
		"windsurf": {
			"pre-tool": {tool: "pre_run_command", payload: func(root, dir, subject string) []byte {
				return marshal(map[string]any{"agent_action_name": "pre_run_command", "trajectory_id": "hookwarden-doctor", "execution_id": "e1",
					"tool_info": map[string]any{"command_line": subject, "cwd": root}})
			}},
			"pre-edit": {tool: "pre_write_code", payload: func(root, dir, subject string) []byte {
				return marshal(map[string]any{"agent_action_name": "pre_write_code", "trajectory_id": "hookwarden-doctor", "execution_id": "e1",
					"tool_info": map[string]any{"file_path": filepath.Join(root, subject), "edits": []any{map[string]any{"old_string": "", "new_string": "hookwarden doctor canary\n"}}}})
			}},
		},
		// Devin CLI (documented, not observed): PreToolUse {tool_name,
		// tool_input} with the shell tool exec {command, shell_id}
		// (docs.devin.ai/cli/extensibility/hooks/lifecycle-hooks, read
		// 2026-12-05; protocol/dialect devin.go). Only the pre-tool row is
		// rendered: the edit tool's input is not documented.
		"devin": {
			"pre-tool": {tool: "exec", payload: func(root, dir, subject string) []byte {
				return marshal(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "exec",
					"tool_input": map[string]any{"command": subject, "shell_id": "main"}})
			}},
		},
		// opencode 1.18.33: what the rendered plugin pipes to the launcher
		// (templates/files/hookwarden.js; testdata/clients/opencode/1.18.33).
		"opencode": {
			"pre-tool": {tool: "bash", payload: func(root, dir, subject string) []byte {
				return marshal(map[string]any{"cwd": root, "input": map[string]any{"tool": "bash", "sessionID": "hookwarden-doctor", "callID": "c1"},
					"output": map[string]any{"args": map[string]any{"command": subject, "description": "hookwarden doctor canary"}}})
			}},
		},
	}
})

// dispatchCanaries are the pre-dispatch payloads (the tool input shapes of
// testdata/dispatch/cases.json, from the pinned bundles in the registration
// table's sources): Claude Code's Agent {description, prompt,
// subagent_type}, Codex's spawn_agent {message}, Gemini's invoke_agent
// {agent_name, prompt}, agy's invoke_subagent {Subagents:[{Prompt,
// TypeName}]}. The subject is the brief.
var dispatchCanaries = sync.OnceValue(func() map[string]canary {
	return map[string]canary{
		"claude": {tool: "Agent", payload: dispatchPayload("PreToolUse", "Agent", func(b string) map[string]any {
			return map[string]any{"description": "hookwarden doctor canary", "prompt": b, "subagent_type": "general-purpose"}
		})},
		"codex": {tool: "spawn_agent", payload: dispatchPayload("PreToolUse", "spawn_agent", func(b string) map[string]any {
			return map[string]any{"message": b}
		})},
		"gemini": {tool: "invoke_agent", payload: dispatchPayload("BeforeTool", "invoke_agent", func(b string) map[string]any {
			return map[string]any{"agent_name": "codebase_investigator", "prompt": b}
		})},
		"agy": {tool: "invoke_subagent", payload: func(root, dir, subject string) []byte {
			return marshal(map[string]any{"conversationId": "hookwarden-doctor", "stepIdx": 1, "workspacePaths": []string{root},
				"toolCall": map[string]any{"name": "invoke_subagent", "args": map[string]any{"Subagents": []any{map[string]any{"Prompt": subject, "TypeName": "worker"}}}}})
		}},
	}
})

// dispatchPayload builds a Claude-family pre-dispatch payload; tool_use_id
// is set because Claude's row correlates the dispatch with its agent
// (engine/dispatch traffic.go refuses a payload without it as
// dispatch-store): the allowed canary leaves one row in the correlation
// store under Git's common directory (bounded by dispatch.MaxRows).
func dispatchPayload(event, tool string, input func(brief string) map[string]any) func(root, dir, subject string) []byte {
	return func(root, dir, subject string) []byte {
		return marshal(map[string]any{"session_id": "hookwarden-doctor", "tool_use_id": "hookwarden-doctor-canary", "cwd": root,
			"hook_event_name": event, "tool_name": tool, "tool_input": input(subject)})
	}
}

// dispatchBrief is the pre-dispatch canary's brief body.
const dispatchBrief = "Find the parser (hookwarden doctor canary)."

// canaryFor returns the canary of client and event with its subjects
// filled in; tasks are the manifest's declared dispatch.tasks (the
// pre-dispatch canary needs them: nil gives no canary).
func canaryFor(client, event string, tasks []string) (canary, bool) {
	if event == "pre-dispatch" {
		c, ok := dispatchCanaries()[client]
		if !ok || tasks == nil {
			return canary{}, false
		}
		label := "hookwarden-doctor"
		if len(tasks) > 0 {
			label = tasks[0]
		}
		c.deny, c.allow, c.denyRule = dispatchBrief, "task: "+label+"\n"+dispatchBrief, "dispatch-task"
		c.denyWhat, c.allowWhat = "a brief without a `task:` label", "a brief labelled `task: "+label+"`"
		return c, true
	}
	c, ok := canaries()[client][event]
	if !ok {
		return canary{}, false
	}
	switch event {
	case "pre-edit":
		c.deny, c.allow, c.denyRule = denyEdit, allowEdit, "guard-file-edit"
		c.denyWhat, c.allowWhat = "an edit of "+denyEdit, "an edit of "+allowEdit
	default:
		c.deny, c.allow, c.denyRule = denyCommand, allowCommand, "git-no-verify"
		c.denyWhat, c.allowWhat = "`"+denyCommand+"`", "`"+allowCommand+"`"
	}
	return c, true
}

// promptCanaries are the prompt payloads of the clients whose prompt row
// answers through a hook command: Claude Code 2.1.328 and Codex CLI
// 0.169.0 UserPromptSubmit {session_id, cwd, hook_event_name, prompt},
// Gemini CLI 0.61.0 BeforeAgent with the same members
// (testdata/clients/{claude/2.1.328,codex/0.169.0,gemini/0.61.0}/
// prompt.prompt-clock.json). The prompt asks for nothing.
var promptCanaries = sync.OnceValue(func() map[string]func(root string) []byte {
	return map[string]func(root string) []byte{
		"claude": claudePrompt("UserPromptSubmit"),
		"codex":  claudePrompt("UserPromptSubmit"),
		"gemini": claudePrompt("BeforeAgent"),
		// Factory Droid (documented, not observed): UserPromptSubmit with the
		// same members (registration table source).
		"droid": claudePrompt("UserPromptSubmit"),
	}
})

func claudePrompt(event string) func(root string) []byte {
	return func(root string) []byte {
		return marshal(map[string]any{"session_id": "hookwarden-doctor", "cwd": root, "hook_event_name": event, "prompt": "hookwarden doctor canary"})
	}
}

// noPromptCanary says why client's prompt row has no canary.
func noPromptCanary(client string) string {
	switch client {
	case "opencode":
		return "opencode's prompt row is the rendered plugin's in-process messages transform, not a launcher run"
	case "agy":
		return "agy's PreInvocation payload was never recorded"
	}
	return "no recorded prompt payload"
}

// The stop canaries' last messages: one that closes with a question to the
// user in prose (the stop gate's stop-prose-question) and one that reports
// what was done (nothing to block; a due checkpoint in the repository may
// still hold the stop, which is the gate judging).
const (
	stopQuestion = "I changed the parser. Shall I run the full test suite now?"
	stopDone     = "All done: the parser is fixed and its tests pass."
)

// stopCanary is one client's stop payload: message whether the payload
// carries the agent's last message (the stop gate's question check needs
// it); payload the builder (cwd the directory the payload names, msg the
// last message, ignored without message).
type stopCanary struct {
	message bool
	payload func(cwd, msg string) []byte
}

// claudeStop builds a Claude-family stop payload: Claude Code 2.1.328,
// Codex CLI 0.169.0 and Qwen Code 0.24.4 Stop {session_id, transcript_path,
// cwd, hook_event_name, stop_hook_active, last_assistant_message}
// (testdata/clients/{claude/2.1.328,codex/0.169.0,qwen/0.24.4}/stop.json);
// Gemini CLI 0.61.0 AfterAgent carries the message as prompt_response
// (testdata/clients/gemini/0.61.0/stop.json). Factory Droid's documented
// Stop has Claude's shape (registration table source).
func claudeStop(event, msgKey string) stopCanary {
	return stopCanary{message: true, payload: func(cwd, msg string) []byte {
		return marshal(map[string]any{"session_id": "hookwarden-doctor", "transcript_path": "/dev/null", "cwd": cwd,
			"hook_event_name": event, "stop_hook_active": false, msgKey: msg})
	}}
}

// stopCanaries are the stop payloads per client. Copilot CLI's agentStop,
// Cursor's stop and agy's Stop carry no last message, so their stop gate
// judges the checkpoint only and their block canary names a scratch
// repository with a due checkpoint (stopScratch).
var stopCanaries = sync.OnceValue(func() map[string]stopCanary {
	return map[string]stopCanary{
		"claude": claudeStop("Stop", "last_assistant_message"),
		"codex":  claudeStop("Stop", "last_assistant_message"),
		"qwen":   claudeStop("Stop", "last_assistant_message"),
		"droid":  claudeStop("Stop", "last_assistant_message"),
		"gemini": claudeStop("AfterAgent", "prompt_response"),
		// GitHub Copilot CLI 1.0.102 agentStop {sessionId, timestamp, cwd,
		// transcriptPath, stopReason, stop_hook_active}
		// (testdata/clients/copilot/1.0.102/stop.json).
		"copilot": {payload: func(cwd, msg string) []byte {
			return marshal(map[string]any{"sessionId": "hookwarden-doctor", "timestamp": 1796122518473, "cwd": cwd, "transcriptPath": "/dev/null",
				"stopReason": "end_turn", "stop_hook_active": false})
		}},
		// Cursor stop (documented, not observed): {hook_event_name,
		// conversation_id, generation_id, workspace_roots, status, loop_count}
		// (testdata/clients/cursor/documented/stop.json).
		"cursor": {payload: func(cwd, msg string) []byte {
			return marshal(map[string]any{"hook_event_name": "stop", "conversation_id": "hookwarden-doctor", "generation_id": "g1",
				"workspace_roots": []string{cwd}, "status": "completed", "loop_count": 0})
		}},
		// agy Stop (unverified on a real agy): {conversationId, workspacePaths,
		// executionNum} (protocol/dialect decodeAgy).
		"agy": {payload: func(cwd, msg string) []byte {
			return marshal(map[string]any{"conversationId": "hookwarden-doctor", "workspacePaths": []string{cwd}, "executionNum": 1})
		}},
	}
})

// postToolCanaries are the post-tool payloads, a `git status` that ran:
// Claude Code 2.1.328 PostToolUse with tool_response {stdout, stderr,
// interrupted, isImage}, Codex CLI 0.169.0 PostToolUse with tool_response
// "", Gemini CLI 0.61.0 AfterTool with tool_response {llmContent,
// returnDisplay} (testdata/clients/{claude/2.1.328,codex/0.169.0,
// gemini/0.61.0}/post-tool.deny-allow.json).
var postToolCanaries = sync.OnceValue(func() map[string]func(root string) []byte {
	return map[string]func(root string) []byte{
		"claude": func(root string) []byte {
			return marshal(map[string]any{"session_id": "hookwarden-doctor", "transcript_path": "/dev/null", "cwd": root, "hook_event_name": "PostToolUse",
				"tool_name": "Bash", "tool_input": map[string]any{"command": allowCommand}, "tool_use_id": "hookwarden-doctor",
				"tool_response": map[string]any{"stdout": "", "stderr": "", "interrupted": false, "isImage": false}})
		},
		"codex": func(root string) []byte {
			return marshal(map[string]any{"session_id": "hookwarden-doctor", "transcript_path": "/dev/null", "cwd": root, "hook_event_name": "PostToolUse",
				"tool_name": "Bash", "tool_input": map[string]any{"command": allowCommand}, "tool_use_id": "hookwarden-doctor", "tool_response": ""})
		},
		"gemini": func(root string) []byte {
			return marshal(map[string]any{"session_id": "hookwarden-doctor", "transcript_path": "/dev/null", "cwd": root, "hook_event_name": "AfterTool",
				"tool_name": "run_shell_command", "tool_input": map[string]any{"command": allowCommand},
				"tool_response": map[string]any{"llmContent": "Output: (empty)", "returnDisplay": ""}})
		},
	}
})

// subagentStartCanary builds a SubagentStart payload for agent type typ:
// Claude Code 2.1.328 {session_id, transcript_path, cwd, agent_id,
// agent_type, hook_event_name} (testdata/clients/claude/2.1.328/
// subagent-start.readonly-delivered.json); Codex CLI 0.169.0 adds turn_id
// (testdata/clients/codex/0.169.0/subagent-start.readonly-agent-type.json).
func subagentStartCanary(client, root, typ string) []byte {
	m := map[string]any{"session_id": "hookwarden-doctor", "transcript_path": "/dev/null", "cwd": root,
		"agent_id": "hookwarden-doctor-canary", "agent_type": typ, "hook_event_name": "SubagentStart"}
	if client == "codex" {
		m["turn_id"] = "hookwarden-doctor"
	}
	return marshal(m)
}

// subagentStartOther is the agent type of the subagent-start canary that
// must get no read-only context: no client or manifest names it.
const subagentStartOther = "hookwarden-doctor-canary"

// clinePayload builds a Cline PreToolUse payload for tool (protocol/dialect
// cline.go): the subject is parameters.command, or for an edit
// parameters.path (relative to the first workspace root, as Cline sends it).
func clinePayload(tool string, edit bool) func(root, dir, subject string) []byte {
	return func(root, dir, subject string) []byte {
		params := map[string]any{"command": subject, "requires_approval": "false"}
		if edit {
			params = map[string]any{"path": subject, "content": "hookwarden doctor canary\n"}
		}
		return marshal(map[string]any{"clineVersion": "hookwarden-doctor", "hookName": "PreToolUse", "taskId": "hookwarden-doctor",
			"workspaceRoots": []string{root}, "preToolUse": map[string]any{"toolName": tool, "parameters": params}})
	}
}
