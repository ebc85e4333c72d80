// Package live wires the production collaborators into the dispatcher of
// engine/hook: the registration table compiled into the binary, the built-in
// command policy (package policy) with the operator patterns of the settings
// layers, heavy-step admission (policy.Admit, when a layer enforces it), the
// environment check, and the stop gate and checkpoint
// (engine/stopgate) for the stop, pre-edit and post-tool events. The CLI (`hookwarden hook`,
// `hookwarden check`) and the acceptance tests use the same wiring.
package live

import (
	"context"
	"regexp"
	"sync"

	"github.com/hookwarden/hookwarden/clientjson"
	"github.com/hookwarden/hookwarden/engine/checkpoint"
	"github.com/hookwarden/hookwarden/engine/dispatch"
	"github.com/hookwarden/hookwarden/engine/editguard"
	"github.com/hookwarden/hookwarden/engine/hook"
	"github.com/hookwarden/hookwarden/engine/stopgate"
	"github.com/hookwarden/hookwarden/policy"
	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/protocol/verdict"
	"github.com/hookwarden/hookwarden/settings"
	"github.com/hookwarden/hookwarden/templates"
)

// Deps returns the production dependencies of hook.Run. It returns an error
// only when the embedded registration table is malformed (a build defect).
func Deps() (hook.Deps, error) {
	return DepsWith(nil)
}

// DepsWith is Deps whose checkpoint refreshes a cache entry about to expire
// in the background (checkpoint.ProcessRefresher) by starting the binary
// self returns (os.Executable for the hookwarden binary); self is called
// only when a refresh is due. A nil self refreshes nothing (in-process
// callers such as tests, whose executable is not hookwarden).
func DepsWith(self func() (string, error)) (hook.Deps, error) {
	tab, err := registration.Default()
	if err != nil {
		return hook.Deps{}, err
	}
	return hook.Deps{
		Table:       tab,
		NewPolicy:   NewPolicy,
		Admission:   Admission,
		Environment: Environment,
		Judges:      judges(refresher(self)),
	}, nil
}

// NewPolicy compiles policy.New with the operator patterns of the settings
// layers and returns it as a hook.CommandPolicy. Errors are policy.New's.
func NewPolicy(ops []settings.Pattern) (hook.CommandPolicy, error) {
	p, err := policy.New(ops)
	if err != nil {
		return nil, err
	}
	return commandPolicy{p}, nil
}

type commandPolicy struct{ p *policy.Policy }

// Judge converts policy.Decision into a verdict: Allowed → Allow, else Deny
// with the rule id and the policy's refusal text.
func (c commandPolicy) Judge(command string) verdict.Verdict {
	return FromDecision(c.p.Judge(command))
}

// JudgeAt is Judge for a command the client runs in dir (absolute) with the
// environment lookup reads, taking over the parses command holds
// (policy.(*Policy).JudgeCommand).
func (c commandPolicy) JudgeAt(command *policy.Command, dir string, lookup func(string) (string, bool)) verdict.Verdict {
	return FromDecision(c.p.JudgeCommand(command, policy.Site{Dir: dir, LookupEnv: lookup}))
}

// JudgeOperators is policy.(*Policy).JudgeOperators as a verdict.
func (c commandPolicy) JudgeOperators(command *policy.Command) verdict.Verdict {
	return FromDecision(c.p.JudgeOperators(command))
}

// FromDecision converts a policy.Decision into a verdict.Verdict: Allow when
// d.Allowed, otherwise Deny with d.RuleID and d.Reason capped at
// verdict.MaxReasonBytes.
func FromDecision(d policy.Decision) verdict.Verdict {
	if d.Allowed {
		return verdict.Verdict{Kind: verdict.Allow}
	}
	return verdict.Verdict{Kind: verdict.Deny, RuleID: d.RuleID, Reason: verdict.Cap(d.Reason)}
}

// Admission judges command for heavy-step admission (policy.Admit) with
// the built-in shapes and a's operator shapes; a shape that does not compile
// denies (settings-invalid).
func Admission(command string, a settings.EffectiveAdmission) verdict.Verdict {
	adm, err := policy.NewAdmission(a.Commands)
	if err != nil {
		return verdict.Verdict{Kind: verdict.Deny, RuleID: hook.RuleSettings, Reason: verdict.Cap("[BLOCKED BY hookwarden:" + hook.RuleSettings + "] " + err.Error())}
	}
	p, err := policy.New(nil)
	if err != nil {
		return verdict.Verdict{Kind: verdict.Deny, RuleID: hook.RuleSettings, Reason: verdict.Cap("[BLOCKED BY hookwarden:" + hook.RuleSettings + "] " + err.Error())}
	}
	return FromDecision(p.Admit(command, adm))
}

// Environment runs policy.CheckEnvironment through lookup and converts the
// decision with FromDecision.
func Environment(lookup func(string) (string, bool)) verdict.Verdict {
	return FromDecision(policy.CheckEnvironment(lookup))
}

// judges returns the event judges wired into this build: the stop gate and
// the checkpoint (engine/stopgate) for stop, pre-edit and post-tool; at
// pre-edit the edit guard (engine/editguard) judges first and its deny
// stands.
func judges(refresh checkpoint.Refresher) hook.Judges {
	return hook.Judges{
		Stop: func(ctx context.Context, c hook.Call) verdict.Verdict {
			return stopgate.JudgeStop(ctx, stopgate.StopInput{
				Client: c.Row.Client, Cwd: c.Dir, RepoRoot: c.RepoRoot,
				LastMessage: c.Payload.LastMessage, Repeated: c.Payload.StopHookActive,
				Config: CheckpointConfig(c.Settings), Refresh: refresh,
			})
		},
		PostTool: func(ctx context.Context, c hook.Call) verdict.Verdict {
			return stopgate.JudgePostTool(ctx, stopgate.PostToolInput{
				Client: c.Row.Client, Cwd: c.Dir, RepoRoot: c.RepoRoot, Config: CheckpointConfig(c.Settings),
				EditedFile: editedFile(c), Refresh: refresh,
			})
		},
		Agent: agentJudge,
		PreEdit: func(ctx context.Context, c hook.Call) verdict.Verdict {
			return preEdit(ctx, c, refresh)
		},
	}
}

// refresher returns the checkpoint.Refresher that starts the binary self
// names, nil when self is nil.
func refresher(self func() (string, error)) checkpoint.Refresher {
	if self == nil {
		return nil
	}
	return func(dir string) {
		if exe, err := self(); err == nil {
			checkpoint.ProcessRefresher(exe)(dir)
		}
	}
}

// preEdit judges a pre-edit call on each file it names (an ApplyPatch
// call's Targets, else FilePath): the edit guard on every file first,
// whose first deny stands, then the checkpoint on each, whose first deny
// stands; otherwise the checkpoint's answer (an allow, or its stated skip
// outside a git work tree).
func preEdit(ctx context.Context, c hook.Call, refresh checkpoint.Refresher) verdict.Verdict {
	targets := c.Payload.Targets
	if len(targets) == 0 {
		targets = []string{c.Payload.FilePath}
	}
	if c.RepoRoot != "" {
		code := writtenCode(c)
		for _, t := range targets {
			v := editguard.Judge(ctx, editguard.Input{
				Client: c.Row.Client, Tool: c.Payload.ToolName, ToolInput: c.Payload.ToolInput,
				FilePath: t, Dir: c.Dir, RepoRoot: c.RepoRoot, Home: c.Home, Owner: owner,
				PathEnv: getenv(c, "PATH"), EngineBin: getenv(c, "HOOKWARDEN_BIN"),
				ClaudeConfigDir: getenv(c, "CLAUDE_CONFIG_DIR"), ClaudeEnvFile: getenv(c, "CLAUDE_ENV_FILE"),
				Code: code,
			})
			if v.Kind != verdict.Allow {
				return v
			}
		}
	}
	var answer verdict.Verdict
	for i, t := range targets {
		v := stopgate.JudgeEdit(ctx, stopgate.EditInput{
			Client: c.Row.Client, Cwd: c.Dir, RepoRoot: c.RepoRoot, FilePath: t,
			Config: CheckpointConfig(c.Settings), Refresh: refresh,
		})
		if v.Kind != verdict.Allow && v.Kind != verdict.Skip {
			return v
		}
		if i == 0 || v.Kind != verdict.Allow {
			answer = v
		}
	}
	return answer
}

// writtenCode returns the judge of content written to a file by the
// pre-edit call c, as code (policy.(*Policy).JudgeWrittenCode with the
// built-in rules, in the call's directory and environment); the policy is
// compiled on the first call, for an edit of a code file only.
func writtenCode(c hook.Call) func(name, content string) verdict.Verdict {
	newPolicy := sync.OnceValues(func() (*policy.Policy, error) { return policy.New(nil) })
	lookup := func(k string) (string, bool) {
		v := getenv(c, k)
		return v, v != ""
	}
	return func(name, content string) verdict.Verdict {
		p, err := newPolicy()
		if err != nil {
			return verdict.Verdict{Kind: verdict.Deny, RuleID: hook.RuleSettings, Reason: verdict.Cap("[BLOCKED BY hookwarden:" + hook.RuleSettings + "] " + err.Error())}
		}
		return FromDecision(p.JudgeWrittenCode(name, content, policy.Site{Dir: c.Dir, LookupEnv: lookup}))
	}
}

// editedFile returns the file a post-tool call's tool edited when that tool
// is one the client's pre-edit row matches (registration table), "" for any
// other tool or when it cannot tell.
func editedFile(c hook.Call) string {
	if c.Payload.FilePath == "" || c.Payload.ToolName == "" {
		return ""
	}
	t, err := registration.Default()
	if err != nil {
		return ""
	}
	row, ok := t.Lookup(c.Row.Client, "pre-edit")
	if !ok || row.Matcher == "" {
		return ""
	}
	re, err := regexp.Compile(row.Matcher)
	if err != nil || !re.MatchString(c.Payload.ToolName) {
		return ""
	}
	return c.Payload.FilePath
}

// getenv reads k through c.Getenv ("" when the call carries none).
func getenv(c hook.Call, k string) string {
	if c.Getenv == nil {
		return ""
	}
	return c.Getenv(k)
}

// owner returns the one definition of our rows (templates.Owner) in client's hook file, for
// the edit guard's check of an edit to that file.
func owner(client string) (*clientjson.Owner, error) {
	t, err := registration.Default()
	if err != nil {
		return nil, err
	}
	return templates.Owner(client, t)
}

// CheckpointConfig converts the merged settings' checkpoint section into the
// checkpoint evaluator's Config (minutes, changed-file count, on_stop);
// fields no layer set keep checkpoint.DefaultConfig's values.
func CheckpointConfig(e *settings.Effective) checkpoint.Config {
	cfg := checkpoint.DefaultConfig()
	if e == nil {
		return cfg
	}
	if v := e.Checkpoint.CommitAfterMinutes; v != nil {
		cfg.CommitAfterMinutes = *v
	}
	if v := e.Checkpoint.CommitAfterFiles; v != nil {
		cfg.CommitAfterFiles = *v
	}
	if v := e.Checkpoint.OnStop; v != nil {
		cfg.OnStop = *v
	}
	return cfg
}

// agentJudge judges the agent-traffic events (engine/dispatch): the
// dispatch gate, read-only delivery and the pending correlation at
// pre-dispatch, the projection at subagent-start, the receipt and abort of
// Claude's dispatches, the return gate at post-return and pre-handback, and
// the receipt and abort of Claude's hand-backs.
func agentJudge(ctx context.Context, c hook.Call) verdict.Verdict {
	in := dispatch.Input{Client: c.Row.Client, Event: c.Row.Event, ToolInput: c.Payload.ToolInput,
		AgentType: c.Payload.AgentType, RepoRoot: c.RepoRoot}
	if c.Settings != nil {
		in.Dispatch = c.Settings.Dispatch
	}
	tr := dispatch.Traffic{SessionID: c.Payload.SessionID, ToolUseID: c.Payload.ToolUseID, AgentID: c.Payload.AgentID,
		ToolResponse: c.Payload.ToolResponse, LastMessage: c.Payload.LastMessage, StopHookActive: c.Payload.StopHookActive}
	switch c.Row.Event {
	case "pre-dispatch":
		return dispatch.JudgeDispatch(ctx, in, tr)
	case "subagent-start":
		return dispatch.JudgeStart(in)
	case "dispatch-receipt":
		return dispatch.JudgeReceipt(ctx, in, tr)
	case "dispatch-abort":
		return dispatch.JudgeAbort(ctx, in, tr)
	case "post-return":
		return dispatch.JudgeReturn(ctx, in, tr)
	case "pre-handback":
		return dispatch.JudgeHandback(ctx, in, tr)
	case "handback-receipt":
		return dispatch.JudgeHandbackReceipt(ctx, in, tr)
	case "handback-abort":
		return dispatch.JudgeHandbackAbort(ctx, in, tr)
	}
	return verdict.Verdict{Kind: verdict.Skip, Reason: c.Row.Client + " " + c.Row.Event + ": no judge for this agent-traffic event in this build"}
}
