// Package hook is the live dispatcher behind `hookwarden hook <client>
// <event>`: it reads one bounded payload from stdin, decodes it in the
// client's dialect, finds the repositories the call is judged in, loads the
// settings layers, judges, and encodes the verdict in the client's answer
// form. It never lets a call through silently: whatever it cannot judge is a
// deny with the reason or a stated skip.
//
// The pre-tool path starts no child process: repository discovery is in
// process (internal/gitdisc) and the command policy is a Go function.
//
// The judges of the other events are a seam (Judges): a nil judge answers a
// stated skip "not evaluated in this build"; package engine/hook/live wires
// the stop gate and the checkpoint into it.
package hook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hookwarden/hookwarden/engine/record"
	"github.com/hookwarden/hookwarden/engine/workspace"
	"github.com/hookwarden/hookwarden/internal/shellquote"
	"github.com/hookwarden/hookwarden/policy"
	"github.com/hookwarden/hookwarden/protocol/clock"
	"github.com/hookwarden/hookwarden/protocol/dialect"
	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/protocol/verdict"
	"github.com/hookwarden/hookwarden/settings"
)

// Rule ids of the denies the dispatcher itself makes.
const (
	// RuleInvalidInput: stdin could not be read or decoded.
	RuleInvalidInput = verdict.RuleInvalidInput
	// RuleWorkspace: the working directory or a repository could not be
	// inspected (unreadable directory, broken .git file).
	RuleWorkspace = "workspace-unreadable"
	// RuleSettings: a settings layer is invalid (bad YAML, unknown key, bad
	// deny pattern) or the policy could not be compiled with it.
	RuleSettings = "settings-invalid"
	// RuleRecord: record mode could not save the payload.
	RuleRecord = "record-failed"
	// RuleNoJudge: a judge is missing from the dispatcher's wiring.
	RuleNoJudge = "engine-incomplete"
	// RuleInternal: a judge panicked; the call is refused.
	RuleInternal = "internal-error"
)

// NotEvaluated is the stated-skip reason of an event whose judge is not
// wired into this build.
const NotEvaluated = "not evaluated in this build"

// Usage is printed on stderr for a malformed or unknown client argument.
const Usage = `usage: hookwarden hook [CLIENT EVENT]
  With no arguments, list every "client event" pair this build serves, one per line.
  CLIENT and EVENT must match ^[a-z-]+$ and name a served pair; the payload is read from stdin.
`

// CommandPolicy judges one command (policy.Command: its text and the parses
// the workspace scan kept). JudgeAt returns Allow or Deny (with
// RuleID and a Reason that never quotes the command) for a command the
// client runs in dir (absolute; "" when not known) with the environment
// lookup reads: globs are matched and scripts read in dir, git aliases
// resolved from the config files lookup's HOME and GIT_CONFIG_* name
// (policy.(*Policy).JudgeCommand).
//
// JudgeOperators applies only the policy's operator patterns to a command
// JudgeAt (of another CommandPolicy, with fewer patterns) already allowed
// (policy.(*Policy).JudgeOperators): the built-in rules are not judged
// twice.
type CommandPolicy interface {
	JudgeAt(command *policy.Command, dir string, lookup func(string) (string, bool)) verdict.Verdict
	JudgeOperators(command *policy.Command) verdict.Verdict
}

// Call is what an event judge receives. Row is the registration served.
// Payload is the decoded payload. Dir is the absolute directory the call runs
// in. RepoRoot is the governed repository root the call is judged in ("" when
// the call is judged only because a settings layer sets hooks.scope: all and
// no repository is governed). Settings is the merged settings. Home is the
// hook process's $HOME ("" when unset).
type Call struct {
	Row      registration.Row
	Payload  dialect.Payload
	Dir      string
	RepoRoot string
	Settings *settings.Effective
	Home     string
	// Command is the shell command of a pre-tool or pre-skill-shell call
	// with the parses the workspace scan made of it, which the command
	// policy takes over (nil for other events).
	Command *policy.Command
	// roots are the governed roots the workspace found (workspace.Target);
	// unresolved is true when the command acts in a directory known only
	// at run time; layers are the operator settings layers. The command
	// judge widens the call with them (widen).
	roots      []string
	unresolved bool
	layers     []settings.Layer
	// Getenv reads the hook process's environment ("" when unset): the
	// pre-edit judge reads PATH and HOOKWARDEN_BIN there to know which
	// engine the launcher would choose.
	Getenv func(string) string
}

// Judge decides one call of a stop, pre-edit or post-tool event. ctx carries
// the event's budget as its deadline.
type Judge func(ctx context.Context, c Call) verdict.Verdict

// Judges holds the event judges other than pre-tool and environment. A nil
// field answers a stated skip with NotEvaluated. Agent judges every
// agent-traffic event (dialect.AgentEvent: pre-dispatch, dispatch-receipt,
// dispatch-abort, subagent-start, post-return, pre-handback,
// handback-receipt, handback-abort; Call.Row.Event says which).
type Judges struct {
	PreEdit  Judge
	PostTool Judge
	Stop     Judge
	Agent    Judge
}

// Deps are the dispatcher's collaborators. Table is the registration table.
// NewPolicy compiles the command policy with the operator deny patterns of
// the settings layers (an error denies with RuleSettings). Environment judges
// the hook process's own environment through lookup (LEFTHOOK=0|false,
// LEFTHOOK_EXCLUDE; policy.CheckEnvironment) and returns Allow or Deny.
// Admission judges a pre-tool command the policy allowed for heavy-step
// admission when a settings layer enforces it (hooks.admission.enforce):
// Allow, or Deny naming the heavy step and `hookwarden admit`; nil with
// enforcement on denies (engine-incomplete).
// Judges are the other events' judges.
type Deps struct {
	Table       *registration.Table
	NewPolicy   func(operator []settings.Pattern) (CommandPolicy, error)
	Admission   func(command string, a settings.EffectiveAdmission) verdict.Verdict
	Environment func(lookup func(string) (string, bool)) verdict.Verdict
	Judges      Judges
}

// Request is one invocation. Client and Event are the two arguments. Stdin is
// the payload stream. LookupEnv reads the process environment (os.LookupEnv).
// Cwd is the process working directory (absolute), used only by the
// environment event, which has no payload; when Cwd is empty, Getwd
// (os.Getwd) is called for it, and only then: every other event takes its
// directory from the payload and never costs the two stat(2) calls of
// os.Getwd. Now returns the current time (record file names).
type Request struct {
	Client    string
	Event     string
	Stdin     io.Reader
	LookupEnv func(string) (string, bool)
	Cwd       string
	Getwd     func() (string, error)
	Now       func() time.Time
}

// Response is the answer to emit: the dialect's Answer (stdout, stderr, exit
// code) and the verdict it encodes. Usage is true when the arguments were
// malformed or named no client (exit 2, usage on stderr).
type Response struct {
	dialect.Answer
	Verdict verdict.Verdict
	Usage   bool
}

// usageProblem returns the line naming which hook argument is wrong:
// "hookwarden: hook: <what>\n". The arguments are the client's and event's
// names, never a judged command, so they may be quoted.
func usageProblem(t *registration.Table, req Request) string {
	switch {
	case !registration.ValidName(req.Client):
		return fmt.Sprintf("hookwarden: hook: client %q does not match ^[a-z-]+$\n", req.Client)
	case !registration.ValidName(req.Event):
		return fmt.Sprintf("hookwarden: hook: event %q does not match ^[a-z-]+$\n", req.Event)
	case t == nil:
		return "hookwarden: hook: no registration table\n"
	default:
		return fmt.Sprintf("hookwarden: hook: unknown client %q (`hookwarden hook` lists the served pairs)\n", req.Client)
	}
}

// Run serves one hook call; see the package doc. It always returns an answer
// in the client's dialect: a panic in a judge is recovered into a deny with
// RuleInternal (the panic value is not shown: it may hold the command).
// The call's budget (the row's BudgetMillis, or ctx's deadline when earlier)
// bounds the whole call: reading stdin, workspace and target resolution,
// settings, the policy, and the stop, pre-edit and post-tool judges (whose
// context carries it as its deadline). A judgement still running at the
// deadline is answered with a deny (RuleBudget; post-tool: a stated skip)
// and left to end with the process. A stop deny on a repeated pass is the
// halt answer (bounded). ctx's cancellation without a deadline reaches only
// the event judges.
func Run(ctx context.Context, deps Deps, req Request) (resp Response) {
	if !registration.ValidName(req.Client) || !registration.ValidName(req.Event) || deps.Table == nil || !deps.Table.HasClient(req.Client) {
		msg := []byte(usageProblem(deps.Table, req) + Usage)
		r := Response{Usage: true, Answer: dialect.Answer{Stderr: msg, Exit: 2}}
		if req.Client == "agy" {
			// agy reads only the JSON decision; give it a deny it can read.
			r.Answer = dialect.Encode(registration.Row{Client: "agy", Event: "pre-tool"},
				verdict.Verdict{Kind: verdict.Deny, RuleID: RuleInvalidInput, Reason: "[BLOCKED BY hookwarden:invalid-input] malformed hook arguments; see `hookwarden hook` for the served pairs"})
			r.Answer.Stderr = msg
			r.Answer.Exit = 2
		}
		return r
	}
	row, ok := deps.Table.Lookup(req.Client, req.Event)
	if !ok {
		row = registration.Row{Client: req.Client, Event: req.Event}
		// Record mode also captures payloads of pairs this build does not
		// serve yet: that is how a new row's payload is learnt. The call
		// stays a stated skip: there is no row to judge it by.
		if _, v := recordFirst(req, row, time.Now().Add(UnknownPairBudget), false); v.Kind == verdict.Deny {
			return answer(row, v)
		}
		return answer(row, verdict.Verdict{Kind: verdict.Skip, Reason: fmt.Sprintf(
			"this hookwarden build has no registration for %s %s (a newer row?); upgrade hookwarden", req.Client, req.Event)})
	}
	// The budget is a deadline: reading stdin polls against it
	// (ReadInputUntil), the judges that can block get a context with it, and
	// the whole judgement runs under it, so a step that stalls (a directory
	// on a hung file system, a command that takes the policy long) is
	// answered with a deny before the client gives up and lets the call
	// through.
	var deadline time.Time
	if row.BudgetMillis > 0 {
		deadline = time.Now().Add(row.Budget())
	}
	if d, ok := ctx.Deadline(); ok && (deadline.IsZero() || d.Before(deadline)) {
		deadline = d
	}
	cs := &callState{}
	done := make(chan verdict.Verdict, 1)
	go func() {
		defer func() {
			if recover() != nil {
				done <- deny(RuleInternal, "hookwarden failed internally while judging this %s %s call; the call is refused", row.Client, row.Event)
			}
		}()
		done <- judge(ctx, deps, req, row, deadline, cs)
	}()
	var v verdict.Verdict
	if deadline.IsZero() {
		v = <-done
	} else {
		t := time.NewTimer(time.Until(deadline) + BackstopGrace)
		select {
		case v = <-done:
			t.Stop()
		case <-t.C:
			v = overBudget(row)
		}
	}
	return answerFor(row, cs.callerName(), clocked(row, bounded(row, cs, v), req.Now))
}

// clocked adds the clock line (protocol/clock) to v for the rows that carry
// it: every answer of a prompt row and the allow, skip and context answers
// of a post-tool row (the dialect puts it where the client accepts added
// context and drops it elsewhere: dialect.Encode). A prompt row judges
// nothing, so a deny or halt there (an undecodable payload, the budget) is
// a stated skip with the deny's reason: a block would discard the user's
// prompt (Claude Code, Codex and Gemini CLI erase a prompt their
// UserPromptSubmit/BeforeAgent hook blocks). A post-tool deny keeps its
// reason and exit code and carries no line (the seed: the line rides on an
// allow or a skip, never on a block). now is Request.Now (nil: time.Now);
// the local zone is time.Local.
func clocked(row registration.Row, v verdict.Verdict, now func() time.Time) verdict.Verdict {
	switch row.Event {
	case "prompt":
		if v.Kind == verdict.Deny || v.Kind == verdict.Halt {
			v = skip("%s %s: not answered (%s); the prompt goes on with the clock line only", row.Client, row.Event, v.Reason)
		}
	case "post-tool":
	default:
		return v
	}
	if v.Kind != verdict.Allow && v.Kind != verdict.Skip && v.Kind != verdict.Context {
		return v
	}
	if now == nil {
		now = time.Now
	}
	v.Added = clock.Line(now(), time.Local)
	return v
}

// BackstopGrace is how long past the budget's deadline Run waits for a
// judgement before it answers without one: the steps that watch the
// deadline themselves (reading stdin, the event judges' context) give their
// own, more precise reason first. Every row's budget leaves seconds before
// the client's timeout (registration.Table checks budget < timeout).
const BackstopGrace = 100 * time.Millisecond

// RuleBudget: the call was not judged within its row's budget.
const RuleBudget = "budget-exceeded"

// overBudget is the answer to a call whose judgement outlived its budget:
// a deny (the client would let the call through at its own timeout), except
// at post-tool, which only annotates and states the skip (the seed: a
// post-tool lookup the deadline ends is a stated skip).
func overBudget(row registration.Row) verdict.Verdict {
	if row.Event == "post-tool" {
		return skip("%s %s: not judged within its %s budget", row.Client, row.Event, row.Budget())
	}
	return deny(RuleBudget, "hookwarden could not finish judging this %s %s call within its %s budget (the client gives up at %s and would let the call through); the call is refused, retry it or split the command", row.Client, row.Event, row.Budget(), row.ClientTimeout())
}

// callState is what the dispatcher learns about a call while judging it
// that the answer depends on: repeated is true on a repeated stop pass
// (stop_hook_active true; agy executionNum above 1), read from the decoded
// payload or, when it does not decode, by dialect.StopFlag.
// It is written by the judging goroutine and read by the answer, which may
// be given before that goroutine ends (the budget), hence atomic.
type callState struct {
	repeated atomic.Bool
	// caller is the decoded payload's Caller (dialect.Payload): the client
	// that called another client's row, whose dialect the answer is in.
	caller atomic.Pointer[string]
}

// callerName returns the recorded caller, "" when none was decoded.
func (cs *callState) callerName() string {
	if c := cs.caller.Load(); c != nil {
		return *c
	}
	return ""
}

// bounded turns a stop deny on a repeated pass into the halt answer (issue
// 14 item 6): the client already continued once on our deny, and a second
// deny would loop the agent forever (the seed: every stop deny is bounded to
// one pass, then the session halts with continue: false and the reason).
// Any other verdict is returned unchanged.
func bounded(row registration.Row, cs *callState, v verdict.Verdict) verdict.Verdict {
	if row.Event != "stop" || !cs.repeated.Load() || v.Kind != verdict.Deny {
		return v
	}
	return verdict.Verdict{Kind: verdict.Halt, RuleID: v.RuleID, Reason: verdict.Cap(
		"hookwarden halted the session: this stop was refused on the previous pass and is refused again, so the agent stops instead of looping. " + v.Reason)}
}

// answer encodes v for row. Control characters in the reason are escaped
// (verdict.EscapeControls; line breaks kept, the stop gate writes
// paragraphs) before the reason is capped.
func answer(row registration.Row, v verdict.Verdict) Response {
	return answerFor(row, "", v)
}

// answerFor is answer in the dialect of caller, the client that called
// row ("" for the row's own client; dialect.EncodeFor).
func answerFor(row registration.Row, caller string, v verdict.Verdict) Response {
	v.Reason = verdict.Cap(verdict.EscapeControls(v.Reason, true))
	return Response{Answer: dialect.EncodeFor(row, caller, v), Verdict: v}
}

// deny and skip make the dispatcher's own one-line answers; what they quote
// (a payload's cwd, a path, an error) has every control character escaped,
// line breaks included.
func deny(rule, format string, args ...any) verdict.Verdict {
	return verdict.Verdict{Kind: verdict.Deny, RuleID: rule, Reason: verdict.Cap(verdict.EscapeControls(
		"[BLOCKED BY hookwarden:"+rule+"] "+fmt.Sprintf(format, args...), false))}
}

// invalidInput is the deny for row's payload that could not be read (verb
// "read") or decoded ("decode"): verdict.InvalidInputReason naming err.
func invalidInput(verb string, row registration.Row, err error) verdict.Verdict {
	return verdict.Verdict{Kind: verdict.Deny, RuleID: RuleInvalidInput, Reason: verdict.Cap(verdict.EscapeControls(
		verdict.InvalidInputReason(verb, row.Client, row.Event, err.Error()), false))}
}

func skip(format string, args ...any) verdict.Verdict {
	return verdict.Verdict{Kind: verdict.Skip, Reason: verdict.Cap(verdict.EscapeControls(fmt.Sprintf(format, args...), false))}
}

// UnknownPairBudget bounds reading stdin for a pair without a registration
// row (record mode only): the pre-tool budget of the table, 5 seconds.
const UnknownPairBudget = 5 * time.Second

func lookupEnv(req Request) func(string) (string, bool) {
	if req.LookupEnv == nil {
		return func(string) (string, bool) { return "", false }
	}
	return req.LookupEnv
}

func readStdin(req Request, deadline time.Time) ([]byte, error) {
	var stdin io.Reader = strings.NewReader("")
	if req.Stdin != nil {
		stdin = req.Stdin
	}
	return dialect.ReadInputUntil(stdin, deadline)
}

// recordFirst loads the operator settings layers and, when one (fleet or
// workstation settings, never the environment or a repository) sets
// record.dir, reads the call's bounded stdin and saves it there
// (engine/record) before anything is judged. With read true, stdin is read
// whether or not record mode is on. It returns the stdin read and the
// operator layers for the judgement that follows, and v: a deny when stdin
// cannot be read, a layer does not parse or the payload cannot be saved,
// else the zero verdict. Record mode never lets a call through: the call is
// judged after it (DESIGN.md, "Environment variables").
func recordFirst(req Request, row registration.Row, deadline time.Time, read bool) (ops operatorInput, v verdict.Verdict) {
	lookup := lookupEnv(req)
	getenv := func(k string) string { v, _ := lookup(k); return v }
	var err error
	ops.layers, err = settings.OperatorLayers(settings.SourcesFromEnv(getenv))
	if err != nil {
		return ops, deny(RuleSettings, "%v; fix the settings file (every call is refused until it is valid)", err)
	}
	dir := settings.RecordDir(ops.layers)
	if dir == "" && !read {
		return ops, verdict.Verdict{}
	}
	if ops.data, err = readStdin(req, deadline); err != nil {
		return ops, invalidInput("read", row, err)
	}
	if dir == "" {
		return ops, verdict.Verdict{}
	}
	now := time.Now
	if req.Now != nil {
		now = req.Now
	}
	if _, err := record.Write(dir, row.Client, row.Event, ops.data, now()); err != nil {
		return ops, deny(RuleRecord, "record mode (record.dir in the operator settings) could not save the payload: %v", err)
	}
	return ops, verdict.Verdict{}
}

// operatorInput is what recordFirst read: the raw stdin and the operator
// settings layers.
type operatorInput struct {
	data   []byte
	layers []settings.Layer
}

// judge answers one call of row: it records the payload when record mode is
// on, decodes it (decodeCall), places it (placeCall) and hands it to the
// judge of its event, within deadline (zero: none).
func judge(ctx context.Context, deps Deps, req Request, row registration.Row, deadline time.Time, cs *callState) verdict.Verdict {
	lookup := lookupEnv(req)
	ops, v := recordFirst(req, row, deadline, true)
	if v.Kind == verdict.Deny {
		return v
	}
	p, v, ok := decodeCall(row, ops.data, cs)
	if !ok {
		return v
	}
	if row.Event == "prompt" {
		// A prompt row judges nothing: it answers the clock line (clocked)
		// inside and outside governed repositories alike, so it needs no
		// workspace, no settings and no child process.
		return verdict.Verdict{Kind: verdict.Allow}
	}
	call, v, ok := placeCall(deps, req, row, p, ops.layers, lookup)
	if !ok {
		return v
	}
	if dialect.ShellEvent(row.Event) {
		// placeCall set call.Command for exactly these events.
		return judgeCommand(deps, p, call, lookup)
	}
	switch row.Event {
	case "environment":
		if deps.Environment == nil {
			return deny(RuleNoJudge, "this build has no environment check wired in")
		}
		return deps.Environment(lookup)
	}
	j := deps.Judges.of(row.Event)
	if j == nil {
		return skip("%s %s: %s", row.Client, row.Event, NotEvaluated)
	}
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	return j(ctx, call)
}

// decodeCall decodes the payload data of row and records on cs whether it
// is a repeated stop pass and who called. ok is false with the verdict to
// answer when the payload cannot be judged: an invalid-input deny (a stated
// skip for a prompt row, which goes on with the clock line) or the
// dialect's stated skip (Payload.Unjudged).
func decodeCall(row registration.Row, data []byte, cs *callState) (p dialect.Payload, v verdict.Verdict, ok bool) {
	p, err := dialect.Decode(row, data)
	if err != nil {
		if row.Event == "stop" {
			repeated, _ := dialect.StopFlag(row, data)
			cs.repeated.Store(repeated)
		}
		if row.Event == "prompt" {
			return p, skip("hookwarden could not decode the %s %s payload: %v; the prompt goes on with the clock line only", row.Client, row.Event, err), false
		}
		return p, invalidInput("decode", row, err), false
	}
	cs.repeated.Store(row.Event == "stop" && p.StopHookActive)
	cs.caller.Store(&p.Caller)
	if p.Unjudged != "" {
		return p, skip("%s", p.Unjudged), false
	}
	return p, verdict.Verdict{}, true
}

// placeCall finds where the call acts (engine/workspace: the governed
// repositories around its directory, and those its command or edited files
// name) and the effective settings there, and builds the Call. ok is false
// with the verdict to answer when the call is refused (an empty command, a
// workspace past its bounds or unreadable, invalid settings) or skipped
// (nothing governed, or a row another client's settings loaded).
func placeCall(deps Deps, req Request, row registration.Row, p dialect.Payload, layers []settings.Layer, lookup func(string) (string, bool)) (Call, verdict.Verdict, bool) {
	candidates, err := baseDirs(row, p, func() (string, error) {
		if req.Cwd == "" && req.Getwd != nil {
			return req.Getwd()
		}
		return req.Cwd, nil
	}, lookup)
	if err != nil {
		return Call{}, deny(RuleWorkspace, "%v", err), false
	}
	var command *policy.Command
	if dialect.ShellEvent(row.Event) {
		if strings.Trim(p.Command, policy.ASCIISpace) == "" {
			return Call{}, deny(RuleInvalidInput, "the %s %s payload holds an empty command for a command tool; the call is refused because there is nothing to judge", row.Client, row.Event), false
		}
		command = policy.NewCommand(p.Command)
	}
	home, _ := lookup("HOME")
	var named []string
	if row.Event == "pre-edit" {
		// An edit is judged in every governed repository its target
		// lies in, wherever the call runs (issue 29 item 1).
		named = append(named, p.Targets...)
		if len(named) == 0 {
			named = append(named, p.FilePath)
		}
	}
	tgt, err := workspace.Locate(candidates, command, home, named...)
	if err != nil {
		var be *policy.BoundError
		if errors.As(err, &be) {
			return Call{}, verdict.Verdict{Kind: verdict.Deny, RuleID: be.Rule, Reason: be.Error()}, false
		}
		return Call{}, deny(RuleWorkspace, "hookwarden could not inspect the workspace: %v", err), false
	}
	eff, err := settings.LoadWith(layers, tgt.Roots)
	if err != nil {
		return Call{}, deny(RuleSettings, "%v; fix the settings file (every call is refused until it is valid)", err), false
	}
	// hooks.scope: all applies to pre-tool only (the seed's step 6); a
	// command that acts in a directory known only at run time is judged
	// too, since it may act in a governed repository.
	// A command run where nothing is governed, in a folder that holds a
	// governed repository, is judged too (workspace.Target.Holds).
	judgedAnyway := dialect.ShellEvent(row.Event) && (eff.Scope == settings.ScopeAll || tgt.Unresolved || len(tgt.Holds) > 0)
	if len(tgt.Roots) == 0 && !judgedAnyway {
		if tgt.Base.RepoRoot == "" {
			return Call{}, skip("%s is not inside a git repository (no hooks.scope: all in any settings layer)", tgt.Base.Dir), false
		}
		return Call{}, skip("%s is not a governed repository (no %s at its root)", tgt.Base.RepoRoot, settings.RepoFileName), false
	}
	call := Call{Row: row, Payload: p, Dir: tgt.Base.Dir, Settings: eff, Home: home, Command: command,
		roots: tgt.Roots, unresolved: tgt.Unresolved || len(tgt.Holds) > 0, layers: layers,
		Getenv: func(k string) string { v, _ := lookup(k); return v }}
	if len(tgt.Roots) > 0 {
		call.RepoRoot = tgt.Roots[0]
		if why := crossLoaded(deps.Table, row, p.Caller, call.RepoRoot, lookup); why != "" {
			return Call{}, skip("%s", why), false
		}
	}
	return call, verdict.Verdict{}, true
}

// judgeCommand judges a pre-tool or pre-skill-shell call: the environment
// check, then the command policy with the settings' operator patterns in
// the directory the client runs the command in (globs, scripts on disk and
// git's config files are read there), then heavy-step admission when
// hooks.admission.enforce is set (after every deny rule: a heavy step
// outside `hookwarden admit` is refused).
func judgeCommand(deps Deps, p dialect.Payload, call Call, lookup func(string) (string, bool)) verdict.Verdict {
	if deps.Environment == nil || deps.NewPolicy == nil {
		return deny(RuleNoJudge, "this build has no command policy wired in")
	}
	if v := deps.Environment(lookup); v.Kind != verdict.Allow {
		return v
	}
	pol, err := deps.NewPolicy(call.Settings.Deny)
	if err != nil {
		return deny(RuleSettings, "the command policy could not be built with the settings layers: %v", err)
	}
	cmd := judgedCommand(p, call.Command)
	if call.unresolved {
		// widen may find more governed repositories, whose operator
		// patterns then meet the simple commands this judgement saw run.
		cmd.KeepRan()
	}
	v := pol.JudgeAt(cmd, call.Dir, lookup)
	if v.Kind != verdict.Allow {
		return v
	}
	wider, wv, ok := widen(call, cmd)
	if !ok {
		return wv
	}
	if wider != nil {
		// The evaluator found the command acting in governed repositories
		// the workspace scan could not see: their operator patterns apply
		// to it too (the built-in rules allowed it already), and their
		// admission settings.
		call.Settings = wider
		pol, err := deps.NewPolicy(wider.Deny)
		if err != nil {
			return deny(RuleSettings, "the command policy could not be built with the settings layers: %v", err)
		}
		if v := pol.JudgeOperators(cmd); v.Kind != verdict.Allow {
			return v
		}
	}
	if !call.Settings.Admission.Enforce {
		return v
	}
	if deps.Admission == nil {
		return deny(RuleNoJudge, "heavy-step admission is enforced (hooks.admission.enforce) but this build has no admission judge wired in")
	}
	return deps.Admission(p.Command, call.Settings.Admission)
}

// widen returns the settings a command must be judged with again when the
// policy's evaluator found it acting in governed repositories the workspace
// scan could not name (policy.Command.Evaluated: `D=/gov; cd "$D" && …`,
// `cd /g?v && …`): every root the call already had and those, loaded from
// the call's layers. wider is nil when there are none, or when the scan
// left nothing to run time. ok is false with the deny to answer when the
// evaluated targets pass the scan's bounds, cannot be inspected, or their
// settings are invalid.
func widen(call Call, cmd *policy.Command) (wider *settings.Effective, v verdict.Verdict, ok bool) {
	if !call.unresolved {
		return nil, verdict.Verdict{}, true
	}
	paths, err := cmd.Evaluated()
	if err != nil {
		var be *policy.BoundError
		if errors.As(err, &be) {
			return nil, verdict.Verdict{Kind: verdict.Deny, RuleID: be.Rule, Reason: be.Error()}, false
		}
		return nil, deny(RuleWorkspace, "hookwarden could not inspect the workspace: %v", err), false
	}
	reached, err := workspace.Reached(paths)
	if err != nil {
		return nil, deny(RuleWorkspace, "hookwarden could not inspect the workspace: %v", err), false
	}
	roots := slices.Clone(call.roots)
	for _, r := range reached {
		if !slices.Contains(roots, r) {
			roots = append(roots, r)
		}
	}
	if len(roots) == len(call.roots) {
		return nil, verdict.Verdict{}, true
	}
	eff, err := settings.LoadWith(call.layers, roots)
	if err != nil {
		return nil, deny(RuleSettings, "%v; fix the settings file (every call is refused until it is valid)", err), false
	}
	return eff, verdict.Verdict{}, true
}

// of returns the judge of event (pre-edit, post-tool, stop, or an agent
// event), nil for any other.
func (js Judges) of(event string) Judge {
	switch event {
	case "pre-edit":
		return js.PreEdit
	case "post-tool":
		return js.PostTool
	case "stop":
		return js.Stop
	}
	if dialect.AgentEvent(event) {
		return js.Agent
	}
	return nil
}

// baseDirs returns the base directory candidates of a call: agy's
// workspacePaths, otherwise the payload cwd. A payload that names no
// directory, or a relative one, is an error (a deny): joining it to the
// process directory would judge the call in a place the client never named.
// The environment event carries no payload and runs in the process
// directory, which processCwd returns. A Devin CLI payload without a cwd is
// placed at DEVIN_PROJECT_DIR, read through lookup: Devin documents no cwd
// member but sets that variable to the project root for every hook
// (docs.devin.ai/cli/extensibility/hooks/overview, read 2026-12-05; not
// observed). A cd the agent made earlier in Devin's persistent shell
// session is then not seen (docs/clients.md says so).
func baseDirs(row registration.Row, p dialect.Payload, processCwd func() (string, error), lookup func(string) (string, bool)) ([]string, error) {
	var dirs []string
	switch {
	case row.Event == "environment":
		wd, err := processCwd()
		if err == nil && !filepath.IsAbs(wd) {
			err = errors.New("not an absolute path")
		}
		if err != nil {
			return nil, fmt.Errorf("hookwarden could not inspect the workspace: the process working directory is unusable (%v)", err)
		}
		dirs = []string{wd}
	case row.Client == "agy":
		if len(p.WorkspacePaths) == 0 {
			return nil, errors.New("hookwarden could not inspect the workspace: the payload names no workspacePaths; the call is refused because it cannot be placed in a repository")
		}
		dirs = append(dirs, p.WorkspacePaths...)
	case row.Client == "devin" && p.Cwd == "":
		d, _ := lookup("DEVIN_PROJECT_DIR")
		if d == "" {
			return nil, errors.New("hookwarden could not inspect the workspace: the Devin payload names no cwd and DEVIN_PROJECT_DIR is unset; the call is refused because it cannot be placed in a repository")
		}
		dirs = []string{d}
	case row.Client == "cursor" && p.Cwd == "":
		// Cursor's stop names no cwd, only workspace_roots (dialect
		// cursor.go); Decode refuses a payload naming neither.
		dirs = append(dirs, p.WorkspacePaths...)
	default:
		if p.Cwd == "" {
			return nil, errors.New("hookwarden could not inspect the workspace: the payload names no cwd; the call is refused because it cannot be placed in a repository")
		}
		dirs = []string{p.Cwd}
	}
	for i, d := range dirs {
		if d == "" || !filepath.IsAbs(d) {
			return nil, fmt.Errorf("hookwarden could not inspect the workspace: the payload's directory %q is not absolute; the call is refused because it cannot be placed in a repository", d)
		}
		dirs[i] = filepath.Clean(d)
	}
	return dirs, nil
}

// judgedCommand returns the command a pre-tool or pre-skill-shell call is
// judged as: the call's scanned command (Call.Command, with the parses the
// workspace scan kept; never nil here: placeCall sets it for every event
// dialect.ShellEvent names, and judge hands judgeCommand no other), or,
// for Claude Code's PowerShell tool (tool_name "PowerShell", Claude Code
// 2.1.332 on Windows; also PreSkillShellCommand's PowerShell form), that
// command as pwsh -Command runs it, so the policy's PowerShell pre-pass
// reads it (policy/powershell.go) instead of the shell walk alone.
func judgedCommand(p dialect.Payload, scanned *policy.Command) *policy.Command {
	if strings.EqualFold(p.ToolName, "PowerShell") {
		return policy.NewCommand("pwsh -NoProfile -Command " + shellquote.Word(p.Command))
	}
	return scanned
}
