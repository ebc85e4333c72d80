package adopt

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hookwarden/hookwarden/internal/unidiff"

	"github.com/hookwarden/hookwarden/adopt/codextrust"
	"github.com/hookwarden/hookwarden/internal/safewrite"
	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/templates"

	"github.com/hookwarden/hookwarden/internal/clientfiles"
)

// TrustOptions steer CodexTrust. TrustProject also records
// `[projects."<repo>"] trust_level = "trusted"` (Codex CLI 0.169.0 ignores a
// project's .codex/ until it is trusted; ../shared/e2e/README.md section 2).
// DryRun writes nothing. Getenv reads CODEX_HOME and HOME (nil: os.Getenv);
// Now stamps the backup (nil: time.Now).
type TrustOptions struct {
	TrustProject bool
	DryRun       bool
	Getenv       func(string) string
	Now          func() time.Time
}

// TrustReport is what `hookwarden codex-trust` did. JSON schema version 1:
//
//	{"schema_version":1, "config":"/home/u/.codex/config.toml", "dry_run":bool,
//	 "changed":bool, "backup":"/home/u/.codex/config.toml.hookwarden-<stamp>.bak",
//	 "repositories":[{"path":"/abs/repo", "project_trusted":bool, "trust_project":bool,
//	   "rows":[{"key":..., "hash":"sha256:...", "event":"PreToolUse", "matcher":"^Bash$",
//	            "command":..., "ours":true, "state":"trusted"|"will trust"|"foreign, not trusted"}],
//	   "errors":[...]}],
//	 "warnings":[...]}
type TrustReport struct {
	SchemaVersion int                `json:"schema_version"`
	Config        string             `json:"config"`
	DryRun        bool               `json:"dry_run"`
	Changed       bool               `json:"changed"`
	Backup        string             `json:"backup,omitempty"`
	Repositories  []*TrustRepoReport `json:"repositories"`
	Warnings      []string           `json:"warnings"`

	diff string
}

// TrustRepoReport is one repository of a codex-trust run.
type TrustRepoReport struct {
	Path           string     `json:"path"`
	ProjectTrusted bool       `json:"project_trusted"`
	TrustProject   bool       `json:"trust_project"`
	Rows           []TrustRow `json:"rows"`
	Errors         []string   `json:"errors"`
}

// TrustRow is one handler of .codex/hooks.json and what codex-trust does
// with it: State is "trusted" (already), "will trust" (ours, written by this
// run or, with DryRun, by the real run) or "foreign, not trusted".
type TrustRow struct {
	codextrust.Entry
	State string `json:"state"`
}

// Failed reports whether any repository had an error.
func (r *TrustReport) Failed() bool {
	for _, rr := range r.Repositories {
		if len(rr.Errors) > 0 {
			return true
		}
	}
	return false
}

// Diff returns the unified diff of config.toml this run made or would make.
func (r *TrustReport) Diff() string { return r.diff }

// CodexTrust records Codex trust for our rows of each repository's
// .codex/hooks.json in the user's Codex config.toml ($CODEX_HOME, default
// ~/.codex): one `[hooks.state."<key>"] trusted_hash` per row of ours
// (never a foreign row), and the project's trust with opts.TrustProject. The
// config is edited byte-preservingly (codextrust.Apply: splices at the byte
// ranges of go-toml/v2's parse), backed up next to itself as
// config.toml.hookwarden-<UTC stamp>.bak when it existed, written by
// compare-and-swap and checked to parse. A repository whose hooks.json
// cannot be read is reported with an error and contributes nothing. It
// returns an error when the config cannot be read, parsed, edited or
// written; the report then says what was planned.
func CodexTrust(paths []string, opts TrustOptions) (*TrustReport, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	rep := &TrustReport{SchemaVersion: 1, DryRun: opts.DryRun, Warnings: []string{}}
	cfgPath, err := codextrust.ConfigPath(getenv)
	if err != nil {
		return rep, err
	}
	rep.Config = cfgPath
	home := filepath.Dir(cfgPath)
	// A dry run writes nothing, not even $CODEX_HOME: a missing home reads
	// as an empty config.
	var cfgSnap safewrite.Snapshot
	if _, statErr := os.Stat(home); !opts.DryRun || statErr == nil {
		if err := os.MkdirAll(home, 0o700); err != nil {
			return rep, fmt.Errorf("%s: %w", home, err)
		}
		if cfgSnap, err = safewrite.Preflight(home, "config.toml"); err != nil {
			return rep, fmt.Errorf("codex config: %w", err)
		}
	}
	cfg := cfgSnap.Data
	table, err := registration.Default()
	if err != nil {
		return rep, err
	}
	owner, err := templates.Owner("codex", table)
	if err != nil {
		return rep, err
	}
	for _, p := range paths {
		rr := &TrustRepoReport{Path: p, Rows: []TrustRow{}, Errors: []string{}, TrustProject: opts.TrustProject}
		rep.Repositories = append(rep.Repositories, rr)
		root, err := filepath.Abs(p)
		if err == nil {
			root, err = filepath.EvalSymlinks(root)
		}
		if err != nil {
			rr.Errors = append(rr.Errors, err.Error())
			continue
		}
		rr.Path = root
		snap, err := safewrite.Preflight(root, clientfiles.CodexHooks)
		if err != nil {
			rr.Errors = append(rr.Errors, err.Error())
			continue
		}
		if !snap.Exists {
			rr.Errors = append(rr.Errors, filepath.Join(root, ".codex", "hooks.json")+": absent; run `hookwarden adopt` with codex selected first")
			continue
		}
		entries, err := codextrust.Entries(snap.Abs(), snap.Data, templates.ServingCommand(owner))
		if err != nil {
			rr.Errors = append(rr.Errors, err.Error())
			continue
		}
		st, err := codextrust.Check(cfg, root, entries)
		if err != nil {
			return rep, fmt.Errorf("%s: %w", cfgPath, err)
		}
		rr.ProjectTrusted = st.ProjectTrusted
		pending := map[string]bool{}
		for _, e := range st.Pending {
			pending[e.Key] = true
		}
		ours := 0
		for _, e := range entries {
			state := "foreign, not trusted"
			if e.Ours {
				ours++
				state = "trusted"
				if pending[e.Key] {
					state = "will trust"
				}
			}
			rr.Rows = append(rr.Rows, TrustRow{Entry: e, State: state})
		}
		if ours == 0 {
			rr.Errors = append(rr.Errors, snap.Abs()+": holds none of our rows; run `hookwarden adopt` with codex selected first")
			continue
		}
		if !st.ProjectTrusted && !opts.TrustProject {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s is not a trusted Codex project, so Codex ignores its .codex/ and runs none of these rows; rerun with --trust-project to trust it", root))
		}
		cfg, err = codextrust.Apply(cfg, root, entries, opts.TrustProject)
		if err != nil {
			return rep, fmt.Errorf("%s: %w", cfgPath, err)
		}
	}
	old := string(cfgSnap.Data)
	rep.Changed = string(cfg) != old
	if !rep.Changed {
		return rep, nil
	}
	rep.diff = unidiff.Unified("a/config.toml", "b/config.toml", []byte(old), cfg)
	if opts.DryRun {
		return rep, nil
	}
	if cfgSnap.Exists {
		bak := "config.toml.hookwarden-" + now().UTC().Format("20060102T150405Z") + ".bak"
		bs, err := safewrite.Preflight(home, bak)
		if err != nil {
			return rep, fmt.Errorf("backup: %w", err)
		}
		if err := safewrite.Write(bs, cfgSnap.Data, 0o600); err != nil {
			return rep, fmt.Errorf("backup: %w", err)
		}
		rep.Backup = bs.Abs()
	}
	if err := safewrite.Write(cfgSnap, cfg, 0o600); err != nil {
		return rep, err
	}
	return rep, nil
}

// WriteJSON writes the report as indented JSON and a newline.
func (r *TrustReport) WriteJSON(w io.Writer) error { return EncodeJSON(w, r) }

// WriteText writes the human report: per repository the rows with their
// key, hash and state, then what was written where. After a run that wrote
// config.toml, a row or project this run trusted reads "trusted now" (the
// JSON state stays "will trust", as its schema says); a dry run's reads
// "will trust".
func (r *TrustReport) WriteText(w io.Writer) error {
	written := r.Changed && !r.DryRun
	var b strings.Builder
	for _, rr := range r.Repositories {
		fmt.Fprintf(&b, "%s:\n", rr.Path)
		switch {
		case rr.ProjectTrusted:
			b.WriteString("  project: trusted\n")
		case rr.TrustProject && written:
			b.WriteString("  project: trusted now (--trust-project)\n")
		case rr.TrustProject:
			b.WriteString("  project: will trust (--trust-project)\n")
		default:
			b.WriteString("  project: NOT trusted (Codex ignores .codex/; use --trust-project)\n")
		}
		for _, row := range rr.Rows {
			m := row.Matcher
			if m == "" {
				m = "(no matcher)"
			}
			state := row.State
			if state == "will trust" && written {
				state = "trusted now"
			}
			fmt.Fprintf(&b, "  %-20s %s %s\n    key  %s\n    hash %s\n    command %s\n", state, row.NativeEvent, m, row.Key, row.Hash, row.Command)
		}
		for _, e := range rr.Errors {
			fmt.Fprintf(&b, "  error: %s\n", e)
		}
	}
	for _, s := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", s)
	}
	switch {
	case !r.Changed:
		fmt.Fprintf(&b, "%s: unchanged\n", r.Config)
	case r.DryRun:
		fmt.Fprintf(&b, "(dry run) %s: would be updated\n", r.Config)
	default:
		fmt.Fprintf(&b, "%s: updated", r.Config)
		if r.Backup != "" {
			fmt.Fprintf(&b, " [backup %s]", r.Backup)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
