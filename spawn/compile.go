package spawn

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hookwarden/hookwarden/spawn/redact"
)

// Spawn events (issue 8). Neutral events apply to every engine whose table
// renders them; engine-labelled events apply to that engine only;
// agent_prompt and agent_exit are the spawner's own (redaction) and are
// refused until the redaction contract exists.
var (
	neutralEvents   = []string{"pre_tool", "post_tool", "prompt_submit", "session_start", "session_end"}
	labelledEvents  = []string{"claude:Stop", "codex:Stop"}
	redactionEvents = []string{"agent_prompt", "agent_exit"}
	renderers       = []string{"claude", "codex"}
)

// Layer names, in precedence order.
const (
	LayerRegistry = "registry"
	LayerProfile  = "profile"
	LayerOperator = "operator"
)

// Options are the inputs of one compile.
type Options struct {
	Engine string // "claude" or "codex"; others have no renderer
	// Binary is the engine executable resolved once to an absolute path.
	Binary string
	// Version is the engine version; empty means probe Binary (ProbeVersion).
	Version string
	// Env is the environment the engine will run with (KEY=VALUE), the
	// version probe's too; nil: this process's.
	Env  []string
	Cwd  string // the spawn's working directory (absolute)
	Home string // the hookwarden home (absolute)
	// RequirementPath is the requirement file (HOOKWARDEN_HOOKS_REQUIREMENT),
	// empty when the environment names none.
	RequirementPath string
	// ProfilePath and OperatorPath name the profile and operator layer
	// files; empty means no such layer.
	ProfilePath  string
	OperatorPath string
	// Snapshot is the home's files as read earlier; nil reads them now.
	Snapshot *Snapshot
	// CallerSettings is the caller's Claude settings document (JSON object)
	// when the caller passed one; nil otherwise.
	CallerSettings []byte
	// CallerSettingSources is the caller's --setting-sources value, nil when
	// not passed.
	CallerSettingSources *string
	// Tables overrides the shipped capability tables (tests); nil = Tables().
	Tables fs.FS
	// runID fixes the run id (tests of an existing run file); "" = random.
	runID string
	// PromptFiles names the caller's prompt-file flags (Claude
	// --system-prompt-file, --append-system-prompt-file,
	// --append-subagent-system-prompt-file, --agents naming a file): the
	// engine reads those files itself, so a spawn under a redaction entry
	// refuses them.
	PromptFiles []string
	// Runtime is set by Exec, which runs a redaction entry's agent_prompt
	// and agent_exit; a compile without it refuses a spawn under a
	// redaction entry (redaction-unsupported).
	Runtime bool
	// lstat replaces os.Lstat in the Codex layer walk and the run
	// directory's .git check (tests of an Lstat error a root test process
	// cannot provoke); nil = os.Lstat.
	lstat func(string) (os.FileInfo, error)
}

// CompiledHook is one hook a render carries: the attachment it came from
// (layer and fields), the native event, the final argv, its argv hash and
// the timeout in seconds.
type CompiledHook struct {
	Layer    string   `json:"layer"`
	Hook     string   `json:"hook"`
	Event    string   `json:"event"`
	Native   string   `json:"native_event"`
	Matcher  string   `json:"matcher,omitempty"`
	Required bool     `json:"required,omitempty"`
	Argv     []string `json:"argv"`
	ArgvHash string   `json:"argv_hash"`
	Timeout  int      `json:"timeout_seconds"`
	legacy   string
}

// Render is the output of a compile: engine, binary, version, a fresh run
// id, the snapshot digest, the requirement path ("" when none), the argv
// additions to append to the engine's argv, the files to remove when the
// call ends, the compiled hooks and human notes (for example that no
// registry exists and the hook set is empty under full isolation).
type Render struct {
	Engine          string         `json:"engine"`
	Binary          string         `json:"binary"`
	Version         string         `json:"version"`
	RunID           string         `json:"run_id"`
	SnapshotDigest  string         `json:"snapshot_digest"`
	RequirementPath string         `json:"requirement_path"`
	Args            []string       `json:"args"`
	Files           []string       `json:"files"`
	Hooks           []CompiledHook `json:"hooks"`
	Notes           []string       `json:"notes,omitempty"`
	// Redaction is set when the spawn is under a redaction entry (ADR-0134
	// D7): the entry and its agent_prompt and agent_exit hooks, which
	// spawn exec runs itself (they are in no engine render).
	Redaction *RedactionHooks `json:"redaction,omitempty"`
	// lock is spawn exec's hold on the run (<run id>.lock in run/hooks,
	// sweep.go); nil for `spawn compile` and for renders with no file.
	lock *runLock
}

// RedactionHooks are the spawner's own hooks of a redaction entry: Entry
// is the library entry's name, Prompt its agent_prompt hook and Exit its
// agent_exit hook (final argv, timeout).
type RedactionHooks struct {
	Entry  string       `json:"entry"`
	Prompt CompiledHook `json:"agent_prompt"`
	Exit   CompiledHook `json:"agent_exit"`
	// PreHookRefusals are the engine version's recorded forms of a call
	// refused before any hook (the table's pre_hook_refusals), handed to
	// agent_exit so such a call does not fail the run.
	PreHookRefusals []redact.RefusalForm `json:"pre_hook_refusals,omitempty"`
}

// Cleanup removes the render's files, then the run's lock file (spawn
// exec's), and drops the lock; it returns the first error other than
// absence, naming the path.
func (r *Render) Cleanup() error {
	var first error
	for _, f := range r.Files {
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) && first == nil {
			first = fmt.Errorf("remove %s: %w", f, err)
		}
	}
	r.lock.release()
	return first
}

type layered struct {
	layer string
	att   Attachment
}

// library is the file shape of hooks/library.json: {"version":1,"entries":{name: Entry}}.
type library struct {
	Version int              `json:"version"`
	Entries map[string]Entry `json:"entries"`
}

// Compile compiles the hooks one spawn of opts.Engine must run and renders
// them as argv additions (and, for Claude, a settings file under
// <home>/run/hooks). It returns a *Refusal for every condition issue 8
// lists; on any error no file created by the call remains.
func Compile(ctx context.Context, opts Options) (*Render, error) {
	if !slices.Contains(renderers, opts.Engine) {
		return nil, refuse(ReasonEngineNoRenderer, "engine %q has no renderer (claude and codex do)", opts.Engine)
	}
	if !filepath.IsAbs(opts.Binary) {
		return nil, refuse(ReasonEngineNotFound, "engine binary %q is not an absolute path", opts.Binary)
	}
	if fi, err := os.Stat(opts.Binary); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return nil, refuse(ReasonEngineNotFound, "%s is not an executable file", opts.Binary)
	}
	if !filepath.IsAbs(opts.Home) || !filepath.IsAbs(opts.Cwd) {
		return nil, refuse(ReasonCompileFailed, "home %q and cwd %q must be absolute", opts.Home, opts.Cwd)
	}
	tables := opts.Tables
	if tables == nil {
		tables = Tables()
	}
	c := &compiler{opts: opts}
	if err := c.load(ctx, tables); err != nil {
		if AsRefusal(err) == nil {
			return nil, refuse(ReasonCompileFailed, "%v", err)
		}
		return nil, err
	}
	if err := c.merge(); err != nil {
		return nil, err
	}
	if err := c.checkRedaction(); err != nil {
		return nil, err
	}
	if err := c.resolveHooks(); err != nil {
		return nil, err
	}
	if err := c.checkApprovals(); err != nil {
		return nil, err
	}
	var r *Render
	var err error
	switch opts.Engine {
	case "claude":
		r, err = c.renderClaude()
	default:
		r, err = c.renderCodex()
	}
	if err != nil && AsRefusal(err) == nil {
		return nil, refuse(ReasonCompileFailed, "%v", err)
	}
	return r, err
}

type compiler struct {
	opts     Options
	snap     *Snapshot
	table    *Table
	version  string
	req      *Requirement
	registry *Layer
	lib      library
	atts     []layered
	hooks    []CompiledHook
	notes    []string
	// redaction is the redaction entry the spawn is under ("" = none).
	redaction string
}

func (c *compiler) load(ctx context.Context, tables fs.FS) error {
	o := c.opts
	c.version = o.Version
	if c.version == "" {
		v, err := ProbeVersion(ctx, o.Home, o.Binary, o.Env)
		if err != nil {
			return err
		}
		c.version = v
	}
	t, err := LoadTable(tables, o.Engine, c.version)
	if err != nil {
		return refuse(ReasonCapabilityTable, "%v", err)
	}
	c.table = t
	if len(t.Events) == 0 {
		c.notes = append(c.notes, fmt.Sprintf("no capability table for %s %s: no event can be rendered", o.Engine, c.version))
	}
	regPath := filepath.Join(o.Home, RegistryFile)
	if o.RequirementPath != "" {
		r, err := ReadRequirement(o.RequirementPath)
		if err != nil {
			return err
		}
		if p, bad := writableByOthers(o.RequirementPath); bad {
			return refuse(ReasonWritableByOthers, "%s is writable by group or others", p)
		}
		c.req = r
	}
	c.snap = o.Snapshot
	if c.snap == nil {
		c.snap = TakeSnapshot(o.Home)
	}
	if err := c.snap.readErr[RegistryFile]; err != nil {
		return refuse(ReasonRegistryUnreadable, "%s: %v", regPath, err)
	}
	if c.req != nil {
		if !samePath(c.req.Registry, regPath) {
			return refuse(ReasonRequirementElsewhere, "the requirement %s expects the registry %s, this home's is %s", o.RequirementPath, c.req.Registry, regPath)
		}
		if c.snap.RegistryAbsent {
			return refuse(ReasonRequirementNoRegistry, "the requirement %s expects the registry %s, which is absent", o.RequirementPath, regPath)
		}
	}
	if c.snap.RegistryAbsent {
		c.registry = &Layer{Version: 1}
		c.notes = append(c.notes, fmt.Sprintf("no registry at %s and no requirement: empty hook set under full isolation", regPath))
	} else {
		var l Layer
		if err := decodeStrict(c.snap.Registry, &l); err != nil {
			return refuse(ReasonRegistryInvalid, "%s: %v", regPath, err)
		}
		if l.Version != 1 {
			return refuse(ReasonRegistryInvalid, "%s: version %d, want 1", regPath, l.Version)
		}
		c.registry = &l
	}
	for _, p := range []string{filepath.Join(o.Home, RegistryFile), filepath.Join(o.Home, LibraryFile), filepath.Join(o.Home, ApprovalsFile)} {
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		if q, bad := writableByOthers(p); bad {
			return refuse(ReasonWritableByOthers, "%s is writable by group or others", q)
		}
	}
	if c.req != nil {
		if err := c.checkRequirement(); err != nil {
			return err
		}
	}
	c.atts = nil
	for _, a := range c.registry.Attachments {
		c.atts = append(c.atts, layered{LayerRegistry, a})
	}
	for _, l := range []struct{ name, path string }{{LayerProfile, o.ProfilePath}, {LayerOperator, o.OperatorPath}} {
		if l.path == "" {
			continue
		}
		layer, err := ReadLayer(l.path)
		if err != nil {
			return err
		}
		for _, a := range layer.Attachments {
			if a.Required {
				return refuse(ReasonLayerInvalid, "%s: only the registry marks attachments required (hook %q)", l.path, a.Hook)
			}
			c.atts = append(c.atts, layered{l.name, a})
		}
	}
	if len(c.atts) > 0 {
		libPath := filepath.Join(o.Home, LibraryFile)
		if err := c.snap.readErr[LibraryFile]; err != nil {
			return refuse(ReasonLibraryUnreadable, "%s: %v", libPath, err)
		}
		if c.snap.LibraryAbsent {
			return refuse(ReasonLibraryUnreadable, "%s is absent but attachments name its entries", libPath)
		}
		if err := decodeStrict(c.snap.Library, &c.lib); err != nil {
			return refuse(ReasonLibraryInvalid, "%s: %v", libPath, err)
		}
		if c.lib.Version != 1 {
			return refuse(ReasonLibraryInvalid, "%s: version %d, want 1", libPath, c.lib.Version)
		}
	}
	return nil
}

func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

func (c *compiler) checkRequirement() error {
	for _, m := range c.req.Mandatory {
		var found *Attachment
		for i := range c.registry.Attachments {
			a := &c.registry.Attachments[i]
			if a.Hook == m.Hook && a.Event == m.Event {
				found = a
				break
			}
		}
		if found == nil {
			return refuse(ReasonRequirementMissing, "the requirement %s needs hook %q on %s, the registry lacks it", c.opts.RequirementPath, m.Hook, m.Event)
		}
		if !found.Required || found.Disable || found.Matcher != m.Matcher || !slices.Equal(found.Args, m.Args) || !enginesCover(found.Engines, m.Engines) || !coversAll(found.Requires, m.Requires) {
			return refuse(ReasonRequirementWeakened, "the requirement %s needs hook %q on %s required with matcher %q, its args, engines and requires; the registry weakens it", c.opts.RequirementPath, m.Hook, m.Event, m.Matcher)
		}
	}
	return nil
}

// coversAll reports whether have holds every element of want (an
// attachment may require more capabilities than the requirement, never
// fewer).
func coversAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// enginesCover reports whether an attachment with engines have applies to
// at least every engine of want (empty = every engine).
func enginesCover(have, want []string) bool {
	if len(have) == 0 {
		return true
	}
	if len(want) == 0 {
		return false
	}
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// appliesTo reports whether a applies to engine: its engines list (empty =
// every engine) and the engine label of its event.
func appliesTo(a Attachment, engine string) bool {
	if len(a.Engines) > 0 && !slices.Contains(a.Engines, engine) {
		return false
	}
	if i := strings.IndexByte(a.Event, ':'); i > 0 {
		return a.Event[:i] == engine
	}
	return true
}

func substitute(args []string, engine string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.ReplaceAll(a, "{engine}", engine)
	}
	return out
}

func (c *compiler) merge() error {
	engine := c.opts.Engine
	// Events are checked for every attachment, whatever engine it targets.
	for _, l := range c.atts {
		a := l.att
		switch {
		case slices.Contains(redactionEvents, a.Event) && l.layer != LayerRegistry:
			return refuse(ReasonLayerInvalid, "%s attaches hook %q on %s; only the registry attaches the redaction entry", l.layer, a.Hook, a.Event)
		case slices.Contains(redactionEvents, a.Event):
		case !slices.Contains(neutralEvents, a.Event) && !slices.Contains(labelledEvents, a.Event):
			why := ""
			if a.Event == "post_response" {
				why = " (it would present Claude's Stop as neutral; use claude:Stop)"
			}
			return refuse(ReasonEventUnknown, "%s attaches hook %q on unknown event %q%s", l.layer, a.Hook, a.Event, why)
		}
		if a.Hook == "" {
			return refuse(ReasonHookUnknown, "%s has an attachment without a hook name", l.layer)
		}
	}
	var baseline []Attachment
	for _, l := range c.atts {
		if l.layer == LayerRegistry && l.att.Required && !l.att.Disable && appliesTo(l.att, engine) {
			baseline = append(baseline, l.att)
		}
	}
	var out []layered
	seen := map[string]bool{}
	for _, l := range c.atts {
		a := l.att
		if l.layer != LayerRegistry {
			for _, b := range baseline {
				if a.Hook != b.Hook || a.Event != b.Event {
					continue
				}
				if a.Disable || a.Matcher != b.Matcher || !slices.Equal(a.Args, b.Args) || !enginesCover(a.Engines, b.Engines) {
					return refuse(ReasonBaselineWeakened, "%s layer removes, narrows, re-argues or disables required hook %q on %s", l.layer, a.Hook, a.Event)
				}
			}
		}
		if a.Disable {
			// D1: later layers only add; an attachment that should not run
			// is deleted from the file that attaches it.
			if l.layer == LayerRegistry {
				return refuse(ReasonRegistryInvalid, "the registry disables hook %q; delete the attachment instead", a.Hook)
			}
			return refuse(ReasonLayerInvalid, "%s layer disables hook %q on %s; later layers only add", l.layer, a.Hook, a.Event)
		}
		key := strings.Join([]string{a.Hook, a.Event, a.Matcher, PyJSONArgv(substitute(a.Args, engine))}, "\x00")
		if seen[key] {
			continue // duplicates collapse to the first
		}
		if !appliesTo(a, engine) {
			continue
		}
		if l.layer != LayerRegistry && len(baseline) > 0 && !hasKey(c.table.InertEvents, a.Event) {
			dup := false
			for _, b := range baseline {
				dup = dup || (a.Hook == b.Hook && a.Event == b.Event)
			}
			if !dup {
				return refuse(ReasonBaselineAddition, "%s layer adds hook %q on %s under a required baseline; %s %s lists no such inert event", l.layer, a.Hook, a.Event, engine, c.version)
			}
		}
		seen[key] = true
		out = append(out, l)
	}
	c.atts = out
	return nil
}

// argvFiles returns the absolute paths in argv that name existing regular
// files (argv0 included).
func argvFiles(argv []string) []string {
	var out []string
	for _, a := range argv {
		if !filepath.IsAbs(a) {
			continue
		}
		if fi, err := os.Stat(a); err == nil && fi.Mode().IsRegular() {
			out = append(out, filepath.Clean(a))
		}
	}
	return out
}

func (c *compiler) resolveHooks() error {
	for _, l := range c.atts {
		a := l.att
		ev, ok := c.table.Events[a.Event]
		if slices.Contains(redactionEvents, a.Event) {
			// the spawner's own events: run by spawn exec, rendered nowhere
			ev, ok = TableEvent{}, true
		}
		if !ok {
			return refuse(ReasonEventNotRendered, "%s hook %q on %s: %s %s does not render that event", l.layer, a.Hook, a.Event, c.opts.Engine, c.version)
		}
		for _, r := range a.Requires {
			if gap := c.capabilityGap(r, c.redaction != ""); gap != "" {
				return refuse(ReasonCapabilityMissing, "%s hook %q needs %s, %s", l.layer, a.Hook, r, gap)
			}
		}
		e, ok := c.lib.Entries[a.Hook]
		if !ok {
			return refuse(ReasonHookUnknown, "%s attaches hook %q, which %s lacks", l.layer, a.Hook, LibraryFile)
		}
		h := CompiledHook{Layer: l.layer, Hook: a.Hook, Event: a.Event, Native: ev.Native, Matcher: a.Matcher, Required: a.Required}
		if len(e.Argv) == 0 && e.Command != nil {
			if l.layer != LayerOperator {
				return refuse(ReasonLegacyCommand, "%s attaches hook %q, a legacy command string; only argv entries can be attached there", l.layer, a.Hook)
			}
			h.legacy = *e.Command
			e.Argv = []string{"/bin/sh", "-c", *e.Command}
		}
		if len(e.Argv) == 0 {
			return refuse(ReasonArgvEmpty, "hook %q has no argv", a.Hook)
		}
		argv0 := e.Argv[0]
		if !filepath.IsAbs(argv0) {
			return refuse(ReasonArgv0Relative, "hook %q: argv0 %q is not an absolute path", a.Hook, argv0)
		}
		if fi, err := os.Stat(argv0); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			return refuse(ReasonArgv0NotExecutable, "hook %q: %s is not an executable file", a.Hook, argv0)
		}
		t, err := parseTimeout(e.Timeout)
		if err != nil {
			return refuse(ReasonTimeoutInvalid, "hook %q: %v", a.Hook, err)
		}
		h.Timeout = t
		if p, bad := writableByOthers(argv0); bad {
			return refuse(ReasonWritableByOthers, "hook %q: %s is writable by group or others", a.Hook, p)
		}
		h.Argv = append(slices.Clone(e.Argv), substitute(a.Args, c.opts.Engine)...)
		h.ArgvHash = ArgvHash(h.Argv)
		if a.Required && len(e.Pin) == 0 {
			return refuse(ReasonPinMissing, "required hook %q has no pin", a.Hook)
		}
		if len(e.Pin) > 0 {
			pins := map[string]string{}
			for p, sum := range e.Pin {
				pins[filepath.Clean(p)] = strings.TrimPrefix(strings.ToLower(sum), "sha256:")
			}
			for _, f := range argvFiles(h.Argv) {
				if _, ok := pins[f]; !ok {
					return refuse(ReasonPinIncomplete, "hook %q: its pin leaves out %s, which its argv names", a.Hook, f)
				}
			}
			paths := make([]string, 0, len(pins))
			for p := range pins {
				paths = append(paths, p)
			}
			slices.Sort(paths)
			for _, p := range paths {
				if !filepath.IsAbs(p) {
					return refuse(ReasonLibraryInvalid, "hook %q: pinned path %q is not absolute", a.Hook, p)
				}
				d, err := fileDigest(p)
				if err != nil {
					return refuse(ReasonPinFileMissing, "hook %q: pinned file %s: %v", a.Hook, p, err)
				}
				if q, bad := writableByOthers(p); bad {
					return refuse(ReasonWritableByOthers, "hook %q: %s is writable by group or others", a.Hook, q)
				}
				if d != "sha256:"+pins[p] {
					return refuse(ReasonPinMismatch, "hook %q: %s no longer matches its pin", a.Hook, p)
				}
			}
		}
		c.hooks = append(c.hooks, h)
	}
	return nil
}

func (c *compiler) checkApprovals() error {
	if len(c.hooks) == 0 {
		return nil
	}
	path := filepath.Join(c.opts.Home, ApprovalsFile)
	if err := c.snap.readErr[ApprovalsFile]; err != nil {
		return refuse(ReasonApprovalsUnreadable, "%s: %v", path, err)
	}
	var store Approvals
	if !c.snap.ApprovalsAbsent {
		if err := decodeStrict(c.snap.Approvals, &store); err != nil || store.Version != 1 {
			if err == nil {
				err = fmt.Errorf("version %d, want 1", store.Version)
			}
			return refuse(ReasonApprovalsUnreadable, "%s: %v", path, err)
		}
	}
	for _, h := range c.hooks {
		state, _ := approvalState(store, h.Argv)
		switch state {
		case StateApproved:
		case StateMissing:
			return refuse(ReasonApprovalMissing, "%s hook %q: argv %s has no approval (hookwarden trust approve)", h.Layer, h.Hook, h.ArgvHash[:16])
		default:
			return refuse(ReasonApprovalStale, "%s hook %q: argv %s was approved, but %s", h.Layer, h.Hook, h.ArgvHash[:16], state)
		}
	}
	return nil
}

// newRunID returns 16 random bytes as 32 hex characters.
func newRunID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("hookwarden: spawn: run id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

func (c *compiler) baseRender() (*Render, error) {
	id := c.opts.runID
	if id == "" {
		var err error
		if id, err = newRunID(); err != nil {
			return nil, err
		}
	}
	hooks := []CompiledHook{}
	var red *RedactionHooks
	for _, h := range c.hooks {
		switch h.Event {
		case "agent_prompt", "agent_exit":
			if h.Hook != c.redaction {
				continue // a redaction entry for another engine
			}
			if red == nil {
				red = &RedactionHooks{Entry: h.Hook, PreHookRefusals: c.table.PreHookRefusals}
			}
			if h.Event == "agent_prompt" {
				red.Prompt = h
			} else {
				red.Exit = h
			}
		default:
			hooks = append(hooks, h)
		}
	}
	return &Render{Engine: c.opts.Engine, Binary: c.opts.Binary, Version: c.version, RunID: id,
		SnapshotDigest: c.snap.Digest(), RequirementPath: c.opts.RequirementPath,
		Args: []string{}, Files: []string{}, Hooks: hooks, Notes: c.notes, Redaction: red}, nil
}

// engineHooks returns the compiled hooks the engine itself runs (every
// hook but the spawner's agent_prompt and agent_exit).
func (c *compiler) engineHooks() []CompiledHook {
	var out []CompiledHook
	for _, h := range c.hooks {
		if !slices.Contains(redactionEvents, h.Event) {
			out = append(out, h)
		}
	}
	return out
}

// WriteText writes the render as `hookwarden spawn compile` prints it: the
// engine, run id, snapshot and requirement, the argv additions, then one
// line per run file, hook and note. It returns the writer's error.
func (r *Render) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "engine: %s %s (%s)\nrun id: %s\nsnapshot: %s\n", r.Engine, r.Version, r.Binary, r.RunID, r.SnapshotDigest)
	if r.RequirementPath != "" {
		fmt.Fprintf(&b, "requirement: %s\n", r.RequirementPath)
	} else {
		fmt.Fprintln(&b, "requirement: none")
	}
	fmt.Fprintf(&b, "args: %s\n", ShellQuote(r.Args))
	for _, f := range r.Files {
		fmt.Fprintf(&b, "file (remove when the spawn ends): %s\n", f)
	}
	for _, h := range r.Hooks {
		fmt.Fprintf(&b, "hook: %s %s on %s (%s) argv %s\n", h.Layer, h.Hook, h.Event, h.Native, h.ArgvHash[:16])
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
