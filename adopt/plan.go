package adopt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hookwarden/hookwarden/internal/unidiff"

	"github.com/hookwarden/hookwarden/adopt/codextrust"
	"github.com/hookwarden/hookwarden/adopt/ignorecheck"
	"github.com/hookwarden/hookwarden/clientjson"
	"github.com/hookwarden/hookwarden/internal/gitdisc"
	"github.com/hookwarden/hookwarden/internal/safewrite"
	"github.com/hookwarden/hookwarden/internal/shellquote"
	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/settings"
	"github.com/hookwarden/hookwarden/templates"

	"github.com/hookwarden/hookwarden/internal/reason"
)

// Options steer an adopt or conform run. The zero value is usable: default
// clients, no declines, jobs = CPU count, the real clock and environment.
type Options struct {
	// Clients selects the clients (--clients); nil means the manifest's list,
	// else templates.DefaultClients(). A governed repository keeps its manifest's list.
	Clients []string
	// Decline lists steps to skip (--decline), added to the manifest's decline.
	Decline []string
	// Force lets adopt switch a client's hooks back on where its settings
	// file switches them all off (Gemini hooksConfig.enabled: false, Claude
	// disableAllHooks: true; clientjson.EnableHooks) before registering, and
	// replace hand-edited rendered files.
	Force bool
	// DryRun plans everything and writes nothing; the report is the one the
	// real run would give, and every change is available as a unified diff.
	DryRun bool
	// Jobs bounds how many repositories are planned or written at once;
	// 0 means workpool.DefaultJobs() (four per CPU).
	Jobs int
	// Now is the clock for the backup stamp; nil means time.Now.
	Now func() time.Time
	// Getenv reads CODEX_HOME and HOME for the Codex trust check; nil means
	// os.Getenv.
	Getenv func(string) string
	// Progress, when set, is called after each repository of each phase
	// ("plan", "write") with the count done and the total.
	Progress func(phase string, done, total int)

	files clientFiles
	// IgnoreCache remembers git's ignore verdicts (BackupsIgnored) for the
	// run: a fleet whose repositories share their ignore rules asks git
	// once per distinct set. nil: Adopt and Conform make one per run;
	// audit passes its own so its conform dry run shares it.
	IgnoreCache *ignorecheck.Cache
	// Memo remembers the client-file merges and hook switches of the run
	// by the files' bytes (clientjson.Memo): a fleet whose client files
	// are alike parses each distinct one once. nil: Adopt and Conform make
	// one per run; audit passes its own so its checks and its conform dry
	// run share it.
	Memo *clientjson.Memo
	// Shared is what the run computes once for all repositories (the
	// Owners and renders). nil: Adopt and Conform make one per run; audit
	// passes its own so its checks and its conform dry run share it.
	Shared *Shared
	// probe, set only by this package's tests, is called at every write
	// point (safewrite.WriteProbed, RemoveLeftovers): the crash test stops
	// the process there.
	probe func(point string)
}

// ManifestFile is the repository file that marks a repository governed.
const ManifestFile = settings.RepoFileName

// BackupDir is the repository-relative directory of backups; each run's
// copies go to BackupDir/<UTC stamp>/<path>.
const BackupDir = ".hookwarden/backups"

// plannedWrite is one file write of a repository's plan.
type plannedWrite struct {
	snap safewrite.Snapshot
	data []byte
	mode fs.FileMode
	file *FileReport // nil for a backup copy
}

type repoPlan struct {
	rep    *RepoReport
	writes []plannedWrite
	// leftovers are temporaries of an interrupted run (slash separated,
	// repository-relative), removed before the writes.
	leftovers []string
}

func (p *repoPlan) fail(format string, a ...any) *repoPlan {
	p.rep.Status = StatusFailed
	p.rep.Errors = append(p.rep.Errors, CapReason(fmt.Sprintf(format, a...)))
	p.writes = nil
	p.leftovers = nil
	p.rep.Removed = nil
	p.rep.Files = nil // nothing of the plan is written
	p.rep.diffs = nil
	return p
}

// CapReason returns s capped at 4096 bytes, the house rule for reasons
// (internal/reason.CapMarked): s itself when it fits, else its longest
// prefix ending on a UTF-8 boundary followed by "…", 4096 bytes at most in
// all.
func CapReason(s string) string { return reason.CapMarked(s) }

// planRepo plans one repository; conform selects conform's rules. The
// returned plan has Status failed (and no writes) on any error, and status
// not-governed for conform on a repository without a manifest.
//
// rd, when not nil, is the Reader of the repository's root that the plan
// reads its files through (an audit shares one with the dry run it checks);
// nil reads through a Reader of the plan's own.
func planRepo(ctx context.Context, path string, opts *Options, conform bool, table *registration.Table, stamp string, rd *safewrite.Reader) *repoPlan {
	p := &repoPlan{rep: &RepoReport{Path: path}}
	if err := ctx.Err(); err != nil {
		return p.fail("not planned: %v", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return p.fail("%s: %v", path, err)
	}
	root, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return p.fail("%s: %v", abs, err)
	}
	p.rep.Path = root
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return p.fail("%s: not a directory", root)
	}
	// The engine judges a call only in a git repository whose root holds
	// .hookwarden.yaml (engine/workspace): adopting anything else would
	// report success and guard nothing.
	repo, found, err := gitdisc.Find(root)
	if err != nil {
		return p.fail("%s: %v", root, err)
	}
	if !found {
		return p.fail("not a git repository, and the engine lets every call outside one through (a stated skip); run `git init` there first")
	}
	if top, err := filepath.EvalSymlinks(repo.WorkTree); err == nil && top != root {
		return p.fail("inside the git repository %s; the engine reads .hookwarden.yaml only at a repository's root, so adopt %s instead", top, top)
	}

	if rd == nil || rd.Root() != root {
		rd = safewrite.NewReader(root)
	}
	// manifest
	man, err := rd.Preflight(ManifestFile)
	if err != nil {
		return p.fail("%s: %v", ManifestFile, err)
	}
	if conform && !man.Exists {
		p.rep.Status = StatusNotGoverned
		return p
	}
	p.leftovers = append(p.leftovers, man.Leftovers...)
	var clients, events, decline []string
	var declared map[string]string
	dispatch := false
	manRep := &FileReport{Path: ManifestFile, Step: StepManifest, Action: ActionUnchanged}
	var manWrite *plannedWrite
	if man.Exists {
		f, err := settings.Parse(man.Data, true)
		if err != nil {
			return p.fail("%s: %v", filepath.Join(root, ManifestFile), err)
		}
		clients, events, decline, declared = f.Clients, f.Hooks.Events, f.Decline, f.ClientVersions
		dispatch = f.Dispatch != nil
		if clients == nil {
			clients = templates.DefaultClients()
		}
		if opts.Clients != nil && !slices.Equal(opts.Clients, clients) {
			p.rep.Warnings = append(p.rep.Warnings, fmt.Sprintf("--clients ignored: %s names clients %s and is never rewritten; edit it to change them", ManifestFile, flow(clients)))
		}
	} else {
		clients = opts.Clients
		if clients == nil {
			clients = templates.DefaultClients()
		}
		decline = append([]string{}, opts.Decline...)
	}
	if events == nil {
		events = templates.DefaultEvents()
	}
	var governed []string
	lefthook := false
	for _, c := range clients {
		if c == "lefthook" {
			lefthook = true
			continue
		}
		governed = append(governed, c)
	}
	if !man.Exists && !lefthook {
		// The repository uses lefthook: offer the jobs once, on the first
		// adopt (LefthookConfigs: the names lefthook 2.x reads).
		if main, local := LefthookConfigsIn(rd); main != "" || local != "" {
			p.rep.Warnings = append(p.rep.Warnings, "lefthook: "+strings.TrimSpace(main+" "+local)+" found; hookwarden's lefthook jobs judge the agent's payload from a lefthook job too: adopt with --clients naming lefthook too (or add lefthook to clients in "+ManifestFile+" and run conform) to write them to "+templates.LefthookJobsPath+" and an extends: entry naming it")
		}
	}
	if err := ValidateClients(governed); err != nil {
		return p.fail("%v", err)
	}
	for _, d := range opts.Decline {
		if !slices.Contains(decline, d) {
			decline = append(decline, d)
		}
	}
	if err := ValidateDecline(decline); err != nil {
		if man.Exists {
			return p.fail("%s:%d: %v", ManifestFile, keyLine(man.Data, "decline"), err)
		}
		return p.fail("%v", err)
	}
	if !man.Exists {
		manRep.Action = ActionCreated
		// The manifest names lefthook where the selection did.
		var manClients []string
		for _, c := range clients {
			if !slices.Contains(manClients, c) {
				manClients = append(manClients, c)
			}
		}
		manWrite = &plannedWrite{snap: man, data: ManifestText(manClients, decline, events), mode: 0o644, file: manRep}
	}
	versions := map[string]ClientVersion{}
	for _, c := range governed {
		versions[c] = ResolveClientVersion(c, declared)
	}
	st := &planState{ctx: ctx, p: p, root: root, rd: rd, opts: opts, conform: conform, table: table, governed: governed, lefthook: lefthook, events: events, dispatch: dispatch, decline: decline, versions: versions}
	p.rep.Files = append(p.rep.Files, manRep)
	for _, step := range planSteps() {
		if step.conformOnly && !conform {
			continue
		}
		if err := step.plan(st, step); err != nil {
			return p.fail("%v", err)
		}
	}
	writes, gitignoreData := st.writes, st.gitignoreData
	codexHooks, codexPlanned, codexOwner := st.codexHooks, st.codexPlanned, st.codexOwner

	// backups
	var backupWrites []plannedWrite
	replaced := 0
	for _, w := range writes {
		if w.snap.Exists {
			replaced++
		}
	}
	if replaced > 0 {
		ignored, why := BackupsIgnored(ctx, opts.IgnoreCache, root, gitignoreData)
		if !ignored {
			p.rep.Warnings = append(p.rep.Warnings, "no backups written: "+why)
		} else {
			dir := BackupDir + "/" + stamp
			for n := 1; ; n++ {
				if err := safewrite.CheckDir(root, dir); err != nil {
					return p.fail("%v", err)
				}
				if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(dir))); errors.Is(err, fs.ErrNotExist) {
					break
				}
				dir = fmt.Sprintf("%s/%s-%d", BackupDir, stamp, n)
			}
			for _, w := range writes {
				if !w.snap.Exists {
					continue
				}
				rel := dir + "/" + w.snap.Rel
				bs, err := rd.Preflight(rel)
				if err != nil {
					return p.fail("%v", err)
				}
				if bs.Exists {
					return p.fail("%s: a backup of this run's stamp already exists; rerun", rel)
				}
				w.file.Backup = rel
				backupWrites = append(backupWrites, plannedWrite{snap: bs, data: w.snap.Data, mode: 0o600})
			}
		}
	}

	// Codex trust: the rows Codex will skip until they are trusted.
	if codexPlanned {
		p.codexNext(root, codexHooks, opts, codexOwner)
	}

	// Order: git-ignore first, then backups, rendered files, client files, manifest.
	var ordered []plannedWrite
	rest := writes
	if len(rest) > 0 && rest[0].file.Step == StepGitIgnore {
		ordered = append(ordered, rest[0])
		rest = rest[1:]
	}
	ordered = append(ordered, backupWrites...)
	ordered = append(ordered, rest...)
	if manWrite != nil {
		ordered = append(ordered, *manWrite)
	}
	p.writes = ordered
	if err := p.planLeftovers(root); err != nil {
		return p.fail("%v", err)
	}
	if err := p.preflightWrites(); err != nil {
		return p.fail("%v", err)
	}
	p.rep.Status = StatusUnchanged
	if len(ordered) > 0 || len(p.leftovers) > 0 {
		p.rep.Status = StatusChanged
	}
	for _, w := range ordered {
		if w.file == nil || !opts.DryRun {
			continue
		}
		p.rep.diffs = append(p.rep.diffs, Diff{Path: w.snap.Rel, Step: w.file.Step, Action: w.file.Action,
			Lines: bytes.Count(w.data, []byte("\n")), OldLines: bytes.Count(w.snap.Data, []byte("\n")),
			Unified: unidiff.Unified("a/"+w.snap.Rel, "b/"+w.snap.Rel, w.snap.Data, w.data)})
	}
	return p
}

// preflightWrites checks, before the first write of the run, that every
// planned write can be done as planned (safewrite.CheckWritable: owner and
// group kept, the file and its directory writable — permissions, immutable
// flag, read-only mount — and room for the file), so a repository is not
// left with some of its files written because a later one could not be.
func (p *repoPlan) preflightWrites() error {
	for _, w := range p.writes {
		if err := safewrite.CheckWritable(w.snap, len(w.data)); err != nil {
			return fmt.Errorf("%w; nothing written", err)
		}
	}
	return nil
}

// planLeftovers completes p.leftovers, the temporaries an interrupted run
// of ours left: those Preflight found beside the files of the plan, and
// any in the backups tree (wholly ours). They are reported (RepoReport
// Removed) and removed before the writes.
func (p *repoPlan) planLeftovers(root string) error {
	if err := safewrite.CheckDir(root, BackupDir); err != nil {
		return err
	}
	dir := filepath.Join(root, filepath.FromSlash(BackupDir))
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s: %w: a symbolic link in the backups", path, safewrite.ErrRefused)
		}
		if d.Type().IsRegular() && isTemporaryName(d.Name()) {
			rel, _ := filepath.Rel(root, path)
			p.leftovers = append(p.leftovers, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.Sort(p.leftovers)
	p.leftovers = slices.Compact(p.leftovers)
	p.rep.Removed = p.leftovers
	return nil
}

// isTemporaryName reports whether name is shaped like a renameio temporary
// of some file (safewrite.IsTemporaryOf): "." + a name + decimal digits.
func isTemporaryName(name string) bool {
	base := strings.TrimRight(name, "0123456789")
	return len(base) > 1 && len(base) < len(name) && base[0] == '.' && safewrite.IsTemporaryOf(name, base[1:])
}

// changeList renders clientjson changes for the report ("added PreToolUse
// ^Bash$", "retracted Stop"), leaving out rows found already served.
func changeList(changes []clientjson.Change) []string {
	var out []string
	for _, c := range changes {
		if c.Kind == "served" {
			continue
		}
		s := c.Kind + " " + c.NativeEvent
		if c.Matcher != "" {
			s += " " + c.Matcher
		}
		out = append(out, s)
	}
	return out
}

// action names what writing data over snap does: created, unchanged, or
// changed (merged or updated).
func action(snap safewrite.Snapshot, data []byte, changed string) string {
	switch {
	case !snap.Exists:
		return ActionCreated
	case bytes.Equal(snap.Data, data):
		return ActionUnchanged
	}
	return changed
}

// BackupsIgnored decides whether git ignores BackupDir of the repository at
// root, given the .gitignore content the plan will leave there
// (gitignoreData). It finds the enclosing git work tree (internal/gitdisc: a
// .git directory, or a .git file of a linked worktree or submodule, at root
// or above it) and asks git itself (adopt/ignorecheck: git check-ignore over
// a throwaway copy of the rules) under that repository's own rules:
// info/exclude of its common git directory, every .gitignore from the work
// tree down to root, root's .gitignore as planned, and any .gitignore in
// .hookwarden/ or .hookwarden/backups/ (a user's global excludes are not
// consulted: they are not the repository's). Deciding at plan time, on the
// planned content, is what makes a dry run's report equal the real run's.
// It returns the verdict and, when false, the reason for the report (also
// when git cannot be asked: a backup is then not written). adopt and audit
// both decide with it; cache (nil: none) answers a set of rules git has
// judged before in the run.
func BackupsIgnored(ctx context.Context, cache *ignorecheck.Cache, root string, gitignoreData []byte) (bool, string) {
	repo, found, err := gitdisc.Find(root)
	if err != nil {
		return false, fmt.Sprintf("git cannot confirm .hookwarden/backups/ is ignored (%v)", err)
	}
	if !found {
		return false, "not a git repository (no .git here or above), so git cannot confirm .hookwarden/backups/ is ignored"
	}
	var base []string
	if rel, err := filepath.Rel(repo.WorkTree, root); err == nil && rel != "." {
		base = strings.Split(filepath.ToSlash(rel), "/")
	}
	var rules ignorecheck.Rules
	common := repo.GitDir
	if data, err := os.ReadFile(filepath.Join(repo.GitDir, "commondir")); err == nil {
		if c := strings.TrimSpace(string(data)); filepath.IsAbs(c) {
			common = c
		} else if c != "" {
			common = filepath.Join(repo.GitDir, c)
		}
	}
	if data, err := os.ReadFile(filepath.Join(common, "info", "exclude")); err == nil {
		rules.Exclude = data
	}
	for i := 0; i < len(base); i++ {
		dir := append([]string{repo.WorkTree}, base[:i]...)
		if data, err := os.ReadFile(filepath.Join(append(dir, ".gitignore")...)); err == nil {
			rules.Files = append(rules.Files, ignorecheck.File{Dir: strings.Join(base[:i], "/"), Data: data})
		}
	}
	rules.Files = append(rules.Files, ignorecheck.File{Dir: strings.Join(base, "/"), Data: gitignoreData})
	for _, d := range [][]string{{".hookwarden"}, {".hookwarden", "backups"}} {
		if data, err := os.ReadFile(filepath.Join(append([]string{root}, append(d, ".gitignore")...)...)); err == nil {
			rules.Files = append(rules.Files, ignorecheck.File{Dir: strings.Join(append(append([]string{}, base...), d...), "/"), Data: data})
		}
	}
	var dirs []string
	for _, d := range []string{".hookwarden", ".hookwarden/backups"} {
		dirs = append(dirs, strings.Join(append(append([]string{}, base...), d), "/"))
	}
	ignored, err := cache.Ignored(ctx, rules, dirs)
	if err != nil {
		return false, fmt.Sprintf("git cannot confirm .hookwarden/backups/ is ignored (%v)", err)
	}
	if ignored {
		return true, ""
	}
	return false, ".hookwarden/backups/ is not ignored by git here (the git-ignore step is declined or a rule re-includes it), and a backup must never be committed"
}

// codexNext adds the exact codex-trust command when Codex will not run our
// rows yet: the project is untrusted or a row lacks its trusted_hash.
func (p *repoPlan) codexNext(root string, hooks []byte, opts *Options, owner *clientjson.Owner) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	hooksPath := filepath.Join(root, ".codex", "hooks.json")
	entries, err := codextrust.Entries(hooksPath, hooks, templates.ServingCommand(owner))
	if err != nil {
		p.rep.Warnings = append(p.rep.Warnings, fmt.Sprintf("codex trust: cannot compute the trust keys: %v", err))
		return
	}
	cfgPath, err := codextrust.ConfigPath(getenv)
	if err != nil {
		p.rep.Warnings = append(p.rep.Warnings, err.Error())
		return
	}
	cfg, err := os.ReadFile(cfgPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		p.rep.Warnings = append(p.rep.Warnings, fmt.Sprintf("codex trust: %s: %v", cfgPath, err))
	}
	st, err := codextrust.Check(cfg, root, entries)
	if err != nil {
		p.rep.Warnings = append(p.rep.Warnings, fmt.Sprintf("codex trust: %s: %v", cfgPath, err))
		return
	}
	if st.ProjectTrusted && len(st.Pending) == 0 {
		return
	}
	cmd := "hookwarden codex-trust "
	var why []string
	if !st.ProjectTrusted {
		cmd += "--trust-project "
		why = append(why, "the project is not trusted in "+cfgPath+", so Codex ignores .codex/")
	}
	if n := len(st.Pending); n > 0 {
		why = append(why, fmt.Sprintf("%d of our Codex rows have no trusted_hash, so Codex skips them silently", n))
	}
	p.rep.Warnings = append(p.rep.Warnings, "codex: "+strings.Join(why, "; ")+" (Codex CLI 0.169.0 hook trust)")
	p.rep.Next = append(p.rep.Next, cmd+shellquote.Word(root))
}
