package buildinfo

import (
	"regexp"
	"testing"
)

// TestVersionIsSemantic: VERSION holds one semantic version (semver.org
// 2.0.0, no leading v), which the release tool and the render headers
// (templates: [0-9A-Za-z.+-]+) accept.
func TestVersionIsSemantic(t *testing.T) {
	semver := regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)
	if v := Current(); !semver.MatchString(v) {
		t.Fatalf("internal/buildinfo/VERSION holds %q, not a semantic version", v)
	}
	if versionFile != Current()+"\n" {
		t.Fatalf("VERSION is %q: want the version and one line break", versionFile)
	}
}
