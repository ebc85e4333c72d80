package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/urfave/cli/v3"
	"golang.org/x/term"

	"github.com/hookwarden/hookwarden/adopt"
	"github.com/hookwarden/hookwarden/adopt/branchcommit"
	"github.com/hookwarden/hookwarden/templates"
)

// fleetFlags are the flags adopt and conform share.
func fleetFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "decline", Usage: "skip an adopt step (repeatable or comma separated): " + strings.Join(adopt.Steps()[1:], ", ")},
		&cli.BoolFlag{Name: "force", Usage: "register into a Gemini file whose hooks are switched off; replace hand-edited rendered files"},
		&cli.BoolFlag{Name: "dry-run", Usage: "write nothing; print the unified diff of every shared file that would change (settings, .gitignore, manifest), one line per rendered file, and the report the real run would give"},
		&cli.StringFlag{Name: "diff", Value: "settings", Usage: "with --dry-run: `settings` (diffs of shared files, one line per rendered file) or all (every diff in full)"},
		&cli.BoolFlag{Name: "json", Usage: "print the report as JSON (schema_version 1)"},
		&cli.StringFlag{Name: "fleet", Usage: "process every repository below `DIR` (directories holding .git)"},
		&cli.IntFlag{Name: "depth", Value: 1, Usage: "with --fleet, look this many directory levels below DIR"},
		&cli.IntFlag{Name: "jobs", Usage: "repositories processed at once", DefaultText: "the CPU count"},
		&cli.BoolFlag{Name: "commit", Usage: "put each repository's change on a new branch as one commit (a temporary worktree: the work tree, index and current branch are not touched; dirty repositories and detached HEADs are skipped; nothing is pushed) and print the command that opens its pull request"},
		&cli.StringFlag{Name: "branch", Usage: "with --commit, the branch to create in each repository", DefaultText: "hookwarden/VERB"},
	}
}

func adoptCommand() *cli.Command {
	return &cli.Command{
		Name:      "adopt",
		Usage:     "make repositories governed: manifest, .gitignore block, client hook rows, rendered launcher, interceptor and plugins",
		ArgsUsage: "[PATH...]",
		Flags: append(fleetFlags(),
			&cli.StringFlag{Name: "clients", Usage: "comma-separated clients for a new manifest (default: " + strings.Join(templates.DefaultClients(), ",") + ")"},
		),
		Action: func(ctx context.Context, c *cli.Command) error { return runFleet(ctx, c, "adopt") },
	}
}

// runFleet is the shared action of adopt and conform: flags to Options, the
// run, the report, the exit code (0 ok, 1 a repository failed or, for
// conform --strict, was not governed, or, for conform --check, would
// change; 2 usage).
func runFleet(ctx context.Context, c *cli.Command, verb string) error {
	paths := c.Args().Slice()
	if d := c.String("diff"); d != "settings" && d != "all" {
		return cli.Exit(fmt.Sprintf("hookwarden: %s: --diff %q: want settings or all", verb, d), 2)
	}
	if dir := c.String("fleet"); c.IsSet("fleet") {
		// An empty --fleet (an unset shell variable) must not fall back to ".".
		if dir == "" {
			return cli.Exit("hookwarden: "+verb+": --fleet: empty directory name", 2)
		}
		found, err := adopt.Discover(dir, c.Int("depth"))
		if err != nil {
			return cli.Exit("hookwarden: "+verb+": --fleet: "+err.Error(), 2)
		}
		if len(found) == 0 && len(paths) == 0 {
			return cli.Exit(fmt.Sprintf("hookwarden: %s: --fleet %s: no repository found (a directory holding .git) within depth %d", verb, dir, c.Int("depth")), 2)
		}
		paths = append(paths, found...)
	} else if len(paths) == 0 {
		paths = []string{"."}
	}
	if c.IsSet("branch") && !c.Bool("commit") {
		return cli.Exit("hookwarden: "+verb+": --branch needs --commit", 2)
	}
	if c.Bool("commit") {
		if c.Bool("dry-run") || c.Bool("check") {
			return cli.Exit("hookwarden: "+verb+": --commit writes a branch; drop --dry-run/--check (or drop --commit to see the change)", 2)
		}
	}
	// conform --check is conform's dry run with a verdict: the diffs of
	// what it would change, exit 1 when anything would (as audit exits 1
	// on a finding).
	check := verb == "conform" && c.Bool("check")
	opts := adopt.Options{
		Decline: splitList(c.StringSlice("decline")),
		Force:   c.Bool("force"),
		DryRun:  c.Bool("dry-run") || check,
		Jobs:    c.Int("jobs"),
	}
	if verb == "adopt" && c.IsSet("clients") {
		opts.Clients = splitList([]string{c.String("clients")})
	}
	if term.IsTerminal(int(os.Stderr.Fd())) && !c.Bool("json") {
		opts.Progress = adopt.ProgressBar(os.Stderr)
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if c.Bool("commit") {
		return runCommit(ctx, c, verb, paths, opts)
	}
	var rep *adopt.Report
	var err error
	if verb == "adopt" {
		rep, err = adopt.Adopt(ctx, paths, opts)
	} else {
		rep, err = adopt.Conform(ctx, paths, opts)
	}
	if err != nil {
		return cli.Exit("hookwarden: "+verb+": "+err.Error(), 2)
	}
	interrupted := ctx.Err() != nil
	out := io.Writer(os.Stdout)
	if c.Bool("json") {
		err = rep.WriteJSON(out)
	} else {
		if opts.DryRun {
			for _, r := range rep.Repositories {
				for _, d := range r.Diffs() {
					if d.Rendered() && c.String("diff") != "all" {
						fmt.Fprintf(out, "# %s: %s (--diff=all shows it)\n", r.Path, d.Summary())
						continue
					}
					fmt.Fprintf(out, "# %s\n%s", r.Path, d.Unified)
				}
			}
		}
		err = rep.WriteText(out)
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
	if rep.Failed() || (verb == "conform" && c.Bool("strict") && rep.Summary.NotGoverned > 0) {
		return cli.Exit("", 1)
	}
	return nil
}

// runCommit is adopt/conform --commit (adopt/branchcommit): the exit code
// is 0 when every repository was committed, unchanged, skipped with its
// reason or not governed, 1 when one failed (2 usage, 130 interrupted).
func runCommit(ctx context.Context, c *cli.Command, verb string, paths []string, opts adopt.Options) error {
	branch := c.String("branch")
	if !c.IsSet("branch") {
		branch = "hookwarden/" + verb
	}
	opts.Progress = nil
	rep, err := branchcommit.Run(ctx, verb, paths, branchcommit.Options{Branch: branch, Jobs: opts.Jobs, Run: opts})
	if err != nil {
		return cli.Exit("hookwarden: "+verb+": "+err.Error(), 2)
	}
	if c.Bool("json") {
		err = rep.WriteJSON(os.Stdout)
	} else {
		err = rep.WriteText(os.Stdout)
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
