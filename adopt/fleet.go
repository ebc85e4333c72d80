package adopt

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hookwarden/hookwarden/adopt/ignorecheck"
	"github.com/hookwarden/hookwarden/clientjson"
	"github.com/hookwarden/hookwarden/internal/safewrite"
	"github.com/hookwarden/hookwarden/internal/workpool"
	"github.com/hookwarden/hookwarden/protocol/registration"
)

// Adopt makes every repository in paths governed. Every repository is
// planned before any is written (bounded by opts.Jobs); a repository whose
// plan fails is reported failed and left untouched, and the others go on.
// The returned report lists repositories in the order of paths. It returns
// an error only for a run that could not start (a bad --decline or
// --clients, a broken registration table); per-repository failures are in
// the report.
func Adopt(ctx context.Context, paths []string, opts Options) (*Report, error) {
	return run(ctx, "adopt", paths, opts)
}

// Conform re-applies adoption to the governed repositories in paths (those
// with a .hookwarden.yaml; others are reported not-governed and untouched):
// it re-plans from each manifest and the current registration table and
// templates, repairs drift, retracts and updates our own stale rows
// (clientjson Options.Retract), refreshes stale rendered files and keeps
// hand-edited ones with a warning unless opts.Force. Errors as for Adopt.
func Conform(ctx context.Context, paths []string, opts Options) (*Report, error) {
	return run(ctx, "conform", paths, opts)
}

// runSetup is what every repository of one run shares: the validated
// options (their Owners, renders and ignore cache included), the
// registration table and the backup stamp.
type runSetup struct {
	opts  Options
	table *registration.Table
	stamp string
	jobs  int
}

// newRunSetup validates opts and builds what a run shares; its errors are
// Adopt's.
func newRunSetup(opts Options) (*runSetup, error) {
	if err := ValidateDecline(opts.Decline); err != nil {
		return nil, err
	}
	if opts.Clients != nil {
		if err := ValidateClients(opts.Clients); err != nil {
			return nil, err
		}
	}
	table, err := registration.Default()
	if err != nil {
		return nil, err
	}
	if opts.Memo == nil {
		opts.Memo = &clientjson.Memo{}
	}
	if opts.files.merge == nil {
		opts.files = realClientFiles(opts.Memo)
	}
	if opts.Shared == nil {
		if opts.Shared, err = NewShared(table, nil); err != nil {
			return nil, err
		}
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	if opts.IgnoreCache == nil {
		opts.IgnoreCache = &ignorecheck.Cache{}
	}
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = workpool.DefaultJobs()
	}
	return &runSetup{opts: opts, table: table, stamp: now().UTC().Format("20060102T150405Z"), jobs: jobs}, nil
}

// ConformDryRun is conform's dry run taken one repository at a time, each
// as the caller reaches it: `audit` checks every repository against it
// while it holds that repository's files, instead of planning the whole
// fleet first and holding every plan. Repositories share one run's
// Owners, renders and ignore verdicts, as Conform's do (Options.Shared,
// IgnoreCache and Memo: audit passes its own, so its checks share them).
type ConformDryRun struct{ run *runSetup }

// NewConformDryRun returns the dry run of Conform with opts (DryRun is
// implied; Jobs and Progress are not used). Its errors are Conform's.
func NewConformDryRun(opts Options) (*ConformDryRun, error) {
	opts.DryRun = true
	r, err := newRunSetup(opts)
	if err != nil {
		return nil, err
	}
	return &ConformDryRun{run: r}, nil
}

// Plan returns the report Conform's dry run gives the repository at path.
// rd, when not nil, is a Reader of the repository's symlink-resolved root
// through which the plan reads, so a caller that read the same files
// through it pays for each once (a Reader of another root is not used).
// Plan may be called from several goroutines at once, each with a Reader
// of its own.
func (d *ConformDryRun) Plan(ctx context.Context, path string, rd *safewrite.Reader) *RepoReport {
	return planRepo(ctx, path, &d.run.opts, true, d.run.table, d.run.stamp, rd).rep
}

func run(ctx context.Context, verb string, paths []string, opts Options) (*Report, error) {
	setup, err := newRunSetup(opts)
	if err != nil {
		return nil, err
	}
	opts, table, stamp, jobs := setup.opts, setup.table, setup.stamp, setup.jobs
	conform := verb == "conform"
	rep := &Report{SchemaVersion: SchemaVersion, Verb: verb, DryRun: opts.DryRun, Repositories: make([]*RepoReport, len(paths))}
	plans := make([]*repoPlan, len(paths))

	workpool.Run(len(paths), jobs, func(i int) {
		plans[i] = planRepo(ctx, paths[i], &opts, conform, table, stamp, nil)
	}, PhaseCounter(opts.Progress, "plan", len(paths)))

	// Two arguments naming one repository would race on its files.
	seen := map[string]int{}
	for i, p := range plans {
		if p.rep.Status == StatusFailed {
			continue
		}
		if j, dup := seen[p.rep.Path]; dup {
			p.fail("the same repository as argument %d (%s); adopted once", j+1, paths[j])
			continue
		}
		seen[p.rep.Path] = i
	}

	if !opts.DryRun {
		workpool.Run(len(paths), jobs, func(i int) {
			applyPlan(ctx, plans[i], opts.probe)
		}, PhaseCounter(opts.Progress, "write", len(paths)))
	}
	for i, p := range plans {
		rep.Repositories[i] = p.rep
	}
	rep.summarize()
	return rep, nil
}

// PhaseCounter returns the after-each-job function of a workpool.Run phase
// that reports progress: it counts the finished jobs and calls fn(phase,
// done, total) under a lock, so fn never runs concurrently. A nil fn gives
// a function that does nothing.
func PhaseCounter(fn func(phase string, done, total int), phase string, total int) func() {
	if fn == nil {
		return func() {}
	}
	var mu sync.Mutex
	done := 0
	return func() {
		mu.Lock()
		done++
		fn(phase, done, total)
		mu.Unlock()
	}
}

// applyPlan performs a plan's writes in order. A failed write (a file
// changed since planning, a refused path, an IO error) stops the
// repository's remaining writes; the report says how far it got, and the
// files not written are reported skipped with that reason.
func applyPlan(ctx context.Context, p *repoPlan, probe func(string)) {
	if p.rep.Status == StatusFailed || len(p.writes) == 0 && len(p.leftovers) == 0 {
		return
	}
	if err := safewrite.RemoveLeftovers(p.rep.Path, p.leftovers, probe); err != nil {
		p.rep.Status = StatusFailed
		p.rep.Errors = append(p.rep.Errors, CapReason("removing a temporary of an interrupted run: "+err.Error()+"; nothing written"))
		for _, w := range p.writes {
			if w.file != nil {
				w.file.Action, w.file.Reason, w.file.Backup = ActionSkipped, "not written: the run stopped at an error", ""
			}
		}
		return
	}
	for n, w := range p.writes {
		var msg string
		if err := ctx.Err(); err != nil {
			msg = fmt.Sprintf("interrupted after %d of %d writes (%v); rerun to finish", n, len(p.writes), err)
		} else if err := safewrite.WriteProbed(w.snap, w.data, w.mode, probe); err != nil {
			msg = err.Error()
			if errors.Is(err, safewrite.ErrConflict) {
				msg += "; nothing of it was overwritten"
			}
			msg = fmt.Sprintf("write %d of %d: %s; later writes not done, rerun to finish", n+1, len(p.writes), msg)
		}
		if msg == "" {
			continue
		}
		p.rep.Status = StatusFailed
		p.rep.Errors = append(p.rep.Errors, CapReason(msg))
		for _, rest := range p.writes[n:] {
			if rest.file != nil {
				rest.file.Action, rest.file.Reason, rest.file.Backup = ActionSkipped, "not written: the run stopped at an error", ""
			}
		}
		return
	}
}

// Discover returns the repositories under dir: every directory holding a
// `.git` entry, looked for from depth 1 (the directories directly below dir)
// down to depth, not descending into a repository once found nor into
// directories whose name starts with a dot. Paths are sorted. It returns an
// error when dir cannot be read or depth < 1.
func Discover(dir string, depth int) ([]string, error) {
	if depth < 1 {
		return nil, fmt.Errorf("--depth %d: must be at least 1", depth)
	}
	var out []string
	var walk func(d string, level int) error
	walk = func(d string, level int) error {
		ents, err := os.ReadDir(d)
		if err != nil {
			return fmt.Errorf("%s: %w", d, err)
		}
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			p := filepath.Join(d, e.Name())
			fi, err := os.Stat(p)
			if err != nil || !fi.IsDir() {
				continue
			}
			if _, err := os.Lstat(filepath.Join(p, ".git")); err == nil {
				out = append(out, p)
				continue
			} else if !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("%s: %w", p, err)
			}
			if level < depth {
				if err := walk(p, level+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(dir, 1); err != nil {
		return nil, err
	}
	sort.Strings(out)
	return out, nil
}
