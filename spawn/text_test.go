package spawn

import (
	"strings"
	"testing"
)

// TestRenderWriteText: spawn compile's text form names the engine, run,
// snapshot and requirement ("none" without one), the argv additions shell
// quoted, and one line per run file, hook (argv hash cut to 16 digits) and
// note.
func TestRenderWriteText(t *testing.T) {
	r := &Render{Engine: "claude", Binary: "/usr/bin/claude", Version: "2.1.328", RunID: "r1", SnapshotDigest: "sha256:ab",
		Args:  []string{"--settings", "/run/x y.json"},
		Files: []string{"/run/x y.json"},
		Hooks: []CompiledHook{{Layer: "registry", Hook: "guard", Event: "pre_tool", Native: "PreToolUse", ArgvHash: strings.Repeat("c", 64)}},
		Notes: []string{"no profile layer"}}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "engine: claude 2.1.328 (/usr/bin/claude)\nrun id: r1\nsnapshot: sha256:ab\nrequirement: none\n" +
		"args: --settings '/run/x y.json'\nfile (remove when the spawn ends): /run/x y.json\n" +
		"hook: registry guard on pre_tool (PreToolUse) argv cccccccccccccccc\nnote: no profile layer\n"
	if b.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestWriteTrustList: trust list prints "no attachments" for none, else a
// line per argv with its 16-digit hash, its state in one word (a stale
// state of any other text reads "stale"), the argv and its attachments and
// engines.
func TestWriteTrustList(t *testing.T) {
	var b strings.Builder
	WriteTrustList(&b, nil)
	if b.String() != "no attachments\n" {
		t.Fatalf("empty list: %q", b.String())
	}
	b.Reset()
	WriteTrustList(&b, []TrustRow{
		{ArgvHash: strings.Repeat("a", 64), Argv: []string{"/bin/guard", "--x"}, State: StateApproved, Attachments: []string{"registry:guard@pre_tool"}, Engines: []string{"claude", "codex"}},
		{ArgvHash: strings.Repeat("b", 64), Argv: []string{"/bin/other"}, State: "digest changed", Attachments: []string{"profile:o@stop"}, Engines: []string{"claude"}},
	})
	want := "aaaaaaaaaaaaaaaa approved   /bin/guard --x  [registry:guard@pre_tool; claude,codex]\n" +
		"bbbbbbbbbbbbbbbb stale      /bin/other  [profile:o@stop; claude]\n"
	if b.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}
