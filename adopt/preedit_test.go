package adopt

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hookwarden/hookwarden/clientjson"
	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/templates"
)

// TestRegisteredEvents: pre-skill-shell and pre-edit follow pre-tool, so a
// manifest written before they were registered still gets them; an
// explicit list keeps its order and nothing is added without pre-tool.
func TestRegisteredEvents(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{nil, []string{"pre-tool", "pre-edit", "stop", "prompt", "pre-skill-shell"}},
		{[]string{"pre-tool", "stop"}, []string{"pre-tool", "pre-edit", "stop", "pre-skill-shell"}},
		{[]string{"stop", "pre-tool"}, []string{"stop", "pre-tool", "pre-edit", "pre-skill-shell"}},
		{[]string{"pre-edit", "pre-tool"}, []string{"pre-edit", "pre-tool", "pre-skill-shell"}},
		{[]string{"pre-skill-shell", "pre-tool"}, []string{"pre-skill-shell", "pre-tool", "pre-edit"}},
		{[]string{"stop"}, []string{"stop"}},
		{[]string{}, []string{}},
	} {
		if got := RegisteredEvents(tc.in); !cmp.Equal(got, tc.want) {
			t.Errorf("RegisteredEvents(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestConformAddsPreEdit: a repository adopted before pre-edit was
// registered (manifest `events: [pre-tool, stop]`, client files with only
// those rows) gets the Claude and Gemini pre-edit rows, through the
// launcher like the others, on conform; the dry run reports the same change
// and writes nothing.
func TestConformAddsPreEdit(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	makeRepo(t, root, true, map[string]string{
		ManifestFile: "version: 1\nclients: [claude, gemini]\nhooks:\n  events: [pre-tool, stop]\n",
	}, nil)
	opts := testOptions(t)
	if rep, err := Adopt(context.Background(), []string{root}, opts); err != nil || rep.Failed() {
		t.Fatalf("%v %+v", err, rep.Repositories[0])
	}
	table, err := registration.Default()
	if err != nil {
		t.Fatal(err)
	}
	// Strip the pre-edit rows as an older adopt left the files.
	for _, client := range []string{"claude", "gemini"} {
		rel, _ := SettingsFile(client)
		p := filepath.Join(root, rel)
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), client+" pre-edit") {
			t.Fatalf("adopt did not register %s pre-edit:\n%s", client, src)
		}
		owner, err := templates.Owner(client, table)
		if err != nil {
			t.Fatal(err)
		}
		var want []clientjson.Handler
		for _, ev := range []string{"pre-tool", "stop"} {
			row, _ := table.Lookup(client, ev)
			cmd, err := templates.RegistrationCommand(client, ev)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, clientjson.Handler{NativeEvent: row.NativeEvent, Matcher: row.Matcher, Command: cmd, Timeout: row.Timeout})
		}
		res, err := clientjson.Merge(p, src, client, want, clientjson.Options{Owner: owner, Retract: true})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(res.Out), client+" pre-edit") {
			t.Fatalf("could not strip %s pre-edit", client)
		}
		if err := os.WriteFile(p, res.Out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := tree(t, root)
	dry := opts
	dry.DryRun = true
	rep, err := Conform(context.Background(), []string{root}, dry)
	if err != nil || rep.Failed() {
		t.Fatalf("%v %+v", err, rep.Repositories[0])
	}
	for _, client := range []string{"claude", "gemini"} {
		rel, _ := SettingsFile(client)
		f := fileReport(rep.Repositories[0], rel)
		row, _ := table.Lookup(client, "pre-edit")
		if f == nil || f.Action != ActionMerged || !anyContains(f.Changes, "added "+row.NativeEvent+" "+row.Matcher) {
			t.Errorf("dry-run conform, %s: %+v", rel, f)
		}
	}
	if diff := cmp.Diff(before, tree(t, root)); diff != "" {
		t.Fatalf("the dry run wrote:\n%s", diff)
	}
	if rep, err := Conform(context.Background(), []string{root}, opts); err != nil || rep.Failed() {
		t.Fatalf("%v %+v", err, rep.Repositories[0])
	}
	for _, client := range []string{"claude", "gemini"} {
		rel, _ := SettingsFile(client)
		got, _ := os.ReadFile(filepath.Join(root, rel))
		cmd, _ := templates.RegistrationCommand(client, "pre-edit")
		found, err := clientjson.Registered(rel, got, client, nil)
		if err != nil {
			t.Fatal(err)
		}
		ok := false
		for _, h := range found {
			if h.Command == cmd {
				ok = true
			}
		}
		if !ok {
			t.Errorf("%s: no pre-edit row running %q after conform:\n%s", rel, cmd, got)
		}
	}
	if m, _ := os.ReadFile(filepath.Join(root, ManifestFile)); !strings.Contains(string(m), "events: [pre-tool, stop]") {
		t.Errorf("conform rewrote the manifest:\n%s", m)
	}
}
