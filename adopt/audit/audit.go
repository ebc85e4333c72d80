// Package audit is `hookwarden audit`: the read-only CI check of governed
// repositories. For each repository it lists every finding at once — not
// governed, an invalid .hookwarden.yaml or operator settings layer, a
// selected client's hook row missing, under a matcher that does not select
// the row's tools, with a timeout at or below the engine's budget or in the
// wrong unit, a row present but not served, duplicate serving handlers,
// hooks switched off, a client file the client cannot parse, hook commands
// that break under Git Bash, rendered files missing, stale or edited, the
// managed .gitignore block missing, malformed or stale, backups not ignored,
// core.hooksPath pointing away from the declared hook runner, and Codex hook
// trust — each with a stable ID (Rules), a severity, the file and line, a
// message and the fix (usually `hookwarden conform <path>`).
//
// Audit is the dry run of conform: besides the findings above it plans
// conform on the repository (adopt.Conform with DryRun) and reports every
// file conform would write that no finding explains (conform-drift), so a
// repository audits without a conform fix exactly when conform would change
// nothing.
//
// Audit never writes: it reads files with lstat-checked reads
// (internal/safewrite.Preflight refuses symlinks, FIFOs and devices) and
// never creates, renames or touches a path.
//
// # JSON report (schema_version 1)
//
//	{
//	  "schema_version": 1,            // integer; bumped on any incompatible change
//	  "tool": "hookwarden",
//	  "version": "<hookwarden version>",
//	  "repositories": [               // in argument order, then --fleet order
//	    {
//	      "path": "<path as given>",
//	      "root": "<absolute, symlink-resolved path>",
//	      "governed": true,           // a .hookwarden.yaml exists
//	      "findings": [               // sorted by file, line, id
//	        {
//	          "id": "row-missing",    // one of Rules[].ID, stable
//	          "severity": "error",    // "error" | "warning" | "note"
//	          "file": ".claude/settings.json", // slash-separated, relative to root; "" for the repository itself
//	          "line": 0,              // 1-based; 0 when no line applies
//	          "client": "claude",     // omitted when no client applies
//	          "event": "pre-tool",    // neutral event; omitted when none applies
//	          "message": "…",         // at most 4096 bytes
//	          "fix": "hookwarden conform ."  // a command, or an instruction when no command repairs it
//	        }
//	      ]
//	    }
//	  ],
//	  "summary": {"repositories": 1, "clean": 0, "errors": 1, "warnings": 0, "notes": 0}
//	}
//
// A repository is clean when it has no error and no warning (notes do not
// count).
package audit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/hookwarden/hookwarden/adopt"
	"github.com/hookwarden/hookwarden/adopt/hookplan"
	"github.com/hookwarden/hookwarden/adopt/ignorecheck"
	"github.com/hookwarden/hookwarden/clientjson"
	"github.com/hookwarden/hookwarden/internal/gitdisc"
	"github.com/hookwarden/hookwarden/internal/workpool"
	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/settings"
)

// Finding is one problem in one repository. ID is a Rules ID; File is
// slash-separated and relative to the repository root ("" for the
// repository as a whole); Line is 1-based (0: no line applies); Client and
// Event name the client and neutral event when one applies; Message says
// what is wrong (never more than 4096 bytes); Fix is the command that
// repairs it, or an instruction when no command does.
type Finding struct {
	ID       string   `json:"id"`
	Severity Severity `json:"severity"`
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Client   string   `json:"client,omitempty"`
	Event    string   `json:"event,omitempty"`
	Message  string   `json:"message"`
	Fix      string   `json:"fix"`
}

// RepoResult is the audit of one repository: Path as given, Root its
// absolute symlink-resolved path, Governed whether it has a .hookwarden.yaml,
// Findings sorted by file, line and ID.
type RepoResult struct {
	Path     string    `json:"path"`
	Root     string    `json:"root"`
	Governed bool      `json:"governed"`
	Findings []Finding `json:"findings"`
	// Plan is the effective hook plan (Options.Plan only).
	Plan *hookplan.Plan `json:"plan,omitempty"`
}

// Summary counts a report: repositories audited, clean ones (no error and no
// warning), and findings by severity.
type Summary struct {
	Repositories int `json:"repositories"`
	Clean        int `json:"clean"`
	Errors       int `json:"errors"`
	Warnings     int `json:"warnings"`
	Notes        int `json:"notes"`
}

// SchemaVersion is the version of the JSON report's schema (package doc).
const SchemaVersion = 1

// Report is the result of an audit run, in the JSON schema of the package
// doc.
type Report struct {
	SchemaVersion int           `json:"schema_version"`
	Tool          string        `json:"tool"`
	Version       string        `json:"version"`
	Repositories  []*RepoResult `json:"repositories"`
	Summary       Summary       `json:"summary"`
}

// Options steer an audit. The zero value is usable.
type Options struct {
	// Jobs bounds how many repositories are audited at once; 0 means
	// workpool.DefaultJobs() (four per CPU).
	Jobs int
	// Progress, when set, is called after each repository of the
	// "audit" phase (conform's dry run included), from the worker
	// goroutines but never concurrently (adopt.PhaseCounter): the CLI
	// draws adopt.ProgressBar with it when stderr is a terminal.
	Progress func(phase string, done, total int)
	// Getenv reads the settings-layer variables (HOOKWARDEN_FLEET_CONFIG,
	// HOOKWARDEN_CONFIG, XDG_CONFIG_HOME, HOME); nil means os.Getenv.
	Getenv func(string) string
	// Version is the hookwarden version written into the report; "" means
	// internal/buildinfo.Current().
	Version string
	// Plan adds each repository's effective hook plan (adopt/hookplan) to
	// the report, with its findings. A PATH below the root of a governed
	// repository is then planned as a session started there: the
	// repository is audited at its root.
	Plan bool
	// Workstation adds the clients' user-level files to the plan (with
	// Plan only).
	Workstation bool
	// SystemRoot stands for "/" when the plan reads a client's
	// machine-wide files (hookplan.Options.SystemRoot; "" the real root).
	SystemRoot string
}

// ErrNotDirectory is returned (wrapped, naming the path) by Audit for a
// PATH argument that does not exist or is not a directory.
var ErrNotDirectory = errors.New("not a directory")

// Audit audits every repository in paths (each a directory; a repository's
// root is the directory given). It returns an error, before auditing
// anything, only for an unusable invocation: no path, a path that does not
// exist or is not a directory (wrapping ErrNotDirectory), or a registration
// table this build cannot read. Everything found inside a repository is a
// finding, never an error.
func Audit(ctx context.Context, paths []string, opts Options) (*Report, error) {
	if len(paths) == 0 {
		return nil, errors.New("no repository to audit")
	}
	roots := make([]string, len(paths))
	for i, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		root, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, ErrNotDirectory)
		}
		fi, err := os.Stat(root)
		if err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("%s: %w", p, ErrNotDirectory)
		}
		roots[i] = root
	}
	starts := make([]string, len(paths))
	if opts.Plan {
		for i, root := range roots {
			starts[i] = root
			if _, err := os.Lstat(filepath.Join(root, adopt.ManifestFile)); err == nil {
				continue
			}
			if repo, found, err := gitdisc.Find(root); err == nil && found {
				if top, err := filepath.EvalSymlinks(repo.WorkTree); err == nil && top != root {
					if _, err := os.Lstat(filepath.Join(top, adopt.ManifestFile)); err == nil {
						roots[i] = top
					}
				}
			}
		}
	}
	table, err := registration.Default()
	if err != nil {
		return nil, err
	}
	a := &auditor{ignore: &ignorecheck.Cache{}, memo: &clientjson.Memo{}, table: table, getenv: opts.Getenv, plan: opts.Plan, workstation: opts.Workstation, systemRoot: opts.SystemRoot}
	if a.getenv == nil {
		a.getenv = os.Getenv
	}
	// Notes the fleet or workstation settings acknowledge are left out
	// (settings `audit.acknowledge`); an unreadable layer is its own finding
	// (repoAudit.layers) and acknowledges nothing.
	if eff, err := settings.Load(settings.SourcesFromEnv(a.getenv), nil); err == nil {
		for _, l := range eff.Layers {
			a.acknowledged = append(a.acknowledged, l.File.Acknowledge...)
		}
	}
	version := opts.Version
	if version == "" {
		version = buildVersion()
	}
	rep := &Report{SchemaVersion: SchemaVersion, Tool: "hookwarden", Version: version, Repositories: make([]*RepoResult, len(paths))}
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = workpool.DefaultJobs()
	}
	// The Owners of the client files and the renders, built once for the
	// run and shared with conform's dry run.
	if a.shared, err = adopt.NewShared(table, nil); err != nil {
		return nil, err
	}
	// conform's dry run, planned per repository as its audit reaches it
	// (repoAudit.conformDrift), sharing the run's Owners, renders and
	// ignore verdicts; a run that cannot start leaves drift unchecked, as
	// Conform itself would refuse it.
	a.dry, _ = adopt.NewConformDryRun(a.dryOptions())
	workpool.Run(len(paths), jobs, func(i int) {
		rep.Repositories[i] = a.repo(ctx, paths[i], roots[i], starts[i])
	}, adopt.PhaseCounter(opts.Progress, "audit", len(paths)))
	rep.Summary = summarize(rep.Repositories)
	return rep, nil
}

func summarize(repos []*RepoResult) Summary {
	s := Summary{Repositories: len(repos)}
	for _, r := range repos {
		clean := true
		for _, f := range r.Findings {
			switch f.Severity {
			case Error:
				s.Errors++
				clean = false
			case Warning:
				s.Warnings++
				clean = false
			default:
				s.Notes++
			}
		}
		if clean {
			s.Clean++
		}
	}
	return s
}

// Failed reports whether the report should exit 1: any error finding, or
// with strict any warning.
func (r *Report) Failed(strict bool) bool {
	return r.Summary.Errors > 0 || (strict && r.Summary.Warnings > 0)
}

// auditor holds what one run shares between repositories: the registration
// table, the environment, the Owners and renders (shared).
type auditor struct {
	table  *registration.Table
	getenv func(string) string
	// acknowledged lists the note ids the fleet and workstation settings
	// acknowledge (settings File.Acknowledge).
	acknowledged []string
	// shared holds the Owner of each client file and the renders, built
	// once by Audit and shared with dry (nil: each built when asked);
	// dry is conform's dry run, planned per repository (nil: one is
	// made per repository, and a run conform refuses to start leaves
	// drift unchecked).
	shared *adopt.Shared
	dry    *adopt.ConformDryRun
	// ignore remembers git's ignore verdicts for the run (shared with
	// conform's dry run).
	ignore *ignorecheck.Cache
	// memo answers the client-file parses of the run by the files' bytes
	// (shared with conform's dry run; nil: each computed).
	memo *clientjson.Memo

	// plan and workstation are Options.Plan and Options.Workstation,
	// systemRoot Options.SystemRoot.
	plan, workstation bool
	systemRoot        string

	mu sync.Mutex
	// pathProblems remembers commandPathProblem by command (under mu),
	// at most maxPathProblems of them: a fleet's hook commands are few.
	pathProblems map[string]string
}

// maxPathProblems bounds auditor.pathProblems.
const maxPathProblems = 4096

// pathProblem is commandPathProblem(cmd), parsed once per run and command.
func (a *auditor) pathProblem(cmd string) string {
	a.mu.Lock()
	why, ok := a.pathProblems[cmd]
	a.mu.Unlock()
	if ok {
		return why
	}
	why = commandPathProblem(cmd)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.pathProblems == nil {
		a.pathProblems = map[string]string{}
	}
	if len(a.pathProblems) < maxPathProblems {
		a.pathProblems[cmd] = why
	}
	return why
}

// dryOptions are the options of conform's dry run: the run's
// environment, ignore verdicts, client-file memo, Owners and renders.
func (a *auditor) dryOptions() adopt.Options {
	return adopt.Options{Getenv: a.getenv, IgnoreCache: a.ignore, Memo: a.memo, Shared: a.shared}
}

// sortFindings orders findings by file, line, id, client, event.
func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.ID != b.ID {
			return a.ID < b.ID
		}
		if a.Client != b.Client {
			return a.Client < b.Client
		}
		return a.Event < b.Event
	})
}
