package policy

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/hookwarden/hookwarden/internal/gitdisc"
)

// This file resolves git aliases the way git does (issue 28 item 5): an
// alias set earlier in the same command (git config alias.NAME VALUE,
// scope.setAlias), on the command line (-c alias.NAME=VALUE,
// GIT_CONFIG_PARAMETERS, GIT_CONFIG_KEY_<n>: gitconfigcmd.go), or in the
// configuration files git reads (git-config(1), "FILES": the system file,
// the user's $XDG_CONFIG_HOME/git/config and ~/.gitconfig, the repository's
// config and config.worktree; the last one read wins). An alias whose value
// is "!..." is judged as shell code, any other as git arguments; nesting
// deeper than maxDepth is refused (scan-bound-nesting). git ignores an
// alias named like a builtin command (git(1), "alias.*"), and so does the
// judge.

// setAlias records git config alias.NAME VALUE for the script's later git
// commands (dyn for a value known only at run time).
func (sc *scope) setAlias(name string, v field) {
	if sc.gitAliases == nil {
		sc.gitAliases = map[string]string{}
	}
	if v.dynamic() {
		sc.gitAliases[name] = dyn
		return
	}
	sc.gitAliases[name] = v.val
}

// fileAlias looks name up in the git configuration files of the directory
// the command runs in (the Site's Dir; the user's and system files as the
// Site's environment names them). It returns the alias and true when one is
// set. When some layer cannot be read (no directory or environment, a file
// unreadable or larger than maxScriptBytes, an include past git's depth, an
// includeIf file that sets it differently), the alias is unknown: a short
// option cluster holding n among args (git commit -n, the most common
// alias target's hook skip) is then refused as indirection-unjudgeable,
// and --no-verify spellings are refused by unknownGitSub as before.
func (j *judge) fileAlias(name string, args []field) (string, bool) {
	val, found, known := j.configAlias(strings.ToLower(name))
	if !known {
		for _, a := range args {
			if a.val == "--" {
				break
			}
			if strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "--") && strings.ContainsAny(a.val, "n"+dyn) {
				j.hits.add(RuleIndirectionUnjudgeable)
			}
		}
	}
	return val, found
}

// maxIncludeDepth is git's bound on nested config includes (config.c,
// MAX_INCLUDE_DEPTH, git 2.x); past it git fails, and the judge calls the
// alias unknown.
const maxIncludeDepth = 10

// configRead collects alias.<name> over git's configuration files in the
// order git reads them.
type configRead struct {
	name, home   string
	val          string
	found, known bool
}

// configAlias reads alias.<name> from git's configuration files, last read
// wins, following include.path and includeIf.*.path (git-config(1),
// "Includes"). known is false when some layer could not be read (see
// fileAlias).
func (j *judge) configAlias(name string) (val string, found, known bool) {
	files, home, ok := j.configFiles()
	if !ok {
		return "", false, false
	}
	cr := &configRead{name: name, home: home, known: true}
	for _, f := range files {
		cr.file(f, 0, false)
	}
	return cr.val, cr.found, cr.known
}

// configFiles lists the configuration files git reads for a command in
// j.dir, as git-config(1) "FILES" and "ENVIRONMENT" say, with the Site's
// environment: the system file (GIT_CONFIG_SYSTEM, else /etc/gitconfig, the
// path of distribution builds; none under GIT_CONFIG_NOSYSTEM), the global
// files (GIT_CONFIG_GLOBAL, else $XDG_CONFIG_HOME/git/config or
// $HOME/.config/git/config, and $HOME/.gitconfig), then the repository's
// config and config.worktree. ok is false without a directory or an
// environment, or when the repository cannot be found.
func (j *judge) configFiles() (files []string, home string, ok bool) {
	if j.dir == "" || !filepath.IsAbs(j.dir) || j.env == nil {
		return nil, "", false
	}
	get := func(k string) string { v, _ := j.env(k); return v }
	if !gitEnvTrue(get("GIT_CONFIG_NOSYSTEM")) {
		sys := get("GIT_CONFIG_SYSTEM")
		if sys == "" {
			sys = "/etc/gitconfig"
		}
		files = append(files, sys)
	}
	home = get("HOME")
	if g, set := j.env("GIT_CONFIG_GLOBAL"); set {
		files = append(files, g)
	} else {
		xdg := get("XDG_CONFIG_HOME")
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	repo, inRepo, err := gitdisc.Find(j.dir)
	if err != nil {
		return nil, "", false
	}
	if inRepo {
		common, err := gitdisc.CommonDir(repo)
		if err != nil {
			return nil, "", false
		}
		files = append(files, filepath.Join(common, "config"), filepath.Join(repo.GitDir, "config.worktree"))
	}
	for i, f := range files {
		if f != "" && !filepath.IsAbs(f) {
			files[i] = filepath.Join(j.dir, f)
		}
	}
	return files, home, true
}

// gitEnvTrue is git's reading of a boolean environment variable: anything
// but false, no, off, 0 and the empty value is true (git-config(1),
// "Values", boolean).
func gitEnvTrue(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "false", "no", "off", "0":
		return false
	}
	return true
}

// file reads one configuration file (depth includes deep; cond when an
// includeIf whose condition is not evaluated brought it in). A missing file
// is skipped, as git skips it.
func (cr *configRead) file(path string, depth int, cond bool) {
	if path == "" || path == os.DevNull {
		return
	}
	if depth > maxIncludeDepth {
		cr.known = false
		return
	}
	if _, err := os.Lstat(path); os.IsNotExist(err) {
		return
	}
	data, ok := readBounded(path)
	if !ok {
		cr.known = false
		return
	}
	for _, s := range gitdisc.ConfigSettings([]byte(data), "alias", cr.name) {
		if !s.Include {
			cr.set(s.Value, cond)
			continue
		}
		inc := s.Value
		switch {
		case strings.HasPrefix(inc, "~/"):
			if cr.home == "" {
				cr.known = false
				continue
			}
			inc = filepath.Join(cr.home, inc[2:])
		case !filepath.IsAbs(inc):
			inc = filepath.Join(filepath.Dir(path), inc)
		}
		cr.file(inc, depth+1, cond || s.Conditional)
	}
}

// set records one value of the alias; one that may or may not apply (cond)
// makes it unknown unless it agrees with the value read so far.
func (cr *configRead) set(v string, cond bool) {
	if cond {
		if !cr.found || cr.val != v {
			cr.known = false
		}
		return
	}
	cr.val, cr.found = v, true
}
