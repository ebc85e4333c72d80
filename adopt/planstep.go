package adopt

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/hookwarden/hookwarden/clientjson"
	"github.com/hookwarden/hookwarden/internal/clientname"
	"github.com/hookwarden/hookwarden/internal/safewrite"
	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/templates"
)

// planStep is one step of a repository's plan. planRepo settles the
// repository and its manifest, then runs every step of planSteps in order,
// then plans the backups of the files the steps replace and orders the
// writes (DESIGN.md write order: git-ignore, backups, the steps' files, the
// manifest last). Adding a client's file or a step is one more value in
// planSteps.
type planStep struct {
	// names are the --decline words of the files the step plans (the four
	// rendered-file steps share one value: they come from one render);
	// none for a step that plans no file.
	names []string
	// reads and writes name the repository files the step reads and may
	// write (slash separated, relative to the root), for the reader.
	reads, writes string
	// clients are the clients whose files the step plans; nil means it
	// serves every governed client alike.
	clients []string
	// conformOnly steps run only for conform.
	conformOnly bool
	// plan reads what the step needs, adds each file it plans to the
	// state (planState.add) with its report, and returns an error that
	// fails the whole repository (nothing of it is written).
	plan func(s *planState, step planStep) error
}

// planSteps returns the steps of a repository's plan, in the order they
// are planned (and their files reported and written).
func planSteps() []planStep {
	return []planStep{
		{names: []string{StepGitIgnore}, reads: ".gitignore", writes: ".gitignore (the managed block only)",
			plan: (*planState).planGitIgnore},
		{names: []string{templates.StepLauncher, templates.StepInterceptor, templates.StepAgyPlugin, templates.StepOpencodePlugin, templates.StepCopilotHooks, templates.StepKiroHooks, templates.StepClineHook, templates.StepLefthookJobs},
			reads:  "each rendered file (its render header)",
			writes: ".hookwarden/hook.sh, .hookwarden/hook.py, .hookwarden/interceptor.py, .agents/plugins/hookwarden/* (agy), .opencode/plugins/hookwarden.js (opencode), .github/hooks/hookwarden.json (copilot), .kiro/hooks/hookwarden.json (kiro), .clinerules/hooks/PreToolUse (cline, mode 0755), .hookwarden/lefthook.yml (lefthook)",
			plan:   (*planState).planRendered},
		{reads: "the main lefthook config (lefthook.yml or the first name lefthook 2.x reads) and the local one", clients: []string{"lefthook"},
			writes: "the managed extends: block of the main lefthook config (the lefthook-jobs step)",
			plan:   (*planState).planLefthook},
		{names: []string{StepContext}, reads: ContextSource + " and the files generated from it",
			writes: "CLAUDE.md, GEMINI.md, AGENTS.readonly.md and the other files compile-context generates",
			plan:   (*planState).planContextStep},
		{reads: ".agents/plugins/hookwarden, .opencode/plugins/hookwarden.js, .github/hooks/hookwarden.json, .kiro/hooks/hookwarden.json, .clinerules/hooks/PreToolUse", clients: []string{"agy", "opencode", "copilot", "kiro", "cline"}, conformOnly: true,
			plan: (*planState).planRetiredPlugins},
		{names: []string{StepAgentHooks}, reads: ".claude/settings.json, .codex/hooks.json, .gemini/settings.json",
			writes: "our rows in those files", clients: SettingsClients(),
			plan: (*planState).planAgentHooks},
	}
}

// planState is what the steps of one repository's plan share: the
// repository, the run, the manifest's selections, and what the steps have
// planned so far.
type planState struct {
	ctx      context.Context
	p        *repoPlan
	root     string
	rd       *safewrite.Reader // reads the files below root, each once
	opts     *Options
	conform  bool
	table    *registration.Table
	governed []string // the selected clients, lefthook aside
	lefthook bool     // lefthook is selected (its jobs: the lefthook-jobs step)
	events   []string // the manifest's neutral events
	dispatch bool     // the manifest has a dispatch: section (the agent-traffic rows)
	decline  []string // the declined steps
	// versions holds the client versions the rows are rendered for
	// (ResolveClientVersion), by client.
	versions map[string]ClientVersion

	writes        []plannedWrite // the steps' writes, in plan order
	gitignoreData []byte         // .gitignore as it will be after the plan
	// The Codex hooks file as planned, for the trust check.
	codexHooks   []byte
	codexOwner   *clientjson.Owner
	codexPlanned bool
}

// renderClients returns the clients whose files are rendered: the
// governed ones, and lefthook when it is selected (its jobs file).
func (s *planState) renderClients() []string {
	if s.lefthook {
		return append(slices.Clone(s.governed), "lefthook")
	}
	return s.governed
}

func (s *planState) declined(step string) bool { return slices.Contains(s.decline, step) }

// add reports a planned file and, when the plan changes it, plans its write.
func (s *planState) add(rep *FileReport, snap safewrite.Snapshot, data []byte, mode fs.FileMode) {
	s.p.leftovers = append(s.p.leftovers, snap.Leftovers...)
	s.p.rep.Files = append(s.p.rep.Files, rep)
	if rep.Action == ActionCreated || rep.Action == ActionMerged || rep.Action == ActionUpdated {
		s.writes = append(s.writes, plannedWrite{snap: snap, data: data, mode: mode, file: rep})
	}
}

// planGitIgnore plans the managed block of .gitignore.
func (s *planState) planGitIgnore(planStep) error {
	giRep := &FileReport{Path: ".gitignore", Step: StepGitIgnore}
	gi, err := s.rd.Preflight(".gitignore")
	if err != nil {
		return fmt.Errorf(".gitignore: %w", err)
	}
	s.gitignoreData = gi.Data
	if s.declined(StepGitIgnore) {
		giRep.Action, giRep.Reason = ActionDeclined, "declined"
		s.add(giRep, gi, nil, 0)
		return nil
	}
	out, err := EnsureGitIgnoreBlock(gi.Data)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(s.root, ".gitignore"), err)
	}
	s.gitignoreData = out
	giRep.Action = action(gi, out, ActionMerged)
	s.add(giRep, gi, out, 0o644)
	return nil
}

// planRendered plans the rendered files of every step of step.names not
// declined; a file edited by hand (or without a render header) is kept
// unless --force.
func (s *planState) planRendered(step planStep) error {
	if !slices.ContainsFunc(step.names, func(n string) bool { return !s.declined(n) }) {
		return nil
	}
	files, err := s.opts.Shared.Render(s.renderClients(), s.dispatch)
	if err != nil {
		return fmt.Errorf("render: %w", err)
	}
	for _, f := range files {
		rep := &FileReport{Path: f.Path, Step: f.Step}
		if s.declined(f.Step) {
			rep.Action, rep.Reason = ActionDeclined, "declined"
			s.p.rep.Files = append(s.p.rep.Files, rep)
			continue
		}
		snap, err := s.rd.Preflight(f.Path)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		rep.Action = action(snap, f.Body, ActionUpdated)
		body := f.Body
		if rep.Action == ActionUpdated && versionOnly(f.Path, snap.Data, f.Body) {
			// Another version rendered the same body: rewriting only the
			// stamp would make mixed installs rewrite each other's files.
			rep.Action, body = ActionUnchanged, snap.Data
		}
		if rep.Action == ActionUpdated {
			h, ok := templates.ParseHeaderAt(f.Path, snap.Data)
			var why string
			switch {
			case !ok:
				why = "carries no hookwarden render header (written by hand or by another tool)"
			case h.Edited:
				why = "was edited by hand after it was rendered"
			}
			if why != "" {
				if s.opts.Force {
					s.p.rep.Warnings = append(s.p.rep.Warnings, fmt.Sprintf("%s %s; replaced (--force)", f.Path, why))
				} else {
					rep.Action = ActionSkipped
					rep.Reason = why + "; kept (rerun with --force to replace it)"
					s.p.rep.Warnings = append(s.p.rep.Warnings, fmt.Sprintf("%s %s; kept as it is", f.Path, why))
				}
			} else if h.Version != "" {
				rep.Changes = []string{"refreshed a render of version " + h.Version}
			}
		}
		s.add(rep, snap, body, f.Mode)
	}
	return nil
}

// planContextStep plans the context files compiled from AGENTS.md
// (repoPlan.planContext).
func (s *planState) planContextStep(planStep) error {
	return s.p.planContext(s.ctx, s.root, s.governed, s.opts, s.declined(StepContext), s.add)
}

// planRetiredPlugins warns, for conform, about the plugin files of a client
// no longer selected: hookwarden deletes no file.
func (s *planState) planRetiredPlugins(step planStep) error {
	paths := map[string]string{"agy": templates.AgyPluginDir, "opencode": templates.OpencodePluginPath, "copilot": templates.CopilotHooksPath, "kiro": templates.KiroHooksPath, "cline": templates.ClineHookPath}
	for _, client := range step.clients {
		if slices.Contains(s.governed, client) {
			continue
		}
		if _, err := os.Lstat(filepath.Join(s.root, filepath.FromSlash(paths[client]))); err == nil {
			s.p.rep.Warnings = append(s.p.rep.Warnings, fmt.Sprintf("%s is no longer selected in %s but %s is still there; hookwarden deletes no file, remove it by hand", client, ManifestFile, paths[client]))
		}
	}
	return nil
}

// planAgentHooks merges our rows into the settings file of each selected
// client of step.clients and, for conform, retracts them from the file of a
// client no longer selected.
func (s *planState) planAgentHooks(step planStep) error {
	for _, client := range step.clients {
		selected := slices.Contains(s.governed, client)
		if !selected && !s.conform {
			continue
		}
		if err := s.planClientFile(client, selected); err != nil {
			return err
		}
	}
	return nil
}

// planClientFile plans client's settings file (SettingsFile) for the
// agent-hooks step.
func (s *planState) planClientFile(client string, selected bool) error {
	p, root, opts := s.p, s.root, s.opts
	rel, _ := SettingsFile(client)
	rep := &FileReport{Path: rel, Step: StepAgentHooks, Client: client}
	owner, err := opts.Shared.Owner(client, s.table)
	if err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	if !selected {
		// conform: a client no longer selected keeps no row of ours.
		snap, err := s.rd.Preflight(rel)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		if !snap.Exists || s.declined(StepAgentHooks) {
			return nil
		}
		res, err := opts.files.merge(filepath.Join(root, filepath.FromSlash(rel)), snap.Data, client, nil, clientjson.Options{Owner: owner, Retract: true})
		if err != nil {
			return err
		}
		rep.Action = action(snap, res.Out, ActionMerged)
		if rep.Action == ActionUnchanged {
			return nil
		}
		rep.Reason = "client no longer selected in " + ManifestFile
		rep.Changes = changeList(res.Changes)
		s.add(rep, snap, res.Out, 0o644)
		return nil
	}
	if s.declined(StepAgentHooks) {
		rep.Action, rep.Reason = ActionDeclined, "declined"
		p.rep.Files = append(p.rep.Files, rep)
		return nil
	}
	snap, err := s.rd.Preflight(rel)
	if err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	absPath := filepath.Join(root, filepath.FromSlash(rel))
	var want []clientjson.Handler
	for _, ev := range WithDispatch(RegisteredEvents(s.events), s.dispatch) {
		row, ok := s.table.Lookup(client, ev)
		if !ok {
			continue
		}
		if why, gated := GatedRow(client, ev, s.versions[client]); gated {
			p.rep.Next = append(p.rep.Next, why)
			continue
		}
		cmd, err := templates.RegistrationCommand(client, ev)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		onFailure, err := templates.OnFailure(client, ev)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		win, err := templates.CommandWindows(client, ev)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		for _, native := range row.NativeEvents() {
			want = append(want, clientjson.Handler{NativeEvent: native, Matcher: row.Matcher, Command: cmd, CommandWindows: win, Timeout: row.Timeout, OnFailure: onFailure})
		}
	}
	var src []byte
	if snap.Exists {
		src = snap.Data
	}
	var switchedOn string
	if sw, ok := hooksSwitch(client); ok && snap.Exists {
		off, err := opts.files.disabled(absPath, snap.Data, client)
		if err != nil {
			return err
		}
		if off {
			title := clientname.Title(client)
			finding := title + " hooks are switched off in this file (" + sw.off + "); " + title + " runs no hook, ours included"
			switch {
			case opts.Force:
				out, changed, err := opts.files.enable(absPath, snap.Data, client)
				if err != nil {
					return err
				}
				if changed {
					src, switchedOn = out, "switched hooks back on ("+sw.on+")"
					p.rep.Warnings = append(p.rep.Warnings, "finding: "+rel+": "+finding+"; hooks switched back on ("+sw.on+", --force)")
				}
			case client == "gemini":
				rep.Action, rep.Reason = ActionSkipped, finding+"; not registered (an operator's explicit off is kept; rerun with --force to switch hooks back on and register)"
				p.rep.Warnings = append(p.rep.Warnings, "finding: "+rel+": "+finding)
				p.rep.Files = append(p.rep.Files, rep)
				return nil
			default:
				p.rep.Warnings = append(p.rep.Warnings, "finding: "+rel+": "+finding+"; rows registered but inactive (an operator's explicit off is kept; rerun with --force to switch hooks back on)")
			}
		}
	}
	res, err := opts.files.merge(absPath, src, client, want, clientjson.Options{Owner: owner, Retract: s.conform})
	if err != nil {
		return err
	}
	rep.Action = action(snap, res.Out, ActionMerged)
	rep.Changes = changeList(res.Changes)
	if switchedOn != "" {
		rep.Changes = append([]string{switchedOn}, rep.Changes...)
	}
	for _, w := range res.Warnings {
		p.rep.Warnings = append(p.rep.Warnings, rel+": "+w)
	}
	s.add(rep, snap, res.Out, 0o644)
	if client == "codex" {
		s.codexHooks, s.codexPlanned, s.codexOwner = res.Out, true, owner
	}
	return nil
}

// versionOnly is templates.VersionOnly's verdict alone (parsing both headers
// digests both bodies, so it is asked only of a file about to be updated).
func versionOnly(path string, have, want []byte) bool {
	_, same := templates.VersionOnly(path, have, want)
	return same
}
