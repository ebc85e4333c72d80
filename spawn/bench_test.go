package spawn

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkCompileClaude measures one compile of the base home for Claude
// (version given, so no probe): snapshot read, checks, pins, approvals and
// the exclusive run-file write, then its removal.
func BenchmarkCompileClaude(b *testing.B) {
	w := materialise(b, filepath.Join("..", "testdata", "spawn", "base"))
	bin := fakeEngine(b, w.engineDir, "claude", defaultVersion("claude"), w.startLog)
	w.approveAll(b, "", "")
	opts := Options{Engine: "claude", Binary: bin, Version: "2.1.328", Cwd: w.repo, Home: w.home}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := Compile(context.Background(), opts)
		if err != nil {
			b.Fatal(err)
		}
		r.Cleanup()
	}
}
