package buildinfo

import "testing"

// TestFromModule: a `go install …@vX.Y.Z` binary reports X.Y.Z; a build
// from a checkout (devel, a pseudo-version, +dirty) keeps Version.
func TestFromModule(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"v0.2.0", "0.2.0", true},
		{"v1.4.0-rc.1", "1.4.0-rc.1", true},
		{"(devel)", "", false},
		{"", "", false},
		{"v0.1.1-0.20261201210000-abcdefabcdef", "", false},
		{"v0.0.0-20261201210000-abcdefabcdef", "", false},
		{"v0.2.1-rc.1.0.20261201210000-abcdefabcdef", "", false},
		{"v0.2.0+dirty", "", false},
		{"v0.1.1-0.20261201210000-abcdefabcdef+dirty", "", false},
	} {
		got, ok := fromModule(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("fromModule(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
