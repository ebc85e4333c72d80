// Package policycases reads the policy corpus, testdata/policy/cases.json
// (schema in testdata/policy/README.md): the one loader shared by the policy
// tests, the hook replay in every dialect (engine/hook/live) and the
// interceptor parity test (templates). It is used by tests only.
package policycases

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Piece is one part of a generated command: Text repeated Count times.
type Piece struct {
	Text  string `json:"text"`
	Count int    `json:"count"`
}

// Case is one corpus case. ID is stable and unique; the command is given
// either literally (Literal, the JSON member "command") or as Repeat pieces
// concatenated (the scan-bound cases, too large to store). Verdict is "allow"
// or "deny"; Rule the expected rule id ("" when allowed); Text marks the
// parity subset, where the text rules alone (the rendered interceptors) must
// give the same verdict as the engine; TextGap, on a case outside that
// subset, says why the text rules cannot reach the engine's verdict; Note
// says why the case exists. InRepo, when present, is the answer where it
// differs from Judge's for the command judged as the hook replays it (JudgeAt
// in an empty git repository, with an empty HOME and no system git config):
// what the directory and git's config files settle.
type Case struct {
	ID      string  `json:"id"`
	Literal *string `json:"command"`
	Repeat  []Piece `json:"repeat"`
	Verdict string  `json:"verdict"`
	Rule    string  `json:"rule"`
	Text    bool    `json:"text"`
	TextGap string  `json:"text_gap"`
	Note    string  `json:"note"`
	InRepo  *Answer `json:"in_repo"`
}

// Answer is a verdict ("allow" or "deny") and its rule ("" when allowed).
type Answer struct {
	Verdict string `json:"verdict"`
	Rule    string `json:"rule"`
}

// InRepoAnswer returns the answer expected where the hook replays the case
// (an empty repository, no git config): InRepo when set, else Verdict and
// Rule.
func (c Case) InRepoAnswer() Answer {
	if c.InRepo != nil {
		return *c.InRepo
	}
	return Answer{Verdict: c.Verdict, Rule: c.Rule}
}

// Command returns the case's command text: Literal, or the Repeat pieces
// concatenated.
func (c Case) Command() string {
	if c.Literal != nil {
		return *c.Literal
	}
	var b strings.Builder
	for _, p := range c.Repeat {
		b.WriteString(strings.Repeat(p.Text, p.Count))
	}
	return b.String()
}

// Load reads a corpus file {"schema":1,"comment"?:…,"cases":[Case…]} at
// path. It returns an error naming path for an unreadable file, malformed
// JSON, an unknown member, a schema other than 1, no cases, a case with both
// or neither of command and repeat, a verdict other than allow or deny, a
// deny without a rule, or a duplicate id.
func Load(path string) ([]Case, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Schema  int    `json:"schema"`
		Comment string `json:"comment"`
		Cases   []Case `json:"cases"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return checkCases(path, doc.Schema, doc.Cases)
}

// decodeCases decodes raw (a JSON list of cases, unknown members refused)
// and checks it with checkCases.
func decodeCases(path string, schema int, raw json.RawMessage) ([]Case, error) {
	var cases []Case
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cases); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return checkCases(path, schema, cases)
}

// checkCases applies Load's checks to the cases of the file at path.
func checkCases(path string, schema int, cases []Case) ([]Case, error) {
	if schema != 1 {
		return nil, fmt.Errorf("%s: schema %d, this loader reads schema 1", path, schema)
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("%s: no cases", path)
	}
	seen := map[string]bool{}
	for _, c := range cases {
		switch {
		case c.ID == "" || seen[c.ID]:
			return nil, fmt.Errorf("%s: case id %q is empty or repeated", path, c.ID)
		case (c.Literal == nil) == (len(c.Repeat) == 0):
			return nil, fmt.Errorf("%s: case %s: give exactly one of command and repeat", path, c.ID)
		case c.Verdict != "allow" && c.Verdict != "deny":
			return nil, fmt.Errorf("%s: case %s: verdict %q is not allow or deny", path, c.ID, c.Verdict)
		case c.Verdict == "deny" && c.Rule == "":
			return nil, fmt.Errorf("%s: case %s: a deny names its rule", path, c.ID)
		case c.Text && c.TextGap != "":
			return nil, fmt.Errorf("%s: case %s: a text parity case has no text gap", path, c.ID)
		case c.InRepo != nil && ((c.InRepo.Verdict == "deny") == (c.InRepo.Rule == "") || c.InRepo.Verdict != "allow" && c.InRepo.Verdict != "deny"):
			return nil, fmt.Errorf("%s: case %s: in_repo needs an allow without a rule or a deny with one", path, c.ID)
		}
		seen[c.ID] = true
	}
	return cases, nil
}

// corpusFiles are the corpus files of testdata/policy replayed alike through
// Judge, JudgeText (parity cases), the hook in every dialect and the
// rendered interceptors: the original corpus, issue 14's self-protection
// and code-is-code cases, its growth shapes (growth.json, whose
// scan-bound-targets cases are the hook's directory scan, not Judge's:
// IsHookOnly), issue 29's perimeter (perimeter.json: hook managers, git
// plumbing and configuration, aliases, commit tools, nested clients), and
// issue 28's code in interpreters and scripts (code.json) and its shell
// evaluator (evaluator.json), and issue 29's engine side (perimeter-engine.json:
// the installed engine as a guard path, env-switch look-alikes).
var corpusFiles = []string{"cases.json", "selfprotect.json", "growth.json", "perimeter.json", "code.json", "evaluator.json", "perimeter-engine.json"}

// IsHookOnly reports whether c expects a rule that Judge alone cannot
// answer: scan-bound-targets, which only the hook's directory scan
// (engine/workspace) answers, and unknown-operands, which the judge
// answers only in a governed repository (the hook's replay runs in one;
// Judge and JudgeAt's empty repository are not).
func (c Case) IsHookOnly() bool {
	return c.Rule == "scan-bound-targets" || c.Rule == "unknown-operands"
}

// LoadCorpus reads the corpus files (cases.json, selfprotect.json,
// growth.json, perimeter.json, code.json) from dir (testdata/policy), each with Load, and returns their
// cases in that order, or an error naming the file for a file Load refuses
// or a case id that two files share.
func LoadCorpus(dir string) ([]Case, error) {
	var all []Case
	from := map[string]string{}
	for _, name := range corpusFiles {
		n := filepath.Join(dir, name)
		cases, err := Load(n)
		if err != nil {
			return nil, err
		}
		for _, c := range cases {
			if f, dup := from[c.ID]; dup {
				return nil, fmt.Errorf("%s: case id %s is also in %s", n, c.ID, f)
			}
			from[c.ID] = n
		}
		all = append(all, cases...)
	}
	return all, nil
}

// Workspace is a corpus judged in a directory (testdata/policy/workspace.json):
// Files are planted in an empty git repository (path relative to its root,
// "/"-separated, -> content; a path under .git/ is the repository's own, so
// .git/config sets its aliases), then every case is judged with the
// command starting at that root (JudgeAt, the hook's payload cwd, check's
// --cwd).
type Workspace struct {
	Files map[string]string
	Cases []Case
}

// LoadWorkspace reads a workspace corpus {"schema":1,"comment"?,
// "files":{path:content},"cases":[Case…]} at path. Cases are checked as
// Load checks them; a file path that is absolute or climbs out with ".."
// is an error naming path.
func LoadWorkspace(path string) (Workspace, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Workspace{}, err
	}
	var doc struct {
		Schema  int               `json:"schema"`
		Comment string            `json:"comment"`
		Files   map[string]string `json:"files"`
		Cases   json.RawMessage   `json:"cases"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return Workspace{}, fmt.Errorf("%s: %w", path, err)
	}
	for name := range doc.Files {
		if filepath.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") || strings.Contains(name, "/../") {
			return Workspace{}, fmt.Errorf("%s: file %q is not inside the workspace", path, name)
		}
	}
	cases, err := decodeCases(path, doc.Schema, doc.Cases)
	if err != nil {
		return Workspace{}, err
	}
	return Workspace{Files: doc.Files, Cases: cases}, nil
}

// Plant writes w's files under root (made with their parent directories,
// mode 0755 for a file whose content starts with "#!", else 0644).
func (w Workspace) Plant(root string) error {
	for name, body := range w.Files {
		full := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if strings.HasPrefix(body, "#!") {
			mode = 0o755
		}
		if err := os.WriteFile(full, []byte(body), mode); err != nil {
			return err
		}
	}
	return nil
}
