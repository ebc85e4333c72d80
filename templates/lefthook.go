package templates

import (
	"fmt"
	"strings"

	"github.com/hookwarden/hookwarden/protocol/registration"
)

// LefthookJobsPath is the rendered file holding hookwarden's lefthook jobs
// in a repository that selects the lefthook client. lefthook reads it
// because the repository's main lefthook config lists it under `extends:`
// (adopt writes that entry as a managed block; adopt/lefthook.go): lefthook
// 2.x merges every file an `extends:` entry names (relative to the
// repository root) into the main config, a job of the same name field by
// field and any other job appended (evilmartians/lefthook
// internal/config/loader.go, LoadSecondary, extendRecursive and
// mergeJobsSlice, read at tag v2.1.10; observed with the real lefthook
// 2.2.1 from npm: the user's job and ours both ran).
const LefthookJobsPath = ".hookwarden/lefthook.yml"

// StepLefthookJobs is the adopt step of the lefthook jobs: the rendered
// LefthookJobsPath and the `extends:` entry naming it in the repository's
// lefthook config.
const StepLefthookJobs = "lefthook-jobs"

// LefthookJob is one job hookwarden runs under lefthook: Hook the lefthook
// hook it belongs to (a custom hook `pre-tool` the agent client's row runs
// as `lefthook run pre-tool`, or the git hook `pre-commit`), Name the job's
// name (lefthook merges jobs of the same name across files, so the name is
// what a foreign job would collide on), Event the neutral event it serves
// (protocol/registration: lefthook pre-tool, lefthook environment), Run the
// command (RegistrationCommand) and UseStdin whether lefthook hands the
// job its own stdin (the agent's payload, for pre-tool).
type LefthookJob struct {
	Hook, Name, Event, Run string
	UseStdin               bool
}

// LefthookJobs returns, as a new slice, the jobs of LefthookJobsPath in
// file order: `hookwarden pre-tool` under the custom hook pre-tool with
// use_stdin (the row that judges the agent's payload: observed with the
// real lefthook 2.2.1, skewguard TestRealLefthook), and `hookwarden
// environment` under pre-commit (the environment row; lefthook 2.2.1 runs
// no job at all under LEFTHOOK=0, README "lefthook jobs"). It returns an
// error when a row is not in the registration table.
func LefthookJobs() ([]LefthookJob, error) {
	var out []LefthookJob
	for _, j := range []struct{ hook, event string }{{"pre-tool", "pre-tool"}, {"pre-commit", "environment"}} {
		run, err := RegistrationCommand("lefthook", j.event)
		if err != nil {
			return nil, err
		}
		out = append(out, LefthookJob{Hook: j.hook, Name: "hookwarden " + j.event, Event: j.event, Run: run, UseStdin: j.event == "pre-tool"})
	}
	return out, nil
}

// renderLefthookJobs returns the body of LefthookJobsPath (without its
// render header): a comment saying where it is read from, then one hook
// per job, in YAML lefthook parses (its koanf yaml parser).
func renderLefthookJobs(t *registration.Table) ([]byte, error) {
	jobs, err := LefthookJobs()
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("# hookwarden's lefthook jobs (rendered by hookwarden adopt; do not edit by hand).\n")
	b.WriteString("# lefthook reads this file through the `extends:` entry hookwarden adds to the\n")
	b.WriteString("# repository's lefthook config. An agent client's row runs `lefthook run pre-tool`\n")
	b.WriteString("# with the agent's payload on stdin; a job of the same name elsewhere would be\n")
	b.WriteString("# merged into ours by lefthook, so `hookwarden audit` reports one.\n")
	for _, j := range jobs {
		if _, ok := t.Lookup("lefthook", j.Event); !ok {
			return nil, fmt.Errorf("hookwarden: render: lefthook %s is not a served pair", j.Event)
		}
		fmt.Fprintf(&b, "%s:\n  jobs:\n    - name: %s\n      run: %s\n", j.Hook, j.Name, j.Run)
		if j.UseStdin {
			b.WriteString("      use_stdin: true\n")
		}
	}
	return []byte(b.String()), nil
}
