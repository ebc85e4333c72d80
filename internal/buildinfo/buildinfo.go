// Package buildinfo names the hookwarden version compiled into this binary.
package buildinfo

import (
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
)

// Version is the version a release build stamps (semantic version, no
// leading v): `go run ./internal/release` builds with -ldflags "-X
// github.com/hookwarden/hookwarden/internal/buildinfo.Version=…". Read it
// through Current, which also knows `go install …@vX.Y.Z`.
var Version = unstamped

// unstamped is Version when no release build stamped it.
const unstamped = "0.1.0"

// Current returns the hookwarden version of this binary: Version when a
// release build stamped it; else, for a binary that `go install
// github.com/hookwarden/hookwarden/cmd/hookwarden@vX.Y.Z` built from a
// tagged module version, X.Y.Z (the main module's version in
// runtime/debug.ReadBuildInfo); else Version. Rendered files carry it in
// their header; `hookwarden --version` prints it. It reads the build
// information once, on first use (the hook path never calls it).
func Current() string { return current() }

var current = sync.OnceValue(func() string {
	if Version != unstamped {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v, ok := fromModule(bi.Main.Version); ok {
			return v
		}
	}
	return Version
})

// release matches a tagged module version; pseudo matches the tail of a
// pseudo-version (Go modules reference, "Pseudo-versions":
// vX.Y.Z-yyyymmddhhmmss-abcdefabcdef and its -0. / .0. forms).
var (
	release = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$`)
	pseudo  = regexp.MustCompile(`[-.][0-9]{14}-[0-9a-f]{12}$`)
)

// fromModule returns the version of a main-module version string without
// its v, when it is a release tag: not "(devel)", not a pseudo-version
// (what a build from a VCS checkout between tags records), not a +dirty or
// other build-metadata form.
func fromModule(v string) (string, bool) {
	if !release.MatchString(v) || pseudo.MatchString(v) {
		return "", false
	}
	return strings.TrimPrefix(v, "v"), true
}
