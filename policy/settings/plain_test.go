package settings

import (
	"fmt"
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"
)

// sameTree reports where two trees differ in what Parse reads (kind, tag,
// value, line, column, children), or "" when they do not.
func sameTree(path string, a, b *yaml.Node) string {
	if a.Kind != b.Kind || a.Tag != b.Tag || a.Value != b.Value || a.Line != b.Line || a.Column != b.Column || len(a.Content) != len(b.Content) {
		return fmt.Sprintf("%s: plain {kind %d tag %q value %q at %d:%d, %d children}, yaml/v3 {kind %d tag %q value %q at %d:%d, %d children}",
			path, a.Kind, a.Tag, a.Value, a.Line, a.Column, len(a.Content), b.Kind, b.Tag, b.Value, b.Line, b.Column, len(b.Content))
	}
	for i := range a.Content {
		if d := sameTree(fmt.Sprintf("%s/%d", path, i), a.Content[i], b.Content[i]); d != "" {
			return d
		}
	}
	return ""
}

// checkPlain fails when the plain front end accepts data and builds a tree
// other than yaml/v3's for the same bytes. It reports whether it accepted.
func checkPlain(t *testing.T, data []byte) bool {
	t.Helper()
	got, ok := parsePlain(data)
	if !ok {
		return false
	}
	want, err := parseYAML(data)
	if err != nil {
		t.Fatalf("plain accepted what yaml/v3 refuses (%v):\n%s", err, data)
	}
	if want == nil {
		t.Fatalf("plain built a tree where yaml/v3 found no document:\n%s", data)
	}
	if d := sameTree("", got, want); d != "" {
		t.Fatalf("%s\nin:\n%s", d, data)
	}
	return true
}

// plainSeeds are settings files in and near the plain subset: the manifest
// adopt writes and variations of spacing, comments, quoting and layout.
func plainSeeds() []string {
	return []string{
		string(adoptManifest),
		"version: 1\n",
		"version: 1",
		"version:   1   # the schema\n",
		"version: 1\nclients: [claude, codex]\n",
		"version: 1\nclients: [ claude , codex ]\ndecline: []\n",
		"version: 1\nclients: []\nhooks:\n  scope: all\n  events: [pre-tool, stop]\n",
		"version: 1\npolicy:\n  deny:\n    - 'terraform destroy'\n    - 'kubectl delete ns'\n",
		"version: 1\npolicy:\n  deny: ['rm -rf /', 'curl .*\\| *sh', 'it''s']\n",
		"version: 1\npolicy:\n    deny:\n        - 'a # not a comment'   # a comment\n",
		"version: 1\ncheckpoint:\n  commit_after_minutes: 45\n  commit_after_files: 10\n  on_stop: true\n",
		"# head\n\nversion: 1   \n\n# foot\n",
		"version: 1\nhooks:\n  scope: governed\n\n  # between\n  events:\n  - stop\n",
		"version: 1\nhooks:\n   scope: all\n",
		"version: 1\nclients: [claude,codex]\n",
		"version: 1\nclients: claude\n",
		"version: 2\nclients: [0, 1, 22]\n",
		"version: 1\nhooks:\n  scope: true\n",
		"version: 1\ndeny: x\nversion: 1\n",
		"version: 1\nhooks: [a]\npolicy: 7\n",
		"version: 1\npolicy:\n  deny:\n    - ''\n    - ' '\n",
		"version: 1\nclients: [a/b, c.d, e-f, G_h]\n",
		"version: 1\nhooks:   # the hooks\n    scope: all   \n    events:   [stop]  # c\n\ncheckpoint:\n commit_after_files: 3",
		"version: 1\npolicy:\n  deny:\n    -   'x'\n    - y   # c\n\n    - 'a,b'\ncheckpoint:\n  on_stop: false\n",
		"version: 1\npolicy:\n  deny: ['a,b', '[x]', ' # ', '''', 'x''']\n",
		"version: 1\nclients: [a]#c\n",
		"version: 1\nhooks:\n  events:\n      - stop\n      - pre-tool\n  scope: all\n",
		"version: 1\nhooks:\n  events:\n    - stop\n   - pre-tool\n",
		"version: 1\ncheckpoint:\n  commit_after_minutes: 999999999\n  commit_after_files: 0\n",
		"checkpoint:\n  on_stop: true\nversion: 1\n",
		"version: 1\npolicy:\n  deny: [  ]\n",
		"version: 1\npolicy:\n  deny: []   \n",
		"version: 1\n\n\n   \n# x\n   # y\nclients: [claude]\n",
		"version: 1\npolicy:\n  deny: 'x' # c\n",
		"version: 1\nhooks: {scope: all}\n",
	}
}

// adoptManifest is a manifest as adopt writes it (kept here as bytes: the
// settings package cannot import adopt).
var adoptManifest = []byte(`# hookwarden: this file marks the repository as governed.
# ` + "`hookwarden adopt`" + ` created it once and never rewrites it; edit it by hand,
# then run ` + "`hookwarden conform .`" + ` to re-apply. Settings from the fleet and
# workstation layers may only add restrictions to what is written here.
version: 1

# Clients whose hooks hookwarden registers and renders:
# claude, codex, gemini (settings files), agy, opencode (plugin files).
clients: [claude, codex, gemini, agy, opencode]

# Adopt steps to skip: git-ignore, launcher, interceptor, agy-plugin,
# opencode-plugin, context, agent-hooks.
decline: []

hooks:
  # Neutral events registered in each client's settings file:
  # pre-tool, pre-edit, post-tool, stop.
  events: [pre-tool, stop]

policy:
  # Extra deny patterns (RE2, at most 64, each at most 512 bytes), added to
  # the built-in rules; no setting can switch a built-in rule off.
  deny: []
`)

// TestPlainMatchesYAML: every file the plain front end reads, from the seeds
// and the whole parse corpus, gives yaml/v3's tree, and the manifest adopt
// writes is among them (the hook path's common case never reaches yaml/v3).
func TestPlainMatchesYAML(t *testing.T) {
	if !checkPlain(t, adoptManifest) {
		t.Fatal("the plain front end declines the manifest adopt writes")
	}
	accepted := 0
	for _, s := range plainSeeds() {
		if checkPlain(t, []byte(s)) {
			accepted++
		}
	}
	srcs, _ := corpusSources(t)
	for _, src := range srcs {
		if checkPlain(t, src) {
			accepted++
		}
	}
	if accepted < 40 {
		t.Fatalf("the plain front end read only %d seed and corpus files", accepted)
	}
}

// TestPlainDeclines: constructs outside the subset go to yaml/v3 whole.
func TestPlainDeclines(t *testing.T) {
	for _, s := range []string{
		"",
		"# only a comment\n",
		"version: 1\r\n",
		"version:\t1\n",
		"\ufeffversion: 1\n",
		"version: 1\n---\nversion: 1\n",
		"---\nversion: 1\n",
		"version: &a 1\n",
		"version: !!int 1\n",
		"version: \"1\"\n",
		"version: 0x1\n",
		"version: 01\n",
		"version: 1.0\n",
		"version: null\n",
		"version: ~\n",
		"version:\n",
		"version: 1\nhooks:\n",
		"version: 1\nclients: [claude,]\n",
		"version: 1\nclients: [claude\n",
		"version: 1\nclients: {a: b}\n",
		"version: 1\nclients: [[a]]\n",
		"version: 1\npolicy:\n  deny: |\n    x\n",
		"version: 1\npolicy:\n  deny:\n  - x\n  - y\n extra: 1\n",
		"version: 1\nunknown: 1\n",
		"version:1\n",
		" version: 1\n",
		"version: 1\npolicy:\n  deny:\n    - 'unterminated\n",
		"version: 1\npolicy:\n  deny:\n    - don't\n",
		"version: 1\nhooks:\n  scope: all\n    events: [stop]\n",
		"- version\n",
		"version: 1 # c\nclients: [a] b\n",
		"version: 1\nclients: [a #c]\n",
		"version: caf\u00e9\n",
		"version: 1\npolicy:\n  deny:\n    -\n",
	} {
		if _, ok := parsePlain([]byte(s)); ok {
			t.Errorf("plain front end accepted %q", s)
		}
	}
}

// FuzzPlainMatchesYAML holds the plain front end to yaml/v3 on arbitrary
// bytes: whatever it reads must give yaml/v3's tree. Seeded with the seeds
// and the parse corpus; run by hand with
// `go test ./policy/settings -run '^$' -fuzz FuzzPlainMatchesYAML -fuzztime 60s`.
func FuzzPlainMatchesYAML(f *testing.F) {
	for _, s := range plainSeeds() {
		f.Add([]byte(s))
	}
	srcs, _ := corpusSources(f)
	for _, src := range srcs {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if checkPlain(t, data) {
			// Parse must then agree with the yaml/v3 path in full.
			top, _ := parseYAML(data)
			for _, repo := range []bool{false, true} {
				a, errA := Parse(data, repo)
				b, errB := parseTree(top, repo)
				if fmt.Sprint(errA) != fmt.Sprint(errB) || !reflect.DeepEqual(a, b) {
					t.Fatalf("Parse %v / %v; yaml/v3 path %v / %v", a, errA, b, errB)
				}
			}
		}
	})
}
