package adopt

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/hookwarden/hookwarden/internal/safewrite"
	"os"
	"path/filepath"
	"strings"

	"github.com/hookwarden/hookwarden/lefthookcfg"
	"github.com/hookwarden/hookwarden/templates"
)

// lefthookBlockBody is what the managed block of a YAML lefthook config
// holds: the `extends:` entry naming templates.LefthookJobsPath. lefthook
// 2.x joins a relative entry to the repository root and merges the file it
// names into the main config (loader.go extendRecursive, v2.1.10; observed
// on lefthook 2.2.1).
var lefthookBlockBody = []string{
	"# Managed by hookwarden: lefthook reads hookwarden's jobs from the file below;",
	"# edits inside this block are replaced by adopt and conform.",
	"extends:",
	"  - " + templates.LefthookJobsPath,
}

// LefthookConfigs returns the repository-relative paths (slash separated)
// of the lefthook configs lefthook 2.x reads at root: the main config and
// the local one ("" when there is none), each the first of its names that
// exists, in lefthook's order (lefthookcfg.Candidates).
func LefthookConfigs(root string) (main, local string) {
	return LefthookConfigsIn(safewrite.NewReader(root))
}

// LefthookConfigsIn is LefthookConfigs of rd's root, each directory
// listed once through rd (a plan or an audit asks with the Reader it reads
// the repository's files through).
func LefthookConfigsIn(rd *safewrite.Reader) (main, local string) {
	first := func(local bool) string {
		for _, n := range lefthookcfg.Candidates(local) {
			// lefthook asks afero.Exists, which follows a symlink;
			// reading it later refuses one (safewrite).
			if rd.Exists(n) {
				return n
			}
		}
		return ""
	}
	return first(false), first(true)
}

// lefthookExtends returns cfg's `extends` entries (nil when absent) and
// whether one names templates.LefthookJobsPath (lefthookcfg.Extends).
func lefthookExtends(cfg map[string]any) (entries []string, present, ours bool) {
	return lefthookcfg.Extends(cfg, templates.LefthookJobsPath)
}

// LefthookOverride is a setting in a repository's lefthook config that
// changes one of our jobs (lefthookcfg.Override).
type LefthookOverride = lefthookcfg.Override

// LefthookOverrides returns the settings of cfg (the parsed config rel,
// whose bytes are data) that change one of our jobs
// (templates.LefthookJobs; lefthookcfg.Overrides); none when the jobs
// cannot be rendered.
func LefthookOverrides(rel string, data []byte, cfg map[string]any) []LefthookOverride {
	jobs, err := templates.LefthookJobs()
	if err != nil {
		return nil
	}
	var js []lefthookcfg.Job
	for _, j := range jobs {
		js = append(js, lefthookcfg.Job{Hook: j.Hook, Name: j.Name})
	}
	return lefthookcfg.Overrides(rel, data, cfg, js)
}

// LefthookPlan is what the lefthook-jobs step would do to a repository's
// main lefthook config: File the config (repository-relative; "lefthook.yml"
// to be created when the repository has none), Out its planned bytes
// (equal to the input when nothing changes; nil when the step cannot write
// it), Change what the write does ("" none), and Problem why the jobs are
// not (or cannot be) extended ("" when they are, or will be once Out is
// written): a config that does not parse, a JSON or TOML config, or an
// `extends:` list of the user's own without our file.
type LefthookPlan struct {
	File    string
	Out     []byte
	Change  string
	Problem string
}

// PlanLefthookConfig plans the `extends:` entry naming
// templates.LefthookJobsPath in the main lefthook config rel (found by
// LefthookConfigs; "" for none) whose bytes are data (exists whether it
// exists). selected false plans the block's retraction (conform, lefthook
// no longer selected). The entry goes in as a managed block (BlockBegin …
// BlockEnd, appended; an older block is replaced in place) when the config
// has no `extends:` key of its own; a config whose own `extends:` already
// names the file is left alone; one whose own list does not is not edited
// (inserting into a user's list is not done: Problem says what to add). A
// new lefthook.yml holding only the block is planned when the repository has
// no main config. Every planned YAML is parsed again and must list the file,
// else Problem (nothing written). Errors: a malformed block (*BlockError).
func PlanLefthookConfig(rel string, data []byte, exists, selected bool) (LefthookPlan, error) {
	if rel == "" {
		rel = "lefthook.yml"
	}
	lp := LefthookPlan{File: rel, Out: data}
	// only a YAML config is edited; JSON, JSONC and TOML are read, never written
	if !lefthookcfg.IsYAML(rel) {
		if !selected {
			return lp, nil
		}
		cfg, err := lefthookcfg.Parse(rel, data)
		if err != nil {
			lp.Out, lp.Problem = nil, rel+" does not parse ("+err.Error()+"), so lefthook runs none of its jobs, ours included"
			return lp, nil
		}
		if _, _, ours := lefthookExtends(cfg); !ours {
			lp.Out, lp.Problem = nil, "hookwarden writes its extends entry into YAML lefthook configs only; add \""+templates.LefthookJobsPath+"\" to the extends list of "+rel+" by hand"
		}
		return lp, nil
	}
	if !selected {
		if !exists {
			return lp, nil
		}
		out, err := removeBlock(data)
		if err != nil {
			return lp, err
		}
		lp.Out = out
		if !bytes.Equal(out, data) {
			lp.Change = "removed the extends block naming " + templates.LefthookJobsPath + " (lefthook no longer selected)"
		}
		return lp, nil
	}
	rest, err := removeBlock(data)
	if err != nil {
		return lp, err
	}
	cfg, err := lefthookcfg.Parse(rel, rest)
	if err != nil {
		lp.Out, lp.Problem = nil, rel+" does not parse ("+firstLine(err.Error())+"), so lefthook runs none of its jobs, ours included; hookwarden does not edit it"
		return lp, nil
	}
	if entries, present, ours := lefthookExtends(cfg); present {
		if ours && bytes.Equal(rest, data) {
			return lp, nil // the user's own list names our file
		}
		lp.Out = nil
		lp.Problem = rel + " has an extends: list of its own (" + strings.Join(entries, ", ") + ") without " + templates.LefthookJobsPath + "; hookwarden does not edit a list of yours: add \"- " + templates.LefthookJobsPath + "\" to it"
		if ours {
			lp.Problem = rel + " names " + templates.LefthookJobsPath + " in its own extends: list and in hookwarden's block; lefthook refuses a file extended twice: remove one"
		}
		return lp, nil
	}
	out, err := ensureBlock(data, lefthookBlockBody)
	if err != nil {
		return lp, err
	}
	if after, err := lefthookcfg.Parse(rel, out); err != nil {
		lp.Out, lp.Problem = nil, "with hookwarden's extends block appended, "+rel+" would not parse ("+firstLine(err.Error())+"); add \"extends: ["+templates.LefthookJobsPath+"]\" by hand"
		return lp, nil
	} else if _, _, ours := lefthookExtends(after); !ours {
		lp.Out, lp.Problem = nil, "with hookwarden's extends block appended, "+rel+" would still not extend "+templates.LefthookJobsPath+" (a second YAML document, or a top-level value that is not a mapping); add it by hand"
		return lp, nil
	}
	lp.Out = out
	switch {
	case !exists:
		lp.Change = "created with the extends block naming " + templates.LefthookJobsPath
	case !bytes.Equal(out, data) && bytes.Equal(rest, data):
		lp.Change = "added the extends block naming " + templates.LefthookJobsPath
	case !bytes.Equal(out, data):
		lp.Change = "restored the extends block naming " + templates.LefthookJobsPath
	}
	return lp, nil
}

// firstLine returns s up to its first line break.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// planLefthook is the lefthook-jobs step's config half (the rendered
// .hookwarden/lefthook.yml is planned with the other rendered files): with
// lefthook selected, the `extends:` block in the repository's main lefthook
// config (PlanLefthookConfig; a problem is a warning and the file is left
// alone), and a warning per foreign job named like ours in the main or
// local config (never edited); for conform with lefthook not selected, the
// block's retraction and a warning about the rendered file left behind.
func (s *planState) planLefthook(planStep) error {
	main, local := LefthookConfigsIn(s.rd)
	if !s.lefthook && (!s.conform || main == "") {
		return nil
	}
	rel := main
	if rel == "" {
		rel = "lefthook.yml"
	}
	if s.lefthook && s.declined(templates.StepLefthookJobs) {
		s.p.rep.Files = append(s.p.rep.Files, &FileReport{Path: rel, Step: templates.StepLefthookJobs, Client: "lefthook", Action: ActionDeclined, Reason: "declined"})
		return nil
	}
	snap, err := s.rd.Preflight(rel)
	if err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	lp, err := PlanLefthookConfig(main, snap.Data, snap.Exists, s.lefthook)
	if err != nil {
		var be *BlockError
		if errors.As(err, &be) {
			return fmt.Errorf("%s: %w", filepath.Join(s.root, filepath.FromSlash(rel)), err)
		}
		return err
	}
	rep := &FileReport{Path: rel, Step: templates.StepLefthookJobs, Client: "lefthook"}
	if !s.lefthook {
		if lp.Change != "" {
			rep.Action, rep.Reason, rep.Changes = ActionMerged, "client no longer selected in "+ManifestFile, []string{lp.Change}
			s.add(rep, snap, lp.Out, 0o644)
		}
		if _, err := os.Lstat(filepath.Join(s.root, filepath.FromSlash(templates.LefthookJobsPath))); err == nil {
			s.p.rep.Warnings = append(s.p.rep.Warnings, fmt.Sprintf("lefthook is no longer selected in %s but %s is still there; hookwarden deletes no file, remove it by hand", ManifestFile, templates.LefthookJobsPath))
		}
		return nil
	}
	for _, f := range []string{main, local} {
		if f == "" {
			continue
		}
		data := snap.Data
		if f != rel {
			ls, err := s.rd.Preflight(f)
			if err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
			data = ls.Data
		}
		cfg, err := lefthookcfg.Parse(f, data)
		if err != nil {
			continue
		}
		for _, o := range LefthookOverrides(f, data, cfg) {
			s.p.rep.Warnings = append(s.p.rep.Warnings, fmt.Sprintf("finding: %s:%d: %s (hookwarden does not edit it)", o.File, o.Line, o.Describe()))
		}
	}
	if lp.Problem != "" {
		rep.Action, rep.Reason = ActionSkipped, lp.Problem
		s.p.rep.Files = append(s.p.rep.Files, rep)
		s.p.rep.Warnings = append(s.p.rep.Warnings, "finding: "+rel+": "+lp.Problem)
		return nil
	}
	rep.Action = action(snap, lp.Out, ActionMerged)
	if lp.Change != "" {
		rep.Changes = []string{lp.Change}
	}
	s.add(rep, snap, lp.Out, 0o644)
	return nil
}
