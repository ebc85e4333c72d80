package agentcontext

import (
	"github.com/hookwarden/hookwarden/internal/unidiff"
)

// Finding is one file that is not up to date. Path is slash-separated and
// relative to the target directory; Problem is "missing", "stale" or
// "refused"; Reason is a human sentence; Diff is a unified diff from the file
// on disk to the planned content ("" for a refused file).
type Finding struct {
	Path    string `json:"path"`
	Problem string `json:"problem"`
	Reason  string `json:"reason"`
	Diff    string `json:"diff,omitempty"`
}

// Verify compares plan with the disk as Compile read it and returns one
// Finding per missing, stale or refused file; none means every file is up to
// date. It writes nothing.
func Verify(plan Plan) []Finding {
	var out []Finding
	for _, f := range plan.Files {
		switch f.Status {
		case StatusNew:
			out = append(out, Finding{Path: f.Path, Problem: "missing", Reason: f.Path + " does not exist",
				Diff: unidiff.Unified("/dev/null", "b/"+f.Path, nil, f.Bytes)})
		case StatusChanged:
			out = append(out, Finding{Path: f.Path, Problem: "stale", Reason: f.Path + " is out of date with its source",
				Diff: unidiff.Unified("a/"+f.Path, "b/"+f.Path, f.Current, f.Bytes)})
		case StatusRefused:
			out = append(out, Finding{Path: f.Path, Problem: "refused", Reason: f.Refusal})
		}
	}
	return out
}
