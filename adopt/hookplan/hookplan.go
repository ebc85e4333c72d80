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
	"github.com/hookwarden/hookwarden/internal/clientname"
	"github.com/hookwarden/hookwarden/internal/safewrite"
	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/settings"
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
	// relies on (a caveat), or than the row's event itself (the row does not
	// fire: templates.RowAccepted).
	ReasonVersion = "client-version-too-old"
	// ReasonNotAllowed: a handler that is not ours runs a command outside
	// the operator's audit.allowed_commands.
	ReasonNotAllowed = "foreign-hook-not-allowed"
	// ReasonGeminiUntrusted: Gemini CLI's folder trust is on and the
	// session's folder is not trusted, so Gemini does not load the
	// workspace settings (audit --plan --workstation).
	ReasonGeminiUntrusted = "gemini-folder-untrusted"
	// ReasonManagedOnly: the managed settings admit only managed hooks
	// (Claude Code's allowManagedHooksOnly, Codex's
	// allow_managed_hooks_only requirement), so a user, project or local
	// hook does not run (audit --plan --workstation).
	ReasonManagedOnly = "managed-hooks-only"
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
	// Managed is true for a file of the client's managed (administrator)
	// settings, whose hooks a managed-only switch spares.
	Managed bool `json:"managed,omitempty"`
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
	// OffSparesManaged is true when Off skips every hook but those of the
	// managed files (File.Managed) and of plugins the managed settings
	// enable.
	OffSparesManaged bool `json:"off_spares_managed,omitempty"`
	// Limits names the hook sources the client reads that the plan cannot
	// see (a command-line flag, a server-delivered policy), each with its
	// source: hooks from them may run and are not listed.
	Limits []string `json:"limits,omitempty"`
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
// CODEX_HOME, CLAUDE_CODE_PLUGIN_CACHE_DIR and the settings-layer variables
// (nil: os.Getenv). Workstation adds the clients' user-level and
// machine-wide files. Start is the session's start directory (absolute, at
// or below the root; "" the root). SystemRoot is the directory that stands
// for "/" when a machine-wide path of Claude Code or Codex is read
// (/etc/claude-code, /etc/codex, /etc/windsurf; "" the real root): tests point it at a
// fixture so the machine's own policy files are not read.
type Options struct {
	Getenv      func(string) string
	Workstation bool
	Start       string
	SystemRoot  string
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
		spec, known := clients()[name]
		if !known {
			c.Runs = "not in hookwarden's plan table: only its registration rows are known"
			p.Clients = append(p.Clients, c)
			continue
		}
		c.Runs = spec.runs
		if opts.Workstation {
			c.Limits = spec.limits
		}
		c.Version, c.VersionFrom = installedVersion(spec, getenv)
		owner, err := templates.Owner(name, table)
		if err != nil {
			return nil, err
		}
		pl := &clientPlanner{p: p, c: &c, spec: spec, owner: owner, table: table, getenv: getenv, allow: allow, sysRoot: opts.SystemRoot}
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
// whether it parsed. data is the file's bytes, or for a Codex config.toml
// the JSON view of its [hooks] tables (codexHooksView) while raw holds the
// TOML bytes (nil for a JSON file).
type loaded struct {
	f     *File
	data  []byte
	raw   []byte
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
	// sysRoot is Options.SystemRoot.
	sysRoot string
}

// paths returns the absolute paths of the files fs names, in the order
// the client reads them (none when its base is unknown here).
func (pl *clientPlanner) paths(fs fileSpec, home string) []string {
	switch fs.base {
	case "gemini-system":
		abs, _ := geminiSystemPaths(pl.getenv, runtime.GOOS)
		return []string{abs}
	case "gemini-system-defaults":
		_, abs := geminiSystemPaths(pl.getenv, runtime.GOOS)
		return []string{abs}
	case "claude-managed":
		return claudeManagedFiles(pl.sysRoot, runtime.GOOS)
	case "codex-tree":
		return codexTreeFiles(pl.p.Root, pl.p.Start)
	case "windsurf-system":
		return []string{filepath.Join(pl.sysRoot, windsurfSystem(runtime.GOOS))}
	case "codex-system":
		if runtime.GOOS == "windows" {
			return nil
		}
		return []string{filepath.Join(pl.sysRoot, codexSystemDir, fs.rel)}
	case "home":
		if home == "" {
			return nil
		}
		return []string{filepath.Join(home, fs.rel)}
	case "start":
		return []string{filepath.Join(pl.p.Start, filepath.FromSlash(fs.rel))}
	}
	return []string{filepath.Join(pl.p.Root, filepath.FromSlash(fs.rel))}
}

func (pl *clientPlanner) run(workstation bool) {
	home := pl.spec.homeDir(pl.getenv)
	var files []loaded
	for _, fs := range pl.spec.files {
		if (fs.scope == ScopeUser || fs.scope == ScopeSystem) && !workstation {
			continue
		}
		for _, abs := range pl.paths(fs, home) {
			files = pl.load(files, fs, abs)
		}
	}
	pl.plan(files, workstation, home)
}

// load reads one client file (and, for a session started below the root,
// the root's project file the client does not read) and appends it to
// files and to the client's Files.
func (pl *clientPlanner) load(files []loaded, fs fileSpec, abs string) []loaded {
	f := File{Path: pl.display(abs), Scope: fs.scope, abs: abs, Managed: fs.base == "claude-managed" || fs.base == "codex-system"}
	data, exists, err := pl.read(abs)
	f.Exists = exists
	l := loaded{f: &f, data: data}
	format := fs.format
	if format == "codex-auto" {
		format = "codex"
		if filepath.Base(abs) == "config.toml" {
			format = "codex-toml"
		}
	}
	if exists && err == nil && format == "codex-toml" {
		view, verr := codexHooksView(data)
		l.raw, l.data, data, format = data, view, view, "codex"
		if verr != nil {
			err = verr
		}
	}
	switch {
	case err != nil && l.raw != nil:
		f.ReasonID, f.Why = ReasonUnparseable, "Codex CLI 0.169.0 cannot use this file's hooks: "+err.Error()
	case err != nil:
		f.ReasonID, f.Why = ReasonUnparseable, "cannot be read safely: "+err.Error()
	case !exists:
	default:
		found, err := clientjson.Registered(f.Path, data, format, pl.owner)
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
	return files
}

// plan applies the switches and trust rules to the loaded files and lists
// every handler.
func (pl *clientPlanner) plan(files []loaded, workstation bool, home string) {
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
	if pl.c.Client == "copilot" {
		pl.copilotOthers()
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
		cursor := 0
		for _, h := range l.found {
			order[h.NativeEvent]++
			line := h.Line
			if l.raw != nil {
				// A Codex config.toml: the handler's line in the TOML
				// text, where its command appears after the previous one.
				line = lineFrom(l.raw, h.Command, &cursor)
			}
			hk := Hook{NativeEvent: h.NativeEvent, Order: order[h.NativeEvent], File: l.f.Path, Line: line, Scope: l.f.Scope,
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
			case pl.c.Off != "" && !(pl.c.OffSparesManaged && l.f.Managed):
				hk.Fires, hk.ReasonID, hk.Why = false, pl.c.OffID, pl.c.Off
			case l.f.ReasonID != "":
				hk.Fires, hk.ReasonID, hk.Why = false, l.f.ReasonID, l.f.Why
			case trust[h.Line].why != "":
				hk.Fires, hk.ReasonID, hk.Why = false, trust[h.Line].id, trust[h.Line].why
			case disabledIn[h.Command] != "":
				hk.Fires, hk.ReasonID, hk.Why = false, ReasonDisabled, "hooksConfig.disabled in "+disabledIn[h.Command]+" names this command, so Gemini CLI skips it (Gemini CLI 0.61.0: a hook is disabled when its name, or else its command, is listed; the lists of all settings files are merged)"
			}
			if hk.Ours && hk.Fires && pl.c.Version != "" && !templates.RowAccepted(pl.c.Client, hk.Event, pl.c.Version) {
				g, _ := templates.RowGate(pl.c.Client, hk.Event)
				hk.Fires, hk.ReasonID = false, ReasonVersion
				hk.Why = fmt.Sprintf("%s %s (%s) is older than %s, the first version with %s: this row needs a newer client (%s)", clientname.Title(pl.c.Client), pl.c.Version, pl.c.VersionFrom, g.Since, h.NativeEvent, g.Older)
			}
			if hk.OnFailure != "" && pl.c.Version != "" {
				if g, ok := templates.FieldGate(pl.c.Client, "onFailure"); ok && versionLess(pl.c.Version, g.Since) {
					hk.CaveatID = ReasonVersion
					hk.Caveat = fmt.Sprintf("%s %s (%s) is older than %s, which introduced %q: %s (%s)", clientname.Title(pl.c.Client), pl.c.Version, pl.c.VersionFrom, g.Since, "onFailure", g.Older, g.Source)
				}
			}
			if !hk.Ours && len(pl.allow) > 0 {
				hk.Allowed = allowed(pl.allow, h.Command, h.Args)
			}
			pl.c.Hooks = append(pl.c.Hooks, hk)
		}
	}
	if pl.c.Client == "claude" && workstation {
		pl.claudePlugins(files, home)
	}
}

// pluginRows plans a client whose rendered plugin file runs our rows: the
// file, and while it exists one hook per registration row of the client.
// Cline's hook file is the one file its client runs for the hook name
// (templates.ClineHookPath), so one without our render header is the
// operator's script running instead of ours: the file is listed with that
// note and no row of ours (audit's rendered-edited reports it).
func (pl *clientPlanner) pluginRows() {
	abs := filepath.Join(pl.p.Root, filepath.FromSlash(pl.spec.plugin))
	f := File{Path: pl.spec.plugin, Scope: ScopePlugin, abs: abs}
	data, exists, err := pl.read(abs)
	f.Exists = exists
	if err != nil {
		f.ReasonID, f.Why = ReasonUnparseable, "cannot be read safely: "+err.Error()
	}
	foreign := false
	if exists && err == nil && pl.spec.plugin == templates.ClineHookPath {
		if _, ok := templates.ParseHeaderAt(pl.spec.plugin, data); !ok {
			foreign = true
			f.Why = "carries no hookwarden render header: Cline runs this script instead of our rows"
		}
	}
	pl.c.Files = append(pl.c.Files, f)
	if !exists || err != nil || foreign {
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

// display returns abs relative to the root (slash-separated) when inside
// it, else abs.
func (pl *clientPlanner) display(abs string) string {
	if rel, err := filepath.Rel(pl.p.Root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel)
	}
	return abs
}

// read reads a client file: inside the repository without following a
// symlink (safewrite.Preflight), outside it with a size bound and only when
// it is a regular file (checked before opening, so a FIFO does not block).
// A missing file is exists false and no error.
func (pl *clientPlanner) read(abs string) ([]byte, bool, error) {
	rel := pl.display(abs)
	if !filepath.IsAbs(rel) {
		s, err := safewrite.Preflight(pl.p.Root, rel)
		if err != nil {
			return nil, false, err
		}
		return s.Data, s.Exists, nil
	}
	// Stat before opening: opening a FIFO (or a symlink to one) blocks
	// until a writer appears, and the plan must not hang on a user-level
	// or machine-wide file.
	if fi, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	} else if err != nil {
		return nil, false, err
	} else if !fi.Mode().IsRegular() {
		return nil, true, fmt.Errorf("%s: not a regular file", abs)
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
// managed and other settings (claudeSwitches), Gemini CLI's
// hooksConfig.enabled (the last file that sets it wins, as its settings
// merge does: workspace over user: mergeSettings applies defaults, system
// defaults, user, the trusted workspace, then system, and
// hooksConfig.enabled has no merge strategy of its own), Codex's feature
// switch and managed-only requirement (codexSwitches).
func (pl *clientPlanner) switches(files []loaded) {
	switch pl.c.Client {
	case "claude":
		pl.claudeSwitches(files)
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
		pl.codexSwitches(files)
	}
}

// skipWhy is why a client skips one handler: the reason id and the text.
type skipWhy struct{ id, why string }

// codexTrust returns, for a Codex hooks.json or the JSON view of a
// config.toml's [hooks] (data), why each handler (by its line in data) is
// skipped: the layer's directory is not trusted (a project file:
// codexProjectTrust), the user's
// [hooks.state."<key>"] sets enabled = false, or the user's config.toml
// lacks the handler's trusted_hash (Codex CLI 0.169.0; ../shared/e2e/
// README.md section 2). The key is "<file>:<event>:<group>:<handler>" for
// a config.toml as for a hooks.json (codex-rs hooks/src/engine/
// discovery.rs: key_source is the source path of either representation;
// the hash is of the normalized handler, so both converge). Only the user
// layer's [hooks.state] counts (codex-rs hooks/src/config_rules.rs,
// hook_states_from_stack reads the User and SessionFlags layers only): a
// project config.toml cannot trust or enable its own hooks. A managed
// file (the system layer) needs no trust (hook_trust_status: Managed).
// nil for other clients or when the file cannot be keyed.
func (pl *clientPlanner) codexTrust(f *File, data []byte) map[int]skipWhy {
	if pl.c.Client != "codex" || f.ReasonID != "" || f.Managed {
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
	// The layer's trust: the .codex folder's directory's own [projects] key,
	// else the root's (codexProjectTrust).
	dirTrusted, trustKey := codexProjectTrust(cfg, pl.p.Root, filepath.Dir(filepath.Dir(f.abs)))
	var state struct {
		Hooks struct {
			State map[string]struct {
				Enabled *bool `toml:"enabled"`
			} `toml:"state"`
		} `toml:"hooks"`
	}
	_ = toml.Unmarshal(cfg, &state) // Check above reports a config that does not parse
	why := map[int]skipWhy{}
	pending := map[string]bool{}
	for _, e := range st.Pending {
		pending[e.Key] = true
	}
	lines := handlerLines(pl, f, data)
	for i, e := range entries {
		if i >= len(lines) {
			break
		}
		en := state.Hooks.State[e.Key].Enabled
		switch {
		case err != nil || checkErr != nil:
			why[lines[i]] = skipWhy{ReasonUntrusted, "this machine's Codex config could not be read, so Codex's trust is unknown"}
		case f.Scope == ScopeProject && !dirTrusted && trustKey != pl.p.Root:
			why[lines[i]] = skipWhy{ReasonUntrusted, cfgPath + " does not trust " + trustKey + " (the [projects] key of this .codex/ folder's directory), so Codex CLI 0.169.0 disables this project layer"}
		case f.Scope == ScopeProject && !dirTrusted:
			why[lines[i]] = skipWhy{ReasonUntrusted, cfgPath + " does not trust the project, so Codex CLI 0.169.0 ignores .codex/ (`hookwarden codex-trust --trust-project`)"}
		case en != nil && !*en:
			why[lines[i]] = skipWhy{ReasonDisabled, "[hooks.state.\"" + e.Key + "\"] enabled = false in " + cfgPath + " switches this hook off, so Codex CLI 0.169.0 skips it (even with --dangerously-bypass-hook-trust; codex-rs hooks/src/engine/discovery.rs hook_enabled)"}
		case pending[e.Key] && pl.owner.Claim(e.Command, nil, false).Ours():
			why[lines[i]] = skipWhy{ReasonUntrusted, cfgPath + " has no trusted_hash for this hook, so Codex CLI 0.169.0 skips it silently (`hookwarden codex-trust`)"}
		case pending[e.Key]:
			why[lines[i]] = skipWhy{ReasonUntrusted, cfgPath + " has no trusted_hash for this hook, so Codex CLI 0.169.0 skips it silently until a user trusts it in Codex (hookwarden never trusts a hook not its own)"}
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
