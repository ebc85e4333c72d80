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
// the command runs in (JudgeIn's dir; the user's and system files too). It
// returns the alias and true when one is set. When the files cannot be read
// (Judge without a directory, a file unreadable or larger than
// maxScriptBytes, an include that may set it), the alias is unknown: a
// short option cluster holding n among args (git commit -n, the most
// common alias target's hook skip) is then refused as
// indirection-unjudgeable, and --no-verify spellings are refused by
// unknownGitSub as before.
func (j *judge) fileAlias(name string, args []field) (string, bool) {
	val, found, known := j.configAlias(strings.ToLower(name))
	if found {
		return val, true
	}
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
	return "", false
}

// configAlias reads alias.<name> from git's configuration files, last read
// wins. known is false when some file could not be read or includes another.
func (j *judge) configAlias(name string) (val string, found, known bool) {
	if j.dir == "" || !filepath.IsAbs(j.dir) {
		return "", false, false
	}
	var files []string
	files = append(files, "/etc/gitconfig")
	if home, err := os.UserHomeDir(); err == nil {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" {
			xdg = filepath.Join(home, ".config")
		}
		files = append(files, filepath.Join(xdg, "git", "config"), filepath.Join(home, ".gitconfig"))
	}
	repo, inRepo, err := gitdisc.Find(j.dir)
	if err != nil {
		return "", false, false
	}
	if inRepo {
		common, err := gitdisc.CommonDir(repo)
		if err != nil {
			return "", false, false
		}
		files = append(files, filepath.Join(common, "config"), filepath.Join(repo.GitDir, "config.worktree"))
	}
	known = true
	for _, f := range files {
		if _, err := os.Lstat(f); os.IsNotExist(err) {
			continue
		}
		data, ok := readBounded(f)
		if !ok {
			known = false
			continue
		}
		if v, ok := gitdisc.ConfigValue([]byte(data), "alias", name); ok {
			val, found = v, true
		}
		if _, inc := gitdisc.ConfigValue([]byte(data), "include", "path"); inc || strings.Contains(strings.ToLower(data), "[includeif") {
			known = false
		}
	}
	return val, found, known
}
