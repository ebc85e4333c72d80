package audit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hookwarden/hookwarden/adopt"
	"github.com/hookwarden/hookwarden/internal/buildinfo"
	"github.com/hookwarden/hookwarden/internal/gitdisc"
	"github.com/hookwarden/hookwarden/internal/safewrite"
	"github.com/hookwarden/hookwarden/internal/shellquote"
	"github.com/hookwarden/hookwarden/lefthookcfg"
	"github.com/hookwarden/hookwarden/settings"
	"github.com/hookwarden/hookwarden/templates"
)

func buildVersion() string { return buildinfo.Current() }

// repoAudit collects the findings of one repository.
type repoAudit struct {
	ctx     context.Context // the audit's; ends the git processes asked below
	a       *auditor
	root    string
	conform string // the repair command for this repository
	// fixPath is the repository as fix commands name it: the path as
	// given, or the root when a planned session starts below it.
	fixPath string
	res     *RepoResult
	// rd reads the repository's files, each once, for the checks and for
	// conform's dry run alike.
	rd *safewrite.Reader
	// declared is the manifest's client_versions (adopt.ResolveClientVersion).
	declared map[string]string
}

func (r *repoAudit) add(id, file string, line int, client, event, msg, fix string) {
	rule, _ := RuleByID(id)
	if rule.Severity == Note && slices.Contains(r.a.acknowledged, id) {
		return
	}
	r.res.Findings = append(r.res.Findings, Finding{ID: id, Severity: rule.Severity, File: file, Line: line,
		Client: client, Event: event, Message: adopt.CapReason(msg), Fix: adopt.CapReason(fix)})
}

// read reads a repository file without following symlinks; a refusal is a
// repository-unreadable finding and ok false.
func (r *repoAudit) read(rel string) (safewrite.Snapshot, bool) {
	s, err := r.rd.Preflight(rel)
	if err != nil {
		fix := "replace it with a regular file, then run " + r.conform
		if link := r.symlinkIn(rel); link != "" {
			// The copy keeps what the link showed; conform refuses to
			// write through a symlink, so the link itself has to go.
			q := shellquote.Word(link)
			fix = "cd " + shellquote.Word(r.fixPath) + " && t=\"$(readlink -f " + q + ")\" && rm " + q + " && cp -R \"$t\" " + q + " && hookwarden conform ."
		}
		r.add(IDRepositoryUnreadable, rel, 0, "", "", fmt.Sprintf("%s: cannot be read safely: %v", rel, err), fix)
		return s, false
	}
	return s, true
}

// symlinkIn returns the first component of rel (slash-separated, below the
// root) that is a symbolic link, as a repository-relative path, or "".
func (r *repoAudit) symlinkIn(rel string) string {
	parts := strings.Split(rel, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		fi, err := os.Lstat(relJoin(r.root, p))
		if err != nil {
			return ""
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return p
		}
	}
	return ""
}

// repo audits one repository: path as given, root its root, start the
// directory a planned session starts in (with Options.Plan; "" otherwise).
func (a *auditor) repo(ctx context.Context, path, root, start string) *RepoResult {
	r := &repoAudit{ctx: ctx, a: a, root: root, fixPath: path, rd: safewrite.NewReader(root), res: &RepoResult{Path: path, Root: root, Findings: []Finding{}}}
	if start != "" && start != root {
		r.fixPath = root
	}
	r.conform = "hookwarden conform " + shellquote.Word(r.fixPath)
	defer func() { sortFindings(r.res.Findings) }()
	if a.plan {
		// Runs before the sort above: the plan's findings skip what the
		// checks below already found.
		defer func() {
			if ctx.Err() == nil {
				r.plan(start, a.workstation)
			}
		}()
	}
	if err := ctx.Err(); err != nil {
		r.add(IDRepositoryUnreadable, "", 0, "", "", "not audited: "+err.Error(), "rerun hookwarden audit")
		return r.res
	}

	man, ok := r.read(adopt.ManifestFile)
	if !ok {
		return r.res
	}
	if !man.Exists {
		// adopt governs only the root of a git repository: the fix names
		// the command that works from here.
		fix := "hookwarden adopt " + shellquote.Word(path)
		if repo, found, err := gitdisc.Find(root); err == nil && !found {
			fix = "git init " + shellquote.Word(path) + " && " + fix
		} else if err == nil {
			if top, err := filepath.EvalSymlinks(repo.WorkTree); err == nil && top != root {
				fix = "hookwarden adopt " + shellquote.Word(top)
			}
		}
		r.add(IDNotGoverned, "", 0, "", "", "not governed: no "+adopt.ManifestFile+" at the repository root, so no agent client is guarded here", fix)
		return r.res
	}
	r.res.Governed = true
	f, err := settings.Parse(man.Data, true)
	if err != nil {
		r.add(IDManifestInvalid, adopt.ManifestFile, lineOf(err.Error()), "", "", "repository layer "+adopt.ManifestFile+": "+err.Error(), "edit "+adopt.ManifestFile+" as the message says, then run "+r.conform)
		return r.res
	}
	if err := adopt.ValidateDecline(f.Decline); err != nil {
		r.add(IDManifestInvalid, adopt.ManifestFile, lineOfKey(man.Data, 0, "decline:"), "", "", "repository layer "+adopt.ManifestFile+": "+err.Error(), "edit "+adopt.ManifestFile+" as the message says, then run "+r.conform)
		return r.res
	}
	r.layers()

	clients := f.Clients
	if clients == nil {
		clients = templates.DefaultClients()
	}
	var governed []string
	for _, c := range clients {
		if c != "lefthook" {
			governed = append(governed, c)
		}
	}
	events := adopt.FileEvents(f)
	r.declared = f.ClientVersions
	declined := func(step string) bool { return slices.Contains(f.Decline, step) }
	for _, d := range f.Decline {
		r.add(IDStepDeclined, adopt.ManifestFile, 0, "", "", "adopt step "+d+" is declined in "+adopt.ManifestFile+"; audit does not check what it writes", "remove "+d+" from decline: to have it written and checked")
	}

	if !declined(adopt.StepGitIgnore) {
		r.gitignore()
	}
	rendered := governed
	if slices.Contains(clients, "lefthook") {
		rendered = append(slices.Clone(governed), "lefthook")
	}
	r.rendered(rendered, declined, f.Dispatch != nil)
	if slices.Contains(clients, "lefthook") && !declined(templates.StepLefthookJobs) {
		r.lefthook()
	}
	if !declined(adopt.StepAgentHooks) {
		for _, c := range adopt.SettingsClients() {
			r.clientFile(c, events, slices.Contains(governed, c))
		}
	}
	r.hooksPath(clients)
	r.conformDrift()
	return r.res
}

// conformDrift holds audit to being the dry run of conform: it plans
// conform on the repository (adopt.Conform with DryRun, which writes
// nothing) and reports as an error every file conform would write that no
// error finding above already names with the conform fix, so audit passes
// only where conform would change no byte. The detailed findings above say
// why; this one is the catch-all for any change they do not explain.
func (r *repoAudit) conformDrift() {
	dry := r.a.dry
	if dry == nil {
		var err error
		if dry, err = adopt.NewConformDryRun(r.a.dryOptions()); err != nil {
			return
		}
	}
	plan := dry.Plan(r.ctx, r.root, r.rd)
	named := map[string]bool{}
	for _, f := range r.res.Findings {
		if f.Severity == Error && f.Fix == r.conform {
			named[f.File] = true
		}
	}
	for _, rel := range plan.Removed {
		r.add(IDLeftoverTemporary, rel, 0, "", "", rel+" is a temporary file an interrupted hookwarden run left (a write killed before its rename); conform removes it", r.conform)
	}
	for _, f := range plan.Files {
		switch f.Action {
		case adopt.ActionCreated, adopt.ActionMerged, adopt.ActionUpdated:
		default:
			continue
		}
		if named[f.Path] {
			continue
		}
		what := "would " + map[string]string{adopt.ActionCreated: "create", adopt.ActionMerged: "change", adopt.ActionUpdated: "rewrite"}[f.Action] + " " + f.Path + " (step " + f.Step + ")"
		if len(f.Changes) > 0 {
			what += ": " + strings.Join(f.Changes, "; ")
		}
		r.add(IDConformDrift, f.Path, 0, f.Client, "", "conform "+what, r.conform)
	}
}

// lineOf returns the number N of the first "line N" in msg (the form of
// settings and adopt errors), or 0. It uses no regular expression:
// this package is linked into the binary whose hook path must not compile
// any at start-up.
func lineOf(msg string) int {
	for rest := msg; ; {
		i := strings.Index(rest, "line ")
		if i < 0 {
			return 0
		}
		rest = rest[i+len("line "):]
		j := 0
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		if j > 0 {
			n, _ := strconv.Atoi(rest[:j])
			return n
		}
	}
}

// layers checks the operator settings layers (fleet and workstation files)
// the engine will merge under this repository's manifest.
func (r *repoAudit) layers() {
	src := settings.SourcesFromEnv(r.a.getenv)
	for _, l := range []struct {
		name, path string
		explicit   bool
	}{{"fleet", src.FleetPath, src.FleetExplicit}, {"workstation", src.WorkstationPath, src.WorkstationExplicit}} {
		if l.path == "" {
			continue
		}
		one := settings.Sources{}
		if l.name == "fleet" {
			one.FleetPath, one.FleetExplicit = l.path, l.explicit
		} else {
			one.WorkstationPath, one.WorkstationExplicit = l.path, l.explicit
		}
		if _, err := settings.Load(one, nil); err != nil {
			r.add(IDSettingsLayer, l.path, lineOf(err.Error()), "", "", l.name+" layer "+l.path+": "+err.Error(), "edit "+l.path+" as the message says")
		}
	}
}

// gitignore checks the managed block of the root .gitignore and that
// .hookwarden/backups/ is ignored.
func (r *repoAudit) gitignore() {
	gi, ok := r.read(".gitignore")
	if !ok {
		return
	}
	hasBlock := false
	for _, l := range strings.Split(string(gi.Data), "\n") {
		t := strings.TrimRight(l, " \t\r")
		if t == adopt.BlockBegin || t == adopt.BlockEnd {
			hasBlock = true
		}
	}
	if !hasBlock {
		r.add(IDGitIgnoreMissing, ".gitignore", 0, "", "", "the managed block ("+adopt.BlockBegin+" … "+adopt.BlockEnd+") is missing, so .hookwarden/backups/ is not ignored by it", r.conform)
		return
	}
	out, err := adopt.EnsureGitIgnoreBlock(gi.Data)
	if err != nil {
		line := 0
		var ge *adopt.GitIgnoreError
		if errors.As(err, &ge) {
			line = ge.Line
		}
		r.add(IDGitIgnoreMalformed, ".gitignore", line, "", "", "the managed block is malformed: "+err.Error(), "repair the "+adopt.BlockBegin+" / "+adopt.BlockEnd+" markers by hand, then run "+r.conform)
		return
	}
	if !bytes.Equal(out, gi.Data) {
		r.add(IDGitIgnoreStale, ".gitignore", lineOfText(gi.Data, adopt.BlockBegin), "", "", "the managed block's lines differ from the block this version writes", r.conform)
	}
	if ok, why := adopt.BackupsIgnored(r.ctx, r.a.ignore, r.root, gi.Data); !ok {
		r.add(IDBackupsNotIgnored, ".gitignore", 0, "", "", why, "remove the rule that re-includes .hookwarden/backups/ (see git check-ignore -v .hookwarden/backups/x)")
	}
}

// lineOfText returns the 1-based line of the first line of data that,
// trimmed, equals text; 0 when none does.
func lineOfText(data []byte, text string) int {
	for i, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == text {
			return i + 1
		}
	}
	return 0
}

// rendered compares each rendered file with this build's render (with the
// agent-traffic rows when the manifest has a dispatch: section).
func (r *repoAudit) rendered(governed []string, declined func(string) bool, dispatch bool) {
	files, err := r.a.shared.Render(governed, dispatch)
	if err != nil {
		r.add(IDRenderUnavailable, "", 0, "", "", "rendered files not checked: "+err.Error(), "use a hookwarden build whose templates render")
		return
	}
	for _, f := range files {
		if declined(f.Step) {
			continue
		}
		snap, ok := r.read(f.Path)
		if !ok {
			continue
		}
		if snap.Exists && f.Mode&0o111 != 0 && snap.Mode&0o111 == 0 {
			// A file the client runs itself (Cline's PreToolUse) is not
			// run without its execute bits; conform keeps an existing
			// file's mode, so the fix is a chmod.
			r.add(IDRenderedEdited, f.Path, 0, "", "", fmt.Sprintf("%s is not executable (mode %04o), so its client does not run it", f.Path, snap.Mode.Perm()), "chmod 0755 "+shellquote.Word(relJoin(r.fixPath, f.Path)))
		}
		switch {
		case !snap.Exists:
			r.add(IDRenderedMissing, f.Path, 0, "", "", f.Path+" ("+f.Step+") is missing", r.conform)
		case bytes.Equal(snap.Data, f.Body):
		default:
			h, ok := templates.ParseHeaderAt(f.Path, snap.Data)
			if v, same := templates.VersionOnly(f.Path, snap.Data, f.Body); same {
				r.add(IDRenderedVersion, f.Path, 1, "", "", f.Path+" was rendered by hookwarden "+v+"; this build ("+buildVersion()+") renders the same body, so conform leaves it", "nothing to do; one hookwarden version across the team removes the note")
				continue
			}
			switch {
			case !ok:
				r.add(IDRenderedEdited, f.Path, 1, "", "", f.Path+" carries no hookwarden render header (written by hand or by another tool); conform keeps it", "review it, then run hookwarden conform --force "+shellquote.Word(r.fixPath))
			case h.Edited:
				r.add(IDRenderedEdited, f.Path, 1, "", "", f.Path+" was edited by hand after it was rendered (its body no longer matches the header's SHA-256); conform keeps it", "review the edit, then run hookwarden conform --force "+shellquote.Word(r.fixPath))
			default:
				v := h.Version
				if v == "" {
					v = "unknown"
				}
				r.add(IDRenderedStale, f.Path, 1, "", "", f.Path+" is an older render (version "+v+"; this build renders it differently)", r.conform)
			}
		}
	}
}

// errorsAs is errors.As for a target type, kept local for readability.
func errorsAs[T error](err error) (T, bool) {
	var t T
	ok := errors.As(err, &t)
	return t, ok
}

func relJoin(root, rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }

// lefthook checks the lefthook jobs of a repository that selects lefthook
// (the rendered .hookwarden/lefthook.yml is checked with the other rendered
// files): the main lefthook config must extend the jobs file
// (adopt.PlanLefthookConfig: a missing or edited block is the conform
// drift below; a config adopt cannot edit is lefthook-jobs-not-extended
// here), and no setting in the main or local config may change one of our
// jobs: a job of the same name, a hook-level skip, only or exclude_tags
// (lefthook-job-foreign; adopt.LefthookOverrides).
func (r *repoAudit) lefthook() {
	main, local := adopt.LefthookConfigsIn(r.rd)
	rel := main
	if rel == "" {
		rel = "lefthook.yml"
	}
	snap, ok := r.read(rel)
	if !ok {
		return
	}
	lp, err := adopt.PlanLefthookConfig(main, snap.Data, snap.Exists, true)
	switch {
	case err != nil:
		line := 0
		if be, ok := errorsAs[*adopt.BlockError](err); ok {
			line = be.Line
		}
		r.add(IDLefthookNotExtended, rel, line, "lefthook", "", "the managed block is malformed: "+err.Error()+"; lefthook may not read "+templates.LefthookJobsPath, "repair the "+adopt.BlockBegin+" / "+adopt.BlockEnd+" markers by hand, then run "+r.conform)
	case lp.Problem != "":
		r.add(IDLefthookNotExtended, rel, 0, "lefthook", "", lp.Problem, "edit "+rel+" as the message says, then run "+r.conform)
	case lp.Change != "":
		what := "lacks hookwarden's extends block"
		if !snap.Exists {
			what = "does not exist"
		} else if bytes.Contains(snap.Data, []byte(adopt.BlockBegin)) {
			what = "holds an edited hookwarden extends block"
		}
		r.add(IDLefthookNotExtended, rel, lineOfText(snap.Data, adopt.BlockBegin), "lefthook", "", rel+" "+what+", so lefthook does not read "+templates.LefthookJobsPath+" and runs none of hookwarden's jobs", r.conform)
	}
	for _, f := range []string{main, local} {
		if f == "" {
			continue
		}
		s, ok := snap, true
		if f != rel {
			s, ok = r.read(f)
		}
		if !ok {
			continue
		}
		cfg, err := lefthookcfg.Parse(f, s.Data)
		if err != nil {
			continue
		}
		for _, o := range adopt.LefthookOverrides(f, s.Data, cfg) {
			fix := "rename or remove the job in " + f
			if o.Key != "" {
				fix = "remove " + o.Key + ": from the " + o.Hook + " hook in " + f
			}
			r.add(IDLefthookForeignJob, f, o.Line, "lefthook", "", o.Describe(), fix)
		}
	}
}
