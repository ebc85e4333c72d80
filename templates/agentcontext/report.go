package agentcontext

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
)

// FileReport is one planned file in a Report: Path (slash, relative to the
// target directory), Client (as File.Client), Status (a Status) and, for a
// refused file, Refusal.
type FileReport struct {
	Path    string `json:"path"`
	Client  string `json:"client"`
	Status  string `json:"status"`
	Refusal string `json:"refusal,omitempty"`
}

// Report is what `hookwarden compile-context` prints: the source and the
// lower-case hex SHA-256 of its bytes, whether it was a --verify run, every
// planned file, the Findings of Verify (verify runs), the paths Apply
// Written (other runs), the plan's Notes, and Error, the text of a failed
// Compile or Apply ("" when none). Its JSON form is the --json output.
type Report struct {
	Source       string       `json:"source"`
	SourceDigest string       `json:"source_sha256"`
	Verify       bool         `json:"verify"`
	Files        []FileReport `json:"files"`
	Findings     []Finding    `json:"findings,omitempty"`
	Written      []string     `json:"written,omitempty"`
	Notes        []string     `json:"notes,omitempty"`
	Error        string       `json:"error,omitempty"`
}

// NewReport returns the Report of plan for a run with or without --verify;
// Findings, Written and Error are for the caller to fill.
func NewReport(plan Plan, verify bool) Report {
	r := Report{Source: plan.Source, SourceDigest: plan.SourceDigest, Verify: verify, Notes: plan.Notes}
	for _, f := range plan.Files {
		r.Files = append(r.Files, FileReport{Path: f.Path, Client: f.Client, Status: string(f.Status), Refusal: f.Refusal})
	}
	return r
}

// WriteText writes r for a person: for a verify run one line per finding
// (`stale: CLAUDE.md: <reason>`) followed by its diff, or "all N files up to
// date"; otherwise one line per file refused, unchanged or written, then the
// notes. It returns the first write error.
func (r Report) WriteText(w io.Writer) error {
	var err error
	printf := func(format string, a ...any) {
		if err == nil {
			_, err = fmt.Fprintf(w, format, a...)
		}
	}
	if r.Verify {
		for _, f := range r.Findings {
			printf("%s: %s: %s\n", f.Problem, f.Path, f.Reason)
			if f.Diff != "" {
				printf("%s", f.Diff)
			}
		}
		if len(r.Findings) == 0 {
			printf("all %d files up to date\n", len(r.Files))
		}
		return err
	}
	for _, f := range r.Files {
		switch Status(f.Status) {
		case StatusRefused:
			printf("refused    %s: %s\n", f.Path, f.Refusal)
		case StatusUnchanged:
			printf("unchanged  %s\n", f.Path)
		default:
			if slices.Contains(r.Written, f.Path) {
				printf("wrote      %s\n", f.Path)
			}
		}
	}
	for _, n := range r.Notes {
		printf("note       %s\n", n)
	}
	return err
}

// WriteJSON writes r as indented JSON (HTML characters not escaped) and a
// newline, and returns the encoder's error.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
