package policy

import (
	"os"
	"path/filepath"
	"testing"
)

// testSite is the Site the tests judge in: dir, with an environment of its
// own (an empty HOME and XDG_CONFIG_HOME, no system git config, a PATH of one
// empty directory) so that the machine's git config and PATH cannot change
// a verdict. extra adds or overrides variables.
func testSite(t testing.TB, dir string, extra ...string) Site {
	t.Helper()
	root := t.TempDir()
	home, bin := filepath.Join(root, "home"), filepath.Join(root, "bin")
	for _, d := range []string{home, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM": "1", "PATH": bin}
	for i := 0; i+1 < len(extra); i += 2 {
		env[extra[i]] = extra[i+1]
	}
	return Site{Dir: dir, LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
}

// emptyRepo makes an empty git repository (a bare .git directory, as the
// hook replay's) and returns its root.
func emptyRepo(t testing.TB) string {
	t.Helper()
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return repo
}
