// Package policy holds the built-in command rules as data, operator deny
// patterns, the environment check, the command scanner and the refusal texts.
//
// API contract (other packages build on these signatures; keep them):
//
//	New(operator []OperatorPattern) (*Policy, error)
//	(*Policy).Judge(command string) Decision
//	CheckEnvironment(lookup func(string) (string, bool)) Decision
//	TextRules() []TextRule
package policy

// Decision is the policy's answer for one command text. Allowed is true when no
// rule denies. RuleID is the stable id of the first denying rule (empty when
// allowed). Reason is the refusal text
// "[BLOCKED BY hookwarden:<rule-id>] <why>; <how to do it instead>", never
// containing the judged command, at most 4096 bytes.
type Decision struct {
	Allowed bool
	RuleID  string
	Reason  string
}

// OperatorPattern is one operator deny pattern from a settings layer: Layer
// names its source (e.g. "fleet /etc/hw.yaml", "repository .hookwarden.yaml"),
// Pattern is an RE2 expression (at most 512 bytes) matched against the command.
type OperatorPattern struct {
	Layer   string
	Pattern string
}

// TextRule is one built-in rule in its text form, expressible alike in RE2,
// Python re and JavaScript RegExp, so standalone interceptors can be rendered
// from it. ID is the stable rule id; Pattern the regular expression; Why and
// Instead the two halves of the refusal text.
type TextRule struct {
	ID      string
	Pattern string
	Why     string
	Instead string
}
