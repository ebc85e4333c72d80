package hook

import (
	"context"
	"strings"
	"testing"
)

// BenchmarkRunDispatch measures the dispatcher's own work on a Claude
// pre-tool payload in a governed repository with a stand-in policy: read,
// decode, locate the repository (with the command's target extraction),
// load the settings layers (the repository's .hookwarden.yaml), judge,
// encode. The real policy's cost is in engine/hook/live's BenchmarkHookRun.
func BenchmarkRunDispatch(b *testing.B) {
	f := newFixture(b, "version: 1\npolicy:\n  deny: ['terraform destroy']\n")
	deps := fakeDeps(b, false)
	payload := f.substJSON(`{"session_id":"s","transcript_path":"/t","cwd":"$GOV/src","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git commit -m 'fix: typo' && git push origin HEAD","description":"d"},"tool_use_id":"toolu_01"}`)
	lookup := f.env(nil)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		resp := Run(context.Background(), deps, Request{Client: "claude", Event: "pre-tool", Stdin: strings.NewReader(payload), LookupEnv: lookup, Cwd: "/"})
		if resp.Exit != 0 {
			b.Fatalf("exit %d: %s", resp.Exit, resp.Stderr)
		}
	}
}
