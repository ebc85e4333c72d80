package hookplan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/templates"
)

// TestClinePlan: Cline's hook file as rendered runs both cline rows (ours,
// firing); an operator's own PreToolUse in its place (no render header) is
// listed with that note and no row of ours, since Cline runs one file per
// hook name; the "Enable Hooks" switch is stated as not readable.
func TestClinePlan(t *testing.T) {
	root := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(root, ".hookwarden.yaml"), []byte("version: 1\nclients: [cline]\n"), 0o644))
	files, err := templates.Render([]string{"cline"})
	must(err)
	hook := filepath.Join(root, filepath.FromSlash(templates.ClineHookPath))
	must(os.MkdirAll(filepath.Dir(hook), 0o755))
	for _, f := range files {
		if f.Path == templates.ClineHookPath {
			must(os.WriteFile(hook, f.Body, f.Mode))
		}
	}
	getenv := func(k string) string {
		if k == "HOME" {
			return root
		}
		return ""
	}
	cline := func() Client {
		t.Helper()
		p, err := Build(root, Options{Getenv: getenv})
		must(err)
		for _, c := range p.Clients {
			if c.Client == "cline" {
				return c
			}
		}
		t.Fatal("no cline entry in the plan")
		return Client{}
	}
	c := cline()
	if !c.Selected || !strings.Contains(c.Runs, `"Enable Hooks"`) || !strings.Contains(c.Runs, "not readable") {
		t.Errorf("selected %v, runs %q: want the Enable Hooks switch stated as not readable", c.Selected, c.Runs)
	}
	ours := map[string]bool{}
	for _, h := range c.Hooks {
		if h.Ours && h.Fires && h.File == templates.ClineHookPath && h.NativeEvent == "PreToolUse" {
			ours[h.Event] = true
		}
	}
	if !ours["pre-tool"] || !ours["pre-edit"] {
		t.Errorf("rendered file: hooks %+v, want cline pre-tool and pre-edit firing from %s", c.Hooks, templates.ClineHookPath)
	}

	must(os.WriteFile(hook, []byte("#!/bin/sh\necho '{\"cancel\":false}'\n"), 0o755))
	c = cline()
	for _, h := range c.Hooks {
		if h.Ours {
			t.Errorf("the operator's own PreToolUse is planned as running our row %+v", h)
		}
	}
	if len(c.Files) != 1 || !c.Files[0].Exists || !strings.Contains(c.Files[0].Why, "no hookwarden render header") {
		t.Errorf("files %+v, want the operator's file noted", c.Files)
	}
}
