package clientjson

import (
	"os"
	"testing"
)

// BenchmarkMerge measures one adopt-style merge (two rows) into a typical
// project settings file with permissions, env and a foreign hook group.
func BenchmarkMerge(b *testing.B) {
	src, err := os.ReadFile("../testdata/clientjson/claude-2space-permissions-env/before.json")
	if err != nil {
		b.Fatal(err)
	}
	want := propRows["claude"]
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Merge("s.json", src, "claude", want, Options{Owner: testOwner(b, "claude", nil)}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMergeServed measures the common conform case: every row already
// served, nothing written.
func BenchmarkMergeServed(b *testing.B) {
	src, err := os.ReadFile("../testdata/clientjson/claude-2space-permissions-env/before.json")
	if err != nil {
		b.Fatal(err)
	}
	res, err := Merge("s.json", src, "claude", propRows["claude"], Options{Owner: testOwner(b, "claude", nil)})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(res.Out)))
	for b.Loop() {
		if _, err := Merge("s.json", res.Out, "claude", propRows["claude"], Options{Owner: testOwner(b, "claude", nil), Retract: true}); err != nil {
			b.Fatal(err)
		}
	}
}
