package policy

import "strings"

// Programs that run a shell command given in one of their options or
// arguments (each fact from the program's own manual, as installed on
// Debian 12): the command is judged as a script, as sh -c's is, so
// `tar --checkpoint-action=exec='git commit -n'` is the git commit it runs.

// optCode is one option of a program whose value is a shell command.
type optCode struct {
	// flag is the option as typed: "-e", "--rsh". A value follows as the
	// next word, or after "=" for a long option, or attached to a short one.
	flag string
	// prefix, when set, must start the value for it to be a command, and is
	// removed first ("exec=" of tar's --checkpoint-action, "ProxyCommand="
	// of ssh's -o, "shell " of gdb's -ex).
	prefix string
}

// optCodes maps a program to its options that carry a shell command.
func optCodes(name string) []optCode {
	switch name {
	// GNU tar 1.34 manual: --checkpoint-action=exec=COMMAND,
	// --to-command=COMMAND, -I/--use-compress-program=PROG (run by the
	// shell), -F/--info-script/--new-volume-script=SCRIPT,
	// --rsh-command=COMMAND.
	case "tar":
		return []optCode{{flag: "--checkpoint-action", prefix: "exec="}, {flag: "--to-command"}, {flag: "-I"},
			{flag: "--use-compress-program"}, {flag: "-F"}, {flag: "--info-script"}, {flag: "--new-volume-script"},
			{flag: "--rsh-command"}}
	// Info-ZIP zip 3.0: -TT/--unzip-command CMD tests the archive with CMD.
	case "zip":
		return []optCode{{flag: "-TT"}, {flag: "--unzip-command"}}
	// rsync 3.2: -e/--rsh=COMMAND is run by the local shell.
	case "rsync":
		return []optCode{{flag: "-e"}, {flag: "--rsh"}}
	// OpenSSH ssh_config(5): ProxyCommand and LocalCommand are run by the
	// user's shell on the local machine; -o sets them on the command line;
	// scp(1) and sftp(1) take -S program.
	case "ssh":
		return []optCode{{flag: "-o", prefix: "ProxyCommand="}, {flag: "-o", prefix: "ProxyCommand "},
			{flag: "-o", prefix: "LocalCommand="}, {flag: "-o", prefix: "LocalCommand "}}
	case "scp", "sftp":
		return []optCode{{flag: "-o", prefix: "ProxyCommand="}, {flag: "-o", prefix: "ProxyCommand "}, {flag: "-S"}}
	// man-db man(1): -P/--pager=PAGER runs PAGER through the shell.
	case "man":
		return []optCode{{flag: "-P"}, {flag: "--pager"}}
	// git-difftool(1) -x/--extcmd=COMMAND; git-grep(1)
	// -O/--open-files-in-pager[=PAGER] (judged by gitSub under these names).
	case "git-difftool":
		return []optCode{{flag: "-x"}, {flag: "--extcmd"}}
	case "git-grep":
		return []optCode{{flag: "-O"}, {flag: "--open-files-in-pager"}}
	// gdb(1): -ex/--eval-command COMMAND; gdb's "shell CMD" and "!CMD" run
	// CMD in a shell.
	case "gdb":
		return []optCode{{flag: "-ex", prefix: "shell "}, {flag: "-ex", prefix: "!"}, {flag: "--eval-command", prefix: "shell "},
			{flag: "--eval-command", prefix: "!"}, {flag: "-iex", prefix: "shell "}, {flag: "-iex", prefix: "!"}}
	}
	return nil
}

// editorNames are vim's names (vim(1): -c CMD, +CMD and --cmd CMD run an
// Ex command; ":!CMD" runs CMD in a shell).
func editorNames(name string) bool {
	switch name {
	case "vim", "vi", "nvim", "ex", "view", "vimdiff", "rvim", "gvim":
		return true
	}
	return false
}

// codeEnvVars are environment variables whose value a program runs as a
// shell command: pagers (man-db man(1) MANPAGER and PAGER, git's GIT_PAGER
// and PAGER, systemd's SYSTEMD_PAGER), less(1)'s input preprocessors
// LESSOPEN and LESSCLOSE (after a leading "|" or "||"), editors (VISUAL,
// EDITOR, GIT_EDITOR, GIT_SEQUENCE_EDITOR, run by crontab -e, git, visudo
// and many more) and BROWSER.
func codeEnvVars(name string) bool {
	switch name {
	case "PAGER", "MANPAGER", "GIT_PAGER", "SYSTEMD_PAGER",
		"LESSOPEN", "LESSCLOSE", "VISUAL", "EDITOR", "GIT_EDITOR",
		"GIT_SEQUENCE_EDITOR", "BROWSER":
		return true
	}
	return false
}

// optionCode judges the shell commands name's options carry (optCodes, vim
// and less commands after "!"), and the code in the command-running
// variables of env (codeEnvVars).
func (j *judge) optionCode(name string, args []field, env []envVar, depth int) {
	var rest []envVar // the environment the command runs with, less these
	var code []field
	for _, e := range env {
		if !codeEnvVars(e.name) {
			rest = append(rest, e)
			continue
		}
		v := e.val
		v.val = strings.TrimLeft(v.val, "|") // LESSOPEN='|cmd %s'
		code = append(code, v)
	}
	for _, v := range code {
		j.scriptField(v, depth+1, rest)
	}
	codes := optCodes(name)
	for i, a := range args {
		for _, oc := range codes {
			if v, ok := optValue(args, i, oc.flag); ok {
				if rest, ok := strings.CutPrefix(v.val, oc.prefix); ok {
					v.val = rest
					j.scriptField(v, depth+1, env)
				}
			}
		}
		if editorNames(name) || name == "less" {
			v, ok := a, false
			switch {
			case strings.HasPrefix(a.val, "+"):
				v.val, ok = a.val[1:], true
			case editorNames(name) && (a.val == "-c" || a.val == "--cmd") && i+1 < len(args):
				v, ok = args[i+1], true
			}
			if cmd, bang := exBang(v.val); ok && bang {
				v.val = cmd
				j.scriptField(v, depth+1, env)
			}
		}
	}
}

// exBang returns the shell command of an Ex or less command that runs one:
// "!CMD", ":!CMD", "silent !CMD", "r !CMD", "w !CMD" (vim's :!, :read !,
// :write !; less's "!" command).
func exBang(c string) (string, bool) {
	c = strings.TrimLeft(strings.TrimSpace(c), ":")
	for _, p := range []string{"silent!", "silent", "sil!", "sil", "read", "r", "write", "w"} {
		if rest, ok := strings.CutPrefix(c, p); ok && strings.HasPrefix(strings.TrimSpace(rest), "!") {
			c = strings.TrimSpace(rest)
			break
		}
	}
	rest, ok := strings.CutPrefix(c, "!")
	return rest, ok
}
