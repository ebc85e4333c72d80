package audit

import (
	"context"
	"testing"
)

// BenchmarkAuditCleanRepo measures auditing one clean adopted repository,
// conform's dry run included (audit is the dry run of conform). For a fleet,
// compare builds with hyperfine, e.g. 50 adopted repositories:
// `hyperfine -w 2 -r 10 -i 'hookwarden-old audit --fleet F' 'hookwarden audit --fleet F'`
// (measured 2026-12-01 on a loaded 2-core VM: 464 ms before audit planned
// conform, 540 ms after).
func BenchmarkAuditCleanRepo(b *testing.B) {
	repo, getenv := sharedCase(b, "clean")
	for b.Loop() {
		if _, err := Audit(context.Background(), []string{repo}, Options{Getenv: getenv, Jobs: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
