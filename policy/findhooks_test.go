package policy

import "testing"

// TestFindHookDirNames: every name find's hooks-directory reach looks for
// is one the hooks-dir-tamper rule guards.
func TestFindHookDirNames(t *testing.T) {
	for _, n := range findHookDirNames {
		if !isHookDirName(n) && !isStoreDirName(n) {
			t.Errorf("%q is neither a hooks directory name nor a store directory name", n)
		}
	}
}
