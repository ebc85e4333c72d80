// Package doctor is `hookwarden doctor [PATH]`: it proves, on this
// machine, that each adopted row fires and denies. For every client the
// manifest selects and every event it registers (pre-tool, pre-edit,
// pre-dispatch, prompt, stop, post-tool; see below for the last four),
// it takes the handlers the client would run (adopt/hookplan: the files the
// client reads, its switches, Codex's trust), runs each one the way the
// client spawns it (skewguard.Spawn: shell, working directory, added
// environment, payload on stdin) with a canary payload that must be denied
// by its expected rule and one that must be allowed, and reports per client
// and event: fired, denied (and by which rule), allowed, which engine or
// fallback answered, and the time of each run. No model and no network are
// involved; nothing is run (the canaries ask for a commit with
// --no-verify and an edit of .hookwarden.yaml, which are refused before
// they run, and for `git status` and an edit the client would make, which
// doctor only asks about). The one write: with dispatch.tasks declared,
// Claude's allowed pre-dispatch canary leaves a row in the dispatch
// correlation store under Git's common directory, as any dispatch does.
// The pre-dispatch rows are probed when the manifest declares
// dispatch.tasks: a brief without a task label must be denied
// (dispatch-task), one with the first declared label must not be refused
// for a fault.
//
// A row guards when at least one handler of ours fires for the canary's
// tool, the deny canary is answered with the client's deny naming the
// expected rule, and the allow canary is not refused for a fault (invalid
// input, a launcher without engine or interpreter, invalid settings, an
// unreadable workspace, a budget overrun, a crash, a timeout). A prompt
// row (Claude, Codex, Gemini: the clients with a recorded prompt payload)
// gets one prompt canary instead and does its job when the answer is an
// allow or a stated skip carrying the clock line. A stop row gets a block
// canary (a last message closing with a question in prose, held by
// stop-prose-question; for the clients whose stop payload carries no
// message, Copilot CLI, Cursor and agy, a stop in a scratch repository
// under the temporary directory whose checkpoint is due, held by
// checkpoint-due; the scratch is removed afterwards) and a pass canary (a
// finished report, which must be judged: let through, or held only by the
// repository's own due checkpoint; for Copilot CLI, Cursor and agy the
// stop gate's stated skip of the question check alone,
// stopgate.SkipEmptyMessage, is a checkpoint found not due). A post-tool row (Claude, Codex,
// Gemini) gets one canary, a `git status` that ran, which the engine must
// answer with an allow or added context carrying the clock line (the row
// never blocks). A subagent-start row (Claude, Codex) gets a subagent of a
// read-only type, which must get the read-only banner as added context, and
// one of a type no list names, which must not. With lefthook selected, hookwarden's two lefthook jobs
// are run as lefthook runs a job, without lefthook (probeLefthook). For
// opencode's pre-tool row, whose handler is the rendered plugin, doctor
// also starts the installed opencode (when it is on PATH) the way that
// loads project plugins without a model, with the canaries handed to the
// plugin through templates.OpencodeCanaryEnv: the row guards only when the
// loaded plugin's own hook refused the deny canary (probeOpencodeLoad), so
// a plugin the installed opencode does not load is found, not reported
// healthy. Run exits 1 when any selected row does not guard.
package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hookwarden/hookwarden/adopt"
	"github.com/hookwarden/hookwarden/adopt/hookplan"
	"github.com/hookwarden/hookwarden/clientjson"
	"github.com/hookwarden/hookwarden/engine/dispatch"
	"github.com/hookwarden/hookwarden/engine/stopgate"
	"github.com/hookwarden/hookwarden/protocol/clock"
	"github.com/hookwarden/hookwarden/protocol/dialect"
	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/settings"
	"github.com/hookwarden/hookwarden/skewguard"
	"github.com/hookwarden/hookwarden/templates"
)

// Probe is one canary run: Verdict is "allow", "deny", "skip" (a stated
// skip: the call went through unjudged), at stop "block" (the stop is
// refused: the agent goes on) and "halt" (the session ends with the
// reason), at post-tool "context" (allowed with added context), or "error"
// (no answer the client reads as any of these: a crash, another exit code,
// a timeout, unreadable output); Rule the rule id of a deny or block
// ("" none; the stop gate's several rules joined by ","), Reason the answer's reason
// or the error, AnsweredBy the engine or fallback that answered, Millis
// the wall time of the run, Clock whether the answer on stdout carries the
// clock line (protocol/clock.Marker).
type Probe struct {
	Clock      bool    `json:"clock,omitempty"`
	Verdict    string  `json:"verdict"`
	Rule       string  `json:"rule,omitempty"`
	Reason     string  `json:"reason,omitempty"`
	AnsweredBy string  `json:"answered_by"`
	Millis     float64 `json:"ms"`
}

// Row is one client and event of the report: Fired whether a handler of
// ours fires for the canary's tool (File and Line the first one, Command
// what it runs), Deny and Allow the two canary runs (nil when it did not
// fire; at stop the block and pass canaries; a prompt row has one run,
// Prompt, and a post-tool row one, Post, instead), WantRule the rule the
// deny (block) canary must name (WantClock for a prompt or post-tool row:
// its answer must carry the clock line), Spawn the source of
// how the canaries were spawned (skewguard.Spawn) and SpawnUnverified true
// when that spawn was not observed on the real client, Guards the verdict,
// and Problem why it does not guard ("" when it does).
type Row struct {
	Client          string `json:"client"`
	Event           string `json:"event"`
	Fired           bool   `json:"fired"`
	File            string `json:"file,omitempty"`
	Line            int    `json:"line,omitempty"`
	Command         string `json:"command,omitempty"`
	Deny            *Probe `json:"deny,omitempty"`
	Allow           *Probe `json:"allow,omitempty"`
	Prompt          *Probe `json:"prompt,omitempty"`
	Post            *Probe `json:"post_tool,omitempty"`
	WantRule        string `json:"want_rule"`
	WantClock       bool   `json:"want_clock,omitempty"`
	Spawn           string `json:"spawn,omitempty"`
	SpawnUnverified bool   `json:"spawn_unverified,omitempty"`
	// Load is, for the opencode pre-tool row, the proof that the installed
	// opencode loaded the rendered plugin and its hook judged the canaries
	// (probeOpencodeLoad); a load not proven makes the row not guard.
	Load    *PluginLoad `json:"plugin_load,omitempty"`
	Guards  bool        `json:"guards"`
	Problem string      `json:"problem,omitempty"`
}

// Report is the doctor run of one repository: Root, Engine (the engine
// the launcher would hand calls to: $HOOKWARDEN_BIN, else the first
// hookwarden on PATH; "" none), Rows in client and event order, Skipped
// the selected rows doctor has no canary for ("client event: why"), and
// OK whether every row guards.
type Report struct {
	Root    string   `json:"root"`
	Engine  string   `json:"engine"`
	Rows    []Row    `json:"rows"`
	Skipped []string `json:"skipped"`
	OK      bool     `json:"ok"`
}

// Options steer Run. Env is the environment the clients would pass on
// ("NAME=value"; nil: os.Environ()); getenv-style lookups (HOME, PATH,
// CODEX_HOME, HOOKWARDEN_BIN) read it too.
type Options struct {
	Env []string
}

// ErrNotGoverned is returned (wrapped, naming the path) by Run for a
// directory without .hookwarden.yaml.
var ErrNotGoverned = errors.New("not governed (no .hookwarden.yaml)")

// guardEvents are the events doctor probes, in report order.
var guardEvents = []string{"pre-tool", "pre-edit", "pre-skill-shell"}

// Run probes the governed repository rooted at root. It returns an error
// only when root is not a governed directory or its manifest is invalid;
// every row that does not guard is in the report.
func Run(ctx context.Context, root string, opts Options) (*Report, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", root, err)
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return nil, fmt.Errorf("%s: %w", root, err)
	}
	data, err := os.ReadFile(filepath.Join(abs, adopt.ManifestFile))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", root, ErrNotGoverned)
	}
	man, err := settings.Parse(data, true)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", root, adopt.ManifestFile, err)
	}
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	getenv := skewguard.Getenv(env)
	table, err := registration.Default()
	if err != nil {
		return nil, err
	}
	plan, err := hookplan.Build(abs, hookplan.Options{Getenv: getenv})
	if err != nil {
		return nil, err
	}
	rep := &Report{Root: abs, Engine: engine(getenv, abs), Rows: []Row{}, Skipped: []string{}, OK: true}
	clients := man.Clients
	if clients == nil {
		clients = templates.DefaultClients()
	}
	events := adopt.FileEvents(man)
	planned := map[string]bool{}
	for _, cp := range plan.Clients {
		planned[cp.Client] = true
	}
	for _, c := range clients {
		switch {
		case c == "lefthook" && slices.Contains(man.Decline, templates.StepLefthookJobs):
			rep.Skipped = append(rep.Skipped, "lefthook: the lefthook-jobs step is declined, so no job of ours is written")
		case c == "lefthook":
			// Probed after the planned clients' rows, below.
		case !planned[c]:
			rep.Skipped = append(rep.Skipped, c+": no plan of its hooks, so doctor has nothing to run")
		}
	}
	for _, cp := range plan.Clients {
		if !slices.Contains(clients, cp.Client) {
			continue
		}
		for _, ev := range events {
			row, ok := table.Lookup(cp.Client, ev)
			if !ok {
				continue
			}
			if ev == "prompt" {
				pc, ok := promptCanaries()[cp.Client]
				if !ok {
					rep.Skipped = append(rep.Skipped, cp.Client+" prompt: no prompt canary ("+noPromptCanary(cp.Client)+")")
					continue
				}
				r := probePrompt(ctx, abs, cp, row, pc, env, rep.Engine)
				if !r.Guards {
					rep.OK = false
				}
				rep.Rows = append(rep.Rows, r)
				continue
			}
			if ev == "subagent-start" && (cp.Client == "claude" || cp.Client == "codex") {
				var readonly []string
				if man.Dispatch != nil {
					readonly = man.Dispatch.ReadonlyAgents
				}
				types := slices.Concat(dispatch.ReadOnlyTypes(cp.Client), readonly)
				if len(types) == 0 {
					rep.Skipped = append(rep.Skipped, cp.Client+" subagent-start: no canary (no read-only agent type: the manifest's dispatch.readonly_agents is empty and the client has none built in)")
					continue
				}
				r := probeSubagentStart(ctx, abs, cp, row, types[0], env, rep.Engine)
				rep.OK = rep.OK && r.Guards
				rep.Rows = append(rep.Rows, r)
				continue
			}
			if ev == "stop" || ev == "post-tool" {
				var r Row
				switch _, stopOK := stopCanaries()[cp.Client]; {
				case ev == "stop" && stopOK:
					r = probeStop(ctx, abs, cp, row, data, env, rep.Engine)
				case ev == "post-tool" && postToolCanaries()[cp.Client] != nil:
					r = probePostTool(ctx, abs, cp, row, env, rep.Engine)
				default:
					r = Row{Client: cp.Client, Event: ev, Problem: "doctor has no canary payload for this client and event, so the row is unproven"}
				}
				if !r.Guards {
					rep.OK = false
				}
				rep.Rows = append(rep.Rows, r)
				continue
			}
			if ev == "pre-dispatch" && (man.Dispatch == nil || man.Dispatch.Tasks == nil) {
				rep.Skipped = append(rep.Skipped, cp.Client+" pre-dispatch: no canary (the manifest declares no dispatch.tasks, so no brief must be refused)")
				continue
			}
			if ev == "pre-dispatch" {
				if _, ok := dispatchCanaries()[cp.Client]; !ok {
					rep.Skipped = append(rep.Skipped, cp.Client+" pre-dispatch: no canary (no recorded dispatch payload)")
					continue
				}
			} else if !slices.Contains(guardEvents, ev) {
				why := "doctor probes the pre-tool, pre-edit, pre-skill-shell, pre-dispatch, stop, post-tool and subagent-start rows, and the prompt rows' clock line"
				if dialect.AgentEvent(ev) {
					why = "its verdict depends on a binding an earlier dispatch left in the dispatch correlation store, which a canary would have to forge"
				}
				rep.Skipped = append(rep.Skipped, cp.Client+" "+ev+": no canary ("+why+")")
				continue
			}
			var tasks []string
			if man.Dispatch != nil {
				tasks = man.Dispatch.Tasks
			}
			c, ok := canaryFor(cp.Client, ev, tasks)
			if !ok {
				rep.Rows = append(rep.Rows, Row{Client: cp.Client, Event: ev, Problem: "doctor has no canary payload for this client and event, so the row is unproven"})
				rep.OK = false
				continue
			}
			r := probeRow(ctx, abs, cp, row, c, env, rep.Engine)
			if cp.Client == "opencode" && ev == "pre-tool" {
				r.Load = probeOpencodeLoad(ctx, abs, env, getenv, c.deny, c.allow, c.denyRule)
				if r.Load.Problem != "" {
					r.Problem = strings.TrimPrefix(r.Problem+"; ", "; ") + "plugin load not proven: " + r.Load.Problem
					r.Guards = false
				}
			}
			if !r.Guards {
				rep.OK = false
			}
			rep.Rows = append(rep.Rows, r)
		}
	}
	if slices.Contains(clients, "lefthook") && !slices.Contains(man.Decline, templates.StepLefthookJobs) {
		for _, r := range probeLefthook(ctx, abs, table, env, rep.Engine) {
			rep.OK = rep.OK && r.Guards
			rep.Rows = append(rep.Rows, r)
		}
	}
	return rep, nil
}

// probePrompt runs the prompt canary through the first handler of ours
// the client would run for a prompt: the row guards when the answer is
// read as an allow or a stated skip (the launcher without an engine states
// one) and carries the clock line (protocol/clock.Marker) for the model.
func probePrompt(ctx context.Context, root string, cp hookplan.Client, row registration.Row, payload func(root string) []byte, env []string, eng string) Row {
	r, p := probeClocked(ctx, root, cp, row, "", payload(root), env, eng, "prompt", []string{"allow", "skip"},
		"the prompt is refused or the row failed", "")
	r.Prompt = p
	return r
}

// probeClocked runs one canary (what: "prompt", "post-tool") through the
// first handler of ours the client runs for row and tool, for the rows
// whose job is to add context: the row guards when the answer's verdict is
// one of ok and it carries the clock line (protocol/clock.Marker). refused
// says what another verdict means, skipped what a stated skip means when
// ok does not hold "skip" ("" the same as refused). It returns the row and
// the probe (nil when the row did not fire), which the caller files under
// its event's field.
func probeClocked(ctx context.Context, root string, cp hookplan.Client, row registration.Row, tool string, payload []byte, env []string, eng, what string, ok []string, refused, skipped string) (Row, *Probe) {
	r := Row{Client: cp.Client, Event: row.Event, WantClock: true}
	h, sp, fired := spawnFor(&r, root, cp, row, tool)
	if !fired {
		return r, nil
	}
	p := runProbe(ctx, sp, h.Command, env, payload, cp.Client, row.Event, rowLimit(row), eng)
	switch {
	case p.Verdict == "skip" && skipped != "" && !slices.Contains(ok, "skip"):
		r.Problem = fmt.Sprintf("the %s canary was answered with a stated skip: %s: %s", what, skipped, p.Reason)
	case !slices.Contains(ok, p.Verdict):
		r.Problem = fmt.Sprintf("the %s canary was answered %q: %s", what, p.Verdict, refused)
		if p.Reason != "" {
			r.Problem += ": " + firstLine(p.Reason)
		}
	case !p.Clock:
		r.Problem = "the " + what + " canary's answer carries no clock line (" + strings.TrimSpace(clock.Marker) + " …): the model is not told the time"
	}
	r.Guards = r.Problem == ""
	return r, p
}

// stopCheckpointDue is the stop gate's rule (engine/stopgate
// RuleCheckpointDue) a stop pass canary may be held by and still count as
// judged (the repository's own checkpoint is due), and the rule of the
// scratch repository's block canary.
const stopCheckpointDue = "checkpoint-due"

// probeStop runs the stop canaries through the first handler of ours the
// client runs at stop: the block canary must hold the stop (the agent goes
// on) naming the stop gate's rule, the pass canary must be judged. Where
// the client's stop payload carries the last message (stopCanary.message)
// the block canary closes with a question in prose (stop-prose-question);
// where it does not (Copilot CLI, Cursor, agy) the stop gate judges only
// the checkpoint, so the block canary names a scratch repository whose
// checkpoint is due (stopScratch; checkpoint-due). The pass canary names the
// repository itself with a finished report: an allow, or a hold for the
// repository's own due checkpoint (checkpoint-due, the gate judging) is
// judged, and so, where the payload carries no message, is a stated skip
// whose whole reason is stopgate.SkipEmptyMessage (the checkpoint judged not
// due); any other stated skip, an error or a fault is not, and the problem
// quotes the first line of its reason.
func probeStop(ctx context.Context, root string, cp hookplan.Client, row registration.Row, manifest []byte, env []string, eng string) Row {
	sc := stopCanaries()[cp.Client]
	r := Row{Client: cp.Client, Event: row.Event, WantRule: "stop-prose-question"}
	if !sc.message {
		r.WantRule = stopCheckpointDue
	}
	h, sp, ok := spawnFor(&r, root, cp, row, "")
	if !ok {
		return r
	}
	run := func(cwd, msg string) *Probe {
		return runProbe(ctx, sp, h.Command, env, sc.payload(cwd, msg), cp.Client, row.Event, rowLimit(row), eng)
	}
	blockWhat := "a last message closing with a question in prose"
	if sc.message {
		r.Deny = run(root, stopQuestion)
	} else {
		blockWhat = "a stop in a scratch repository whose checkpoint is due"
		dir, err := stopScratch(ctx, manifest)
		if err != nil {
			r.Problem = "doctor could not build the block canary's scratch repository, so the row is unproven: " + err.Error()
			return r
		}
		defer os.RemoveAll(filepath.Dir(dir))
		r.Deny = run(dir, "")
	}
	r.Allow = run(root, stopDone)
	rules := strings.Split(r.Deny.Rule, ",")
	switch {
	case r.Deny.Verdict != "block":
		r.Problem = fmt.Sprintf("the block canary (%s) was answered %q, not held", blockWhat, r.Deny.Verdict)
		if r.Deny.Reason != "" {
			r.Problem += ": " + firstLine(r.Deny.Reason)
		}
	case !slices.Contains(rules, r.WantRule):
		r.Problem = fmt.Sprintf("the block canary (%s) was held by %q, not by %s: the row refuses for another reason", blockWhat, r.Deny.Rule, r.WantRule)
	case r.Allow.Verdict == "skip" && !sc.message && r.Allow.Reason == dialect.SkipPrefix+stopgate.SkipEmptyMessage:
		// The client's stop payload carries no last message, so the gate
		// judges only the checkpoint; this skip alone says it found the
		// checkpoint not due: judged.
	case r.Allow.Verdict == "error" || r.Allow.Verdict == "skip":
		r.Problem = withReason(fmt.Sprintf("the pass canary (a finished report) was answered %q: the row does not judge", r.Allow.Verdict), r.Allow.Reason)
	case (r.Allow.Verdict == "block" || r.Allow.Verdict == "halt") && r.Allow.Rule != stopCheckpointDue:
		r.Problem = fmt.Sprintf("the pass canary (a finished report) was %s by %q: the row holds a stop it must let through", map[string]string{"block": "held", "halt": "halted"}[r.Allow.Verdict], r.Allow.Rule)
	}
	r.Guards = r.Problem == ""
	return r
}

// stopScratch creates a scratch git repository in a new temporary
// directory, with no commit and the governed repository's manifest bytes
// as its one untracked file, so the stop gate finds its checkpoint due (no
// commit yet, changes present: engine/checkpoint NoCommit). It returns the
// repository's path (the caller removes its parent); errors from the
// directory or `git init` (git from this process's PATH).
func stopScratch(ctx context.Context, manifest []byte) (string, error) {
	base, err := os.MkdirTemp("", "hookwarden-doctor-")
	if err != nil {
		return "", err
	}
	dir := filepath.Join(base, "scratch")
	if out, err := exec.CommandContext(ctx, "git", "init", "-q", dir).CombinedOutput(); err != nil {
		os.RemoveAll(base)
		return "", fmt.Errorf("git init %s: %w: %s", dir, err, firstLine(string(out)))
	}
	if err := os.WriteFile(filepath.Join(dir, adopt.ManifestFile), manifest, 0o644); err != nil {
		os.RemoveAll(base)
		return "", err
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return dir, nil
}

// probePostTool runs the post-tool canary (a `git status` that ran)
// through the first handler of ours the client runs after a tool. A
// post-tool row never blocks (engine/stopgate JudgePostTool annotates
// only): it does its job when the engine answers with an allow or added
// context (a due checkpoint) carrying the clock line (Claude Code, Codex
// and Gemini CLI take added context after a tool). A stated skip (no
// engine: the checkpoint is not evaluated), a block, or an error does not.
func probePostTool(ctx context.Context, root string, cp hookplan.Client, row registration.Row, env []string, eng string) Row {
	r, p := probeClocked(ctx, root, cp, row, postToolTool(cp.Client), postToolCanaries()[cp.Client](root), env, eng, "post-tool", []string{"allow", "context"},
		"a post-tool row only annotates, and this one fails or blocks", "the checkpoint is not evaluated after a tool")
	r.Post = p
	return r
}

// probeSubagentStart runs the subagent-start canaries through the first
// handler of ours the client runs when a subagent starts (Claude Code,
// Codex; engine/dispatch JudgeStart): a subagent of the read-only agent
// type readonly must get added context opening with the read-only banner
// (dispatch.Banner; SubagentStart cannot block, so the context is the row's
// whole job), one of a type no list names must be let through without it.
// The canaries are filed as Deny (read-only) and Allow (other).
func probeSubagentStart(ctx context.Context, root string, cp hookplan.Client, row registration.Row, readonly string, env []string, eng string) Row {
	r := Row{Client: cp.Client, Event: row.Event}
	h, sp, ok := spawnFor(&r, root, cp, row, readonly)
	if !ok {
		return r
	}
	run := func(typ string) *Probe {
		return runProbe(ctx, sp, h.Command, env, subagentStartCanary(cp.Client, root, typ), cp.Client, row.Event, rowLimit(row), eng)
	}
	r.Deny, r.Allow = run(readonly), run(subagentStartOther)
	switch {
	case r.Deny.Verdict != "context":
		r.Problem = fmt.Sprintf("the read-only canary (a subagent of type %s) was answered %q, not given the read-only context", readonly, r.Deny.Verdict)
		if r.Deny.Reason != "" {
			r.Problem += ": " + firstLine(r.Deny.Reason)
		}
	case !strings.HasPrefix(r.Deny.Reason, dispatch.Banner):
		r.Problem = fmt.Sprintf("the read-only canary (a subagent of type %s) got added context without the read-only banner", readonly)
	case r.Allow.Verdict != "allow":
		r.Problem = fmt.Sprintf("the other canary (a subagent of type %s) was answered %q, not let through as it is", subagentStartOther, r.Allow.Verdict)
	}
	r.Guards = r.Problem == ""
	return r
}

// postToolTool is the tool each post-tool canary reports as run.
func postToolTool(client string) string {
	switch client {
	case "claude", "codex":
		return "Bash"
	case "gemini":
		return "run_shell_command"
	}
	return ""
}

// rowLimit returns the client's timeout of row.
func rowLimit(row registration.Row) time.Duration {
	if row.TimeoutUnit == "ms" {
		return time.Duration(row.Timeout * float64(time.Millisecond))
	}
	return time.Duration(row.Timeout * float64(time.Second))
}

// firingHandler returns the handler of ours the client runs for row's
// native event and tool (a row of row.Event preferred), or nil and why none
// fires.
func firingHandler(cp hookplan.Client, row registration.Row, tool string) (*hookplan.Hook, string) {
	var h *hookplan.Hook
	var skipped []string
	for i := range cp.Hooks {
		hk := &cp.Hooks[i]
		if !hk.Ours || hk.NativeEvent != row.NativeEvent || !selects(cp.Client, hk.Matcher, tool) {
			continue
		}
		if !hk.Fires {
			skipped = append(skipped, hk.Why)
			continue
		}
		// A client without matchers in its file (Copilot's preToolUse
		// list) runs every row of the native event for the tool: the row
		// of this event is the one that must deny.
		if h == nil || (h.Event != row.Event && hk.Event == row.Event) {
			h = hk
		}
	}
	if h != nil {
		return h, ""
	}
	problem := strings.TrimSpace("no handler of ours fires for " + row.NativeEvent + " " + tool)
	switch {
	case len(skipped) > 0:
		problem += ": " + skipped[0]
	case cp.Off != "":
		problem += ": " + cp.Off
	default:
		problem += " (the row is missing or under a matcher that does not select the tool; `hookwarden audit --plan` shows the client's hooks)"
	}
	return nil, problem
}

// spawnFor finds the handler of ours the client runs for row and tool and
// how the client spawns it, filling r's Fired, File, Line, Command and
// Spawn fields; false (with r.Problem set) when none fires or the spawn is
// not known.
func spawnFor(r *Row, root string, cp hookplan.Client, row registration.Row, tool string) (*hookplan.Hook, skewguard.RowSpawn, bool) {
	h, problem := firingHandler(cp, row, tool)
	if h == nil {
		r.Problem = problem
		return nil, skewguard.RowSpawn{}, false
	}
	r.Fired, r.File, r.Line, r.Command = true, h.File, h.Line, h.Command
	sp, err := skewguard.Spawn(cp.Client, row.Event, root, root)
	if err != nil {
		r.Problem = err.Error()
		return nil, skewguard.RowSpawn{}, false
	}
	r.Spawn, r.SpawnUnverified = sp.Source, sp.Unverified
	if len(h.Args) > 0 {
		// Claude's exec form runs command and args without a shell.
		sp.Shell, sp.Exec = nil, append([]string{h.Command}, h.Args...)
	}
	return h, sp, true
}

// probeRow runs the canaries through the first handler of ours the client
// would run for the canary's tool.
func probeRow(ctx context.Context, root string, cp hookplan.Client, row registration.Row, c canary, env []string, eng string) Row {
	r := Row{Client: cp.Client, Event: row.Event, WantRule: c.denyRule}
	h, sp, ok := spawnFor(&r, root, cp, row, c.tool)
	if !ok {
		return r
	}
	run := func(subject string) *Probe {
		return runProbe(ctx, sp, h.Command, env, c.payload(root, sp.Dir, subject), cp.Client, row.Event, rowLimit(row), eng)
	}
	r.Deny, r.Allow = run(c.deny), run(c.allow)
	judge(&r, c.denyWhat, c.allowWhat)
	return r
}

// judge sets r's Problem and Guards from its deny and allow canaries
// (denyWhat and allowWhat name them): the deny canary must be denied by
// r.WantRule, the allow canary must be judged (allowed, or denied by a
// policy rule, not a fault: faultRules).
func judge(r *Row, denyWhat, allowWhat string) {
	switch {
	case r.Deny.Verdict != "deny":
		r.Problem = fmt.Sprintf("the deny canary (%s) was answered %q, not denied", denyWhat, r.Deny.Verdict)
	case r.Deny.Rule != r.WantRule:
		r.Problem = fmt.Sprintf("the deny canary (%s) was denied by %q, not by %s: the row refuses for another reason", denyWhat, r.Deny.Rule, r.WantRule)
	case r.Allow.Verdict == "error" || r.Allow.Verdict == "skip":
		r.Problem = withReason(fmt.Sprintf("the allow canary (%s) was answered %q: the row does not judge", allowWhat, r.Allow.Verdict), r.Allow.Reason)
	case r.Allow.Verdict == "deny" && (r.Allow.Rule == "" || slices.Contains(faultRules, r.Allow.Rule)):
		r.Problem = fmt.Sprintf("the allow canary (%s) was refused by %q, a fault: the row refuses every call", allowWhat, r.Allow.Rule)
	}
	if r.Problem != "" && len(r.Deny.Reason) > 0 && r.Deny.Verdict != "deny" {
		r.Problem += ": " + firstLine(r.Deny.Reason)
	}
	r.Guards = r.Problem == ""
}

// faultRules are rule ids of a deny that says the row cannot judge, not
// that the call is refused by policy.
var faultRules = []string{"invalid-input", "launcher", "settings-invalid", "workspace-unreadable", "budget-exceeded", "dispatch-store", "checkpoint-unavailable"}

// ruleRE finds the rule id of a deny reason: the policy's "[BLOCKED BY
// hookwarden:RULE]" or the stop gate and checkpoint's leading "RULE: ".
var ruleRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\[BLOCKED BY hookwarden:([a-z0-9-]+)\]|^\s*([a-z][a-z0-9-]*): `)
})

// runProbe runs one canary and reads the answer in the client's dialect.
func runProbe(ctx context.Context, sp skewguard.RowSpawn, command string, env []string, payload []byte, client, event string, limit time.Duration, eng string) *Probe {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := sp.Command(ctx, command, env)
	cmd.Stdin = bytes.NewReader(payload)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	start := time.Now()
	err := cmd.Run()
	p := &Probe{Millis: float64(time.Since(start).Microseconds()) / 1000}
	code := 0
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		p.Verdict, p.Reason = "error", fmt.Sprintf("no answer within the client's %s timeout", limit)
		return p
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		p.Verdict, p.Reason = "error", "cannot start: "+err.Error()
		return p
	}
	p.Verdict, p.Reason = readAnswer(client, event, code, stdout.Bytes(), stderr.String())
	p.Clock = strings.Contains(stdout.String(), clock.Marker)
	if m := ruleRE().FindStringSubmatch(p.Reason); m != nil && (p.Verdict == "deny" || p.Verdict == "block") {
		p.Rule = m[1] + m[2]
	}
	p.AnsweredBy = answeredBy(stderr.String(), p, eng)
	return p
}

// readAnswer reads a hook's answer to a call of event as client reads it
// (protocol/dialect's encode table is the source): agy a JSON decision on
// stdout (exit 0); Cline {"cancel":…} on stdout (exit 0); every other client exit 0 allow (a stated skip when
// stderr holds "hookwarden: skip:"), dialect.DenyExit (2; lefthook 1) deny
// with the reason on stderr. A stop answer is read by readStop, a post-tool
// answer's added context by readContext. Anything else is "error".
func readAnswer(client, event string, code int, stdout []byte, stderr string) (string, string) {
	skip := strings.Contains(stderr, "hookwarden: skip:")
	if event == "stop" {
		return readStop(client, code, stdout, stderr, skip)
	}
	if (event == "post-tool" || event == "subagent-start") && code == 0 && !skip {
		if text, ok := readContext(stdout); ok {
			return "context", text
		}
	}
	if client == "copilot" {
		// Copilot CLI 1.0.102 (protocol/dialect copilot.go): stdout
		// {"permissionDecision":"deny","permissionDecisionReason":R}
		// denies with exit 0 or 2; exit 2 alone denies without the reason
		// (read from stderr below); exit 1 denies as "hook errored", a
		// fault, read as "error".
		var a struct{ PermissionDecision, PermissionDecisionReason string }
		if (code == 0 || code == 2) && json.Unmarshal(bytes.TrimSpace(stdout), &a) == nil && a.PermissionDecision == "deny" {
			return "deny", a.PermissionDecisionReason
		}
	}
	switch client {
	case "cline":
		// Cline (protocol/dialect cline.go): one {"cancel":…} object on
		// stdout with exit 0; anything else lets Cline's call through, a
		// fault. Its one hook file runs every cline row, so the row that
		// does not match the canary's tool adds its stated skip line
		// (dialect.UnjudgedTool); another skip line is the answer's.
		var a struct {
			Cancel       *bool
			ErrorMessage string
		}
		if code != 0 || json.Unmarshal(bytes.TrimSpace(stdout), &a) != nil || a.Cancel == nil {
			return "error", fmt.Sprintf("exit %d, stdout not one {\"cancel\":…} answer (Cline lets the call through): %s", code, firstLine(string(stdout)+stderr))
		}
		if *a.Cancel {
			return "deny", a.ErrorMessage
		}
		for _, l := range strings.Split(stderr, "\n") {
			if strings.HasPrefix(l, dialect.SkipPrefix) && !strings.Contains(l, " judges only tools matching ") {
				return "skip", l
			}
		}
		return "allow", ""
	case "agy":
		var a struct{ Decision, Reason string }
		if code != 0 || json.Unmarshal(bytes.TrimSpace(stdout), &a) != nil {
			return "error", fmt.Sprintf("exit %d, stdout not one JSON decision: %s", code, firstLine(string(stdout)+stderr))
		}
		switch {
		case a.Decision == "deny":
			return "deny", a.Reason
		case a.Decision == "allow" && skip:
			return "skip", firstLine(stderr)
		case a.Decision == "allow":
			return "allow", ""
		}
		return "error", "decision " + a.Decision
	default:
		switch {
		case code == dialect.DenyExit(client):
			return "deny", stderr
		case code == 0 && skip:
			return "skip", firstLine(stderr)
		case code == 0:
			return "allow", ""
		}
	}
	return "error", fmt.Sprintf("exit %d: %s", code, firstLine(stderr))
}

// readStop reads a stop answer as client reads it: "block" when the stop
// is refused and the agent goes on (Claude Code, Codex, Gemini CLI, Qwen
// Code, Droid: exit 2 with the reason on stderr, or {"decision":"block"};
// GitHub Copilot CLI 1.0.102: {"decision":"block","reason"} on exit 0;
// Cursor: {"followup_message"} on exit 0; agy: {"decision":"continue"}),
// "halt" when the session ends with a reason ({"continue":false,
// "stopReason"}; Copilot, Cursor and agy: the halt line on stderr),
// "skip", "allow", or "error" (protocol/dialect Encode, encodeCopilot,
// encodeCursor, agyBlock).
func readStop(client string, code int, stdout []byte, stderr string, skip bool) (string, string) {
	var a struct {
		Decision        string `json:"decision"`
		Reason          string `json:"reason"`
		Continue        *bool  `json:"continue"`
		StopReason      string `json:"stopReason"`
		FollowupMessage string `json:"followup_message"`
	}
	out := bytes.TrimSpace(stdout)
	parsed := len(out) > 0 && json.Unmarshal(out, &a) == nil
	if len(out) > 0 && !parsed {
		return "error", fmt.Sprintf("exit %d, stdout not JSON: %s", code, firstLine(string(stdout)))
	}
	halt := strings.Contains(stderr, "hookwarden: halt:")
	switch {
	case client == "agy" && (code != 0 || !parsed):
		return "error", fmt.Sprintf("exit %d, stdout not one JSON decision: %s", code, firstLine(string(stdout)+stderr))
	case client == "agy" && a.Decision == "continue":
		return "block", a.Reason
	case client == "agy" && a.Decision != "allow":
		return "error", "decision " + a.Decision
	case code == 2 && client != "agy" && client != "copilot" && client != "cursor":
		return "block", stderr
	case code != 0:
		return "error", fmt.Sprintf("exit %d: %s", code, firstLine(stderr))
	case a.Decision == "block" && client != "agy":
		return "block", a.Reason
	case client == "cursor" && a.FollowupMessage != "":
		return "block", a.FollowupMessage
	case a.Continue != nil && !*a.Continue:
		return "halt", a.StopReason
	case halt:
		return "halt", firstLine(stderr)
	case skip:
		return "skip", firstLine(stderr)
	}
	return "allow", ""
}

// readContext returns the added context of a post-tool answer on stdout:
// {"hookSpecificOutput":{"additionalContext":T}} (Claude Code's and Codex's
// PostToolUse, Gemini CLI's AfterTool; protocol/dialect contextJSON).
func readContext(stdout []byte) (string, bool) {
	var a struct {
		HookSpecificOutput struct {
			AdditionalContext *string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if json.Unmarshal(bytes.TrimSpace(stdout), &a) != nil || a.HookSpecificOutput.AdditionalContext == nil {
		return "", false
	}
	return *a.HookSpecificOutput.AdditionalContext, true
}

// answeredBy names what answered, from the launcher's own stderr lines
// (skewguard/hook.sh): the standalone interceptor, the launcher
// itself (no engine and no fallback), or the engine the launcher hands
// calls to.
func answeredBy(stderr string, p *Probe, eng string) string {
	switch {
	case strings.Contains(stderr, "the standalone interceptor judged this call"):
		return "interceptor (.hookwarden/interceptor.py, python3): no installed engine serves the row"
	case p.Rule == "launcher" || strings.Contains(stderr, "hookwarden: skip: launcher:"):
		return "launcher: no engine and no fallback"
	case p.Verdict == "error":
		return "nothing (the row failed)"
	case eng == "":
		return "engine (not found on PATH)"
	}
	return "engine " + eng
}

// engine returns the candidate the launcher tries first: $HOOKWARDEN_BIN,
// else the first hookwarden in an absolute PATH entry outside the
// repository (skewguard's probe protocol, step 1); "" when none exists.
func engine(getenv func(string) string, root string) string {
	if b := getenv("HOOKWARDEN_BIN"); b != "" {
		return b
	}
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		if !filepath.IsAbs(dir) || dir == root || strings.HasPrefix(dir, root+string(filepath.Separator)) {
			continue
		}
		p := filepath.Join(dir, "hookwarden")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// selects reports whether client runs a handler under matcher for tool:
// the client's own matcher semantics (clientjson.Selects; agy's hooks.json
// has Claude's shape), else an RE2 search (opencode's rendered plugin
// matches the tool name with the row's pattern).
func selects(client, matcher, tool string) bool {
	switch client {
	case "claude", "codex", "gemini":
		return clientjson.Selects(client, matcher, tool)
	case "agy":
		return clientjson.Selects("claude", matcher, tool)
	}
	if matcher == "" {
		return true
	}
	re, err := regexp.Compile(matcher)
	return err == nil && re.MatchString(tool)
}

// withReason returns problem followed by ": " and the first line of the
// canary's reason (a stated skip's line, an error's cause), or problem
// alone when there is none, so the user sees why the row did not judge.
func withReason(problem, reason string) string {
	if r := firstLine(reason); r != "" {
		return problem + ": " + r
	}
	return problem
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
