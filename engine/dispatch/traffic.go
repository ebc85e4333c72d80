package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"

	"github.com/hookwarden/hookwarden/protocol/verdict"
)

// More rule ids of the agent-traffic rows.
const (
	// RuleStore: the correlation store failed at pre-dispatch (fail closed).
	RuleStore = "dispatch-store"
	// RuleForeground: a foreground Claude dispatch while return_deny is
	// set (its return would come before the receipt that binds it).
	RuleForeground = "dispatch-foreground"
	// RuleNotDelivered: the receipt shows the agent launched without the
	// rewritten brief.
	RuleNotDelivered = "readonly-not-delivered"
	// RuleReturn: a bound agent's return matches a return_deny pattern.
	RuleReturn = "dispatch-return"
	// RuleHandbackNotJudged: the hand-back receipt shows a message other
	// than the one pre-handback judged.
	RuleHandbackNotJudged = "handback-not-judged"
)

// Traffic is the correlation part of an agent-traffic call, beside Input:
// SessionID, ToolUseID and AgentID from the payload, ToolResponse the raw
// receipt tool_response, LastMessage and StopHookActive from SubagentStop.
// Store is the repository's correlation store (nil: StoreDir(RepoRoot)).
type Traffic struct {
	SessionID      string
	ToolUseID      string
	AgentID        string
	ToolResponse   []byte
	LastMessage    string
	StopHookActive bool
	Store          *Store
}

func (tr Traffic) store(in Input) (*Store, error) {
	if tr.Store != nil {
		return tr.Store, nil
	}
	dir, err := StoreDir(in.RepoRoot)
	if err != nil {
		return nil, err
	}
	return &Store{Dir: dir}, nil
}

// JudgeDispatch is pre-dispatch with correlation: Judge, then for Claude
// (the client whose rows correlate) a foreground dispatch is refused while
// return_deny is set, and a dispatch Judge lets through reserves a pending
// row keyed by session and tool use, holding the digest of the rewritten
// prompt. A store failure refuses the dispatch.
func JudgeDispatch(ctx context.Context, in Input, tr Traffic) verdict.Verdict {
	v := Judge(in)
	if in.Client != "claude" || (v.Kind != verdict.Allow && v.Kind != verdict.Rewrite) {
		return v
	}
	var ti struct {
		Background *bool `json:"run_in_background"`
	}
	_ = json.Unmarshal(in.ToolInput, &ti) // Judge already read it as an object
	if len(in.Dispatch.ReturnDeny) > 0 && ti.Background != nil && !*ti.Background {
		return deny(RuleForeground, "dispatch refused: dispatch.return_deny is set, and a foreground agent (run_in_background: false) returns before its dispatch is bound, so its return could not be judged; leave run_in_background out or set it true")
	}
	if tr.SessionID == "" || tr.ToolUseID == "" {
		return deny(RuleStore, "dispatch refused: the payload carries no session_id or tool_use_id, so the dispatch cannot be correlated with its agent")
	}
	digest := ""
	if v.Kind == verdict.Rewrite {
		var out struct {
			Prompt string `json:"prompt"`
		}
		if err := json.Unmarshal(v.Input, &out); err != nil {
			return deny(RuleStore, "dispatch refused: the rewritten input does not decode: %v", err)
		}
		digest = Digest(out.Prompt)
	}
	st, err := tr.store(in)
	if err == nil {
		err = st.Update(ctx, PendingKey(tr.SessionID, tr.ToolUseID), func(*Row) (*Row, error) {
			return &Row{Digest: digest}, nil
		})
	}
	if err != nil {
		return deny(RuleStore, "dispatch refused: %v", err)
	}
	return v
}

// JudgeReceipt is Claude's dispatch-receipt (PostToolUse on Agent): the
// pending row of the tool use is consumed; when it holds a digest and the
// launched tool_input.prompt does not match it, the answer is a deny
// (exit 2: Claude hands the reason to the parent) "read-only projection not
// delivered"; a background agent (tool_response.agentId, status not
// "completed") is then bound for the return gate. A call without a pending
// row is a stated skip.
func JudgeReceipt(ctx context.Context, in Input, tr Traffic) verdict.Verdict {
	st, err := tr.store(in)
	if err != nil {
		return skip("dispatch receipt not judged: %v", err)
	}
	var pending *Row
	err = st.Update(ctx, PendingKey(tr.SessionID, tr.ToolUseID), func(r *Row) (*Row, error) {
		pending = r
		return nil, nil
	})
	if err != nil {
		return skip("dispatch receipt not judged: %v", err)
	}
	if pending == nil {
		return skip("no hookwarden dispatch is pending for this tool use (expired, evicted, or not let through by pre-dispatch); receipt not judged")
	}
	var ti struct {
		Prompt string `json:"prompt"`
	}
	_ = json.Unmarshal(in.ToolInput, &ti)
	var resp struct {
		AgentID string `json:"agentId"`
		Status  string `json:"status"`
	}
	_ = json.Unmarshal(tr.ToolResponse, &resp)
	agent := resp.AgentID
	if agent == "" {
		agent = "(no agentId)"
	}
	v := verdict.Verdict{Kind: verdict.Allow}
	if pending.Digest != "" && Digest(ti.Prompt) != pending.Digest {
		v = deny(RuleNotDelivered, "read-only projection not delivered: agent %s launched without the rewritten prompt", agent)
	}
	if resp.AgentID == "" || resp.Status == "completed" {
		if v.Kind == verdict.Allow {
			return skip("agent %s is not bound: its return came before this receipt (a foreground agent) or the receipt names no agent, so its return is not judged", agent)
		}
		return v
	}
	err = st.Update(ctx, AgentKey(tr.SessionID, resp.AgentID), func(*Row) (*Row, error) { return &Row{}, nil })
	if err != nil && v.Kind == verdict.Allow {
		return skip("agent %s not bound, its return will not be judged: %v", agent, err)
	}
	return v
}

// JudgeAbort is Claude's dispatch-abort (PostToolUseFailure,
// PermissionDenied on Agent): it removes the pending row of this tool use
// only, never another.
func JudgeAbort(ctx context.Context, in Input, tr Traffic) verdict.Verdict {
	st, err := tr.store(in)
	if err != nil {
		return skip("dispatch abort not recorded: %v", err)
	}
	found := false
	err = st.Update(ctx, PendingKey(tr.SessionID, tr.ToolUseID), func(r *Row) (*Row, error) {
		found = r != nil
		return nil, nil
	})
	switch {
	case err != nil:
		return skip("dispatch abort not recorded: %v", err)
	case !found:
		return skip("no hookwarden dispatch is pending for this tool use; nothing to clear")
	}
	return verdict.Verdict{Kind: verdict.Allow}
}

// JudgeReturn is post-return (SubagentStop). Codex: a stated skip (no
// documented key ties a spawn_agent call to the returning agent). Claude:
// an agent without an active binding is a stated skip; a binding marked by
// handback-receipt (the judged report was delivered through
// SubagentHandback) is released with a stated skip, its closing text not
// judged as the report (Claude Code 2.1.328 bundle, the auto-mode
// instruction to subagents: "Only a SubagentHandback call reaches your
// caller as your result; plain text you write at the end is not
// delivered"); a repeated stop
// (stop_hook_active) releases the binding with a stated skip; a return
// matching a return_deny pattern is denied (the subagent continues with the
// reason); any other return releases the binding and is allowed. A store
// failure is a stated skip naming it (SubagentStop cannot stop a launch).
func JudgeReturn(ctx context.Context, in Input, tr Traffic) verdict.Verdict {
	if in.Client != "claude" {
		return skip("%s post-return: no documented key correlates a dispatch with the returning agent, so the return is not judged", in.Client)
	}
	st, err := tr.store(in)
	if err != nil {
		return skip("subagent return not judged: %v", err)
	}
	var res verdict.Verdict
	err = st.Update(ctx, AgentKey(tr.SessionID, tr.AgentID), func(r *Row) (*Row, error) {
		switch {
		case r == nil:
			res = skip("no hookwarden dispatch binds agent %s (an internal agent, a foreground or expired one, or one started without the dispatch rows); its return is not judged", tr.AgentID)
			return nil, nil
		case r.HandedBack:
			res = skip("agent %s delivered its report through SubagentHandback, judged at pre-handback; its binding is released and its closing text is not judged as the report", tr.AgentID)
			return nil, nil
		case tr.StopHookActive:
			res = skip("agent %s was held once already (stop_hook_active); its binding is released and this return is not judged again", tr.AgentID)
			return nil, nil
		}
		if res = matchReturn(in, tr.AgentID, tr.LastMessage); res.Kind == verdict.Deny {
			return r, nil
		}
		return nil, nil
	})
	if err != nil {
		return skip("subagent return not judged: %v", err)
	}
	return res
}

// JudgeHandback is Claude's pre-handback (PreToolUse on SubagentHandback,
// called from inside the subagent): in auto mode a subagent hands its final
// report to its caller through that tool instead of its last message, so a
// bound agent's tool_input.message is held to return_deny here as its
// SubagentStop text is (denied: the subagent gets the reason and calls
// again). A message it lets through gets a provisional row
// (HandbackKey: session, agent, tool_use_id) holding only the message's
// digest, for handback-receipt to confirm; when that row cannot be written
// the answer is a stated skip saying delivery will not be confirmed (the
// message was judged; SubagentStop then judges the last message as the
// fallback). A call from an agent without a binding is a stated skip; the
// binding stays for SubagentStop.
func JudgeHandback(ctx context.Context, in Input, tr Traffic) verdict.Verdict {
	if tr.AgentID == "" {
		return skip("SubagentHandback called outside a subagent (no agent_id); not judged")
	}
	var ti struct {
		Message *string `json:"message"`
	}
	if err := json.Unmarshal(in.ToolInput, &ti); err != nil || ti.Message == nil {
		return deny(RuleReturn, "the SubagentHandback input has no string message, so the report cannot be judged; the hand-back is refused")
	}
	st, err := tr.store(in)
	if err != nil {
		return skip("subagent hand-back not judged: %v", err)
	}
	row, err := st.Get(ctx, AgentKey(tr.SessionID, tr.AgentID))
	if err != nil {
		return skip("subagent hand-back not judged: %v", err)
	}
	if row == nil {
		return skip("no hookwarden dispatch binds agent %s; its hand-back is not judged", tr.AgentID)
	}
	v := matchReturn(in, tr.AgentID, *ti.Message)
	if v.Kind != verdict.Allow {
		return v
	}
	if tr.ToolUseID == "" {
		return skip("the hand-back of agent %s passed return_deny, but the payload carries no tool_use_id, so its delivery cannot be confirmed; SubagentStop judges the agent's last message as its report", tr.AgentID)
	}
	digest := Digest(*ti.Message)
	err = st.Update(ctx, HandbackKey(tr.SessionID, tr.AgentID, tr.ToolUseID), func(*Row) (*Row, error) {
		return &Row{Digest: digest}, nil
	})
	if err != nil {
		return skip("the hand-back of agent %s passed return_deny, but its digest was not stored (%v), so its delivery cannot be confirmed; SubagentStop judges the agent's last message as its report", tr.AgentID, err)
	}
	return v
}

// handbackBound is the common start of handback-receipt and handback-abort:
// a stated skip (ok false) for a call outside a subagent, a store failure
// or an agent without a binding; what names the row in the reasons.
func handbackBound(ctx context.Context, in Input, tr Traffic, what string) (*Store, verdict.Verdict, bool) {
	if tr.AgentID == "" {
		return nil, skip("SubagentHandback %s outside a subagent (no agent_id); not judged", what), false
	}
	st, err := tr.store(in)
	if err != nil {
		return nil, skip("subagent hand-back %s not recorded: %v", what, err), false
	}
	row, err := st.Get(ctx, AgentKey(tr.SessionID, tr.AgentID))
	if err != nil {
		return nil, skip("subagent hand-back %s not recorded: %v", what, err), false
	}
	if row == nil {
		return nil, skip("no hookwarden dispatch binds agent %s; its hand-back %s is not judged", tr.AgentID, what), false
	}
	return st, verdict.Verdict{}, true
}

// handbackMessage returns tool_input.message ("" and false when the input
// has no string message).
func handbackMessage(in Input) (string, bool) {
	var ti struct {
		Message *string `json:"message"`
	}
	if err := json.Unmarshal(in.ToolInput, &ti); err != nil || ti.Message == nil {
		return "", false
	}
	return *ti.Message, true
}

// JudgeHandbackReceipt is Claude's handback-receipt (PostToolUse on
// SubagentHandback, from inside the subagent): it consumes the provisional
// row pre-handback wrote for this tool use and, when the delivered
// tool_input.message matches its digest, marks the agent's binding
// HandedBack (allow), so SubagentStop releases it without judging the
// closing text. A delivered message that differs (or none) is a deny
// (exit 2, rule handback-not-judged) and the binding is not marked, so
// SubagentStop still judges the last message. No provisional row, an
// unbound agent or a store failure is a stated skip.
func JudgeHandbackReceipt(ctx context.Context, in Input, tr Traffic) verdict.Verdict {
	st, v, ok := handbackBound(ctx, in, tr, "receipt")
	if !ok {
		return v
	}
	var pending *Row
	err := st.Update(ctx, HandbackKey(tr.SessionID, tr.AgentID, tr.ToolUseID), func(r *Row) (*Row, error) {
		pending = r
		return nil, nil
	})
	if err != nil {
		return skip("subagent hand-back receipt not recorded: %v", err)
	}
	if pending == nil {
		return skip("no hand-back judged by pre-handback is pending for this tool use of agent %s (expired, evicted, or never stored); delivery not confirmed, so SubagentStop judges the agent's last message as its report", tr.AgentID)
	}
	msg, ok := handbackMessage(in)
	if !ok || Digest(msg) != pending.Digest {
		return deny(RuleHandbackNotJudged, "the hand-back of agent %s delivered a message other than the one pre-handback judged, so the delivered report was not judged; delivery is not confirmed and SubagentStop judges the agent's last message", tr.AgentID)
	}
	marked := false
	err = st.Update(ctx, AgentKey(tr.SessionID, tr.AgentID), func(r *Row) (*Row, error) {
		if r == nil {
			return nil, nil
		}
		marked = true
		r.HandedBack = true
		return r, nil
	})
	switch {
	case err != nil:
		return skip("the hand-back of agent %s was delivered as judged, but the binding was not marked (%v); SubagentStop judges the agent's last message as its report", tr.AgentID, err)
	case !marked:
		return skip("the binding of agent %s ended before its hand-back receipt; nothing to mark", tr.AgentID)
	}
	return verdict.Verdict{Kind: verdict.Allow}
}

// JudgeHandbackAbort is Claude's handback-abort (PostToolUseFailure,
// PermissionDenied on SubagentHandback): it removes the provisional row of
// this tool use only when it holds the digest of this call's
// tool_input.message, so a stale or foreign event never clears another
// attempt's row. Nothing removed, an unbound agent or a store failure is a
// stated skip; the binding stays for SubagentStop (the fallback judge).
func JudgeHandbackAbort(ctx context.Context, in Input, tr Traffic) verdict.Verdict {
	st, v, ok := handbackBound(ctx, in, tr, "abort")
	if !ok {
		return v
	}
	msg, hasMsg := handbackMessage(in)
	found, cleared := false, false
	err := st.Update(ctx, HandbackKey(tr.SessionID, tr.AgentID, tr.ToolUseID), func(r *Row) (*Row, error) {
		found = r != nil
		if r == nil || !hasMsg || Digest(msg) != r.Digest {
			return r, errKeep // not this call's row: not even its expiry changes
		}
		cleared = true
		return nil, nil
	})
	if errors.Is(err, errKeep) {
		err = nil
	}
	switch {
	case err != nil:
		return skip("subagent hand-back abort not recorded: %v", err)
	case !found:
		return skip("no hand-back of agent %s is pending for this tool use; nothing to clear", tr.AgentID)
	case !cleared:
		return skip("the pending hand-back of this tool use holds another message's digest; left as it is")
	}
	return verdict.Verdict{Kind: verdict.Allow}
}

// matchReturn denies a bound agent's report that matches a return_deny
// pattern (naming the pattern's index and layer, never the report) and
// allows any other.
func matchReturn(in Input, agent, report string) verdict.Verdict {
	for i, p := range in.Dispatch.ReturnDeny {
		re, err := regexp.Compile(p.Pattern)
		if err != nil {
			return deny(RuleReturn, "dispatch.return_deny[%d] of %s does not compile: %v; the return is held", i, p.Layer, err)
		}
		if re.MatchString(report) {
			return deny(RuleReturn, "the report of agent %s matches dispatch.return_deny pattern %d of %s; write the report again without what it matched", agent, i, p.Layer)
		}
	}
	return verdict.Verdict{Kind: verdict.Allow}
}

func skip(format string, args ...any) verdict.Verdict {
	return verdict.Verdict{Kind: verdict.Skip, Reason: verdict.EscapeControls(fmt.Sprintf(format, args...), false)}
}
