package hookplan

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/hookwarden/hookwarden/templates"
)

// InstalledVersion returns the version of client's installed executable
// and the package.json it was read from (installedVersion with the client's
// entry of the plan's client table), or "" and "" when the client has no
// entry, is not on getenv("PATH"), or its package names no version. It never
// runs the client. Adopt and conform render the rows this version accepts
// when the repository declares none (templates.RowAccepted).
func InstalledVersion(client string, getenv func(string) string) (version, from string) {
	spec, ok := clients()[client]
	if !ok {
		return "", ""
	}
	return installedVersion(spec, getenv)
}

// installedVersion finds the client's executable (spec.bin) in the absolute
// entries of getenv("PATH"), resolves its symlinks and reads the version of
// the npm package spec.npm from the nearest package.json at or above it
// (at most six directories up; the npm installs of Claude Code, Codex,
// Gemini CLI and opencode put their executables below the package). It
// returns the version and the package.json path, or "" and "" when none
// is found. It never runs the client.
func installedVersion(spec clientSpec, getenv func(string) string) (string, string) {
	if spec.bin == "" || spec.npm == "" {
		return "", ""
	}
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, spec.bin)
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
			continue
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return "", ""
		}
		d := filepath.Dir(real)
		for i := 0; i < 6; i++ {
			pj := filepath.Join(d, "package.json")
			if data, err := os.ReadFile(pj); err == nil {
				var pkg struct{ Name, Version string }
				if json.Unmarshal(data, &pkg) == nil && pkg.Name == spec.npm && pkg.Version != "" {
					return pkg.Version, pj
				}
			}
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			d = parent
		}
		return "", ""
	}
	return "", ""
}

// versionLess reports whether dotted version a is older than b
// (templates.VersionLess, the one comparison every version fact uses).
func versionLess(a, b string) bool { return templates.VersionLess(a, b) }
