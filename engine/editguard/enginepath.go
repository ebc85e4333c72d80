package editguard

import (
	"os"
	"path/filepath"
	"strings"
)

// engineNames are the file names the launcher runs as the engine
// (skewguard hook.sh hw_which looks for `hookwarden`; .exe for Windows).
var engineNames = [...]string{"hookwarden", "hookwarden.exe"}

// engineHit returns why t (a resolved absolute path) is the installed
// engine or would shadow it, "" when it is neither (issue 29 item 3). The
// launcher (skewguard hook.sh) tries $HOOKWARDEN_BIN, then the first
// `hookwarden` in an absolute PATH directory outside the repository (root);
// so a file named hookwarden in any such directory is the engine or would
// shadow the one after it, and $HOOKWARDEN_BIN and the first engine on PATH
// (links followed, compared by identity too) are the engine.
func (g *guard) engineHit(t, root string) string {
	base := filepath.Base(t)
	named := false
	for _, n := range engineNames {
		if strings.EqualFold(base, n) {
			named = true
		}
	}
	dir := filepath.Dir(t)
	for _, d := range g.searchDirs(root) {
		if named && sameDir(d, dir) {
			return "the edit targets " + t + ", a hookwarden in a directory on PATH the launcher searches for the engine"
		}
	}
	for _, e := range g.engines(root) {
		if t == e {
			return "the edit targets the installed hookwarden engine"
		}
		if a, err := os.Stat(t); err == nil {
			if b, err := os.Stat(e); err == nil && os.SameFile(a, b) {
				return "the edit targets the installed hookwarden engine (another name of it)"
			}
		}
	}
	return ""
}

// searchDirs are the PATH directories the launcher searches: absolute, not
// inside the repository, links resolved.
func (g *guard) searchDirs(root string) []string {
	if g.dirs != nil {
		return *g.dirs
	}
	out := []string{}
	defer func() { g.dirs = &out }()
	for _, d := range filepath.SplitList(g.in.PathEnv) {
		if !filepath.IsAbs(d) {
			continue
		}
		if _, inside := within(root, d); inside {
			continue
		}
		if r, err := resolve(filepath.Clean(d)); err == nil {
			out = append(out, r)
		}
	}
	return out
}

// engines are the engine files the launcher would try: $HOOKWARDEN_BIN
// (relative to the call's directory when relative, as the launcher reads it
// against $PWD) and the first hookwarden in a searched directory, each with
// links resolved.
func (g *guard) engines(root string) []string {
	if g.engs != nil {
		return *g.engs
	}
	out := []string{}
	defer func() { g.engs = &out }()
	if b := g.in.EngineBin; b != "" {
		if !filepath.IsAbs(b) {
			b = filepath.Join(g.in.Dir, b)
		}
		if r, err := resolve(filepath.Clean(b)); err == nil {
			out = append(out, r)
		}
	}
	for _, d := range g.searchDirs(root) {
		p := filepath.Join(d, "hookwarden")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			if r, err := filepath.EvalSymlinks(p); err == nil {
				out = append(out, r)
			}
			break
		}
	}
	return out
}

// sameDir reports whether a and b are the same directory (by name or
// identity).
func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	x, err := os.Stat(a)
	if err != nil {
		return false
	}
	y, err := os.Stat(b)
	return err == nil && os.SameFile(x, y)
}
