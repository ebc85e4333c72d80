package main

import (
	"context"
	"fmt"
	"github.com/hookwarden/hookwarden/internal/fleetgc"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/urfave/cli/v3"

	"github.com/hookwarden/hookwarden/adopt"
	"github.com/hookwarden/hookwarden/adopt/branchcommit"
	"github.com/hookwarden/hookwarden/templates"
)

// fleetOptions is what adopt and conform run with: the verb, the
// repositories named on the command line, and each flag's value (bound to
// the flags by fleetFlags). FleetSet, BranchSet and ClientSet record
// whether the command line named --fleet, --branch and adopt's --clients,
// which mean something even when given empty.
type fleetOptions struct {
	IO        *ioStreams
	Verb      string
	Paths     []string
	Decline   []string
	Force     bool
	DryRun    bool
	Diff      string
	JSON      bool
	Fleet     string
	Depth     int
	Jobs      int
	Commit    bool
	Branch    string
	Clients   string
	Strict    bool
	Check     bool
	FleetSet  bool
	BranchSet bool
	ClientSet bool
}

// fleetFlags returns the flags adopt and conform share, bound to o's fields;
// o.Verb names the default --commit branch.
func (o *fleetOptions) fleetFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "decline", Destination: &o.Decline, Usage: "skip an adopt step (repeatable or comma separated): " + strings.Join(adopt.Steps()[1:], ", ")},
		&cli.BoolFlag{Name: "force", Destination: &o.Force, Usage: "register into a Gemini file whose hooks are switched off; replace hand-edited rendered files"},
		&cli.BoolFlag{Name: "dry-run", Destination: &o.DryRun, Usage: "write nothing; print the unified diff of every shared file that would change (settings, .gitignore, manifest), one line per rendered file, and the report the real run would give"},
		&cli.StringFlag{Name: "diff", Value: "settings", Destination: &o.Diff, Usage: "with --dry-run, `MODE`: settings (diffs of shared files, one line per rendered file) or all (every diff in full)"},
		&cli.BoolFlag{Name: "json", Destination: &o.JSON, Usage: "print the report as JSON (schema_version 1)"},
		&cli.StringFlag{Name: "fleet", Destination: &o.Fleet, Usage: "process every repository below `DIR` (directories holding .git)"},
		&cli.IntFlag{Name: "depth", Value: 1, Destination: &o.Depth, Usage: "with --fleet, look this many directory levels below DIR"},
		&cli.IntFlag{Name: "jobs", Destination: &o.Jobs, Usage: "repositories processed at once", DefaultText: "four per CPU"},
		&cli.BoolFlag{Name: "commit", Destination: &o.Commit, Usage: "put each repository's change on a new branch as one commit (a temporary worktree: the work tree, index and current branch are not touched; dirty repositories and detached HEADs are skipped; nothing is pushed) and print the command that opens its pull request"},
		&cli.StringFlag{Name: "branch", Destination: &o.Branch, Usage: "with --commit, the branch to create in each repository", DefaultText: "hookwarden/" + o.Verb},
	}
}

// fleetAction returns the action of adopt or conform: it completes o from
// the parsed command line and calls runFleet.
func (o *fleetOptions) fleetAction() cli.ActionFunc {
	return func(ctx context.Context, c *cli.Command) error {
		o.Paths = c.Args().Slice()
		o.FleetSet, o.BranchSet, o.ClientSet = c.IsSet("fleet"), c.IsSet("branch"), c.IsSet("clients")
		return runFleet(ctx, o)
	}
}

func adoptCommand(streams *ioStreams) *cli.Command {
	o := &fleetOptions{IO: streams, Verb: "adopt"}
	return &cli.Command{
		Name:      "adopt",
		Usage:     "make repositories governed: manifest, .gitignore block, client hook rows, rendered launcher, interceptor and plugins",
		ArgsUsage: "[PATH...]",
		Flags: append(o.fleetFlags(),
			&cli.StringFlag{Name: "clients", Destination: &o.Clients, Usage: "comma-separated clients for a new manifest (default: " + strings.Join(templates.DefaultClients(), ",") + ")"},
		),
		Action: o.fleetAction(),
	}
}

func conformCommand(streams *ioStreams) *cli.Command {
	o := &fleetOptions{IO: streams, Verb: "conform"}
	return &cli.Command{
		Name:      "conform",
		Usage:     "re-apply adoption to governed repositories: repair drift, refresh rendered files, retract our stale rows",
		ArgsUsage: "[PATH...]",
		Flags: append(o.fleetFlags(),
			&cli.BoolFlag{Name: "strict", Destination: &o.Strict, Usage: "exit 1 when a repository is not governed"},
			&cli.BoolFlag{Name: "check", Destination: &o.Check, Usage: "write nothing; print the diff of every change conform would make and exit 1 when any repository is not as conform would leave it (the CI form of conform; exit codes as audit's)"},
		),
		Action: o.fleetAction(),
	}
}

// fleetPaths returns the repositories a fleet verb runs on: the PATH
// arguments, then those adopt.Discover finds below --fleet DIR within
// depth, or "." when there are neither. A usage error (exit 2) is returned
// for an empty or unreadable --fleet directory and one holding no
// repository when no PATH was named.
func fleetPaths(verb string, paths []string, fleet string, fleetSet bool, depth int) ([]string, error) {
	if !fleetSet {
		if len(paths) == 0 {
			return []string{"."}, nil
		}
		return paths, nil
	}
	// An empty --fleet (an unset shell variable) must not fall back to ".".
	if fleet == "" {
		return nil, cli.Exit("hookwarden: "+verb+": --fleet: empty directory name", 2)
	}
	found, err := adopt.Discover(fleet, depth)
	if err != nil {
		return nil, cli.Exit("hookwarden: "+verb+": --fleet: "+err.Error(), 2)
	}
	if len(found) == 0 && len(paths) == 0 {
		return nil, cli.Exit(fmt.Sprintf("hookwarden: %s: --fleet %s: no repository found (a directory holding .git) within depth %d", verb, fleet, depth), 2)
	}
	return append(paths, found...), nil
}

// runFleet runs adopt or conform as o says: the run, the report on o.IO.Out,
// the exit code (0 ok, 1 a repository failed or, for conform --strict, was
// not governed, or, for conform --check, would change; 2 usage; 130
// interrupted).
func runFleet(ctx context.Context, o *fleetOptions) error {
	verb := o.Verb
	if o.Diff != "settings" && o.Diff != "all" {
		return cli.Exit(fmt.Sprintf("hookwarden: %s: --diff %q: want settings or all", verb, o.Diff), 2)
	}
	paths, err := fleetPaths(verb, o.Paths, o.Fleet, o.FleetSet, o.Depth)
	if err != nil {
		return err
	}
	if o.BranchSet && !o.Commit {
		return cli.Exit("hookwarden: "+verb+": --branch needs --commit", 2)
	}
	if o.Commit && (o.DryRun || o.Check) {
		return cli.Exit("hookwarden: "+verb+": --commit writes a branch; drop --dry-run/--check (or drop --commit to see the change)", 2)
	}
	// conform --check is conform's dry run with a verdict: the diffs of
	// what it would change, exit 1 when anything would (as audit exits 1
	// on a finding).
	check := verb == "conform" && o.Check
	opts := adopt.Options{
		Decline: splitList(o.Decline),
		Force:   o.Force,
		DryRun:  o.DryRun || check,
		Jobs:    o.Jobs,
		Getenv:  o.IO.getenv,
	}
	if verb == "adopt" && o.ClientSet {
		opts.Clients = splitList([]string{o.Clients})
	}
	if o.IO.ErrTTY && !o.JSON {
		opts.Progress = adopt.ProgressBar(o.IO.ErrOut)
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	defer fleetgc.Tune(o.IO.getenv)()
	if o.Commit {
		return runCommit(ctx, o, paths, opts)
	}
	var rep *adopt.Report
	if verb == "adopt" {
		rep, err = adopt.Adopt(ctx, paths, opts)
	} else {
		rep, err = adopt.Conform(ctx, paths, opts)
	}
	if err != nil {
		return cli.Exit("hookwarden: "+verb+": "+err.Error(), 2)
	}
	interrupted := ctx.Err() != nil
	if o.JSON {
		err = rep.WriteJSON(o.IO.Out)
	} else {
		if opts.DryRun {
			err = rep.WriteDiffs(o.IO.Out, o.Diff == "all")
		}
		if err == nil {
			err = rep.WriteText(o.IO.Out)
		}
	}
	if err != nil {
		return cli.Exit("hookwarden: "+verb+": writing the report: "+err.Error(), 1)
	}
	// Each error is in the report on stdout, once; stderr repeats nothing.
	if interrupted {
		return cli.Exit("hookwarden: "+verb+": interrupted; rerun to finish", 130)
	}
	if check && rep.Summary.Changed > 0 {
		return cli.Exit(fmt.Sprintf("hookwarden: conform --check: %d of %d repositories are not as conform would leave them; run hookwarden conform on them", rep.Summary.Changed, rep.Summary.Repositories), 1)
	}
	if rep.Failed() || (verb == "conform" && o.Strict && rep.Summary.NotGoverned > 0) {
		return cli.Exit("", 1)
	}
	return nil
}

// runCommit is adopt/conform --commit (adopt/branchcommit): the exit code
// is 0 when every repository was committed, unchanged, skipped with its
// reason or not governed, 1 when one failed (2 usage, 130 interrupted).
func runCommit(ctx context.Context, o *fleetOptions, paths []string, opts adopt.Options) error {
	verb := o.Verb
	branch := o.Branch
	if !o.BranchSet {
		branch = "hookwarden/" + verb
	}
	opts.Progress = nil
	rep, err := branchcommit.Run(ctx, verb, paths, branchcommit.Options{Branch: branch, Jobs: opts.Jobs, Run: opts})
	if err != nil {
		return cli.Exit("hookwarden: "+verb+": "+err.Error(), 2)
	}
	if o.JSON {
		err = rep.WriteJSON(o.IO.Out)
	} else {
		err = rep.WriteText(o.IO.Out)
	}
	if err != nil {
		return cli.Exit("hookwarden: "+verb+": writing the report: "+err.Error(), 1)
	}
	if ctx.Err() != nil {
		return cli.Exit("hookwarden: "+verb+": interrupted; rerun to finish (a repository whose branch exists is skipped)", 130)
	}
	if rep.Failed() {
		return cli.Exit("", 1)
	}
	return nil
}

// splitList flattens repeatable, comma-separated flag values, dropping
// empty items.
func splitList(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}
