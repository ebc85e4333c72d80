package policy

import (
	"context"
	"path"
	"path/filepath"
	"runtime"
	"strings"

	"mvdan.cc/sh/v3/interp"

	"github.com/hookwarden/hookwarden/internal/execpath"
)

// The evaluator models the commands that print where a program is found:
// `command -v NAME`, `type -P NAME` (and -p, -fP), `which NAME`. Their
// output is the path the shell would print, looked up on PATH: the PATH the
// command assigned, else the Site's (the hook's environment, which the
// client hands both the hook and the shell). So
// `cp /tmp/x "$(command -v hookwarden)"` is judged as a write to the engine
// the launcher runs. A name not found there, or no PATH to look in, prints
// a path known only at run time; for the engine (hookwarden,
// hookwarden.exe) that path still names the engine, in a directory known
// only at run time, so a write to it is refused as self-protect.

// lookupCmd is the program name the run hands to exec for a modelled
// lookup: evalDyn makes it one no script can spell.
const lookupCmd = evalDyn + "lookup"

// lookupName returns NAME when args is a lookup the evaluator models:
// command [-p] -v [--] NAME, type with an option cluster of p, P, f, a
// holding p or P [--] NAME, which [-a|-s] [--] NAME. A builtin's name or a
// path is left to the shell.
func lookupName(args []string) (string, bool) {
	if len(args) < 2 {
		return "", false
	}
	opts, rest := splitLookupOpts(args[1:])
	var ok bool
	switch args[0] {
	case "command":
		ok = strings.Contains(opts, "v") && strings.Trim(opts, "vp") == ""
	case "type":
		ok = strings.ContainsAny(opts, "pP") && strings.Trim(opts, "pPfa") == ""
	case "which":
		ok = strings.Trim(opts, "as") == ""
	}
	if !ok || len(rest) != 1 {
		return "", false
	}
	name := rest[0]
	if name == "" || strings.Contains(name, "/") || interp.IsBuiltin(name) {
		return "", false
	}
	return name, true
}

// splitLookupOpts splits a lookup's words into its short options (letters
// run together) and its operands (after the first operand or --).
func splitLookupOpts(words []string) (opts string, rest []string) {
	for i, w := range words {
		switch {
		case w == "--":
			return opts, words[i+1:]
		case len(w) > 1 && w[0] == '-':
			opts += w[1:]
		default:
			return opts, words[i:]
		}
	}
	return opts, nil
}

// isEngineName reports the engine's program names.
func isEngineName(name string) bool { return name == "hookwarden" || name == "hookwarden.exe" }

// lookPath finds name in the directories of path (":"-separated; an empty
// or relative entry relative to dir) as an executable regular file, and
// returns its path (execpath.Find). found is false when path or dir holds
// an unknown part or no directory holds name.
func lookPath(name, path, dir string) (string, bool) {
	if strings.Contains(path, evalDyn) {
		return "", false
	}
	if strings.Contains(dir, evalDyn) {
		dir = ""
	}
	return execpath.Find(name, path, dir)
}

// lookup answers a modelled lookup of name in the run (exec of lookupCmd):
// the path on the command's PATH (or the Site's when the command did not
// set it), else an unknown path, and records an engine's path for the write
// judgement (scope.engines).
func (e *evalRun) lookup(ctx context.Context, name string) error {
	hc := interp.HandlerCtx(ctx)
	path := hc.Env.Get("PATH").String()
	if !hc.Env.Get("PATH").IsSet() || strings.Contains(path, evalDyn) {
		path = ""
		if e.j.env != nil {
			path, _ = e.j.env("PATH")
		}
	}
	dir := hc.Dir
	if e.j.dir == "" {
		dir = ""
	}
	if full, ok := lookPath(name, path, dir); ok {
		if isEngineName(name) {
			e.mu.Lock()
			e.engines[enginePathKey(full)] = true
			e.mu.Unlock()
		}
		_, err := hc.Stdout.Write([]byte(full + "\n"))
		return err
	}
	out := evalDyn
	if isEngineName(name) {
		out = evalDyn + "/bin/" + name
	}
	hc.Stdout.Write([]byte(out + "\n"))
	if e.mode.exit != 0 {
		return interp.NewExitStatus(e.mode.exit)
	}
	return nil
}

// siteEngineList returns the engines the launcher would choose where the
// command runs, as enginePathKey keys: $HOOKWARDEN_BIN when it is
// absolute, and the first executable hookwarden on the PATH of the Site's
// environment (skewguard hook.sh: the same two candidates, in that order).
// A write to one, or the removal or move of a directory holding one (rm -rf
// ~/.local/bin), is a write to the engine (scope.classifyOne). Without a
// Site environment it returns nil. It is computed once per call.
func (j *judge) siteEngineList() []string {
	if j.siteEnginesDone {
		return j.siteEngines
	}
	j.siteEnginesDone = true
	if j.env == nil {
		return nil
	}
	if b, ok := j.env("HOOKWARDEN_BIN"); ok && filepath.IsAbs(b) {
		j.siteEngines = append(j.siteEngines, enginePathKey(b))
	}
	if path, ok := j.env("PATH"); ok {
		if full, found := lookPath("hookwarden", path, ""); found {
			j.siteEngines = append(j.siteEngines, enginePathKey(full))
		}
	}
	// The same paths as a word with a leading tilde spells them
	// (rm -rf ~/.local/bin), where HOME holds them.
	if home, ok := j.env("HOME"); ok && filepath.IsAbs(home) {
		prefix := strings.TrimSuffix(enginePathKey(home), "/") + "/"
		for _, p := range j.siteEngines {
			if strings.HasPrefix(p, prefix) {
				j.siteEngines = append(j.siteEngines, "~/"+strings.TrimPrefix(p, prefix))
			}
		}
	}
	return j.siteEngines
}

// enginePathKey returns a path in the one spelling engine paths are
// compared in (siteEngineList, lookup, holdsEngine, classifyOne): cleaned
// and slash-separated. On Windows it also reads the forms Git Bash gives
// the same file, which is the shell Claude Code and Codex run commands in
// there: backslashes are separators, a drive path /c/Users/… is c:/Users/…
// (MSYS2's path conversion), trailing dots and spaces of a name are
// dropped (Win32 opens the name without them), and the key is lower-cased,
// since NTFS compares names case-insensitively. Parts known only at run time (dyn,
// evalDyn) are kept as they are.
func enginePathKey(p string) string { return pathKeyFor(p, runtime.GOOS) }

// pathKeyFor is enginePathKey for the operating system goos.
func pathKeyFor(p, goos string) string {
	if goos != "windows" {
		return path.Clean(p)
	}
	p = strings.ReplaceAll(p, `\`, "/")
	if len(p) >= 2 && p[0] == '/' && isASCIILetter(p[1]) && (len(p) == 2 || p[2] == '/') {
		p = p[1:2] + ":/" + strings.TrimPrefix(p[2:], "/")
	}
	parts := strings.Split(p, "/")
	for i, c := range parts {
		parts[i] = trimWin32Trailing(c)
	}
	p = strings.ToLower(path.Clean(strings.Join(parts, "/")))
	if len(p) == 2 && p[1] == ':' {
		p += "/" // a drive's root: path.Clean drops its slash
	}
	return p
}

// shellSlashes returns p as dirname and basename split it: on Windows
// (Git Bash, whose MSYS2 coreutils take a backslash as a separator too)
// with backslashes as slashes; elsewhere as it is.
func shellSlashes(p string) string {
	if runtime.GOOS == "windows" {
		return strings.ReplaceAll(p, `\`, "/")
	}
	return p
}

// isASCIILetter reports whether c is a letter a drive can be named by.
func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// absKey reports whether an enginePathKey key is absolute: rooted, or on
// Windows a drive path (c:/…).
func absKey(k string) bool {
	return strings.HasPrefix(k, "/") || (len(k) >= 3 && isASCIILetter(k[0]) && k[1] == ':' && k[2] == '/')
}

// holdsEngine reports whether s, a path argument, names a directory that
// holds one of engines (an ancestor of it): removing or moving s removes or
// moves the engine. s may be absolute, start with ~, or start with a part
// known only at run time ($HOME/.local/bin: the evaluator does not take
// inherited variables from the Site), whose known tail then counts when an
// engine's directory holds it (a tail of at least one component, other than
// a lone bin: "$OUT/bin" is a build's output folder, so "$GOPATH/bin" is not
// recognised).
func holdsEngine(s string, engines map[string]bool) bool {
	if strings.ContainsAny(s, "*?[") || len(engines) == 0 {
		return false
	}
	s = enginePathKey(strings.ReplaceAll(s, `\`, "/"))
	if i := strings.LastIndexAny(s, dyn+evalDyn+"$"); i >= 0 {
		j := strings.IndexByte(s[i:], '/')
		if j < 0 {
			return false
		}
		tail := strings.TrimSuffix(path.Clean(s[i+j:]), "/")
		if tail == "" || tail == "." || tail == "/bin" {
			// "$OUT/bin" is every build's output folder: a bare bin
			// after an unknown part is not taken to be the engine's.
			return false
		}
		for p := range engines {
			if strings.Contains(path.Dir(p)+"/", tail+"/") {
				return true
			}
		}
		return false
	}
	if !(absKey(s) || s == "~" || strings.HasPrefix(s, "~/")) {
		return false
	}
	dir := strings.TrimSuffix(s, "/") + "/"
	for p := range engines {
		if strings.HasPrefix(p, dir) {
			return true
		}
	}
	return false
}
