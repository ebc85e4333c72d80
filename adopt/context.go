package adopt

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hookwarden/hookwarden/internal/safewrite"
	agentcontext "github.com/hookwarden/hookwarden/templates/agentcontext"
)

// ContextSource is the repository-root file the context step compiles
// (issue 7: the step runs only when it exists).
const ContextSource = "AGENTS.md"

// planContext plans the context step of the repository at root: when
// ContextSource is a regular file there, it compiles it for the governed
// clients (templates/agentcontext) and hands every generated file to add, so the
// files are preflighted, backed up and written by compare-and-swap like every
// other file of the plan. A file compile-context refuses (written by hand, or
// a generated file edited since) is reported skipped with a warning, never
// written and never a failure; so is a source compile-context cannot compile
// (over its line budget, an unusable Gemini context file name). It returns an
// error only when a file it would write fails safewrite's preflight.
func (p *repoPlan) planContext(ctx context.Context, root string, governed []string, opts *Options, declined bool, add func(*FileReport, safewrite.Snapshot, []byte, fs.FileMode)) error {
	fi, err := os.Lstat(filepath.Join(root, ContextSource))
	if err != nil || !fi.Mode().IsRegular() {
		if err == nil {
			p.rep.Warnings = append(p.rep.Warnings, fmt.Sprintf("%s is not a regular file; context files not compiled", ContextSource))
		}
		return nil
	}
	if declined {
		p.rep.Files = append(p.rep.Files, &FileReport{Path: ContextSource, Step: StepContext, Action: ActionDeclined, Reason: "declined"})
		return nil
	}
	plan, err := agentcontext.Compile(ctx, agentcontext.Options{Source: ContextSource, TargetDir: root, Clients: governed})
	if err != nil {
		p.rep.Files = append(p.rep.Files, &FileReport{Path: ContextSource, Step: StepContext, Action: ActionSkipped, Reason: "not compiled: " + CapReason(err.Error())})
		p.rep.Warnings = append(p.rep.Warnings, CapReason(fmt.Sprintf("%s: context files not compiled: %v", ContextSource, err)))
		return nil
	}
	for _, f := range plan.Files {
		rep := &FileReport{Path: f.Path, Step: StepContext}
		if f.Status == agentcontext.StatusRefused {
			rep.Action, rep.Reason = ActionSkipped, CapReason(f.Refusal)
			p.rep.Files = append(p.rep.Files, rep)
			p.rep.Warnings = append(p.rep.Warnings, CapReason(f.Path+" kept as it is: "+strings.TrimPrefix(f.Refusal, f.Path+" ")))
			continue
		}
		snap, err := safewrite.Preflight(root, f.Path)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		rep.Action = action(snap, f.Bytes, ActionUpdated)
		add(rep, snap, f.Bytes, f.Mode)
	}
	return nil
}
