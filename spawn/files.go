package spawn

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hookwarden/hookwarden/internal/jsonstrict"
)

// Paths under a hookwarden home (HOOKWARDEN_HOME, default ~/.hookwarden).
const (
	LibraryFile   = "hooks/library.json" // named hook entries
	RegistryFile  = "hooks/agents.json"  // the registry of attachments
	ApprovalsFile = "approvals.json"     // approvals of final argvs
	RunHooksDir   = "run/hooks"          // per-run settings files, removed when the run ends
	VersionCache  = "cache/engine-versions.json"
)

// EnvHome and EnvRequirement are the environment variables naming the home
// and the deployment's hook requirement file (absolute path, never looked up
// under the home).
const (
	EnvHome        = "HOOKWARDEN_HOME"
	EnvRequirement = "HOOKWARDEN_HOOKS_REQUIREMENT"
)

// Home returns the hookwarden home from getenv(EnvHome), or ~/.hookwarden
// when unset. It returns an error when neither is available or the value is
// not absolute.
func Home(getenv func(string) string) (string, error) {
	if h := getenv(EnvHome); h != "" {
		if !filepath.IsAbs(h) {
			return "", fmt.Errorf("%s=%q is not an absolute path", EnvHome, h)
		}
		return filepath.Clean(h), nil
	}
	u, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no %s and no user home: %w", EnvHome, err)
	}
	return filepath.Join(u, ".hookwarden"), nil
}

// Entry is one named library entry of hooks/library.json:
// {description, argv: [absolute argv0, …], pin: {absolute path: sha256 hex}, timeout: seconds}.
// Command is the legacy form (one shell string), readable but never
// attachable by the registry or a profile.
type Entry struct {
	Description string            `json:"description,omitempty"`
	Argv        []string          `json:"argv,omitempty"`
	Command     *string           `json:"command,omitempty"`
	Pin         map[string]string `json:"pin,omitempty"`
	Timeout     json.RawMessage   `json:"timeout,omitempty"`
}

// Attachment is one row of a layer (registry, profile or operator):
// the library entry Hook on Event, optionally narrowed by Matcher (the
// engine's tool-name matcher) and Engines (absent = every engine), with
// extra Args appended to the entry's argv ({engine} is the only
// substitution), Requires naming capabilities the engine table must list,
// Required marking the baseline, and Disable removing an earlier
// non-required attachment with the same hook, event and matcher.
type Attachment struct {
	Hook     string   `json:"hook"`
	Event    string   `json:"event"`
	Matcher  string   `json:"matcher,omitempty"`
	Required bool     `json:"required,omitempty"`
	Engines  []string `json:"engines,omitempty"`
	Args     []string `json:"args,omitempty"`
	Requires []string `json:"requires,omitempty"`
	Disable  bool     `json:"disable,omitempty"`
}

// Layer is the file shape of the registry and of profile and operator
// layers: {"version":1,"attachments":[…]}.
type Layer struct {
	Version     int          `json:"version"`
	Attachments []Attachment `json:"attachments"`
}

// Requirement is a deployment's hook requirement file:
// {"version":1,"registry":"/abs/hooks/agents.json","mandatory":[{hook,event,matcher?,args?,engines?}]}.
// Every mandatory attachment must be present in the registry with
// required:true and the same matcher, args and engines.
type Requirement struct {
	Version   int          `json:"version"`
	Registry  string       `json:"registry"`
	Mandatory []Attachment `json:"mandatory"`
}

// Approval is one record of approvals.json: the argv hash (ArgvHash), the
// argv itself for display, the resolved absolute executable path and that
// executable's content digest "sha256:<hex>".
type Approval struct {
	ArgvHash string   `json:"argv_hash"`
	Argv     []string `json:"argv,omitempty"`
	Path     string   `json:"path"`
	Digest   string   `json:"digest"`
}

// Approvals is the file shape of approvals.json: {"version":1,"approvals":[…]}.
type Approvals struct {
	Version   int        `json:"version"`
	Approvals []Approval `json:"approvals"`
}

// Snapshot is the bytes of the home's files as one call read them; a
// compile works only from its snapshot, so edits made while a call runs do
// not reach it. A nil byte slice with the *Absent flag set means the file
// did not exist.
type Snapshot struct {
	Home            string
	Registry        []byte
	RegistryAbsent  bool
	Library         []byte
	LibraryAbsent   bool
	Approvals       []byte
	ApprovalsAbsent bool
	// readErr holds the first read error other than absence, by file.
	readErr map[string]error
}

// TakeSnapshot reads the registry, library and approvals of home once. A
// missing file is recorded as absent; any other read error is kept and
// turned into a refusal by Compile (so the caller sees the typed reason).
func TakeSnapshot(home string) *Snapshot {
	s := &Snapshot{Home: home, readErr: map[string]error{}}
	read := func(rel string) ([]byte, bool) {
		b, err := readSmall(filepath.Join(home, rel))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, true
		}
		if err != nil {
			s.readErr[rel] = err
		}
		return b, false
	}
	s.Registry, s.RegistryAbsent = read(RegistryFile)
	s.Library, s.LibraryAbsent = read(LibraryFile)
	s.Approvals, s.ApprovalsAbsent = read(ApprovalsFile)
	return s
}

// Digest returns "sha256:<hex>" over the snapshot's three files, each
// prefixed by its name and length, so any edit changes it.
func (s *Snapshot) Digest() string {
	h := sha256.New()
	for _, f := range []struct {
		name string
		b    []byte
		abs  bool
	}{{RegistryFile, s.Registry, s.RegistryAbsent}, {LibraryFile, s.Library, s.LibraryAbsent}, {ApprovalsFile, s.Approvals, s.ApprovalsAbsent}} {
		if f.abs {
			fmt.Fprintf(h, "%s absent\n", f.name)
			continue
		}
		fmt.Fprintf(h, "%s %d\n", f.name, len(f.b))
		h.Write(f.b)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// decodeStrict decodes one JSON document into v, refusing unknown fields
// and trailing data (internal/jsonstrict).
func decodeStrict(b []byte, v any) error { return jsonstrict.Decode(b, v) }

// ReadLayer reads a profile or operator layer file at path. Errors are
// refusals with ReasonLayerInvalid naming path.
func ReadLayer(path string) (*Layer, error) {
	b, err := readSmall(path)
	if err != nil {
		return nil, refuse(ReasonLayerInvalid, "%s: %v", path, err)
	}
	var l Layer
	if err := decodeStrict(b, &l); err != nil || l.Version != 1 {
		if err == nil {
			err = fmt.Errorf("version %d, want 1", l.Version)
		}
		return nil, refuse(ReasonLayerInvalid, "%s: %v", path, err)
	}
	return &l, nil
}

// ReadRequirement reads the requirement file at path (absolute). It returns
// a refusal with ReasonRequirementInvalid for a relative path or bad JSON,
// ReasonRequirementUnreadable for a missing or unreadable file.
func ReadRequirement(path string) (*Requirement, error) {
	if !filepath.IsAbs(path) {
		return nil, refuse(ReasonRequirementInvalid, "%s is not an absolute path", EnvRequirement)
	}
	b, err := readSmall(path)
	if err != nil {
		return nil, refuse(ReasonRequirementUnreadable, "%s: %v", path, err)
	}
	var r Requirement
	if err := decodeStrict(b, &r); err != nil {
		return nil, refuse(ReasonRequirementInvalid, "%s: %v", path, err)
	}
	if r.Version != 1 || !filepath.IsAbs(r.Registry) {
		return nil, refuse(ReasonRequirementInvalid, "%s: want version 1 and an absolute registry path", path)
	}
	return &r, nil
}

// parseTimeout returns the positive number of seconds in raw, rounded up to
// whole seconds (Claude and Codex take integer seconds). A boolean, string,
// absent, zero or negative value is an error.
func parseTimeout(raw json.RawMessage) (int, error) {
	t := strings.TrimSpace(string(raw))
	if t == "" || t == "null" {
		return 0, errors.New("no timeout")
	}
	var f float64
	if t[0] == 't' || t[0] == 'f' || t[0] == '"' {
		return 0, fmt.Errorf("timeout %s is not a number", t)
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return 0, fmt.Errorf("timeout %s is not a number", t)
	}
	if f <= 0 || f > 86400 {
		return 0, fmt.Errorf("timeout %v is not a positive number of seconds up to 86400", f)
	}
	n := int(f)
	if float64(n) < f {
		n++
	}
	return n, nil
}
