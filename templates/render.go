package templates

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/hookwarden/hookwarden/internal/buildinfo"
	"github.com/hookwarden/hookwarden/internal/clientfiles"
	"github.com/hookwarden/hookwarden/internal/clientname"
	"github.com/hookwarden/hookwarden/policy"
	"github.com/hookwarden/hookwarden/protocol/clock"
	"github.com/hookwarden/hookwarden/protocol/dialect"
	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/protocol/verdict"
	"github.com/hookwarden/hookwarden/skewguard"
)

//go:embed files/interceptor.py
var interceptorTemplate []byte

//go:embed files/hookwarden.js
var opencodeTemplate []byte

// Paths of the rendered files, slash-separated and relative to the
// repository root (DESIGN.md, "Files in a governed repository").
const (
	LauncherPath       = ".hookwarden/hook.sh"
	PyLauncherPath     = ".hookwarden/hook.py"
	InterceptorPath    = ".hookwarden/interceptor.py"
	AgyPluginDir       = clientfiles.AgyPluginDir
	AgyPluginJSONPath  = AgyPluginDir + "/plugin.json"
	AgyHooksJSONPath   = AgyPluginDir + "/hooks.json"
	AgyLauncherPath    = AgyPluginDir + "/hook.sh"
	OpencodePluginPath = clientfiles.OpencodePlugin
	// OpencodeCanaryEnv is the environment variable doctor sets when it
	// starts the installed opencode to prove the rendered plugin loaded:
	// an absolute directory holding canary.json ({"commands": [TEXT…]});
	// the plugin, once its host loaded it (opencode 1.x: the default
	// export's server(); 2.x: its setup()), runs each command through the
	// very hook it registered and writes result-<api>.json there (created,
	// never overwritten). Unset, the plugin does nothing of the kind.
	OpencodeCanaryEnv = "HOOKWARDEN_OPENCODE_CANARY"
	// CopilotHooksPath is GitHub Copilot CLI's hook file in a governed
	// repository (internal/clientfiles.CopilotHooks): Copilot CLI runs
	// every *.json in .github/hooks at the git root (see copilotHooks), so
	// the file is ours alone and no operator byte is merged into.
	CopilotHooksPath = clientfiles.CopilotHooks
	// KiroHooksPath is Kiro CLI's hook file in a governed repository
	// (internal/clientfiles.KiroHooks): a v3 hooks file of .kiro/hooks/,
	// which applies to every agent of the workspace, so the file is ours
	// alone and no operator byte is merged into.
	KiroHooksPath = clientfiles.KiroHooks
)

type ruleData struct {
	ID       string   `json:"id"`
	Pattern  string   `json:"pattern"`
	Requires []string `json:"requires"`
}

type normData struct {
	Pattern     string `json:"pattern"`
	Replacement string `json:"replacement"`
}

type preToolData struct {
	Matcher      string   `json:"matcher"`
	NativeEvents []string `json:"native_events"`
	// BudgetMs bounds the interceptor's wait for stdin to end, in
	// milliseconds: the engine's budget for the row (registration table).
	BudgetMs int `json:"budget_ms"`
}

// interceptorData is the data block rendered into interceptor.py and the
// opencode plugin: every rule, reason and bound comes from policy, dialect
// and registration, never from a hand-kept copy.
type interceptorData struct {
	Rules            []ruleData             `json:"rules"`
	Reasons          map[string]string      `json:"reasons"`
	Normalise        []normData             `json:"normalise"`
	MaxCommandBytes  int                    `json:"max_command_bytes"`
	MaxLineBytes     int                    `json:"max_line_bytes"`
	MaxReasonBytes   int                    `json:"max_reason_bytes"`
	MaxInputBytes    int                    `json:"max_input_bytes"`
	ASCIISpace       string                 `json:"ascii_space"`
	BoundCommandRule string                 `json:"bound_command_rule"`
	BoundLineRule    string                 `json:"bound_line_rule"`
	SkipPrefix       string                 `json:"skip_prefix"`
	LefthookAllow    string                 `json:"lefthook_allow"`
	PreTool          map[string]preToolData `json:"pre_tool"`
	MaxDepth         int                    `json:"max_depth"`
	// MaxWorkspacePaths bounds Cursor's workspace_roots (dialect.MaxWorkspacePaths).
	MaxWorkspacePaths int    `json:"max_workspace_paths"`
	InvalidInput      string `json:"invalid_input"`
	UnreadableInput   string `json:"unreadable_input"`
	UnjudgedTool      string `json:"unjudged_tool"`
	// opencode plugin only.
	Shell              string `json:"shell,omitempty"`
	OpencodeDeadlineMs int    `json:"opencode_deadline_ms,omitempty"`
	InvalidInputJS     string `json:"invalid_input_js,omitempty"`
	DeniedNoReason     string `json:"denied_no_reason,omitempty"`
	LauncherTimeout    string `json:"launcher_timeout,omitempty"`
	LauncherFailed     string `json:"launcher_failed,omitempty"`
	JudgeTimeout       string `json:"judge_timeout,omitempty"`
	JudgeFailed        string `json:"judge_failed,omitempty"`
	// ShellTools is the opencode pre-tool row's matcher (an RE2 pattern
	// JavaScript reads the same way): the shell tool's names, bash on
	// opencode 1.x, shell on 2.x.
	ShellTools string `json:"shell_tools,omitempty"`
	// NoToolHook is the v2 setup's refusal when the host's plugin context
	// has no tool.hook (no shell call could be judged).
	NoToolHook string `json:"no_tool_hook,omitempty"`
	// CanaryEnv names the environment variable through which doctor asks
	// the loaded plugin to run its canary (OpencodeCanaryEnv).
	CanaryEnv string `json:"canary_env,omitempty"`
}

func buildInterceptorData(t *registration.Table) (interceptorData, error) {
	d := interceptorData{
		Reasons:           map[string]string{},
		MaxCommandBytes:   policy.MaxCommandBytes,
		MaxLineBytes:      policy.MaxLineBytes,
		MaxReasonBytes:    policy.MaxReasonBytes,
		MaxInputBytes:     dialect.MaxInputBytes,
		MaxDepth:          dialect.MaxDepth,
		MaxWorkspacePaths: dialect.MaxWorkspacePaths,
		ASCIISpace:        policy.ASCIISpace,
		BoundCommandRule:  policy.RuleScanBoundCommand,
		BoundLineRule:     policy.RuleScanBoundLine,
		SkipPrefix:        dialect.SkipPrefix,
		LefthookAllow:     dialect.LefthookAllowMarker,
		PreTool:           map[string]preToolData{},
		InvalidInput:      verdict.InvalidInputReason("decode", "%s", "pre-tool", "%s"),
		UnreadableInput:   verdict.InvalidInputReason("read", "%s", "pre-tool", "%s"),
		UnjudgedTool:      dialect.UnjudgedTool("%s", "pre-tool", "%s"),
	}
	for _, r := range policy.TextRules() {
		req := r.Requires
		if req == nil {
			req = []string{}
		}
		d.Rules = append(d.Rules, ruleData{ID: r.ID, Pattern: r.Pattern, Requires: req})
	}
	if len(d.Rules) == 0 {
		return d, fmt.Errorf("hookwarden: render: policy.TextRules is empty; refusing to render an interceptor that judges nothing")
	}
	for _, id := range policy.RuleIDs() {
		reason, ok := policy.Refusal(id)
		if !ok {
			return d, fmt.Errorf("hookwarden: render: policy rule %s has no refusal text", id)
		}
		d.Reasons[id] = reason
	}
	for _, n := range policy.Normalisations() {
		d.Normalise = append(d.Normalise, normData{Pattern: n.Pattern, Replacement: n.Replacement})
	}
	for _, r := range t.Rows {
		if r.Event != "pre-tool" {
			continue
		}
		native := r.NativeEvents()
		if r.Client == "lefthook" {
			// lefthook forwards the agent's own payload (protocol/dialect
			// package doc): hook_event_name, when present, is PreToolUse or
			// BeforeTool.
			native = []string{"PreToolUse", "BeforeTool"}
		}
		d.PreTool[r.Client] = preToolData{Matcher: r.Matcher, NativeEvents: native, BudgetMs: r.BudgetMillis}
	}
	return d, nil
}

type launcherRow struct {
	DeadlineMs int    `json:"deadline_ms"`
	TimeoutMs  int    `json:"timeout_ms"`
	BudgetMs   int    `json:"budget_ms"`
	Clock      string `json:"clock,omitempty"`
}

// clockAnswer returns the answer (stdout, without its line break) that row
// gives when it carries the clock line, with clock.Template in place of the
// line, and whether the row carries it at all: the engine's own encoder
// (dialect.Encode of an allow with the line added) decides both, so the
// launchers answer these rows exactly as the engine would, with the time
// read from date(1) or Python's time module. An answer that a single-quoted
// sh word cannot hold is an error (a build defect).
func clockAnswer(row registration.Row) (string, bool, error) {
	a := dialect.Encode(row, verdict.Verdict{Kind: verdict.Allow, Added: clock.Template})
	if !bytes.Contains(a.Stdout, []byte(clock.FieldUTC)) {
		return "", false, nil
	}
	out := strings.TrimSuffix(string(a.Stdout), "\n")
	if strings.ContainsAny(out, "'\n") || strings.Count(out, clock.FieldUTC) != 1 || strings.Count(out, clock.FieldLocal) != 1 || strings.Count(out, clock.FieldZone) != 1 {
		return "", false, fmt.Errorf("hookwarden: render: the clock answer of %s %s cannot be rendered into the launchers", row.Client, row.Event)
	}
	return out, true, nil
}

type launcherData struct {
	Version        string                 `json:"version"`
	Rows           map[string]launcherRow `json:"rows"`
	ProbeMs        int                    `json:"probe_ms"`
	MaxInputBytes  int                    `json:"max_input_bytes"`
	MaxReasonBytes int                    `json:"max_reason_bytes"`
	SkipPrefix     string                 `json:"skip_prefix"`
	GuardWords     []string               `json:"guard_words"`
}

// jsonText marshals v compactly without HTML escaping.
func jsonText(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// substitute replaces the one occurrence of token in tmpl with value; a
// template without exactly one occurrence is a build defect.
func substitute(tmpl []byte, token string, value []byte) ([]byte, error) {
	if n := bytes.Count(tmpl, []byte(token)); n != 1 {
		return nil, fmt.Errorf("hookwarden: render: template holds %s %d times, want once", token, n)
	}
	return bytes.Replace(tmpl, []byte(token), value, 1), nil
}

// pythonString returns data as a Python string literal: a JSON string is one
// (Python reads \" \\ \n \t \uXXXX alike; Go never writes \/).
func pythonString(data []byte) ([]byte, error) {
	return jsonText(string(data))
}

// substitutePython writes v as JSON inside a Python string literal in place
// of token in tmpl (the Python templates parse it with json.loads).
func substitutePython(tmpl []byte, token string, v any) ([]byte, error) {
	data, err := jsonText(v)
	if err != nil {
		return nil, err
	}
	lit, err := pythonString(data)
	if err != nil {
		return nil, err
	}
	return substitute(tmpl, token, lit)
}

// renderInterceptor returns the body (no header) of interceptor.py.
func renderInterceptor(d interceptorData) ([]byte, error) {
	return substitutePython(interceptorTemplate, "__HOOKWARDEN_DATA__", d)
}

// renderOpencode returns the body (no header) of the opencode plugin.
func renderOpencode(d interceptorData, t *registration.Table) ([]byte, error) {
	row, ok := t.Lookup("opencode", "pre-tool")
	if !ok {
		return nil, fmt.Errorf("hookwarden: render: the registration table has no opencode pre-tool row")
	}
	d.Shell = "/bin/sh"
	d.ShellTools = row.Matcher
	d.CanaryEnv = OpencodeCanaryEnv
	d.NoToolHook = "[hookwarden] this OpenCode's plugin context has no tool.hook, so the hookwarden plugin cannot judge shell calls; it refuses to load rather than load and guard nothing"
	d.OpencodeDeadlineMs = int(row.ClientTimeout().Milliseconds()) - 500
	d.InvalidInputJS = fmt.Sprintf(d.InvalidInput, "opencode", "member output.args.command is missing or not a string")
	d.DeniedNoReason = "[BLOCKED BY hookwarden:launcher] the hookwarden launcher denied the call without a reason"
	d.LauncherTimeout = fmt.Sprintf("[BLOCKED BY hookwarden:launcher] the hookwarden launcher did not answer within %d ms; the call is refused because it was not judged", d.OpencodeDeadlineMs)
	d.LauncherFailed = "[BLOCKED BY hookwarden:launcher] the hookwarden launcher failed; the call is refused because it was not judged"
	d.JudgeTimeout = fmt.Sprintf("[BLOCKED BY hookwarden:plugin] the built-in rules did not finish judging this command within %d ms; the call is refused because it was not judged", d.OpencodeDeadlineMs)
	d.JudgeFailed = "[BLOCKED BY hookwarden:plugin] the built-in rules could not be run; the call is refused because it was not judged"
	data, err := jsonText(d)
	if err != nil {
		return nil, err
	}
	return substitute(opencodeTemplate, "__HOOKWARDEN_DATA__", data)
}

// renderShLauncher returns the body (no header) of hook.sh: the template
// with the rows (";client/event=deadline_ms;" for every row, skewguard.DeadlineMillis),
// the clock rows (one `client/event) hw_tpl='ANSWER' ;;` case arm per row
// that carries the clock line, clockAnswer), the stated-skip prefix and the
// probe cap substituted.
func renderShLauncher(t *registration.Table) ([]byte, error) {
	var rows bytes.Buffer
	rows.WriteByte(';')
	for _, r := range t.Rows {
		if !registration.ValidName(r.Client) || !registration.ValidName(r.Event) {
			return nil, fmt.Errorf("hookwarden: render: row %q %q is not two ^[a-z-]+$ names", r.Client, r.Event)
		}
		fmt.Fprintf(&rows, "%s/%s=%d;", r.Client, r.Event, skewguard.DeadlineMillis(r))
	}
	var clocks bytes.Buffer
	for _, r := range t.Rows {
		tpl, ok, err := clockAnswer(r)
		if err != nil {
			return nil, err
		}
		if ok {
			fmt.Fprintf(&clocks, "\t%s/%s) hw_tpl='%s' ;;\n", r.Client, r.Event, tpl)
		}
	}
	if bytes.ContainsAny([]byte(dialect.SkipPrefix), "'\\\n") {
		return nil, fmt.Errorf("hookwarden: render: the stated-skip prefix %q cannot be a single-quoted sh word", dialect.SkipPrefix)
	}
	out, err := substitute([]byte(skewguard.ShSource()), "__HOOKWARDEN_ROWS__", rows.Bytes())
	if err != nil {
		return nil, err
	}
	if out, err = substitute(out, "__HOOKWARDEN_CLOCK_ROWS__\n", clocks.Bytes()); err != nil {
		return nil, err
	}
	if out, err = substitute(out, "__HOOKWARDEN_SKIP_PREFIX__", []byte(dialect.SkipPrefix)); err != nil {
		return nil, err
	}
	if out, err = substitute(out, "__HOOKWARDEN_MAX_INPUT__", []byte(fmt.Sprint(dialect.MaxInputBytes))); err != nil {
		return nil, err
	}
	words, err := guardWordPatterns(policy.GuardFileWords())
	if err != nil {
		return nil, err
	}
	if out, err = substitute(out, "__HOOKWARDEN_GUARD_WORDS__", []byte(words)); err != nil {
		return nil, err
	}
	return substitute(out, "__HOOKWARDEN_PROBE_MS__", []byte(fmt.Sprint(skewguard.ProbeMillis)))
}

// guardWordPatterns returns words (ASCII lower case, as policy.GuardFileWords
// gives them) as sh case patterns joined by " | ", each matching a string
// that contains the word in any ASCII case: "*[Hh][Oo]...*". A word may hold
// only a-z, 0-9, ".", "_", "-" and "/" (bytes that stand for themselves in an
// unquoted pattern); any other byte is an error.
func guardWordPatterns(words []string) (string, error) {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteByte('*')
		for j := 0; j < len(w); j++ {
			switch c := w[j]; {
			case c >= 'a' && c <= 'z':
				b.WriteString("[" + string(c-'a'+'A') + string(c) + "]")
			case c >= '0' && c <= '9', c == '.', c == '_', c == '-', c == '/':
				b.WriteByte(c)
			default:
				return "", fmt.Errorf("hookwarden: render: guard word %q holds %q, which the sh launcher's case pattern cannot hold", w, c)
			}
		}
		b.WriteByte('*')
	}
	return b.String(), nil
}

// renderLauncher returns the body (no header) of hook.py.
func renderLauncher(t *registration.Table) ([]byte, error) {
	d := launcherData{
		Version:        buildinfo.Current(),
		Rows:           map[string]launcherRow{},
		ProbeMs:        skewguard.ProbeMillis,
		MaxInputBytes:  dialect.MaxInputBytes,
		MaxReasonBytes: policy.MaxReasonBytes,
		SkipPrefix:     dialect.SkipPrefix,
		GuardWords:     policy.GuardFileWords(),
	}
	for _, r := range t.Rows {
		tpl, _, err := clockAnswer(r)
		if err != nil {
			return nil, err
		}
		d.Rows[r.Client+" "+r.Event] = launcherRow{
			DeadlineMs: skewguard.DeadlineMillis(r),
			TimeoutMs:  int(r.ClientTimeout().Milliseconds()),
			BudgetMs:   r.BudgetMillis,
			Clock:      tpl,
		}
	}
	return substitutePython([]byte(skewguard.PySource()), "__HOOKWARDEN_TABLE__", d)
}

// agyHooks renders the body of the Antigravity plugin's hooks.json (without
// the _generated_by member): the Claude-compatible nested schema
// {"hooks":{EVENT:[{"matcher":M,"hooks":[{"type":"command","command":C,"timeout":T}]}]}}
// that agy reads (websentry-ai/setup pull 104, "Verified contract", agy
// 1.0.5), one entry per agy row of the table, commands relative to the
// plugin directory (agy runs hook commands from the directory holding
// hooks.json; issue 4). The agent-traffic rows (agy pre-dispatch) are
// included only with dispatch, a manifest with a dispatch: section (issue
// 19).
func agyHooks(t *registration.Table, dispatch bool) (map[string]any, error) {
	hooks := map[string][]any{}
	for _, r := range t.ForClient("agy") {
		if dialect.AgentEvent(r.Event) && !dispatch {
			continue
		}
		cmd, err := RegistrationCommand("agy", r.Event)
		if err != nil {
			return nil, err
		}
		handler := map[string]any{"type": "command", "command": cmd, "timeout": r.Timeout}
		if r.NativeEvent == "PreInvocation" {
			// PreInvocation takes a flat list of handlers, no matcher
			// groups (design record 003, "The agy (Antigravity) dialect":
			// PreInvocation, PostInvocation and Stop "are a flat handler
			// list with no matcher"; HoangP8/tokless issue 40: a grouped
			// PreInvocation entry does not run). Stop keeps the group form
			// until an agy is run here (README, "agy: what the sources say").
			hooks[r.NativeEvent] = append(hooks[r.NativeEvent], handler)
			continue
		}
		group := map[string]any{"hooks": []any{handler}}
		if r.Matcher != "" {
			group["matcher"] = r.Matcher
		}
		hooks[r.NativeEvent] = append(hooks[r.NativeEvent], group)
	}
	return map[string]any{"hooks": hooks}, nil
}

// copilotHooks renders the body of .github/hooks/hookwarden.json (without
// the _generated_by member, which Copilot CLI 1.0.102 accepts: observed) in
// Copilot CLI's native schema {"version":1,"hooks":{EVENT:[{"type":
// "command","bash":C,"timeoutSec":T}]}} (docs.github.com, "Hooks
// configuration" for Copilot CLI; measured on 1.0.102, protocol/dialect
// copilot.go), one entry per copilot row of the table, in table order. The
// native schema has no matcher: every preToolUse entry runs for every
// tool, and the engine answers a stated skip for the tools a row does not
// judge.
func copilotHooks(t *registration.Table) (map[string]any, error) {
	hooks := map[string][]any{}
	for _, r := range t.ForClient("copilot") {
		cmd, err := RegistrationCommand("copilot", r.Event)
		if err != nil {
			return nil, err
		}
		hooks[r.NativeEvent] = append(hooks[r.NativeEvent], map[string]any{"type": "command", "bash": cmd, "timeoutSec": r.Timeout})
	}
	return map[string]any{"version": 1, "hooks": hooks}, nil
}

// kiroHooks renders the body of .kiro/hooks/hookwarden.json in Kiro CLI's
// v3 hooks schema {"version":"v1","hooks":[{"name":N,"trigger":T,
// "matcher":M,"action":{"type":"command","command":C},"timeout":S,
// "enabled":true}]} (kiro.dev/docs/cli/v3/hooks; protocol/dialect kiro.go),
// one entry per kiro row of the table, in table order, named
// "hookwarden-EVENT". The timeout is the row's, in seconds (the page's
// example reads "timeout": 30; the unit is not spelled out there, the v2
// agent hooks took timeout_ms). Whether Kiro accepts the render header's
// _generated_by member beside version and hooks is not verified.
func kiroHooks(t *registration.Table) (map[string]any, error) {
	var hooks []any
	for _, r := range t.ForClient("kiro") {
		cmd, err := RegistrationCommand("kiro", r.Event)
		if err != nil {
			return nil, err
		}
		h := map[string]any{"name": "hookwarden-" + r.Event, "trigger": r.NativeEvent,
			"action": map[string]any{"type": "command", "command": cmd}, "timeout": r.Timeout, "enabled": true}
		if r.Matcher != "" {
			h["matcher"] = r.Matcher
		}
		hooks = append(hooks, h)
	}
	return map[string]any{"version": "v1", "hooks": hooks}, nil
}

// Render returns the files to write for a repository governing the named
// clients (as in .hookwarden.yaml `clients`), sorted by Path. The launcher
// (.hookwarden/hook.sh, the POSIX sh launcher every Linux and macOS row
// calls), its Python form (.hookwarden/hook.py, which rows written by earlier
// versions call: LegacyRegistrationCommands) and the standalone interceptor
// (.hookwarden/interceptor.py) are always included; the Antigravity plugin
// (.agents/plugins/hookwarden/plugin.json, hooks.json and a byte-identical
// copy of hook.sh) when clients contains "agy"; the opencode plugin
// (.opencode/plugins/hookwarden.js) when it contains "opencode"; GitHub
// Copilot CLI's hook file (.github/hooks/hookwarden.json) when it contains
// "copilot"; Kiro CLI's hook file (.kiro/hooks/hookwarden.json) when it
// contains "kiro"; Cline's executable hook file (ClineHookPath, Mode 0o755,
// the header on its second line) when it contains "cline"; the lefthook jobs (.hookwarden/lefthook.yml,
// LefthookJobsPath) when it contains "lefthook". Every Body
// starts with its render header (see ParseHeader; Cline's file:
// ParseHeaderAt); Mode is 0o644 (the files are run through /bin/sh, python3
// or node, never executed directly) except Cline's file, 0o755 (Cline runs
// it itself).
// Errors: an unknown client name, or a template or data defect, wrapped as
// "hookwarden: render: …".
func Render(clients []string) ([]File, error) { return RenderFor(clients, false) }

// RenderFor is Render for a manifest with (dispatch true) or without a
// dispatch: section: with one, the Antigravity plugin's hooks.json also
// carries the agent-traffic rows (agy pre-dispatch), which adopt registers
// only then (issue 19).
func RenderFor(clients []string, dispatch bool) ([]File, error) {
	t, err := registration.Default()
	if err != nil {
		return nil, fmt.Errorf("hookwarden: render: %w", err)
	}
	want := map[string]bool{}
	for _, c := range clients {
		if !clientname.Known(c) {
			return nil, fmt.Errorf("hookwarden: render: unknown client %q", c)
		}
		want[c] = true
	}
	d, err := buildInterceptorData(t)
	if err != nil {
		return nil, err
	}
	launcher, err := renderLauncher(t)
	if err != nil {
		return nil, err
	}
	interceptor, err := renderInterceptor(d)
	if err != nil {
		return nil, err
	}
	shLauncher, err := renderShLauncher(t)
	if err != nil {
		return nil, err
	}
	launcherFile := withHeader(shLauncher, "# ")
	files := []File{
		{Path: LauncherPath, Body: launcherFile, Mode: 0o644, Step: StepLauncher},
		{Path: PyLauncherPath, Body: withHeader(launcher, "# "), Mode: 0o644, Step: StepLauncher},
		{Path: InterceptorPath, Body: withHeader(interceptor, "# "), Mode: 0o644, Step: StepInterceptor},
	}
	if want["agy"] {
		hooks, err := agyHooks(t, dispatch)
		if err != nil {
			return nil, err
		}
		hooksJSON, err := jsonWithHeader(hooks)
		if err != nil {
			return nil, err
		}
		pluginJSON, err := jsonWithHeader(map[string]any{
			"name":        "hookwarden",
			"version":     buildinfo.Current(),
			"description": "hookwarden: the repository's hook policy for Antigravity (rendered by hookwarden adopt; do not edit by hand)",
		})
		if err != nil {
			return nil, err
		}
		files = append(files,
			File{Path: AgyPluginJSONPath, Body: pluginJSON, Mode: 0o644, Step: StepAgyPlugin},
			File{Path: AgyHooksJSONPath, Body: hooksJSON, Mode: 0o644, Step: StepAgyPlugin},
			File{Path: AgyLauncherPath, Body: append([]byte(nil), launcherFile...), Mode: 0o644, Step: StepAgyPlugin},
		)
	}
	// The hook files of ours alone: a client that reads every file of a
	// hooks directory gets one JSON file, rendered whole.
	for _, own := range []struct {
		client, path, step string
		build              func(*registration.Table) (map[string]any, error)
	}{
		{"copilot", CopilotHooksPath, StepCopilotHooks, copilotHooks},
		{"kiro", KiroHooksPath, StepKiroHooks, kiroHooks},
	} {
		if !want[own.client] {
			continue
		}
		hooks, err := own.build(t)
		if err != nil {
			return nil, err
		}
		body, err := jsonWithHeader(hooks)
		if err != nil {
			return nil, err
		}
		files = append(files, File{Path: own.path, Body: body, Mode: 0o644, Step: own.step})
	}
	if want["cline"] {
		body, err := renderClineHook(t)
		if err != nil {
			return nil, err
		}
		files = append(files, File{Path: ClineHookPath, Body: clineWithHeader(body), Mode: 0o755, Step: StepClineHook})
	}
	if want["lefthook"] {
		body, err := renderLefthookJobs(t)
		if err != nil {
			return nil, err
		}
		files = append(files, File{Path: LefthookJobsPath, Body: withHeader(body, "# "), Mode: 0o644, Step: StepLefthookJobs})
	}
	if want["opencode"] {
		js, err := renderOpencode(d, t)
		if err != nil {
			return nil, err
		}
		files = append(files, File{Path: OpencodePluginPath, Body: withHeader(js, "// "), Mode: 0o644, Step: StepOpencodePlugin})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}
