// Package settings reads and merges the operator settings layers that decide
// what the live engine enforces: built-in defaults < fleet file
// (HOOKWARDEN_FLEET_CONFIG) < workstation file (HOOKWARDEN_CONFIG, else
// $XDG_CONFIG_HOME/hookwarden/config.yaml, else ~/.config/hookwarden/config.yaml)
// < each governed repository's `.hookwarden.yaml` (see ../../shared/DESIGN.md,
// "Operator settings").
//
// Every layer has the same YAML schema (File). Later layers may only add
// restrictions: deny patterns are a union; `hooks.scope: all` (judge every
// repository, governed or not) is stricter than `governed` and wins whichever
// layer says it; checkpoint thresholds take the smallest value any layer sets
// and `on_stop` is true if any layer sets it. No layer can switch a built-in
// rule off, and `hooks.events` never makes the engine skip an event (it only
// tells adopt which registrations to render).
//
// Files are read only when they exist; a file named explicitly by an
// environment variable must exist. Parsing is strict: an unknown key, a value
// of the wrong type, a duplicate key, a bad RE2 pattern or a bound exceeded is
// an error naming the file, the key and the line.
package settings

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/hookwarden/hookwarden/internal/clientname"
	"github.com/hookwarden/hookwarden/internal/regread"
)

// RepoFileName is the file at a repository root that marks it governed.
const RepoFileName = ".hookwarden.yaml"

// Bounds of one layer (DESIGN.md "Operator settings").
const (
	// MaxDenyPatterns is the most operator deny patterns one layer may hold.
	MaxDenyPatterns = 64
	// MaxPatternBytes is the longest deny pattern, in bytes.
	MaxPatternBytes = 512
	// MaxFileBytes is the largest settings file read, in bytes.
	MaxFileBytes = 1 << 20
)

// Scope values for hooks.scope.
const (
	// ScopeGoverned judges only calls inside a governed repository (default).
	ScopeGoverned = "governed"
	// ScopeAll judges every call, in any repository or none.
	ScopeAll = "all"
)

// events lists the neutral event names a `hooks.events:` entry may hold
// (read only).
var events = []string{"pre-tool", "pre-skill-shell", "pre-edit", "post-tool", "stop", "environment",
	"pre-dispatch", "dispatch-receipt", "dispatch-abort", "subagent-start", "post-return", "pre-handback",
	"handback-receipt", "handback-abort", "prompt"}

// Events returns, as a new slice, the neutral event names a `hooks.events:`
// entry may hold, in registration order.
func Events() []string { return append([]string(nil), events...) }

// MaxTaskLabels bounds dispatch.tasks and dispatch.readonly_agents per layer.
const MaxTaskLabels = 256

// taskLabel reports whether s is a task label or agent type name a
// dispatch list may hold: 1-64 bytes of ASCII letters, digits, '.', '_',
// '-', not starting with '-' (a brief's `task:` value is compared byte for
// byte).
func taskLabel(s string) bool {
	if s == "" || len(s) > 64 || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// stepName reports whether s matches ^[a-z][a-z0-9-]*$ (an adopt step name).
func stepName(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}

// File is one settings layer as written in YAML:
//
//	version: 1                      # required in .hookwarden.yaml; 1 if present elsewhere
//	clients: [claude, codex, gemini, agy, opencode, lefthook]
//	decline: [step, ...]            # adopt steps the operator declines (^[a-z][a-z0-9-]*$)
//	hooks:
//	  scope: governed | all
//	  events: [pre-tool, stop, ...]
//	policy:
//	  deny: [RE2, ...]              # at most 64 patterns of at most 512 bytes
//	checkpoint:
//	  commit_after_minutes: 30      # integer >= 1, minutes
//	  commit_after_files: 20        # integer >= 1, files
//	  on_stop: false
//	dispatch:                       # agent traffic (pre-dispatch, post-return rows); adopt registers them when set
//	  tasks: [label, ...]           # a brief must carry `task: <label>` naming one (every layer that sets it must declare it)
//	  readonly_agents: [type, ...]  # agent types that always get the read-only projection
//	  return_deny: [RE2, ...]       # a subagent return matching one is denied once
//	audit:
//	  acknowledge: [codex-trust-required]  # audit note ids this fleet or workstation has seen; not in .hookwarden.yaml
//	  allowed_commands: [RE2, ...]  # hook commands not ours that audit --plan accepts (whole-command match); not in .hookwarden.yaml
//	record:
//	  dir: /abs/dir                 # record mode: save every payload, then judge it; not in .hookwarden.yaml
//	client_versions:                # only in .hookwarden.yaml: the client versions adopt renders rows for
//	  claude: "2.1.332"             # a dotted version; a gated row form (templates/gates.json) is rendered only from its version on
//
// Every key is optional except version in a repository file. Zero values and
// nil pointers mean "not set by this layer". DenyLines holds the YAML line of
// each Deny entry (same index).
type File struct {
	Version    int
	Clients    []string
	Decline    []string
	Hooks      Hooks
	Deny       []string
	DenyLines  []int
	Checkpoint Checkpoint
	// Dispatch is the `dispatch:` section; nil when the layer has none.
	Dispatch *Dispatch
	// Acknowledge lists `audit.acknowledge`: ids of audit notes (only notes
	// can be acknowledged; adopt/audit checks) the operator has seen, which
	// audit then leaves out. Read from fleet and workstation files only.
	Acknowledge []string
	// AllowedCommands lists `audit.allowed_commands`: RE2 patterns (at
	// most 64 of at most 512 bytes, like policy.deny), each matched
	// against the whole command of a hook handler that is not ours; audit
	// --plan reports every such handler no pattern of this layer matches
	// (a layer that does not set the key allows every command).
	// AllowedCommandLines holds each pattern's YAML line. Read from fleet
	// and workstation files only.
	AllowedCommands     []string
	AllowedCommandLines []int
	// RecordDir is `record.dir`: an absolute directory where the engine
	// saves the raw payload of every hook call before it judges it (record
	// mode). Read from fleet and workstation files only: a repository, which
	// an agent may write, cannot switch it on.
	RecordDir string
	// ClientVersions is `client_versions`: the client versions the
	// repository declares (client name to a dotted version, "2.1.332"),
	// which adopt, conform and audit render the rows for instead of the
	// installed client's (templates.RowAccepted). Read from the repository
	// file only; nil when not set.
	ClientVersions map[string]string
}

// Hooks is the `hooks:` section. Scope is "", ScopeGoverned or ScopeAll.
// Events is nil when the layer does not set it.
type Hooks struct {
	Scope     string
	Events    []string
	Admission Admission
}

// Admission is `hooks.admission` of one layer (heavy-step admission, issue
// 19 item 8): Enforce turns it on (nil: not set), Commands adds heavy-step
// shapes (RE2, at most 64 of at most 512 bytes, each matched against a
// command's words joined by one space from its base name on; CommandLines
// their YAML lines), MaxJobsDivisor (nil: not set; at least 1) divides the
// host's cores into the job count `hookwarden admit` allows.
type Admission struct {
	Enforce        *bool
	Commands       []string
	CommandLines   []int
	MaxJobsDivisor *int
}

// EffectiveAdmission is the merged hooks.admission: Enforce when any layer
// sets it true, every layer's Commands, the largest MaxJobsDivisor (the
// fewest jobs; DefaultMaxJobsDivisor when no layer sets one).
type EffectiveAdmission struct {
	Enforce        bool
	Commands       []string
	MaxJobsDivisor int
}

// DefaultMaxJobsDivisor is the divisor of the host's cores that gives
// `hookwarden admit`'s job cap when no layer sets one (the seed's default).
const DefaultMaxJobsDivisor = 3

// Dispatch is the `dispatch:` section of one layer (issue 19). Tasks is nil
// when the layer does not set dispatch.tasks (no label required by it);
// ReadonlyAgents lists agent types every dispatch of which is read-only;
// ReturnDeny holds RE2 patterns (at most 64 of at most 512 bytes) a
// subagent's return must not match, ReturnDenyLines their YAML lines.
type Dispatch struct {
	Tasks           []string
	ReadonlyAgents  []string
	ReturnDeny      []string
	ReturnDenyLines []int
}

// EffectiveDispatch is the merge of every layer's dispatch section: Set is
// true when any layer has one; Tasks is nil when no layer sets tasks, else
// the labels every layer that sets tasks declares (an intersection: a later
// layer only narrows; it may be empty, which refuses every dispatch);
// ReadonlyAgents and ReturnDeny are unions (patterns tagged with their layer).
type EffectiveDispatch struct {
	Set            bool
	Tasks          []string
	ReadonlyAgents []string
	ReturnDeny     []Pattern
}

// Checkpoint is the `checkpoint:` section, shared with the checkpoint
// evaluator. CommitAfterMinutes is in minutes, CommitAfterFiles counts
// changed files; nil means "not set".
type Checkpoint struct {
	CommitAfterMinutes *int
	CommitAfterFiles   *int
	OnStop             *bool
}

// Layer is one parsed settings source. Name is "defaults", "fleet",
// "workstation" or "repository"; Path is the file it came from ("" for the
// built-in defaults).
type Layer struct {
	Name string
	Path string
	File File
}

// Default values of the built-in layer.
const (
	DefaultCommitAfterMinutes = 30
	DefaultCommitAfterFiles   = 20
)

// Effective is the merge of all layers for one call. Scope is ScopeGoverned or
// ScopeAll. Deny holds every operator pattern of every layer, each tagged with
// its layer for refusal texts. Checkpoint has every field set. Repository
// holds the repository layers in the order given (their Clients, Decline and
// Hooks.Events are for adopt and audit). Layers lists every layer read,
// defaults first.
type Effective struct {
	Scope      string
	Admission  EffectiveAdmission
	Deny       []Pattern
	Checkpoint Checkpoint
	Dispatch   EffectiveDispatch
	Repository []Layer
	Layers     []Layer
}

// Pattern is one operator deny pattern with its source: Layer is
// "<layer name> <file path>" (e.g. "fleet /etc/hookwarden/fleet.yaml"),
// Pattern an RE2 expression of at most 512 bytes, Name the layer's name
// ("fleet", "workstation", "repository") and Line the pattern's 1-based
// line in its file (0 when unknown). policy.New takes these as they are
// read.
type Pattern struct {
	Layer   string
	Pattern string
	Name    string
	Line    int
}

// Sources names the optional operator files. An Explicit flag says the path
// came from an environment variable, so the file must exist.
type Sources struct {
	FleetPath           string
	FleetExplicit       bool
	WorkstationPath     string
	WorkstationExplicit bool
}

// SourcesFromEnv derives Sources from the environment through getenv:
// HOOKWARDEN_FLEET_CONFIG (explicit), HOOKWARDEN_CONFIG (explicit), else
// $XDG_CONFIG_HOME/hookwarden/config.yaml, else $HOME/.config/hookwarden/config.yaml
// (XDG Base Directory spec default). Empty variables count as unset; a
// relative XDG_CONFIG_HOME is ignored as the XDG spec requires.
func SourcesFromEnv(getenv func(string) string) Sources {
	var s Sources
	if p := getenv("HOOKWARDEN_FLEET_CONFIG"); p != "" {
		s.FleetPath, s.FleetExplicit = p, true
	}
	if p := getenv("HOOKWARDEN_CONFIG"); p != "" {
		s.WorkstationPath, s.WorkstationExplicit = p, true
		return s
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		s.WorkstationPath = filepath.Join(x, "hookwarden", "config.yaml")
	} else if h := getenv("HOME"); h != "" {
		s.WorkstationPath = filepath.Join(h, ".config", "hookwarden", "config.yaml")
	}
	return s
}

// Defaults returns the built-in layer: scope governed, no operator patterns,
// checkpoint after 30 minutes or 20 files, not on stop.
func Defaults() Layer {
	m, f, s := DefaultCommitAfterMinutes, DefaultCommitAfterFiles, false
	return Layer{Name: "defaults", File: File{
		Version:    1,
		Hooks:      Hooks{Scope: ScopeGoverned},
		Checkpoint: Checkpoint{CommitAfterMinutes: &m, CommitAfterFiles: &f, OnStop: &s},
	}}
}

// Load reads the fleet and workstation files named by src (when they exist)
// and the `.hookwarden.yaml` of each repository root in repoRoots (each must
// exist: callers pass only governed roots), then merges them over Defaults.
// It returns the first error met, naming the file, key and line.
func Load(src Sources, repoRoots []string) (*Effective, error) {
	ops, err := OperatorLayers(src)
	if err != nil {
		return nil, err
	}
	return LoadWith(ops, repoRoots)
}

// OperatorLayers reads the fleet and workstation files named by src (when
// they exist), in that order; a file that does not parse is an error naming
// it. The result is what LoadWith merges the repository layers over.
func OperatorLayers(src Sources) ([]Layer, error) {
	var layers []Layer
	for _, o := range []struct {
		name, path string
		explicit   bool
	}{{"fleet", src.FleetPath, src.FleetExplicit}, {"workstation", src.WorkstationPath, src.WorkstationExplicit}} {
		if o.path == "" {
			continue
		}
		l, ok, err := readLayer(o.name, o.path, !o.explicit, false)
		if err != nil {
			return nil, err
		}
		if ok {
			layers = append(layers, l)
		}
	}
	return layers, nil
}

// LoadWith merges, over Defaults, the operator layers (OperatorLayers) and
// the `.hookwarden.yaml` of each repository root in repoRoots (each must
// exist: callers pass only governed roots). It returns the first error met,
// naming the file, key and line.
func LoadWith(operator []Layer, repoRoots []string) (*Effective, error) {
	layers := append([]Layer{Defaults()}, operator...)
	for _, root := range repoRoots {
		l, _, err := readLayer("repository", filepath.Join(root, RepoFileName), false, true)
		if err != nil {
			return nil, err
		}
		layers = append(layers, l)
	}
	return Merge(layers), nil
}

// RecordDir returns the record directory of the last operator layer that
// sets record.dir ("" when none does: record mode is off). Repository
// layers never set it (Parse refuses the key there).
func RecordDir(layers []Layer) string {
	dir := ""
	for _, l := range layers {
		if l.Name != "repository" && l.File.RecordDir != "" {
			dir = l.File.RecordDir
		}
	}
	return dir
}

// ReadRepoFile parses the `.hookwarden.yaml` at path (version required). It is
// the entry point adopt and the stop gate use to read the repository layer.
func ReadRepoFile(path string) (File, error) {
	l, _, err := readLayer("repository", path, false, true)
	return l.File, err
}

func readLayer(name, path string, optional, repo bool) (Layer, bool, error) {
	// regread: a FIFO here is refused at once; os.Open would wait for a
	// writer until the client's hook timeout let the call through.
	data, err := regread.File(path, MaxFileBytes)
	if err != nil {
		if optional && errors.Is(err, fs.ErrNotExist) {
			return Layer{}, false, nil
		}
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Path == path {
			err = pe.Err // the path is named once, below
		}
		return Layer{}, false, fmt.Errorf("settings: %s file %s: %w", name, path, err)
	}
	f, err := Parse(data, repo)
	if err != nil {
		return Layer{}, false, fmt.Errorf("settings: %s file %s: %w", name, path, err)
	}
	return Layer{Name: name, Path: path, File: f}, true, nil
}

// Merge combines layers in order (first = weakest) under the only-add-
// restrictions rule described in the package doc. Layers named "repository"
// are also collected into Effective.Repository.
func Merge(layers []Layer) *Effective {
	e := &Effective{Scope: ScopeGoverned, Layers: layers, Admission: EffectiveAdmission{MaxJobsDivisor: DefaultMaxJobsDivisor}}
	divisorSet := false
	for _, l := range layers {
		f := l.File
		if f.Hooks.Scope == ScopeAll {
			e.Scope = ScopeAll
		}
		a := f.Hooks.Admission
		if a.Enforce != nil && *a.Enforce {
			e.Admission.Enforce = true
		}
		e.Admission.Commands = append(e.Admission.Commands, a.Commands...)
		if a.MaxJobsDivisor != nil && (!divisorSet || *a.MaxJobsDivisor > e.Admission.MaxJobsDivisor) {
			e.Admission.MaxJobsDivisor, divisorSet = *a.MaxJobsDivisor, true
		}
		label := l.Name
		if l.Path != "" {
			label += " " + l.Path
		}
		for i, p := range f.Deny {
			line := 0
			if i < len(f.DenyLines) {
				line = f.DenyLines[i]
			}
			e.Deny = append(e.Deny, Pattern{Layer: label, Pattern: p, Name: l.Name, Line: line})
		}
		e.Checkpoint.CommitAfterMinutes = minPtr(e.Checkpoint.CommitAfterMinutes, f.Checkpoint.CommitAfterMinutes)
		e.Checkpoint.CommitAfterFiles = minPtr(e.Checkpoint.CommitAfterFiles, f.Checkpoint.CommitAfterFiles)
		if f.Checkpoint.OnStop != nil {
			v := *f.Checkpoint.OnStop
			if e.Checkpoint.OnStop != nil && *e.Checkpoint.OnStop {
				v = true
			}
			e.Checkpoint.OnStop = &v
		}
		if d := f.Dispatch; d != nil {
			e.Dispatch.Set = true
			if d.Tasks != nil {
				if e.Dispatch.Tasks == nil {
					e.Dispatch.Tasks = append([]string{}, d.Tasks...)
				} else {
					var keep []string
					for _, t := range e.Dispatch.Tasks {
						if slicesContains(d.Tasks, t) {
							keep = append(keep, t)
						}
					}
					e.Dispatch.Tasks = append([]string{}, keep...)
				}
			}
			for _, a := range d.ReadonlyAgents {
				if !slicesContains(e.Dispatch.ReadonlyAgents, a) {
					e.Dispatch.ReadonlyAgents = append(e.Dispatch.ReadonlyAgents, a)
				}
			}
			for i, p := range d.ReturnDeny {
				line := 0
				if i < len(d.ReturnDenyLines) {
					line = d.ReturnDenyLines[i]
				}
				e.Dispatch.ReturnDeny = append(e.Dispatch.ReturnDeny, Pattern{Layer: label, Pattern: p, Name: l.Name, Line: line})
			}
		}
		if l.Name == "repository" {
			e.Repository = append(e.Repository, l)
		}
	}
	return e
}

func slicesContains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func minPtr(a, b *int) *int {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case *b < *a:
		return b
	}
	return a
}

// Parse decodes one settings file. With repo true, `version: 1` is required.
// The error names the key and its line ("line 3: hooks.scope: ...").
// go.yaml.in/yaml/v3 reads every file (an own front end for a plain subset
// stood here for about 0.1 ms of a cold hook process, about 3 % of the
// registered row, under issue 16's 5 % bar).
func Parse(data []byte, repo bool) (File, error) {
	top, err := parseYAML(data)
	if err != nil {
		return File{}, err
	}
	return parseTree(top, repo)
}

// parseYAML reads data with yaml/v3 and returns the document's top node (nil
// for a file without a document). Errors: not valid YAML, or a second
// document.
func parseYAML(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil && err != io.EOF {
		return nil, fmt.Errorf("not valid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	// yaml.Unmarshal reads the first document and ignores the rest: a
	// policy.deny in a second document would be dropped without a word.
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		return nil, fmt.Errorf("line %d: a second YAML document starts here; a settings file holds one document (the rest would be ignored)", next.Line)
	case err != io.EOF:
		return nil, fmt.Errorf("not valid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	return doc.Content[0], nil
}

// parseTree validates a document's top node (nil: no document) against the
// schema and returns the File.
func parseTree(top *yaml.Node, repo bool) (File, error) {
	var f File
	if top == nil {
		if repo {
			return File{}, errors.New("line 1: version: missing (want `version: 1`)")
		}
		return f, nil
	}
	if top.Kind != yaml.MappingNode {
		return File{}, fmt.Errorf("line %d: the document must be a mapping", top.Line)
	}
	err := eachKey(top, "", func(key string, k, v *yaml.Node) error {
		return f.parseSection(key, k, v, repo)
	})
	if err != nil {
		return File{}, err
	}
	if repo && f.Version == 0 { // parseSection accepts version 1 only
		return File{}, fmt.Errorf("line %d: version: missing (want `version: 1`)", top.Line)
	}
	return f, nil
}

// parseSection reads the top-level key (its name node k, its value v) into
// f; repo tells a repository's file (which declares client_versions and
// may not set record or audit) from an operator's.
func (f *File) parseSection(key string, k, v *yaml.Node, repo bool) error {
	switch key {
	case "version":
		n, err := intValue(key, v)
		if err != nil {
			return err
		}
		if n != 1 {
			return fmt.Errorf("line %d: version: %d is not supported (want 1)", v.Line, n)
		}
		f.Version = n
	case "clients":
		l, err := enumList(key, v, clientname.All())
		if err != nil {
			return err
		}
		f.Clients = l
	case "decline":
		l, err := stepNames(key, v, "a step name")
		if err != nil {
			return err
		}
		f.Decline = l
	case "hooks":
		return eachKey(v, "hooks", f.parseHooks)
	case "client_versions":
		if !repo {
			return fmt.Errorf("line %d: client_versions: only a repository's %s declares its clients' versions", k.Line, RepoFileName)
		}
		f.ClientVersions = map[string]string{}
		return eachKey(v, "client_versions", f.parseClientVersion)
	case "policy":
		return eachKey(v, "policy", func(key string, k, v *yaml.Node) error {
			if key != "policy.deny" {
				return unknownKey(key, k)
			}
			l, lines, err := patternList(key, v)
			f.Deny, f.DenyLines = l, lines
			return err
		})
	case "checkpoint":
		return eachKey(v, "checkpoint", f.parseCheckpoint)
	case "dispatch":
		f.Dispatch = &Dispatch{}
		if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
			return nil // `dispatch:` alone: the rows, no rule
		}
		return eachKey(v, "dispatch", f.Dispatch.parse)
	case "record":
		if repo {
			return fmt.Errorf("line %d: record: read only from fleet and workstation settings (record mode is the operator's, not the repository's)", k.Line)
		}
		return eachKey(v, "record", f.parseRecord)
	case "audit":
		if repo {
			return fmt.Errorf("line %d: audit: read only from fleet and workstation settings (an acknowledgement is the operator's, not the repository's)", k.Line)
		}
		return eachKey(v, "audit", f.parseAudit)
	default:
		return unknownKey(key, k)
	}
	return nil
}

// parseHooks reads one key under hooks: scope, events and admission.
func (f *File) parseHooks(key string, k, v *yaml.Node) error {
	switch key {
	case "hooks.scope":
		s, err := stringValue(key, v)
		if err != nil {
			return err
		}
		if s != ScopeGoverned && s != ScopeAll {
			return fmt.Errorf("line %d: hooks.scope: %q is not governed or all", v.Line, s)
		}
		f.Hooks.Scope = s
	case "hooks.events":
		l, err := enumList(key, v, events)
		if err != nil {
			return err
		}
		f.Hooks.Events = l
	case "hooks.admission":
		return eachKey(v, "hooks.admission", f.parseAdmission)
	default:
		return unknownKey(key, k)
	}
	return nil
}

// parseAdmission reads one key under hooks.admission: enforce, commands
// and max_jobs_divisor.
func (f *File) parseAdmission(key string, k, v *yaml.Node) error {
	switch key {
	case "hooks.admission.enforce":
		b, err := boolValue(key, v)
		if err != nil {
			return err
		}
		f.Hooks.Admission.Enforce = &b
	case "hooks.admission.commands":
		l, lines, err := patternList(key, v)
		if err != nil {
			return err
		}
		f.Hooks.Admission.Commands, f.Hooks.Admission.CommandLines = l, lines
	case "hooks.admission.max_jobs_divisor":
		n, err := positiveInt(key, v)
		if err != nil {
			return err
		}
		f.Hooks.Admission.MaxJobsDivisor = &n
	default:
		return unknownKey(key, k)
	}
	return nil
}

// parseClientVersion reads client_versions.NAME: a client's name and the
// dotted version its rows are rendered for.
func (f *File) parseClientVersion(key string, k, v *yaml.Node) error {
	name := strings.TrimPrefix(key, "client_versions.")
	if !slices.Contains(clientname.All(), name) {
		return fmt.Errorf("line %d: %s: %q is not a client (%s)", k.Line, key, name, strings.Join(clientname.All(), ", "))
	}
	s, err := stringValue(key, v)
	if err != nil {
		return err
	}
	if !dottedVersion(s) {
		return fmt.Errorf("line %d: %s: %q is not a dotted version such as 2.1.332 (quote it in YAML)", v.Line, key, s)
	}
	f.ClientVersions[name] = s
	return nil
}

// parseCheckpoint reads one key under checkpoint: commit_after_minutes,
// commit_after_files and on_stop.
func (f *File) parseCheckpoint(key string, k, v *yaml.Node) error {
	switch key {
	case "checkpoint.commit_after_minutes", "checkpoint.commit_after_files":
		n, err := positiveInt(key, v)
		if err != nil {
			return err
		}
		if key == "checkpoint.commit_after_minutes" {
			f.Checkpoint.CommitAfterMinutes = &n
		} else {
			f.Checkpoint.CommitAfterFiles = &n
		}
	case "checkpoint.on_stop":
		b, err := boolValue(key, v)
		if err != nil {
			return err
		}
		f.Checkpoint.OnStop = &b
	default:
		return unknownKey(key, k)
	}
	return nil
}

// parse reads one key under dispatch: tasks and readonly_agents (labels,
// at most MaxTaskLabels) and return_deny (patterns).
func (d *Dispatch) parse(key string, k, v *yaml.Node) error {
	switch key {
	case "dispatch.tasks", "dispatch.readonly_agents":
		l, lines, err := stringList(key, v)
		if err != nil {
			return err
		}
		if len(l) > MaxTaskLabels {
			return fmt.Errorf("line %d: %s: %d entries, at most %d", v.Line, key, len(l), MaxTaskLabels)
		}
		for i, s := range l {
			if !taskLabel(s) {
				return fmt.Errorf("line %d: %s: %q is not a label (1-64 of A-Z a-z 0-9 . _ -, not starting with -)", lines[i], key, s)
			}
		}
		if key == "dispatch.tasks" {
			d.Tasks = l
		} else {
			d.ReadonlyAgents = l
		}
	case "dispatch.return_deny":
		l, lines, err := patternList(key, v)
		if err != nil {
			return err
		}
		d.ReturnDeny, d.ReturnDenyLines = l, lines
	default:
		return unknownKey(key, k)
	}
	return nil
}

// parseRecord reads record.dir, an absolute path.
func (f *File) parseRecord(key string, k, v *yaml.Node) error {
	if key != "record.dir" {
		return unknownKey(key, k)
	}
	d, err := stringValue(key, v)
	if err != nil {
		return err
	}
	if !filepath.IsAbs(d) {
		return fmt.Errorf("line %d: record.dir: %q is not an absolute path", v.Line, d)
	}
	f.RecordDir = filepath.Clean(d)
	return nil
}

// parseAudit reads one key under audit: allowed_commands (patterns) and
// acknowledge (finding ids).
func (f *File) parseAudit(key string, k, v *yaml.Node) error {
	switch key {
	case "audit.allowed_commands":
		l, lines, err := patternList(key, v)
		if err != nil {
			return err
		}
		f.AllowedCommands, f.AllowedCommandLines = l, lines
	case "audit.acknowledge":
		l, err := stepNames(key, v, "a finding id")
		if err != nil {
			return err
		}
		f.Acknowledge = l
	default:
		return unknownKey(key, k)
	}
	return nil
}

// patternList reads a list of operator patterns (stringList) and checks each
// compiles (checkPatterns); it returns the patterns and their lines.
func patternList(key string, v *yaml.Node) ([]string, []int, error) {
	l, lines, err := stringList(key, v)
	if err != nil {
		return nil, nil, err
	}
	if err := checkPatterns(key, v.Line, l, lines); err != nil {
		return nil, nil, err
	}
	return l, lines, nil
}

// stepNames reads a list of names matching ^[a-z][a-z0-9-]*$ (steps to
// decline, findings to acknowledge); what names what such a name is in the
// error for one that does not match.
func stepNames(key string, v *yaml.Node, what string) ([]string, error) {
	l, _, err := stringList(key, v)
	if err != nil {
		return nil, err
	}
	for i, s := range l {
		if !stepName(s) {
			return nil, fmt.Errorf("line %d: %s: %q is not %s (^[a-z][a-z0-9-]*$)", v.Content[i].Line, key, s, what)
		}
	}
	return l, nil
}

func unknownKey(key string, k *yaml.Node) error {
	return fmt.Errorf("line %d: %s: unknown key", k.Line, key)
}

// eachKey walks a mapping node, calling fn with the dotted key. Duplicate
// keys and non-scalar keys are errors.
func eachKey(m *yaml.Node, prefix string, fn func(key string, k, v *yaml.Node) error) error {
	m = deref(m)
	if m.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: %s: want a mapping, got %s", m.Line, prefix, kindName(m))
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], deref(m.Content[i+1])
		if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
			return fmt.Errorf("line %d: %s: keys must be plain names", k.Line, prefix)
		}
		key := displayKey(k.Value)
		if prefix != "" {
			key = prefix + "." + key
		}
		if first, dup := seen[k.Value]; dup {
			return fmt.Errorf("line %d: %s: duplicate key (first at line %d)", k.Line, key, first)
		}
		seen[k.Value] = k.Line
		if err := fn(key, k, v); err != nil {
			return err
		}
	}
	return nil
}

// displayKey returns a key as errors show it: unchanged when every rune is
// printable, else Go-escaped (a quoted key may hold a line break, and an
// error must stay one line: it becomes a hook's one-line refusal reason).
func displayKey(k string) string {
	for _, r := range k {
		if !strconv.IsPrint(r) {
			q := strconv.Quote(k)
			return q[1 : len(q)-1]
		}
	}
	return k
}

func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "null"
		}
		t := strings.TrimPrefix(n.Tag, "!!")
		if t != "" && strings.ContainsRune("aeiou", rune(t[0])) {
			return "an " + t
		}
		return "a " + t
	}
	return "an unsupported node"
}

func intValue(key string, v *yaml.Node) (int, error) {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!int" {
		return 0, fmt.Errorf("line %d: %s: want an integer, got %s", v.Line, key, kindName(v))
	}
	if n, ok := smallDecimal(v.Value); ok {
		return n, nil // what Decode returns for it, without its reflection
	}
	var n int
	if err := v.Decode(&n); err != nil {
		return 0, fmt.Errorf("line %d: %s: not an integer in range", v.Line, key)
	}
	return n, nil
}

// positiveInt is intValue for a key that takes a positive integer: below 1
// is an error naming the key and the line.
func positiveInt(key string, v *yaml.Node) (int, error) {
	n, err := intValue(key, v)
	if err == nil && n < 1 {
		err = fmt.Errorf("line %d: %s: %d is not a positive integer", v.Line, key, n)
	}
	return n, err
}

// smallDecimal reads s when it is 0 or a decimal integer of at most 9 digits
// without sign or leading zero.
func smallDecimal(s string) (int, bool) {
	if s == "" || len(s) > 9 || s[0] == '0' && len(s) > 1 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

func boolValue(key string, v *yaml.Node) (bool, error) {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
		return false, fmt.Errorf("line %d: %s: want true or false, got %s", v.Line, key, kindName(v))
	}
	var b bool
	if err := v.Decode(&b); err != nil {
		return false, fmt.Errorf("line %d: %s: want true or false", v.Line, key)
	}
	return b, nil
}

func stringValue(key string, v *yaml.Node) (string, error) {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
		return "", fmt.Errorf("line %d: %s: want a string, got %s", v.Line, key, kindName(v))
	}
	return v.Value, nil
}

func stringList(key string, v *yaml.Node) ([]string, []int, error) {
	if v.Kind != yaml.SequenceNode {
		return nil, nil, fmt.Errorf("line %d: %s: want a list, got %s", v.Line, key, kindName(v))
	}
	out := make([]string, 0, len(v.Content))
	lines := make([]int, 0, len(v.Content))
	for i, e := range v.Content {
		e = deref(e)
		if e.Kind != yaml.ScalarNode || e.Tag != "!!str" {
			// The element's key is named only here: formatting it for every
			// element cost the hook process a cold fmt call per entry.
			_, err := stringValue(key+"["+strconv.Itoa(i)+"]", e)
			return nil, nil, err
		}
		s := e.Value
		out = append(out, s)
		lines = append(lines, e.Line)
	}
	return out, lines, nil
}

func enumList(key string, v *yaml.Node, allowed []string) ([]string, error) {
	l, lines, err := stringList(key, v)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, s := range l {
		ok := false
		for _, a := range allowed {
			if s == a {
				ok = true
			}
		}
		if !ok {
			return nil, fmt.Errorf("line %d: %s: %q is not one of %s", lines[i], key, s, strings.Join(allowed, ", "))
		}
		if seen[s] {
			return nil, fmt.Errorf("line %d: %s: %q listed twice", lines[i], key, s)
		}
		seen[s] = true
	}
	return l, nil
}

// checkPatterns checks a list of RE2 patterns read from key (the list's
// YAML line at line, each entry's at lines): at most MaxDenyPatterns, each
// non-empty, at most MaxPatternBytes, and compiling. The error names the
// key, the entry and its line.
func checkPatterns(key string, line int, l []string, lines []int) error {
	if len(l) > MaxDenyPatterns {
		return fmt.Errorf("line %d: %s: %d patterns, at most %d per layer", line, key, len(l), MaxDenyPatterns)
	}
	for i, p := range l {
		if len(p) > MaxPatternBytes {
			return fmt.Errorf("line %d: %s[%d]: pattern of %d bytes, at most %d", lines[i], key, i, len(p), MaxPatternBytes)
		}
		if p == "" {
			return fmt.Errorf("line %d: %s[%d]: empty pattern", lines[i], key, i)
		}
		if _, err := regexp.Compile(p); err != nil {
			return fmt.Errorf("line %d: %s[%d]: not an RE2 pattern: %s", lines[i], key, i, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
	}
	return nil
}

// dottedVersion reports whether s is a dotted version of decimal fields
// ("2.1.332"), with an optional leading v and pre-release suffix after '-'.
func dottedVersion(s string) bool {
	s, _, _ = strings.Cut(strings.TrimPrefix(s, "v"), "-")
	if s == "" {
		return false
	}
	for _, f := range strings.Split(s, ".") {
		if f == "" || strings.Trim(f, "0123456789") != "" {
			return false
		}
	}
	return true
}
