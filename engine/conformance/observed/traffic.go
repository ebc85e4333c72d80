package observed

import (
	"fmt"

	"github.com/hookwarden/hookwarden/internal/clientname"
	"github.com/hookwarden/hookwarden/protocol/registration"
)

// States of an agent-traffic capability (`hookwarden clients
// --agent-traffic`).
const (
	// Unenforceable: the client exposes no hook payload or answer that
	// carries the thing (the reason says which is missing).
	Unenforceable = "unenforceable"
	// AdapterDefined: a registration row and a replayed adapter exist, but
	// no payload recorded from the real client has shown it working.
	AdapterDefined = "adapter-defined"
)

// TrafficState is one capability of one client: State is Unenforceable,
// AdapterDefined or Observed ("observed" only when observed.json holds a
// passing observation of the row, which the suite writes only from a run of
// the real client whose payloads it recorded); Row the registration row it
// rests on ("" when none); Why one sentence with the source.
type TrafficState struct {
	State string `json:"state"`
	Row   string `json:"row,omitempty"`
	Why   string `json:"why"`
}

// TrafficCapability is one client's line of the agent-traffic report
// (issue 19 item 7): BriefCapture (the dispatch gate reads the brief a
// parent hands its subagent), ReturnCapture (the hook reads the report a
// subagent returns) and ReturnRules (dispatch.return_deny is enforced on
// it: capture plus a way to tell which agents hookwarden let through).
type TrafficCapability struct {
	Client        string       `json:"client"`
	BriefCapture  TrafficState `json:"brief_capture"`
	ReturnCapture TrafficState `json:"return_capture"`
	ReturnRules   TrafficState `json:"return_rules"`
}

// trafficFacts are the per-client reasons behind the states, each with its
// source; a client not listed has no audited boundary at all. A switch, not
// a map literal, so that the hook process's start-up builds nothing.
func trafficFacts(client string) ([3]string, bool) {
	switch client {
	case "claude":
		return [3]string{
			"PreToolUse on Agent carries tool_input.prompt (Claude Code 2.1.328 sdk-tools.d.ts AgentInput)",
			"SubagentStop carries last_assistant_message and agent_id (2.1.328 bundle hook input schema)",
			"the receipt (PostToolUse tool_response.agentId) binds a dispatch to its agent; SubagentStop exit 2 keeps the subagent working",
		}, true
	case "codex":
		return [3]string{
			"spawn_agent's message/items reach PreToolUse as tool_name spawn_agent (Codex 0.169.0 SpawnAgentArgs; the tool is offered with features.multi_agent on)",
			"SubagentStop carries last_assistant_message (0.169.0 schema subagent-stop.command.input)",
			"no documented key ties a spawn_agent call to the agent that later stops, so ownership cannot be told",
		}, true
	case "gemini":
		return [3]string{
			"invoke_agent's prompt reaches BeforeTool (Gemini CLI 0.61.0 agent-tool.ts {agent_name, prompt})",
			"the hook schema documents no field holding invoke_agent's returned report and none is recorded",
			"no return capture",
		}, true
	case "agy":
		return [3]string{
			"invoke_subagent's Subagents[].Prompt (design record, agy 1.3.3 contract; no agy binary here)",
			"its PostToolUse and Stop payloads expose no subagent return body (design record)",
			"no return capture",
		}, true
	}
	return [3]string{}, false
}

// AgentTraffic returns one TrafficCapability per client of clientname.All(),
// in that order, from the registration rows of t and the observations of
// obs (nil: none observed).
func AgentTraffic(t *registration.Table, obs *File) []TrafficCapability {
	state := func(client, event, why string) TrafficState {
		if _, ok := t.Lookup(client, event); !ok {
			return TrafficState{State: Unenforceable, Why: why}
		}
		st := TrafficState{State: AdapterDefined, Row: client + " " + event, Why: why}
		if obs != nil {
			if e, ok := obs.Latest(client, event); ok && e.Status == Observed {
				st.State = Observed
				st.Why = fmt.Sprintf("%s; observed on %s %s (%s)", why, client, e.ClientVersion, e.Date)
			}
		}
		return st
	}
	var out []TrafficCapability
	for _, c := range clientname.All() {
		f, ok := trafficFacts(c)
		if !ok {
			none := TrafficState{State: Unenforceable, Why: "no audited hook boundary for agent dispatch or return"}
			out = append(out, TrafficCapability{Client: c, BriefCapture: none, ReturnCapture: none, ReturnRules: none})
			continue
		}
		tc := TrafficCapability{Client: c, BriefCapture: state(c, "pre-dispatch", f[0])}
		switch c {
		case "claude":
			tc.ReturnCapture = state(c, "post-return", f[1])
			tc.ReturnRules = state(c, "post-return", f[2])
		case "codex":
			tc.ReturnCapture = state(c, "post-return", f[1])
			tc.ReturnRules = TrafficState{State: Unenforceable, Why: f[2]}
		default:
			tc.ReturnCapture = TrafficState{State: Unenforceable, Why: f[1]}
			tc.ReturnRules = TrafficState{State: Unenforceable, Why: f[2]}
		}
		out = append(out, tc)
	}
	return out
}
