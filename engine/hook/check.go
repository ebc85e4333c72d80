package hook

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/hookwarden/hookwarden/engine/workspace"
	"github.com/hookwarden/hookwarden/policy"
	"github.com/hookwarden/hookwarden/protocol/verdict"
	"github.com/hookwarden/hookwarden/settings"
)

// ErrInvalid marks a Check failure caused by its input (empty or non-UTF-8
// command, unreadable directory, invalid settings), as opposed to a verdict.
var ErrInvalid = errors.New("invalid input")

// Check judges one command text as `hookwarden check` does: with the
// built-in policy, plus the operator patterns of the fleet and workstation
// layers (from getenv) and of every governed repository the command runs in
// or targets, starting from dir (absolute; the --cwd flag or the process
// cwd). Unlike the hook it judges in any directory, governed or not, and does
// not look at the process environment's LEFTHOOK variables.
//
// It returns Allow or Deny (a command past a bound of the directory scan is
// denied with the bound's rule, policy.BoundError), or an error wrapping
// ErrInvalid when the command is empty or not valid UTF-8, dir cannot be
// resolved, a settings layer is invalid, or the policy cannot be built.
func Check(deps Deps, dir, command string, getenv func(string) string) (verdict.Verdict, error) {
	if !utf8.ValidString(command) {
		return verdict.Verdict{}, fmt.Errorf("%w: the command is not valid UTF-8", ErrInvalid)
	}
	if strings.TrimSpace(command) == "" {
		return verdict.Verdict{}, fmt.Errorf("%w: no command given (pass it after -- or on stdin)", ErrInvalid)
	}
	if deps.NewPolicy == nil {
		return verdict.Verdict{}, fmt.Errorf("%w: this build has no command policy wired in", ErrInvalid)
	}
	if !filepath.IsAbs(dir) {
		return verdict.Verdict{}, fmt.Errorf("%w: %s: directory is not absolute", ErrInvalid, dir)
	}
	cmd := policy.NewCommand(command)
	tgt, err := workspace.Locate([]string{dir}, cmd, getenv("HOME"))
	if err != nil {
		var be *policy.BoundError
		if errors.As(err, &be) {
			// Past a bound of the directory scan: refused, as the hook does.
			return verdict.Verdict{Kind: verdict.Deny, RuleID: be.Rule, Reason: verdict.Cap(be.Error())}, nil
		}
		return verdict.Verdict{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	eff, err := settings.Load(settings.SourcesFromEnv(getenv), tgt.Roots)
	if err != nil {
		return verdict.Verdict{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	pol, err := deps.NewPolicy(eff.Deny)
	if err != nil {
		return verdict.Verdict{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	v := pol.JudgeAt(cmd, tgt.Base.Dir, func(k string) (string, bool) {
		v := getenv(k)
		return v, v != ""
	})
	if v.Kind == verdict.Allow && eff.Admission.Enforce && deps.Admission != nil {
		// Heavy-step admission, as the pre-tool row judges it.
		v = deps.Admission(command, eff.Admission)
	}
	v.Reason = verdict.Cap(v.Reason)
	return v, nil
}
