package adopt

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/hookwarden/hookwarden/templates"
)

// SchemaVersion is the version of the --json report schema below.
//
// Report JSON schema, version 1 (`hookwarden adopt|conform --json`):
//
//	{
//	  "schema_version": 1,
//	  "verb": "adopt" | "conform",
//	  "dry_run": bool,
//	  "repositories": [{
//	    "path": "/abs/repo",                      // symlink-resolved root
//	    "status": "changed" | "unchanged" | "failed" | "not-governed",
//	    "files": [{
//	      "path": ".claude/settings.json",        // slash, repository-relative
//	      "step": "manifest" | "git-ignore" | "agent-hooks" | "launcher" | "interceptor" | "agy-plugin" | "opencode-plugin" | "context",
//	      "client": "claude",                     // agent-hooks only
//	      "action": "created" | "merged" | "updated" | "unchanged" | "skipped" | "declined",
//	      "changes": ["added PreToolUse ^Bash$", ...],   // optional
//	      "backup": ".hookwarden/backups/<UTC stamp>/.claude/settings.json", // optional
//	      "reason": "..."                         // skipped/declined: why
//	    }],
//	    "warnings": ["..."], "errors": ["..."],
//	    "next": ["hookwarden codex-trust /abs/repo"],  // commands the operator still has to run
//	    "removed": [".claude/.settings.json123"]       // optional: temporaries of an interrupted run, removed
//	  }],
//	  "summary": {"repositories": n, "changed": n, "unchanged": n, "failed": n, "not_governed": n}
//	}
//
// Actions: created (the file did not exist), merged (our rows or block merged
// into an operator file), updated (a rendered file refreshed), unchanged,
// skipped (not written, with the reason: a finding such as Gemini hooks
// switched off, or a hand-edited rendered file kept), declined (the step is
// declined in the manifest or on the command line).
const SchemaVersion = 1

// Report is one adopt or conform run over one or more repositories.
type Report struct {
	SchemaVersion int           `json:"schema_version"`
	Verb          string        `json:"verb"`
	DryRun        bool          `json:"dry_run"`
	Repositories  []*RepoReport `json:"repositories"`
	Summary       Summary       `json:"summary"`
}

// Summary counts repositories by status.
type Summary struct {
	Repositories int `json:"repositories"`
	Changed      int `json:"changed"`
	Unchanged    int `json:"unchanged"`
	Failed       int `json:"failed"`
	NotGoverned  int `json:"not_governed"`
}

// Repository statuses.
const (
	StatusChanged     = "changed"
	StatusUnchanged   = "unchanged"
	StatusFailed      = "failed"
	StatusNotGoverned = "not-governed"
)

// File actions.
const (
	ActionCreated   = "created"
	ActionMerged    = "merged"
	ActionUpdated   = "updated"
	ActionUnchanged = "unchanged"
	ActionSkipped   = "skipped"
	ActionDeclined  = "declined"
)

// RepoReport is what happened in one repository.
type RepoReport struct {
	Path     string        `json:"path"`
	Status   string        `json:"status"`
	Files    []*FileReport `json:"files"`
	Warnings []string      `json:"warnings"`
	Errors   []string      `json:"errors"`
	Next     []string      `json:"next"`
	// Removed lists the temporaries an interrupted run left (slash
	// separated, repository-relative) that this run removes (or, with
	// --dry-run, would remove).
	Removed []string `json:"removed,omitempty"`

	diffs []Diff
}

// FileReport is what happened to one file.
type FileReport struct {
	Path    string   `json:"path"`
	Step    string   `json:"step"`
	Client  string   `json:"client,omitempty"`
	Action  string   `json:"action"`
	Changes []string `json:"changes,omitempty"`
	Backup  string   `json:"backup,omitempty"`
	Reason  string   `json:"reason,omitempty"`
}

// Diff is the unified diff of one file a run changes (or, with --dry-run,
// would change). Path is repository-relative; Step the adopt step that
// writes it; Action created, merged or updated; Lines and OldLines count
// the new and old content's lines.
type Diff struct {
	Path     string
	Step     string
	Action   string
	Lines    int
	OldLines int
	Unified  string
}

// Rendered reports whether the file is rendered whole by hookwarden (the
// launcher, the interceptor, the plugins, the context files), as opposed to
// a file the operator shares with us (settings, .gitignore, the manifest,
// the lefthook config holding our extends: block), whose diff is the one to
// read.
func (d Diff) Rendered() bool {
	switch d.Step {
	case StepManifest, StepGitIgnore, StepAgentHooks:
		return false
	case templates.StepLefthookJobs:
		return d.Path == templates.LefthookJobsPath
	}
	return true
}

// Summary is one line for a rendered file's diff: "created
// .hookwarden/hook.py (391 lines)" or "updated … (391 lines, was 380)".
func (d Diff) Summary() string {
	s := fmt.Sprintf("%s %s (%d lines", d.Action, d.Path, d.Lines)
	if d.Action != ActionCreated {
		s += fmt.Sprintf(", was %d", d.OldLines)
	}
	return s + ")"
}

// Diffs returns the unified diffs of the files this repository's run
// changed or would change, in write order.
func (r *RepoReport) Diffs() []Diff { return r.diffs }

// WriteDiffs writes what a dry run (or conform --check) prints before its
// report: per repository, each diff of a shared file in full under a
// "# REPO: ACTION FILE" line (# /src/api: merged .claude/settings.json), and each rendered file (Diff.Rendered) as one summary line
// unless full is true, when its whole diff is written too. It returns the
// writer's error.
func (r *Report) WriteDiffs(w io.Writer, full bool) error {
	var b strings.Builder
	for _, rr := range r.Repositories {
		for _, d := range rr.Diffs() {
			if d.Rendered() && !full {
				fmt.Fprintf(&b, "# %s: %s (--diff=all shows it)\n", rr.Path, d.Summary())
				continue
			}
			fmt.Fprintf(&b, "# %s: %s %s\n%s", rr.Path, d.Action, d.Path, d.Unified)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Failed reports whether any repository failed.
func (r *Report) Failed() bool { return r.Summary.Failed > 0 }

func (r *Report) summarize() {
	s := Summary{Repositories: len(r.Repositories)}
	for _, rr := range r.Repositories {
		switch rr.Status {
		case StatusChanged:
			s.Changed++
		case StatusUnchanged:
			s.Unchanged++
		case StatusFailed:
			s.Failed++
		case StatusNotGoverned:
			s.NotGoverned++
		}
	}
	r.Summary = s
}

// WriteJSON writes the report as indented JSON (schema above) and a final
// newline. It returns the writer's error.
func (r *Report) WriteJSON(w io.Writer) error {
	for _, rr := range r.Repositories {
		for _, s := range []*[]string{&rr.Warnings, &rr.Errors, &rr.Next} {
			if *s == nil {
				*s = []string{}
			}
		}
		if rr.Files == nil {
			rr.Files = []*FileReport{}
		}
	}
	return EncodeJSON(w, r)
}

// EncodeJSON writes v to w as the reports of adopt, conform, codex-trust
// and --commit are written: indented by two spaces, <, > and & not
// escaped, a final newline. It returns the writer's or the encoder's error.
func EncodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// WriteText writes the human report: per repository its status, one line per
// file (action, path, changes, backup or reason), its warnings, errors and
// next commands; then a summary table when there is more than one
// repository. It returns the writer's error.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	prefix := ""
	if r.DryRun {
		prefix = "(dry run) "
	}
	for _, rr := range r.Repositories {
		fmt.Fprintf(&b, "%s%s: %s\n", prefix, rr.Path, rr.Status)
		for _, f := range rr.Files {
			fmt.Fprintf(&b, "  %-9s %s", f.Action, f.Path)
			if f.Client != "" && !strings.Contains(f.Path, f.Client) {
				fmt.Fprintf(&b, " (%s)", f.Client)
			}
			if len(f.Changes) > 0 {
				fmt.Fprintf(&b, ": %s", strings.Join(f.Changes, "; "))
			}
			if f.Reason != "" {
				fmt.Fprintf(&b, " — %s", f.Reason)
			}
			switch {
			case f.Backup != "" && r.DryRun:
				// Nothing was written: the stamped path is the real
				// run's, not a file that exists now.
				fmt.Fprintf(&b, " [a real run backs it up first, under %s/]", BackupDir)
			case f.Backup != "":
				fmt.Fprintf(&b, " [backup %s]", f.Backup)
			}
			b.WriteByte('\n')
		}
		for _, s := range rr.Removed {
			fmt.Fprintf(&b, "  %-9s %s — a temporary left by an interrupted run\n", "removed", s)
		}
		for _, s := range rr.Warnings {
			fmt.Fprintf(&b, "  warning: %s\n", s)
		}
		for _, s := range rr.Errors {
			fmt.Fprintf(&b, "  error: %s\n", s)
		}
		for _, s := range rr.Next {
			fmt.Fprintf(&b, "  next: %s\n", s)
		}
	}
	if len(r.Repositories) > 1 {
		b.WriteString("\n")
		fmt.Fprintf(&b, "%-13s %6s\n", "repositories", "count")
		for _, row := range []struct {
			k string
			v int
		}{{"changed", r.Summary.Changed}, {"unchanged", r.Summary.Unchanged}, {"failed", r.Summary.Failed}, {"not governed", r.Summary.NotGoverned}, {"total", r.Summary.Repositories}} {
			fmt.Fprintf(&b, "%-13s %6d\n", row.k, row.v)
		}
		// On a fleet the failures are what to act on: each with its first
		// error, so they need not be searched for above.
		if r.Summary.Failed > 0 {
			b.WriteString("\nfailed repositories:\n")
			for _, rr := range r.Repositories {
				if rr.Status != StatusFailed {
					continue
				}
				first := ""
				if len(rr.Errors) > 0 {
					first = rr.Errors[0]
				}
				fmt.Fprintf(&b, "  %s: %s\n", rr.Path, first)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
