package policy

import (
	"fmt"
	"regexp"
	"strings"
)

// Rule ids of heavy-step admission (issue 19 item 8; the seed guide's
// "Heavy-step admission", ../shared/reference/003_3611979b20cb26d8.txt).
// Admission is off unless a settings layer sets hooks.admission.enforce;
// its refusals are judged after every deny rule (Policy.Admit).
const (
	// RuleAdmissionRequired: the command starts a heavy step outside
	// `hookwarden admit`.
	RuleAdmissionRequired = "admission-required"
	// RuleAdmissionUnreadable: while admission is enforced, the command
	// could not be followed (it does not parse, or a command's name is known
	// only at run time), so whether it starts a heavy step is unknown.
	RuleAdmissionUnreadable = "admission-unreadable"
)

// builtinHeavyShapes are the heavy steps admission knows without operator
// shapes: RE2, matched against a command's words joined by one space, from
// the base name of the command on (the seed's builtinHeavyShapes, without
// its own engine's gate).
var builtinHeavyShapes = []string{
	`^(make|gmake|ninja)( |$)`,
	`^go (build|install|test)( |$)`,
	`^cargo (bench|build|check|clippy|install|test)( |$)`,
	`^meson (compile|test)( |$)`,
	`^cmake (.* )?--build( |$)`,
	`^(npm|pnpm|yarn) (build|test|run build|run test)( |$)`,
	`^(pytest|tox|nox)( |$)`,
	`^python3? -m (pytest|tox|nox)( |$)`,
	`^git (-C [^ ]+ |-c [^ ]+ )*push( |$)`,
	`^(docker|podman) (image )?build( |$)`,
	`^(docker|podman) buildx build( |$)`,
	`^buildah (bud|build)( |$)`,
	`^bazel (build|test)( |$)`,
	`^(gradle|gradlew|mvn|mvnw)( |$)`,
}

// Admission is a compiled set of heavy-step shapes: the built-in ones and
// an operator's (hooks.admission.commands).
type Admission struct {
	shapes []*regexp.Regexp
}

// NewAdmission compiles the built-in shapes and the operator shapes extra
// (RE2, each matched against a command's words joined by one space, from
// the command's base name on). An invalid operator shape is an error naming
// it.
func NewAdmission(extra []string) (*Admission, error) {
	a := &Admission{}
	for _, s := range append(append([]string(nil), builtinHeavyShapes...), extra...) {
		re, err := regexp.Compile(s)
		if err != nil {
			return nil, fmt.Errorf("hooks.admission.commands: %q is not RE2: %w", s, err)
		}
		a.shapes = append(a.shapes, re)
	}
	return a, nil
}

// heavy returns the words of the shape's match (the step's name, e.g. "go
// test") when the command argv (name already reduced to its base name)
// starts a heavy step, else "".
func (a *Admission) heavy(name string, args []field) string {
	words := []string{name}
	for _, f := range args {
		words = append(words, f.val)
	}
	line := strings.Join(words, " ")
	for _, re := range a.shapes {
		if m := re.FindString(line); m != "" {
			return strings.TrimSpace(m)
		}
	}
	return ""
}

// admissionHit is what the admission walk found first: the rule and, for a
// heavy step, its name.
type admissionHit struct {
	rule, step string
}

// Admit judges command for heavy-step admission with the shapes of a: a
// command that starts a heavy step, read through launchers and wrappers
// (env, nice, timeout, sudo, xargs, shells' -c scripts, here-documents fed
// to a shell; quoted data, comments and here-document bodies given to other
// commands are not commands), is refused unless it runs under `hookwarden
// admit [--label L] --`; a command the reader cannot follow is refused
// (RuleAdmissionUnreadable). It does not apply the deny rules (Judge does).
// The refusal names the step and the admitted form, with a label taken from
// the step ("go test" → go-test); it never quotes the command.
func (p *Policy) Admit(command string, a *Admission) (d Decision) {
	if a == nil {
		return Decision{Allowed: true}
	}
	defer func() {
		if recover() != nil {
			d = admissionDeny(admissionHit{rule: RuleAdmissionUnreadable})
		}
	}()
	if parseBound(command) != "" {
		return admissionDeny(admissionHit{rule: RuleAdmissionUnreadable})
	}
	j := &judge{p: p, hits: &hitSet{}, adm: a, cmd: NewCommand(command)}
	j.script(command, 0, nil)
	if j.admHit != nil {
		return admissionDeny(*j.admHit)
	}
	return Decision{Allowed: true}
}

// admissionDeny is the refusal of h.
func admissionDeny(h admissionHit) Decision {
	if h.rule == RuleAdmissionUnreadable {
		return Decision{RuleID: h.rule, Reason: "[BLOCKED BY hookwarden:" + h.rule + "] heavy-step admission is enforced and this command could not be read (it does not parse, or a command's name is known only at run time), so it is refused; write the command out plainly, and run a heavy step as: hookwarden admit --label LABEL -- <command>"}
	}
	label := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '-'
	}, h.step)
	if len(label) > 40 {
		label = label[:40]
	}
	return Decision{RuleID: h.rule, Reason: "[BLOCKED BY hookwarden:" + h.rule + "] heavy step needs host admission: " + label + "; run: hookwarden admit --label " + label + " -- <command>, in the background; admit waits for memory, swap and load headroom and caps the job count"}
}

// admitWords returns the command `hookwarden admit [--label L] [--] CMD…`
// runs (args are admit's arguments after the verb) and true, or false when
// args hold no command. Options before the command: --label L, --label=L,
// -l L; "--" ends them.
func admitWords(args []field) ([]field, bool) {
	for i := 0; i < len(args); i++ {
		switch v := args[i].val; {
		case v == "--":
			return args[i+1:], i+1 < len(args)
		case v == "--label" || v == "-l":
			i++
		case strings.HasPrefix(v, "--label="):
		case strings.HasPrefix(v, "-"):
		default:
			return args[i:], true
		}
	}
	return nil, false
}
