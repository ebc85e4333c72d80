package lefthookcfg

import (
	"slices"
	"testing"
)

// TestCandidatesOrder: lefthook 2.x tries each extension in turn and,
// within it, each name (loader.go loadFirst), so lefthook.yml comes first
// and .config/lefthook.yml before any .yaml spelling.
func TestCandidatesOrder(t *testing.T) {
	main := Candidates(false)
	if len(main) != 15 || main[0] != "lefthook.yml" || main[2] != ".config/lefthook.yml" || main[3] != "lefthook.yaml" {
		t.Fatalf("Candidates(false) = %v", main)
	}
	if l := Candidates(true); l[0] != "lefthook-local.yml" || !slices.Contains(l, ".lefthook-local.toml") {
		t.Fatalf("Candidates(true) = %v", l)
	}
	if !IsConfig(".config/lefthook-local.jsonc") || IsConfig("sub/lefthook.yml") || IsConfig(".hookwarden/lefthook.yml") {
		t.Error("IsConfig names the wrong files")
	}
	if b := BaseNames(); len(b) != 20 || slices.Contains(b, ".config/lefthook.yml") {
		t.Errorf("BaseNames() = %v", b)
	}
}

// TestParseExtendsOverrides: every format parses to the same mapping;
// extends names our file in any cleaned spelling; a hook-level skip, an
// only, an exclude_tags naming our job and a job named like ours are each
// an override, a skip: false is not.
func TestParseExtendsOverrides(t *testing.T) {
	jobs := []Job{{Hook: "pre-tool", Name: "hookwarden pre-tool"}}
	for rel, src := range map[string]string{
		"lefthook.yml":   "extends:\n  - ./.hookwarden/lefthook.yml\npre-tool:\n  skip: true\n",
		"lefthook.json":  `{"extends": [".hookwarden/lefthook.yml"], "pre-tool": {"skip": true}}`,
		"lefthook.jsonc": "{\n // c\n \"extends\": \".hookwarden/lefthook.yml\", \"pre-tool\": {\"skip\": true},\n}",
		"lefthook.toml":  "extends = [\".hookwarden/lefthook.yml\"]\n[pre-tool]\nskip = true\n",
	} {
		cfg, err := Parse(rel, []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		if _, present, ours := Extends(cfg, ".hookwarden/lefthook.yml"); !present || !ours {
			t.Errorf("%s: extends present %v ours %v", rel, present, ours)
		}
		if o := Overrides(rel, []byte(src), cfg, jobs); len(o) != 1 || o[0].Key != "skip" {
			t.Errorf("%s: overrides %+v", rel, o)
		}
	}
	for src, want := range map[string]int{
		"pre-tool:\n  skip: false\n":                                            0,
		"pre-tool:\n  only:\n    - ref: main\n":                                 1,
		"pre-tool:\n  exclude_tags: [hookwarden pre-tool]\n":                    1,
		"pre-tool:\n  exclude_tags: [other]\n":                                  0,
		"pre-commit:\n  jobs:\n    - name: hookwarden pre-tool\n      run: x\n": 1,
		"pre-commit:\n  jobs:\n    - name: lint\n      run: x\n":                0,
	} {
		cfg, err := Parse("lefthook-local.yml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if got := len(Overrides("lefthook-local.yml", []byte(src), cfg, jobs)); got != want {
			t.Errorf("%q: %d overrides, want %d", src, got, want)
		}
	}
	if _, err := Parse("lefthook.yml", []byte("extends: [\n")); err == nil {
		t.Error("broken YAML parsed")
	}
	if _, err := Parse("lefthook.ini", nil); err == nil {
		t.Error("an extension lefthook does not read parsed")
	}
}
