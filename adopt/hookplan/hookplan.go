// Package hookplan computes the effective hook plan of a repository: per
// client (and the client's installed version when one is found), every hook
// handler that would fire on each native event, from which file, in what
// order, with what matcher and timeout, whether it is ours, and why a
// handler does not fire — a switch that turns hooks off, an untrusted Codex
// project or hook hash, a file the client rejects, a session started below
// the repository root, a client version older than a field the handler
// needs. `hookwarden audit --plan` prints it and turns every state in which
// one of our rows does not guard into a finding (adopt/audit), and
// `hookwarden doctor` runs the rows it finds (adopt/doctor).
//
// The clients and their files are one table (clients.go); each fact there
// names its source. hookplan never writes and never runs a client: the
// installed version is read from the npm package.json beside the
// executable found on PATH.
package hookplan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/tailscale/hujson"

	"github.com/hookwarden/hookwarden/adopt/codextrust"
	"github.com/hookwarden/hookwarden/clientjson"
	"github.com/hookwarden/hookwarden/engine/registration"
	"github.com/hookwarden/hookwarden/internal/clientname"
	"github.com/hookwarden/hookwarden/internal/safewrite"
	"github.com/hookwarden/hookwarden/policy/settings"
	"github.com/hookwarden/hookwarden/templates"
)

// Reason ids: why a handler does not fire, or does not guard as written.
// They are audit finding ids (adopt/audit Rules).
const (
	// ReasonDisabled: a switch turns the client's hooks off.
	ReasonDisabled = "hooks-disabled"
	// ReasonUnparseable: the client cannot parse the file.
	ReasonUnparseable = "client-file-unparseable"
	// ReasonRejected: the file parses but the client rejects it as a whole.
	ReasonRejected = "client-file-rejected"
	// ReasonUntrusted: Codex skips the hook (project or hook hash not trusted).
	ReasonUntrusted = "codex-trust-required"
	// ReasonStartBelowRoot: a session started in the start directory does
	// not read the file.
	ReasonStartBelowRoot = "start-below-root"
	// ReasonVersion: the installed client is older than a field the handler
	// relies on.
	ReasonVersion = "client-version-too-old"
	// ReasonNotAllowed: a handler that is not ours runs a command outside
	// the operator's audit.allowed_commands.
	ReasonNotAllowed = "foreign-hook-not-allowed"
	// ReasonGeminiUntrusted: Gemini CLI's folder trust is on and the
	// session's folder is not trusted, so Gemini does not load the
	// workspace settings (audit --plan --workstation).
	ReasonGeminiUntrusted = "gemini-folder-untrusted"
)

// Hook is one handler in the plan. NativeEvent is the client's event name,
// Event the neutral event of our row ("" for a handler not ours), Order its
// 1-based place among the client's handlers of the native event in the
// order the client collects them (files in load order, then file order;
// Client.Runs says whether they run one after another), File the path
// (relative to the repository root, slash-separated, for a file inside it;
// absolute otherwise) and Line its 1-based line, Scope the file's scope,
// Matcher its group's matcher ("" none), Timeout in TimeoutUnit (HasTimeout
// false: the client's default), Command and Args what runs, Ours whether it
// is one of our forms and Kind the claim ("current", "stale", "near-miss",
// "foreign"). Fires is false when the client skips it, with ReasonID and
// Why saying why; Caveat (with CaveatID) says why a firing handler does not
// guard as written.
type Hook struct {
	NativeEvent string   `json:"native_event"`
	Event       string   `json:"event,omitempty"`
	Order       int      `json:"order"`
	File        string   `json:"file"`
	Line        int      `json:"line"`
	Scope       string   `json:"scope"`
	Matcher     string   `json:"matcher"`
	Timeout     float64  `json:"timeout,omitempty"`
	HasTimeout  bool     `json:"has_timeout"`
	TimeoutUnit string   `json:"timeout_unit,omitempty"`
	Command     string   `json:"command"`
	Args        []string `json:"args,omitempty"`
	OnFailure   string   `json:"on_failure,omitempty"`
	Ours        bool     `json:"ours"`
	Kind        string   `json:"kind"`
	Fires       bool     `json:"fires"`
	ReasonID    string   `json:"reason_id,omitempty"`
	Why         string   `json:"why,omitempty"`
	CaveatID    string   `json:"caveat_id,omitempty"`
	Caveat      string   `json:"caveat,omitempty"`
	// Allowed is false when the operator's allow-list is set and no
	// pattern of a layer that sets it matches this foreign command.
	Allowed bool `json:"allowed"`
}

// File is one file the client reads hooks from: Path as in Hook.File,
// Scope, Exists, and when the client does not use it, ReasonID and Why
// (Line the offending line, 0 when none applies).
type File struct {
	Path     string `json:"path"`
	Scope    string `json:"scope"`
	Exists   bool   `json:"exists"`
	ReasonID string `json:"reason_id,omitempty"`
	Why      string `json:"why,omitempty"`
	Line     int    `json:"line,omitempty"`
	// abs is the file's absolute path.
	abs string
}

// Client is one client's plan: its name, the installed Version found and
// the file it was read from (both "" when none was found), whether the
// manifest selects it, its Files in load order, its Hooks, Runs (how it
// runs several matching hooks) and Off (why it runs no hook at all, "" when
// it runs them; OffID the reason id, OffFile and OffLine where).
type Client struct {
	Client      string `json:"client"`
	Version     string `json:"version,omitempty"`
	VersionFrom string `json:"version_from,omitempty"`
	Selected    bool   `json:"selected"`
	Files       []File `json:"files"`
	Hooks       []Hook `json:"hooks"`
	Runs        string `json:"runs,omitempty"`
	Off         string `json:"off,omitempty"`
	OffID       string `json:"off_id,omitempty"`
	OffFile     string `json:"off_file,omitempty"`
	OffLine     int    `json:"off_line,omitempty"`
}

// Plan is the effective plan of one repository: Root (absolute), Start
// (the session start directory, absolute; Root unless a directory below it
// was given), Governed (a .hookwarden.yaml exists), Workstation (user-level
// files were read), and Clients in table order.
type Plan struct {
	Root        string   `json:"root"`
	Start       string   `json:"start"`
	Governed    bool     `json:"governed"`
	Workstation bool     `json:"workstation"`
	Clients     []Client `json:"clients"`
}

// Options steer Build. Getenv reads HOME, PATH, CLAUDE_CONFIG_DIR,
// CODEX_HOME and the settings-layer variables (nil: os.Getenv).
// Workstation adds the clients' user-level files. Start is the session's
// start directory (absolute, at or below the root; "" the root).
type Options struct {
	Getenv      func(string) string
	Workstation bool
	Start       string
}

// maxFile bounds how much of one client file is read (bytes).
const maxFile = 4 << 20

// Build computes the plan of the repository rooted at root (absolute,
// symlink-resolved). It returns an error only when the registration table
// or our registration forms cannot be built (a defect of this build);
// everything found in the files is part of the plan.
func Build(root string, opts Options) (*Plan, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	table, err := registration.Default()
	if err != nil {
		return nil, err
	}
	start := opts.Start
	if start == "" {
		start = root
	}
	p := &Plan{Root: root, Start: start, Workstation: opts.Workstation}
	selected := map[string]bool{}
	if data, err := os.ReadFile(filepath.Join(root, ".hookwarden.yaml")); err == nil {
		p.Governed = true
		if f, err := settings.Parse(data, true); err == nil {
			cl := f.Clients
			if cl == nil {
				cl = templates.DefaultClients()
			}
			for _, c := range cl {
				selected[c] = true
			}
		}
	}
	allow := allowList(getenv)
	for _, name := range Clients(table) {
		c := Client{Client: name, Selected: selected[name], Files: []File{}, Hooks: []Hook{}}
		spec, known := clients[name]
		if !known {
			c.Runs = "not in hookwarden's plan table: only its registration rows are known"
			p.Clients = append(p.Clients, c)
			continue
		}
		c.Runs = spec.runs
		c.Version, c.VersionFrom = installedVersion(spec, getenv)
		owner, err := templates.Owner(name, table)
		if err != nil {
			return nil, err
		}
		pl := &clientPlanner{p: p, c: &c, spec: spec, owner: owner, table: table, getenv: getenv, allow: allow}
		pl.run(opts.Workstation)
		p.Clients = append(p.Clients, c)
	}
	return p, nil
}

// Clients returns the clients the plan covers, in the order it lists them:
// every client of internal/clientname's table but lefthook (whose jobs live
// in lefthook's own files), in that table's order (claude, codex, gemini,
// agy, opencode, copilot), then any other client of the registration table
// t, sorted.
func Clients(t *registration.Table) []string {
	var out, rest []string
	for _, c := range clientname.All() {
		if c != "lefthook" {
			out = append(out, c)
		}
	}
	for _, r := range t.Rows {
		if r.Client != "lefthook" && !slices.Contains(out, r.Client) && !slices.Contains(rest, r.Client) {
			rest = append(rest, r.Client)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// loaded is one file as the planner read it: found its handlers, ok
// whether it parsed.
type loaded struct {
	f     *File
	data  []byte
	found []clientjson.Found
	ok    bool
}

// clientPlanner fills one Client.
type clientPlanner struct {
	p      *Plan
	c      *Client
	spec   clientSpec
	owner  *clientjson.Owner
	table  *registration.Table
	getenv func(string) string
	allow  []allowLayer
}

func (pl *clientPlanner) run(workstation bool) {
	home := pl.spec.homeDir(pl.getenv)
	var files []loaded
	for _, fs := range pl.spec.files {
		if (fs.scope == ScopeUser || fs.scope == ScopeSystem) && !workstation {
			continue
		}
		var abs string
		switch fs.base {
		case "gemini-system":
			abs, _ = geminiSystemPaths(pl.getenv, runtime.GOOS)
		case "gemini-system-defaults":
			_, abs = geminiSystemPaths(pl.getenv, runtime.GOOS)
		case "home":
			if home == "" {
				continue
			}
			abs = filepath.Join(home, fs.rel)
		case "start":
			abs = filepath.Join(pl.p.Start, filepath.FromSlash(fs.rel))
		default:
			abs = filepath.Join(pl.p.Root, filepath.FromSlash(fs.rel))
		}
		f := File{Path: pl.display(abs), Scope: fs.scope, abs: abs}
		data, exists, err := pl.read(abs)
		f.Exists = exists
		l := loaded{f: &f, data: data}
		switch {
		case err != nil:
			f.ReasonID, f.Why = ReasonUnparseable, "cannot be read safely: "+err.Error()
		case !exists:
		default:
			found, err := clientjson.Registered(f.Path, data, fs.format, pl.owner)
			if err != nil {
				f.ReasonID, f.Why = ReasonUnparseable, unparseable(pl.c.Client, err)
				var pe *clientjson.ParseError
				if errors.As(err, &pe) {
					f.Line = pe.Line
				}
				break
			}
			l.found, l.ok = found, true
			if pl.c.Client == "claude" {
				if why, line := claudeRejects(data); why != "" {
					f.ReasonID, f.Why, f.Line = ReasonRejected, why, line
				}
				// An onFailure other than "continue" or "block" fails the
				// hook schema, and Claude Code 2.1.328 skips the whole
				// file (measured: "onFailure": "bogus", settings-rejected.json).
				for _, h := range found {
					if f.ReasonID == "" && h.OnFailure != "" && h.OnFailure != "continue" && h.OnFailure != "block" {
						f.ReasonID, f.Line = ReasonRejected, h.Line
						f.Why = "a handler's \"onFailure\" is not \"continue\" or \"block\", which fails Claude Code's hook schema, so Claude Code 2.1.328 skips this whole file (every hook in it, ours included)"
					}
				}
			}
		}
		pl.c.Files = append(pl.c.Files, f)
		files = append(files, l)
		// The root's project file, when the session starts below the root
		// and the client reads the start directory's instead.
		if fs.base == "start" && pl.p.Start != pl.p.Root && pl.spec.startBelow != "" {
			rootAbs := filepath.Join(pl.p.Root, filepath.FromSlash(fs.rel))
			if data, exists, err := pl.read(rootAbs); err == nil && exists {
				rf := File{Path: pl.display(rootAbs), Scope: fs.scope, Exists: true, abs: rootAbs, ReasonID: ReasonStartBelowRoot,
					Why: pl.spec.startBelow + "; a session started in " + pl.display(pl.p.Start) + " runs none of its hooks"}
				pl.c.Files = append(pl.c.Files, rf)
				if found, err := clientjson.Registered(rf.Path, data, fs.format, pl.owner); err == nil {
					files = append(files, loaded{f: &pl.c.Files[len(pl.c.Files)-1], data: data, found: found, ok: true})
				}
			}
		}
	}
	// Re-point the loaded entries at the final slice (appends moved it).
	for i := range files {
		for j := range pl.c.Files {
			if pl.c.Files[j].abs == files[i].f.abs {
				files[i].f = &pl.c.Files[j]
			}
		}
	}
	if pl.c.Client == "gemini" && workstation {
		pl.geminiFolderTrust(files, home)
	}
	pl.switches(files)
	if pl.spec.plugin != "" {
		pl.pluginRows()
	}
	if pl.c.Client == "codex" && workstation && home != "" {
		pl.codexInline(filepath.Join(home, "config.toml"))
	}
	// Gemini CLI 0.61.0 merges hooksConfig.disabled as a union of every
	// settings file (its schema's mergeStrategy "union"; bundle
	// settingsSchema), so a command listed in the user file is skipped in
	// the project file too.
	disabledIn := map[string]string{} // command → the file listing it
	for _, l := range files {
		if l.ok && l.f.ReasonID == "" {
			for _, c := range geminiDisabled(pl.c.Client, l.data) {
				if _, ok := disabledIn[c]; !ok {
					disabledIn[c] = l.f.Path
				}
			}
		}
	}
	order := map[string]int{}
	for _, l := range files {
		if !l.ok {
			continue
		}
		trust := pl.codexTrust(l.f, l.data)
		for _, h := range l.found {
			order[h.NativeEvent]++
			hk := Hook{NativeEvent: h.NativeEvent, Order: order[h.NativeEvent], File: l.f.Path, Line: h.Line, Scope: l.f.Scope,
				Matcher: h.Matcher, Timeout: h.Timeout, HasTimeout: h.HasTimeout, Command: h.Command, Args: h.Args,
				Ours: h.Claim.Ours(), Kind: kindName(h.Claim.Kind), Fires: true, Allowed: true}
			if h.OnFailure != "" && h.OnFailure != "\x00" {
				hk.OnFailure = h.OnFailure
			}
			if hk.Ours {
				hk.Event = h.Claim.Event
				if row, ok := pl.table.Lookup(pl.c.Client, h.Claim.Event); ok {
					hk.TimeoutUnit = row.TimeoutUnit
				}
			}
			if hk.TimeoutUnit == "" {
				hk.TimeoutUnit = unitOf(pl.table, pl.c.Client)
			}
			switch {
			case pl.c.Off != "":
				hk.Fires, hk.ReasonID, hk.Why = false, pl.c.OffID, pl.c.Off
			case l.f.ReasonID != "":
				hk.Fires, hk.ReasonID, hk.Why = false, l.f.ReasonID, l.f.Why
			case trust != nil && trust[h.Line] != "":
				hk.Fires, hk.ReasonID, hk.Why = false, ReasonUntrusted, trust[h.Line]
			case disabledIn[h.Command] != "":
				hk.Fires, hk.ReasonID, hk.Why = false, ReasonDisabled, "hooksConfig.disabled in "+disabledIn[h.Command]+" names this command, so Gemini CLI skips it (Gemini CLI 0.61.0: a hook is disabled when its name, or else its command, is listed; the lists of all settings files are merged)"
			}
			for _, fv := range pl.spec.fields {
				if fv.field == "onFailure" && hk.OnFailure != "" && pl.c.Version != "" && versionLess(pl.c.Version, fv.since) {
					hk.CaveatID = ReasonVersion
					hk.Caveat = fmt.Sprintf("%s %s (%s) is older than %s, which introduced %q: %s (%s)", clientname.Title(pl.c.Client), pl.c.Version, pl.c.VersionFrom, fv.since, fv.field, fv.ignored, fv.source)
				}
			}
			if !hk.Ours && len(pl.allow) > 0 {
				hk.Allowed = allowed(pl.allow, h.Command, h.Args)
			}
			pl.c.Hooks = append(pl.c.Hooks, hk)
		}
	}
}

// pluginRows plans a client whose rendered plugin file runs our rows: the
// file, and while it exists one hook per registration row of the client.
func (pl *clientPlanner) pluginRows() {
	abs := filepath.Join(pl.p.Root, filepath.FromSlash(pl.spec.plugin))
	f := File{Path: pl.spec.plugin, Scope: ScopePlugin, abs: abs}
	_, exists, err := pl.read(abs)
	f.Exists = exists
	if err != nil {
		f.ReasonID, f.Why = ReasonUnparseable, "cannot be read safely: "+err.Error()
	}
	pl.c.Files = append(pl.c.Files, f)
	if !exists || err != nil {
		return
	}
	for _, row := range pl.table.ForClient(pl.c.Client) {
		cmd, err := templates.RegistrationCommand(pl.c.Client, row.Event)
		if err != nil {
			continue
		}
		pl.c.Hooks = append(pl.c.Hooks, Hook{NativeEvent: row.NativeEvent, Event: row.Event, Order: 1, File: f.Path, Scope: ScopePlugin,
			Matcher: row.Matcher, Timeout: row.Timeout, HasTimeout: true, TimeoutUnit: row.TimeoutUnit, Command: cmd,
			Ours: true, Kind: "current", Fires: true, Allowed: true})
	}
}

// codexInline plans the inline [hooks] tables of the user's Codex
// config.toml (developers.openai.com/codex/hooks.md: "inline [hooks]
// tables inside config.toml" beside hooks.json in each config layer;
// [hooks.state] holds trust records, not hooks). Each handler is listed
// after the hooks.json ones; its line is where its command first appears.
// Its trust is not checked here (the key Codex derives for an inline hook
// was not measured).
func (pl *clientPlanner) codexInline(cfg string) {
	data, exists, err := pl.read(cfg)
	if err != nil || !exists {
		return
	}
	var doc struct {
		Hooks map[string]any `toml:"hooks"`
	}
	if toml.Unmarshal(data, &doc) != nil || len(doc.Hooks) == 0 {
		return
	}
	f := File{Path: cfg, Scope: ScopeUser, Exists: true, abs: cfg}
	pl.c.Files = append(pl.c.Files, f)
	events := make([]string, 0, len(doc.Hooks))
	for ev := range doc.Hooks {
		if ev != "state" {
			events = append(events, ev)
		}
	}
	sort.Strings(events)
	order := map[string]int{}
	for _, h := range pl.c.Hooks {
		order[h.NativeEvent]++
	}
	for _, ev := range events {
		groups, _ := doc.Hooks[ev].([]any)
		for _, g := range groups {
			gm, _ := g.(map[string]any)
			matcher, _ := gm["matcher"].(string)
			handlers, _ := gm["hooks"].([]any)
			for _, h := range handlers {
				hm, _ := h.(map[string]any)
				cmd, ok := hm["command"].(string)
				if !ok {
					continue
				}
				order[ev]++
				claim := pl.owner.Claim(cmd, nil, false)
				hk := Hook{NativeEvent: ev, Order: order[ev], File: cfg, Line: lineOf(data, cmd), Scope: ScopeUser, Matcher: matcher,
					Command: cmd, Ours: claim.Ours(), Kind: kindName(claim.Kind), Fires: true, Allowed: true, TimeoutUnit: "s"}
				if t, ok := hm["timeout"].(int64); ok {
					hk.Timeout, hk.HasTimeout = float64(t), true
				}
				if hk.Ours {
					hk.Event = claim.Event
				}
				if pl.c.Off != "" {
					hk.Fires, hk.ReasonID, hk.Why = false, pl.c.OffID, pl.c.Off
				}
				if !hk.Ours && len(pl.allow) > 0 {
					hk.Allowed = allowed(pl.allow, cmd, nil)
				}
				pl.c.Hooks = append(pl.c.Hooks, hk)
			}
		}
	}
}

// display returns abs relative to the root (slash-separated) when inside
// it, else abs.
func (pl *clientPlanner) display(abs string) string {
	if rel, err := filepath.Rel(pl.p.Root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel)
	}
	return abs
}

// read reads a client file: inside the repository without following a
// symlink (safewrite.Preflight), outside it with a size bound. A missing
// file is exists false and no error.
func (pl *clientPlanner) read(abs string) ([]byte, bool, error) {
	rel := pl.display(abs)
	if !filepath.IsAbs(rel) {
		s, err := safewrite.Preflight(pl.p.Root, rel)
		if err != nil {
			return nil, false, err
		}
		return s.Data, s.Exists, nil
	}
	f, err := os.Open(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, true, err
	}
	if !fi.Mode().IsRegular() {
		return nil, true, fmt.Errorf("%s: not a regular file", abs)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", abs, err)
	}
	if len(data) > maxFile {
		return nil, true, fmt.Errorf("%s: larger than %d bytes", abs, maxFile)
	}
	return data, true, nil
}

// switches sets Client.Off from the files' switches: Claude Code's
// disableAllHooks in any file it reads (the key is restrictive: Claude
// Code 2.1.328's settings merge keeps any value but false, and
// clientjson.HooksDisabled reads it so), Gemini CLI's hooksConfig.enabled
// (the last file that sets it wins, as its settings merge does: workspace
// over user: mergeSettings applies defaults, system defaults, user, the
// trusted workspace, then system, and hooksConfig.enabled has no merge
// strategy of its own), Codex's [features] hooks = false (or the deprecated
// codex_hooks) in $CODEX_HOME/config.toml (developers.openai.com/codex/
// hooks.md).
func (pl *clientPlanner) switches(files []loaded) {
	switch pl.c.Client {
	case "claude":
		for _, l := range files {
			if !l.ok || l.f.ReasonID != "" {
				continue
			}
			if off, err := clientjson.HooksDisabled(l.f.Path, l.data, "claude"); err == nil && off {
				pl.c.Off, pl.c.OffID, pl.c.OffFile, pl.c.OffLine = "disableAllHooks in "+l.f.Path+" switches every hook off, ours included", ReasonDisabled, l.f.Path, lineOf(l.data, `"disableAllHooks"`)
				return
			}
		}
	case "gemini":
		for _, l := range files {
			if !l.ok || l.f.ReasonID != "" {
				continue
			}
			if set, on := geminiEnabled(l.data); set {
				if on {
					pl.c.Off, pl.c.OffID, pl.c.OffFile, pl.c.OffLine = "", "", "", 0
				} else {
					pl.c.Off, pl.c.OffID, pl.c.OffFile, pl.c.OffLine = "hooksConfig.enabled: false in "+l.f.Path+" switches every hook off, ours included", ReasonDisabled, l.f.Path, lineOf(l.data, `"enabled"`)
				}
			}
		}
	case "codex":
		home := pl.spec.homeDir(pl.getenv)
		if home == "" {
			return
		}
		cfg := filepath.Join(home, "config.toml")
		data, err := os.ReadFile(cfg)
		if err != nil {
			return
		}
		var doc struct {
			Features map[string]any `toml:"features"`
		}
		if toml.Unmarshal(data, &doc) != nil {
			return
		}
		for _, k := range []string{"hooks", "codex_hooks"} {
			if v, ok := doc.Features[k].(bool); ok && !v {
				pl.c.Off, pl.c.OffID, pl.c.OffFile, pl.c.OffLine = "[features] "+k+" = false in "+cfg+" switches Codex hooks off, ours included", ReasonDisabled, cfg, lineOf(data, k)
				return
			}
		}
	}
}

// codexTrust returns, for a Codex hooks.json, why each handler (by line)
// is skipped: the project is not trusted (a project file) or the user's
// config.toml lacks the handler's trusted_hash (Codex CLI 0.169.0; ../
// shared/e2e/README.md section 2). nil for other clients or when the file
// cannot be keyed.
func (pl *clientPlanner) codexTrust(f *File, data []byte) map[int]string {
	if pl.c.Client != "codex" || f.ReasonID != "" {
		return nil
	}
	entries, err := codextrust.Entries(f.abs, data, func(string) bool { return true })
	if err != nil {
		f.ReasonID, f.Why = ReasonUnparseable, "Codex CLI 0.169.0 loads no hook from this file: "+err.Error()
		return nil
	}
	cfgPath, err := codextrust.ConfigPath(pl.getenv)
	var cfg []byte
	if err == nil {
		cfg, err = os.ReadFile(cfgPath)
		if errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
	}
	st, checkErr := codextrust.Check(cfg, pl.p.Root, entries)
	why := map[int]string{}
	pending := map[string]bool{}
	for _, e := range st.Pending {
		pending[e.Key] = true
	}
	lines := handlerLines(pl, f, data)
	for i, e := range entries {
		if i >= len(lines) {
			break
		}
		switch {
		case err != nil || checkErr != nil:
			why[lines[i]] = "this machine's Codex config could not be read, so Codex's trust is unknown"
		case f.Scope == ScopeProject && !st.ProjectTrusted:
			why[lines[i]] = cfgPath + " does not trust the project, so Codex CLI 0.169.0 ignores .codex/ (`hookwarden codex-trust --trust-project`)"
		case pending[e.Key]:
			why[lines[i]] = cfgPath + " has no trusted_hash for this hook, so Codex CLI 0.169.0 skips it silently (`hookwarden codex-trust`)"
		}
	}
	return why
}

// handlerLines returns the lines of the file's handlers in the order
// codextrust.Entries lists them (events sorted, then file order).
func handlerLines(pl *clientPlanner, f *File, data []byte) []int {
	found, err := clientjson.Registered(f.Path, data, "codex", pl.owner)
	if err != nil {
		return nil
	}
	byEvent := map[string][]int{}
	var events []string
	for _, h := range found {
		if _, ok := byEvent[h.NativeEvent]; !ok {
			events = append(events, h.NativeEvent)
		}
		byEvent[h.NativeEvent] = append(byEvent[h.NativeEvent], h.Line)
	}
	sort.Strings(events)
	var out []int
	for _, e := range events {
		out = append(out, byEvent[e]...)
	}
	return out
}

// geminiEnabled reports whether a Gemini settings file sets
// hooksConfig.enabled to a boolean, and its value.
func geminiEnabled(src []byte) (set, on bool) {
	var doc struct {
		HooksConfig struct {
			Enabled *bool `json:"enabled"`
		} `json:"hooksConfig"`
	}
	if !standardJSON(src, &doc) || doc.HooksConfig.Enabled == nil {
		return false, false
	}
	return true, *doc.HooksConfig.Enabled
}

// geminiDisabled returns hooksConfig.disabled of a Gemini settings file.
func geminiDisabled(client string, src []byte) []string {
	if client != "gemini" {
		return nil
	}
	var doc struct {
		HooksConfig struct {
			Disabled []string `json:"disabled"`
		} `json:"hooksConfig"`
	}
	if !standardJSON(src, &doc) {
		return nil
	}
	return doc.HooksConfig.Disabled
}

func standardJSON(src []byte, into any) bool {
	v, err := hujson.Parse(bytes.TrimPrefix(src, []byte("\xef\xbb\xbf")))
	if err != nil {
		return false
	}
	v.Standardize()
	return json.Unmarshal(v.Pack(), into) == nil
}

// claudeSchema lists top-level settings whose value Claude Code 2.1.328
// checks without a fallback, with the JSON kind it wants (bundle settings
// schema: model n() a string, includeCoAuthoredBy I() a boolean,
// cleanupPeriodDays v().int().positive(), permissions, enabledPlugins and
// statusLine objects). A value of another kind fails the schema and Claude
// Code skips the whole file: each entry measured with ../shared/e2e's
// harness (testdata/clients/claude/2.1.328/settings-rejected.json: the
// file's PreToolUse hook never ran). Measured as accepted, so not listed:
// "env": {"A": 1}, an unknown top-level key, "hooks": {"Stop": 5}.
var claudeSchema = []struct{ key, kind string }{
	{"permissions", "object"}, {"model", "string"}, {"includeCoAuthoredBy", "boolean"},
	{"cleanupPeriodDays", "positive integer"}, {"enabledPlugins", "object"}, {"statusLine", "object"},
}

// claudeRejects returns why Claude Code would skip a settings file that
// parses (a top-level setting of the wrong kind, claudeSchema) and the
// setting's line, or "".
func claudeRejects(src []byte) (string, int) {
	var doc map[string]json.RawMessage
	if !standardJSON(src, &doc) {
		return "", 0
	}
	for _, s := range claudeSchema {
		raw, ok := doc[s.key]
		if !ok {
			continue
		}
		var v any
		if json.Unmarshal(raw, &v) != nil {
			continue
		}
		good := false
		switch s.kind {
		case "object":
			_, good = v.(map[string]any)
		case "string":
			_, good = v.(string)
		case "boolean":
			_, good = v.(bool)
		case "positive integer":
			n, isNum := v.(float64)
			good = isNum && n >= 1 && n == float64(int64(n))
		}
		if !good {
			return fmt.Sprintf("%q is not a %s, which fails Claude Code's settings schema, so Claude Code 2.1.328 skips this whole file (every hook in it, ours included)", s.key, s.kind), lineOf(src, `"`+s.key+`"`)
		}
	}
	return "", 0
}

func unparseable(client string, err error) string {
	switch client {
	case "claude":
		return "Claude Code cannot parse the file and ignores it whole: " + err.Error()
	case "codex":
		return "Codex CLI cannot parse the file and runs no hook from it: " + err.Error()
	case "gemini":
		return "Gemini CLI cannot parse the file (0.61 exits 52 on a trailing comma or BOM): " + err.Error()
	}
	return "the client cannot parse the file: " + err.Error()
}

func kindName(k clientjson.ClaimKind) string {
	switch k {
	case clientjson.Current:
		return "current"
	case clientjson.Stale:
		return "stale"
	case clientjson.NearMiss:
		return "near-miss"
	}
	return "foreign"
}

// unitOf returns the timeout unit of client's rows ("s" when it has none).
func unitOf(t *registration.Table, client string) string {
	for _, r := range t.ForClient(client) {
		return r.TimeoutUnit
	}
	return "s"
}

// lineOf returns the 1-based line of the first occurrence of text in src
// (0 when absent).
func lineOf(src []byte, text string) int {
	i := bytes.Index(src, []byte(text))
	if i < 0 {
		return 0
	}
	return 1 + bytes.Count(src[:i], []byte("\n"))
}

// allowLayer is one settings layer's audit.allowed_commands, compiled and
// anchored to the whole command.
type allowLayer struct {
	name string
	res  []*regexp.Regexp
}

// allowList reads audit.allowed_commands from the fleet and workstation
// layers (settings.SourcesFromEnv); a layer that fails to load contributes
// nothing (audit reports it as settings-layer-invalid).
func allowList(getenv func(string) string) []allowLayer {
	eff, err := settings.Load(settings.SourcesFromEnv(getenv), nil)
	if err != nil {
		return nil
	}
	var out []allowLayer
	for _, l := range eff.Layers {
		if l.File.AllowedCommands == nil {
			continue
		}
		al := allowLayer{name: l.Name}
		for _, p := range l.File.AllowedCommands {
			if re, err := regexp.Compile(`^(?:` + p + `)$`); err == nil {
				al.res = append(al.res, re)
			}
		}
		out = append(out, al)
	}
	return out
}

// allowed reports whether command (with exec-form args joined by spaces)
// matches a pattern of every layer that sets an allow-list.
func allowed(layers []allowLayer, command string, args []string) bool {
	text := command
	if len(args) > 0 {
		text += " " + strings.Join(args, " ")
	}
	for _, l := range layers {
		ok := false
		for _, re := range l.res {
			if re.MatchString(text) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}
