// Package buildinfo names the hookwarden version compiled into this binary.
//
// The version has one source: the file VERSION beside this package,
// embedded at compile time. Every way of building a commit reads that same
// file, so a build from a checkout (`go build`, `go install
// ./cmd/hookwarden`), `go install …/cmd/hookwarden@vX.Y.Z` of a tag (the
// module zip holds the file) and a release (`go run ./tools/release`,
// which refuses a -version that differs from it) report and render the same
// version. The alternatives each miss a route: the module version Go
// records is a pseudo-version or "(devel)" in a checkout and a tag only
// through the module proxy; the VCS stamp is absent from module-proxy
// builds, from -buildvcs=false (the release's, for reproducible archives)
// and from builds outside a git work tree. A release raises VERSION in the
// commit it tags.
package buildinfo

import (
	_ "embed"
	"strings"
)

//go:embed VERSION
var versionFile string

// Current returns the hookwarden version of this binary (semantic version,
// no leading v): the content of VERSION without its line break. Rendered
// files carry it in their header; `hookwarden --version` prints it.
func Current() string { return strings.TrimSpace(versionFile) }
