package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hookwarden/hookwarden/adopt"
	"github.com/hookwarden/hookwarden/lefthookcfg"
	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/skewguard"
	"github.com/hookwarden/hookwarden/templates"
)

// lefthookExclude is the variable the environment row's deny canary sets:
// lefthook 2.x skips the jobs whose tags or names it lists (README
// "lefthook jobs", observed on 2.2.1), and the environment rule
// env-lefthook-disabled refuses it set at all (policy.CheckEnvironment).
const lefthookExclude = "LEFTHOOK_EXCLUDE"

// probeLefthook probes hookwarden's lefthook jobs (templates.LefthookJobs)
// without running lefthook itself (`lefthook run` installs git hooks, a
// write doctor does not make): a job fires when the repository's main
// lefthook config extends templates.LefthookJobsPath
// (adopt.PlanLefthookConfig), no setting of the main or local config skips
// or changes it (adopt.LefthookOverrides) and the jobs file holds it as
// rendered (a job whose command or use_stdin differs is reported and not
// run: doctor runs no command that is not ours); its `run:` command is
// then run as lefthook runs a job (skewguard.Spawn:
// `sh -c` from the repository root; unverified). The pre-tool job gets the
// agent's payload on stdin when it has use_stdin (the Claude-family
// pre-tool canaries: a commit with --no-verify must be denied by
// git-no-verify, `git status` allowed); the environment job gets no stdin,
// and its deny canary runs it with LEFTHOOK_EXCLUDE set (must be denied by
// env-lefthook-disabled), its allow canary without any LEFTHOOK variable.
// lefthook denies with exit 1 (dialect.DenyExit).
func probeLefthook(ctx context.Context, root string, table *registration.Table, env []string, eng string) []Row {
	jobs, err := templates.LefthookJobs()
	if err != nil {
		return []Row{{Client: "lefthook", Problem: err.Error()}}
	}
	why := lefthookReads(root)
	var rows []Row
	for _, j := range jobs {
		r := Row{Client: "lefthook", Event: j.Event, File: templates.LefthookJobsPath}
		row, ok := table.Lookup("lefthook", j.Event)
		switch {
		case !ok:
			r.Problem = "lefthook " + j.Event + " is not a served pair"
		case why[j.Hook] != "":
			r.Problem = why[j.Hook]
		default:
			r = probeLefthookJob(ctx, root, r, row, j, env, eng)
		}
		r.Guards = r.Problem == ""
		rows = append(rows, r)
	}
	return rows
}

// lefthookReads returns, per lefthook hook, why lefthook would not run our
// job of that hook ("" key: every hook), empty when nothing stops it.
func lefthookReads(root string) map[string]string {
	out := map[string]string{}
	main, local := adopt.LefthookConfigs(root)
	rel := main
	if rel == "" {
		rel = "lefthook.yml"
	}
	data, err := readRegular(root, rel)
	exists := err == nil
	if err != nil && !os.IsNotExist(err) {
		out[""] = "lefthook's config " + rel + " cannot be read: " + err.Error()
	}
	if lp, err := adopt.PlanLefthookConfig(main, data, exists, true); err != nil {
		out[""] = rel + ": " + err.Error()
	} else if lp.Problem != "" {
		out[""] = "lefthook does not read " + templates.LefthookJobsPath + ": " + lp.Problem
	} else if lp.Change != "" {
		out[""] = "lefthook does not read " + templates.LefthookJobsPath + ": " + rel + " lacks hookwarden's extends block (`hookwarden conform` restores it)"
	}
	for _, f := range []string{main, local} {
		if f == "" {
			continue
		}
		d, err := readRegular(root, f)
		if err != nil {
			continue
		}
		cfg, err := lefthookcfg.Parse(f, d)
		if err != nil {
			out[""] = f + " does not parse, so lefthook runs none of its jobs: " + firstLine(err.Error())
			continue
		}
		for _, o := range adopt.LefthookOverrides(f, d, cfg) {
			if out[o.Hook] == "" {
				out[o.Hook] = fmt.Sprintf("lefthook does not run our job as rendered: %s:%d: %s", o.File, o.Line, o.Describe())
			}
		}
	}
	if all := out[""]; all != "" {
		for _, h := range []string{"pre-tool", "pre-commit"} {
			out[h] = all
		}
	}
	return out
}

// readRegular reads the repository file rel, refusing a symlink or a file
// that is not regular.
func readRegular(root, rel string) ([]byte, error) {
	p := filepath.Join(root, filepath.FromSlash(rel))
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", rel)
	}
	return os.ReadFile(p)
}

// probeLefthookJob finds job j in the jobs file and runs its canaries.
func probeLefthookJob(ctx context.Context, root string, r Row, row registration.Row, j templates.LefthookJob, env []string, eng string) Row {
	data, err := readRegular(root, templates.LefthookJobsPath)
	if err != nil {
		r.Problem = "lefthook has no job of ours to run: " + err.Error()
		return r
	}
	cfg, err := lefthookcfg.Parse(templates.LefthookJobsPath, data)
	if err != nil {
		r.Problem = templates.LefthookJobsPath + " does not parse, so lefthook runs none of our jobs: " + firstLine(err.Error())
		return r
	}
	var run string
	var stdin bool
	hook, _ := cfg[j.Hook].(map[string]any)
	list, _ := hook["jobs"].([]any)
	for _, x := range list {
		if m, ok := x.(map[string]any); ok && m["name"] == j.Name {
			run, _ = m["run"].(string)
			stdin, _ = m["use_stdin"].(bool)
		}
	}
	if run == "" {
		r.Problem = fmt.Sprintf("%s has no %q job with a run command under %s (`hookwarden conform --force` restores it)", templates.LefthookJobsPath, j.Name, j.Hook)
		return r
	}
	r.Fired, r.Command = true, run
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, "name: "+j.Name) {
			r.Line = i + 1
			break
		}
	}
	sp, err := skewguard.Spawn("lefthook", j.Event, root, root)
	if err != nil {
		r.Problem = err.Error()
		return r
	}
	r.Spawn, r.SpawnUnverified = sp.Source, sp.Unverified
	if run != j.Run || stdin != j.UseStdin {
		// Doctor runs only our own command, as it runs only the handlers
		// of ours in the clients' files (hookplan's Ours).
		r.Problem = fmt.Sprintf("the %q job was edited: it runs `%s` (use_stdin %v), not hookwarden's `%s` (use_stdin %v); doctor does not run a command that is not ours (`hookwarden conform --force` restores the file)", j.Name, run, stdin, j.Run, j.UseStdin)
		return r
	}
	limit := rowLimit(row)
	if j.Event == "environment" {
		r.WantRule = "env-lefthook-disabled"
		clean := slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "LEFTHOOK") })
		r.Deny = runProbe(ctx, sp, run, append(slices.Clone(clean), lefthookExclude+"=hookwarden-doctor-canary"), nil, "lefthook", j.Event, limit, eng)
		r.Allow = runProbe(ctx, sp, run, clean, nil, "lefthook", j.Event, limit, eng)
		judge(&r, "a job run with "+lefthookExclude+" set", "a job run without LEFTHOOK variables")
		return r
	}
	c, _ := canaryFor("claude", "pre-tool", nil)
	r.WantRule = c.denyRule
	payload := func(subject string) []byte {
		if !stdin {
			// lefthook hands a job its stdin only with use_stdin.
			return nil
		}
		return c.payload(root, sp.Dir, subject)
	}
	r.Deny = runProbe(ctx, sp, run, env, payload(c.deny), "lefthook", j.Event, limit, eng)
	r.Allow = runProbe(ctx, sp, run, env, payload(c.allow), "lefthook", j.Event, limit, eng)
	judge(&r, c.denyWhat, c.allowWhat)
	return r
}
