package settings

import (
	"slices"
	"strings"
	"testing"
)

// TestDispatchSection: the dispatch: section parses (also empty), its
// errors name the key and line, and the layers merge by narrowing: tasks
// intersect over the layers that set them, readonly_agents and return_deny
// are unions.
func TestDispatchSection(t *testing.T) {
	f, err := Parse([]byte("version: 1\ndispatch:\n"), true)
	if err != nil || f.Dispatch == nil || f.Dispatch.Tasks != nil {
		t.Fatalf("empty section: %+v, %v", f.Dispatch, err)
	}
	for _, c := range []struct{ doc, want string }{
		{"dispatch:\n  tasks: [-x]\n", "line 2: dispatch.tasks: \"-x\" is not a label"},
		{"dispatch:\n  tasks: [a b]\n", "is not a label"},
		{"dispatch:\n  readonly_agents: review\n", "line 2: dispatch.readonly_agents: want a list"},
		{"dispatch:\n  return_deny: ['(']\n", "line 2: dispatch.return_deny[0]: not an RE2 pattern"},
		{"dispatch:\n  handback: true\n", "line 2: dispatch.handback: unknown key"},
		{"dispatch: [a]\n", "dispatch: want a mapping"},
	} {
		if _, err := Parse([]byte(c.doc), false); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.doc, err, c.want)
		}
	}
	layer := func(name, doc string) Layer {
		f, err := Parse([]byte(doc), false)
		if err != nil {
			t.Fatal(err)
		}
		return Layer{Name: name, Path: "/" + name, File: f}
	}
	e := Merge([]Layer{Defaults(),
		layer("fleet", "dispatch:\n  tasks: [review, docs, ops]\n  return_deny: ['a']\n"),
		layer("workstation", "policy:\n  deny: ['x']\n"),
		layer("repository", "dispatch:\n  tasks: [docs, review, extra]\n  readonly_agents: [auditor]\n  return_deny: ['b']\n"),
	})
	d := e.Dispatch
	if !d.Set || !slices.Equal(d.Tasks, []string{"review", "docs"}) || !slices.Equal(d.ReadonlyAgents, []string{"auditor"}) ||
		len(d.ReturnDeny) != 2 || d.ReturnDeny[0].Name != "fleet" || d.ReturnDeny[1].Pattern != "b" {
		t.Errorf("merged dispatch %+v", d)
	}
	if e := Merge([]Layer{Defaults(), layer("fleet", "dispatch:\n  tasks: [a]\n"), layer("repository", "dispatch:\n  tasks: [b]\n")}); e.Dispatch.Tasks == nil || len(e.Dispatch.Tasks) != 0 {
		t.Errorf("disjoint tasks merged to %v, want an empty (non-nil) list that refuses every dispatch", e.Dispatch.Tasks)
	}
	if e := Merge([]Layer{Defaults(), layer("fleet", "policy:\n  deny: ['x']\n")}); e.Dispatch.Set || e.Dispatch.Tasks != nil {
		t.Errorf("no section merged to %+v", e.Dispatch)
	}
}
