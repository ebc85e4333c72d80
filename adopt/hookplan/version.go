package hookplan

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

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

// versionLess reports whether dotted version a is older than b, comparing
// numeric fields in order (a pre-release suffix after '-' is ignored; a
// field that is not a number compares as 0).
func versionLess(a, b string) bool {
	as, bs := fields(a), fields(b)
	for i := 0; i < len(as) || i < len(bs); i++ {
		var x, y int
		if i < len(as) {
			x = as[i]
		}
		if i < len(bs) {
			y = bs[i]
		}
		if x != y {
			return x < y
		}
	}
	return false
}

func fields(v string) []int {
	v, _, _ = strings.Cut(strings.TrimPrefix(v, "v"), "-")
	var out []int
	for _, f := range strings.Split(v, ".") {
		n, _ := strconv.Atoi(f)
		out = append(out, n)
	}
	return out
}
