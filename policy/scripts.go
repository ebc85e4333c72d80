package policy

import (
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Scripts are code (issue 28 item 3): a script the command runs — sh FILE,
// bash FILE, source FILE, . FILE, ./FILE, BASH_ENV/ENV for a shell,
// python3 FILE, node FILE, ruby FILE, perl FILE, deno run FILE — is judged
// by its content, read through scriptSource (written earlier in the same
// command, or on disk bounded by maxScriptBytes). A shell script is judged
// as shell, a script of a language with a scanner as that code (its #!
// line decides for ./FILE). A script whose content cannot be known where
// it could change the verdict is refused (RuleScriptUnknown): written by
// the command with content known only at run time, a path known only at run
// time, or a text file on disk that is unreadable or over the bound. A file
// that does not exist runs nothing, and a binary is not a script.

// scriptFile judges the script at f run by kind ("sh" for a shell,
// "exec" for a file run directly, else an interpreter name).
func (j *judge) scriptFile(kind string, f field, env []envVar, depth int, sc *scope) {
	if f.subst || f.decoded {
		return // a process substitution: judged where it is built
	}
	if f.dynamic() {
		if kind == "exec" && isEngineName(path.Base(strings.ReplaceAll(f.val, `\`, "/"))) {
			// "$(command -v hookwarden)" check ...: the engine where PATH
			// finds it (lookpath.go), a program, not a script.
			return
		}
		j.hits.add(RuleScriptUnknown)
		return
	}
	if fdPath(f.val) {
		// /dev/fd/3 after exec 3<<<'…', /proc/self/fd/N: the content is
		// whatever the shell's descriptor holds when it runs, which is not
		// a file the judge can read (its own descriptors are other ones).
		j.hits.add(RuleScriptUnknown)
		return
	}
	src, known := j.scriptSource(sc, f.val)
	if w, written := sc.files[sc.overlayKey(f.val)]; !known && written && strings.Contains(w.content, evalDynOut) {
		// bash <(curl …), curl … > i.sh; sh i.sh: a program's output
		j.hits.add(RuleOutputAsCode)
		return
	}
	if !known {
		if j.scriptMatters(sc, f.val) {
			j.hits.add(RuleScriptUnknown)
		}
		return
	}
	if depth+1 > maxDepth {
		j.hits.add(RuleScanBoundNesting)
		return
	}
	if kind == "exec" {
		if isBinary(src) {
			return
		}
		kind = shebangKind(src)
	}
	j.judgeSource(kind, src, env, depth+1)
}

// judgeSource judges a script's text as the language kind names.
func (j *judge) judgeSource(kind, src string, env []envVar, depth int) {
	if kind == "sh" || isShellName(kind) {
		j.script(src, depth, env)
		return
	}
	j.codeIn(kind, field{val: src, raw: src}, depth, env)
}

// scriptMatters reports, for a script whose content scriptSource could not
// give, whether the unknown could change the verdict: the command wrote it
// with content known only at run time, or it is a text file on disk the
// judge could not read (over the bound, not regular, unreadable). A file
// that is missing, a binary, or a relative path while the directory the
// command starts in is not known (Policy.Judge) is not refused.
func (j *judge) scriptMatters(sc *scope, p string) bool {
	if _, written := sc.files[sc.overlayKey(p)]; written {
		return true
	}
	full, ok := j.diskPath(sc, p)
	if !ok {
		return false
	}
	fi, err := os.Stat(full)
	if err != nil {
		return !os.IsNotExist(err)
	}
	if fi.IsDir() {
		return false
	}
	if !fi.Mode().IsRegular() {
		return true
	}
	head, err := readHead(full)
	if err != nil {
		return true
	}
	return !isBinary(head)
}

// readHead reads the first bytes of a file (to tell a binary from text).
func readHead(full string) (string, error) {
	fh, err := os.Open(full)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	b := make([]byte, 512)
	n, _ := fh.Read(b)
	return string(b[:n]), nil
}

// isBinary reports content that is not a script: an executable format's
// magic number or a NUL byte in its first 512 bytes.
func isBinary(s string) bool {
	head := s[:min(len(s), 512)]
	return strings.HasPrefix(head, "\x7fELF") || strings.HasPrefix(head, "\xcf\xfa\xed\xfe") || strings.HasPrefix(head, "\xca\xfe\xba\xbe") ||
		strings.HasPrefix(head, "MZ") || strings.IndexByte(head, 0) >= 0
}

// shebangKind returns the interpreter a script's #! line names ("sh" for
// none, or for a shell): #!/usr/bin/env python3, #!/usr/bin/perl -w, ...
func shebangKind(src string) string {
	if !strings.HasPrefix(src, "#!") {
		return "sh"
	}
	line := src[2:]
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	words := strings.Fields(line)
	for len(words) > 0 {
		name := filepath.Base(words[0])
		if name == "env" {
			words = words[1:]
			for len(words) > 0 && strings.HasPrefix(words[0], "-") {
				words = words[1:]
			}
			continue
		}
		if codeLangOf(interpreterName(name)) != nil {
			return name
		}
		return "sh"
	}
	return "sh"
}

// shellEnvFile judges the file BASH_ENV (bash, non-interactive) or ENV (sh
// and others in POSIX mode) names for a shell run with env in effect and
// the script's own assignments in sc: the shell sources it before its
// script.
func (j *judge) shellEnvFile(env []envVar, depth int, sc *scope) {
	for _, e := range env {
		j.startupFiles(e.name, e.val, env, depth, sc)
	}
	for _, n := range []string{"BASH_ENV", "ENV", "ZDOTDIR"} {
		if v, ok := sc.vars[n]; ok {
			j.startupFiles(n, lit(v), env, depth, sc)
		}
	}
}

// startupFiles judges the files a shell runs because of the variable name
// set to val: BASH_ENV and ENV name one; ZDOTDIR is the folder zsh reads
// .zshenv from (always) and .zprofile, .zshrc and .zlogin (login or
// interactive) instead of $HOME (zsh(1), STARTUP/SHUTDOWN FILES; zsh
// 5.9), so ZDOTDIR=/tmp/z zsh -c true runs /tmp/z/.zshenv.
func (j *judge) startupFiles(name string, val field, env []envVar, depth int, sc *scope) {
	switch name {
	case "BASH_ENV", "ENV":
		j.scriptFile("sh", val, env, depth, sc)
	case "ZDOTDIR":
		for _, f := range []string{".zshenv", ".zprofile", ".zshrc", ".zlogin"} {
			p := val
			p.val, p.raw = strings.TrimSuffix(val.val, "/")+"/"+f, strings.TrimSuffix(val.raw, "/")+"/"+f
			j.scriptFile("sh", p, env, depth, sc)
		}
	}
}

// scriptOperand returns the script file an interpreter runs (its first
// operand after the options codeFlags and the language's manual name),
// when it runs one and not code given inline or a module.
func scriptOperand(name string, args []field) (field, bool) {
	name = interpreterName(name)
	valued := map[string]string{"python3": "WXQ", "python2": "WXQ", "node": "r", "ruby": "IrEC", "perl": "IMmCx"}[name]
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if v == "--" {
			if i+1 < len(args) {
				return args[i+1], true
			}
			return field{}, false
		}
		if isStdinPath(v) || (strings.HasPrefix(name, "python") && strings.HasPrefix(v, "-m")) {
			return field{}, false
		}
		if !strings.HasPrefix(v, "-") || v == "-" {
			return args[i], true
		}
		if strings.HasPrefix(v, "--") {
			if name == "node" && (v == "--require" || v == "--import" || v == "--env-file" || v == "--input-type") {
				i++
			}
			continue
		}
		if len(v) == 2 && strings.IndexByte(valued, v[1]) >= 0 {
			i++
		}
	}
	return field{}, false
}

// isScriptPath reports a file name a JavaScript runtime runs as a script
// (bun FILE, as opposed to bun SCRIPT-NAME from package.json).
func isScriptPath(v string) bool {
	for _, ext := range []string{".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx"} {
		if strings.HasSuffix(v, ext) {
			return true
		}
	}
	return strings.Contains(v, "/")
}

// fdPath reports a path that names an open file descriptor of the process
// that opens it rather than a file: /dev/fd/N, /dev/stdin, /dev/stdout,
// /dev/stderr, /proc/self/fd/N, /proc/thread-self/fd/N and /proc/PID/fd/N.
// Standard input (isStdinPath) is followed where a shell reads it, so it is
// not one of them here.
func fdPath(p string) bool {
	if isStdinPath(p) {
		return false
	}
	c := path.Clean(p)
	switch {
	case c == "/dev/stdout" || c == "/dev/stderr" || strings.HasPrefix(c, "/dev/fd/"):
		return true
	case strings.HasPrefix(c, "/proc/"):
		parts := strings.Split(c, "/") // "", proc, self|thread-self|PID, fd, N
		return len(parts) >= 5 && parts[3] == "fd" && (parts[2] == "self" || parts[2] == "thread-self" || isDigits(parts[2]))
	}
	return false
}
