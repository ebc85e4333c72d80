package policy

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestTextRulesCompileInGo: every rendered text rule and normalisation is a
// valid RE2 expression and the rule ids are the catalog's.
func TestTextRulesCompileInGo(t *testing.T) {
	rules := TextRules()
	if len(rules) < 9 {
		t.Fatalf("%d text rules, want every pattern rule", len(rules))
	}
	for _, r := range rules {
		if _, err := regexp.Compile(r.Pattern); err != nil {
			t.Errorf("%s: %v", r.ID, err)
		}
		if strings.Contains(r.Pattern, "{ci:") || regexp.MustCompile(`\{[A-Z]+\}`).MatchString(r.Pattern) {
			t.Errorf("%s: unexpanded macro in %q", r.ID, r.Pattern)
		}
		for _, bad := range []string{`\s`, `\S`, `\b`, `\w`, `\d`, `(?=`, `(?!`, `(?<`, `(?i`, `(?P`} {
			if strings.Contains(r.Pattern, bad) {
				t.Errorf("%s: pattern uses %s, whose meaning differs between RE2, Python and JavaScript", r.ID, bad)
			}
		}
		if r.Why == "" || r.Instead == "" || len(r.Requires) == 0 {
			t.Errorf("%s: missing why, instead or requires", r.ID)
		}
		reason, ok := Refusal(r.ID)
		if !ok || !strings.HasPrefix(reason, "[BLOCKED BY hookwarden:"+r.ID+"] "+r.Why+"; "+r.Instead) {
			t.Errorf("%s: refusal %q not built from the rule's wording", r.ID, reason)
		}
	}
	for _, n := range Normalisations() {
		if _, err := regexp.Compile(n.Pattern); err != nil {
			t.Errorf("normalisation %q: %v", n.Pattern, err)
		}
	}
}

// TestTextRulesPerLineEquivalent checks the documented claim that searching
// each line equals searching the whole normalised command, over the corpus.
func TestTextRulesPerLineEquivalent(t *testing.T) {
	p, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.compileText(); err != nil {
		t.Fatal(err)
	}
	for _, c := range loadCorpus(t) {
		cmd := c.Command()
		if len(cmd) > MaxCommandBytes {
			continue
		}
		n := p.Normalise(cmd)
		if got, whole := p.textMatch(n), wholeTextMatch(p, n); got != whole {
			t.Errorf("%s: per-line %q, whole text %q", c.ID, got, whole)
		}
	}
}

// textJudgeScript implements the text layer from the exported data alone, in
// Python 3 (stdlib re) or JavaScript, as the rendered interceptors will:
// input {"rules":[...],"norm":[...],"max_cmd":n,"max_line":n,"cases":[{"id","command"}]},
// output {"<id>":"<rule id or empty>"}.
const pythonTextJudge = `
import json, re, sys
d = json.load(sys.stdin)
rules = [(r["ID"], re.compile(r["Pattern"])) for r in d["rules"]]
norm = [(re.compile(n["Pattern"]), n["Replacement"]) for n in d["norm"]]
out = {}
for c in d["cases"]:
    s = c["command"]
    b = s.encode("utf-8")
    if s.strip(" \t\n\r\v\f") == "":
        out[c["id"]] = ""; continue
    if len(b) > d["max_cmd"]:
        out[c["id"]] = "scan-bound-command"; continue
    if any(len(l) > d["max_line"] for l in b.split(b"\n")):
        out[c["id"]] = "scan-bound-line"; continue
    for rx, rep in norm:
        s = rx.sub(lambda m: rep, s)
    hit = ""
    for rid, rx in rules:
        if rx.search(s):
            hit = rid; break
    out[c["id"]] = hit
json.dump(out, sys.stdout)
`

const nodeTextJudge = `
const d = JSON.parse(require("fs").readFileSync(0, "utf8"));
const rules = d.rules.map(r => [r.ID, new RegExp(r.Pattern)]);
const norm = d.norm.map(n => [new RegExp(n.Pattern, "g"), n.Replacement]);
const out = {};
for (const c of d.cases) {
  let s = c.command;
  const b = Buffer.from(s, "utf8");
  if (s.replace(/[ \t\n\r\v\f]/g, "") === "") { out[c.id] = ""; continue; }
  if (b.length > d.max_cmd) { out[c.id] = "scan-bound-command"; continue; }
  if (b.toString("latin1").split("\n").some(l => l.length > d.max_line)) { out[c.id] = "scan-bound-line"; continue; }
  for (const [rx, rep] of norm) s = s.replace(rx, () => rep);
  let hit = "";
  for (const [id, rx] of rules) { if (rx.test(s)) { hit = id; break; } }
  out[c.id] = hit;
}
process.stdout.write(JSON.stringify(out));
`

// TestTextRulesInPythonAndNode compiles every text rule in Python re and
// JavaScript RegExp and requires both to reach JudgeText's rule on every
// corpus case (the renderers' parity, checked here against the raw data).
func TestTextRulesInPythonAndNode(t *testing.T) {
	p, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	type in struct {
		ID      string `json:"id"`
		Command string `json:"command"`
	}
	var cases []in
	want := map[string]string{}
	for _, c := range loadCorpus(t) {
		cmd := c.Command()
		cases = append(cases, in{c.ID, cmd})
		want[c.ID] = p.JudgeText(cmd).RuleID
	}
	payload, err := json.Marshal(map[string]any{
		"rules": TextRules(), "norm": Normalisations(),
		"max_cmd": MaxCommandBytes, "max_line": MaxLineBytes, "cases": cases,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []struct{ bin, flag, src string }{{"python3", "-c", pythonTextJudge}, {"node", "-e", nodeTextJudge}} {
		t.Run(lang.bin, func(t *testing.T) {
			if _, err := exec.LookPath(lang.bin); err != nil {
				t.Skipf("%s not installed", lang.bin)
			}
			cmd := exec.Command(lang.bin, lang.flag, lang.src)
			cmd.Stdin = bytes.NewReader(payload)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s: %v: %s", lang.bin, err, stderr.String())
			}
			var got map[string]string
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%s output: %v", lang.bin, err)
			}
			for id, w := range want {
				if got[id] != w {
					t.Errorf("%s: case %s: %s says %q, Go text layer %q", lang.bin, id, lang.bin, got[id], w)
				}
			}
		})
	}
}

// dataNormalise applies Normalisations() with Go regexp, as a renderer would.
func dataNormalise(t testing.TB, s string) string {
	for _, n := range Normalisations() {
		s = regexp.MustCompile(n.Pattern).ReplaceAllLiteralString(s, n.Replacement)
	}
	return s
}

// TestNormaliseMatchesData holds the hand-written Normalise equal to the
// substitutions the renderers apply from the data.
func TestNormaliseMatchesData(t *testing.T) {
	p, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	extra := []string{"a\\\\\nb", "\\\r\n", "\\\"\n", "'\\\n'", "x\\\r\r\n", "\\", "\\\\\n\\\n"}
	for _, c := range loadCorpus(t) {
		extra = append(extra, c.Command())
	}
	for _, s := range extra {
		if got, want := p.Normalise(s), dataNormalise(t, s); got != want {
			t.Errorf("Normalise(%q) = %q, data gives %q", s, got, want)
		}
	}
}

func FuzzNormalise(f *testing.F) {
	for _, s := range []string{"a\\\nb", "\\\r\n", "'\"\\", "git commit \\\n --no-verify"} {
		f.Add(s)
	}
	p, err := New(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := p.Normalise(s), dataNormalise(t, s); got != want {
			t.Fatalf("Normalise(%q) = %q, data gives %q", s, got, want)
		}
	})
}

// TestTextRulesEndOfText: Python's $ also matches before a final newline, Go's
// and JavaScript's do not, and Go searches line by line where a renderer may
// search the whole text; every "^" or "$" alternative in a pattern must
// therefore sit beside a class that matches "\n", so all of them agree.
func TestTextRulesEndOfText(t *testing.T) {
	for _, r := range TextRules() {
		for _, anchor := range []string{"(?:$|", "(?:^|"} {
			checkAnchorClasses(t, r, anchor)
		}
	}
}

// checkAnchorClasses: the class beside each anchor alternative matches "\n",
// so a per-line search (^ and $ at each line) equals a whole-text search.
func checkAnchorClasses(t *testing.T, r TextRule, anchor string) {
	t.Helper()
	for i := 0; ; {
		k := strings.Index(r.Pattern[i:], anchor)
		if k < 0 {
			return
		}
		i += k + len(anchor)
		end := strings.IndexByte(r.Pattern[i:], ']')
		class := r.Pattern[i : i+end+1]
		negated := strings.HasPrefix(class, "[^")
		hasNL := strings.Contains(class, `\n`)
		if negated == hasNL {
			t.Errorf("%s: the class %q beside %s does not match a newline", r.ID, class, anchor)
		}
	}
}

// TestRequiresIsNecessary: on every corpus command and its lines, a text rule
// that matches a line finds one of its Requires literals there, so the
// prefilter never hides a match.
func TestRequiresIsNecessary(t *testing.T) {
	p, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.compileText(); err != nil {
		t.Fatal(err)
	}
	for _, c := range loadCorpus(t) {
		for _, line := range strings.Split(p.Normalise(c.Command()), "\n") {
			for i := range p.text {
				re, err := p.textRegexp(i)
				if err != nil {
					t.Fatal(err)
				}
				if re.MatchString(line) && !containsAny(asciiLower(line), p.textReq[i]) {
					t.Errorf("%s: rule %s matches a line holding none of %v", c.ID, p.textIDs[i], p.textReq[i])
				}
			}
		}
	}
}

// wholeTextMatch is the text layer without textMatch's per-line prefilter:
// the first rule, in order, that matches anywhere in the normalised text n
// ("" when none), as a renderer without the prefilter computes it.
func wholeTextMatch(p *Policy, n string) string {
	for i := range p.text {
		re, err := p.textRegexp(i)
		if err != nil {
			panic(err) // embedded rules; TestRequiresIsNecessary reports it first
		}
		if re.MatchString(n) {
			return p.textIDs[i]
		}
	}
	return ""
}

// FuzzTextLayer: the prefiltered per-line search (textMatch) equals a plain
// search of the whole normalised text with every rule in order, as a renderer
// without the prefilter computes it.
func FuzzTextLayer(f *testing.F) {
	for _, c := range loadCorpus(f) {
		if c.Literal != nil {
			f.Add(*c.Literal)
		}
	}
	p, err := New(nil)
	if err != nil {
		f.Fatal(err)
	}
	if err := p.compileText(); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		if len(cmd) > MaxCommandBytes {
			return
		}
		n := p.Normalise(cmd)
		if got, whole := p.textMatch(n), wholeTextMatch(p, n); got != whole {
			t.Fatalf("per-line prefiltered %q, whole text %q", got, whole)
		}
	})
}
