package policy

import (
	"strings"
)

// This file judges git configuration that runs commands (issue 29 item 5):
// a key whose value git runs is judged as the command it runs, by the
// policy's own script judge, wherever the key is set (git -c, git
// --config-env, git config, GIT_CONFIG_PARAMETERS, GIT_CONFIG_KEY_<n> /
// GIT_CONFIG_VALUE_<n>), and so is an environment variable git runs. A value
// known only at run time, and configuration read from a file the agent
// names (GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM, XDG_CONFIG_HOME, HOME), are
// refused (RuleGitConfigRedirect).

// configCommandKey reports a lower-cased config key whose value git runs as
// a command (git-config(1) of git 2.39.5, each key's entry): core.editor,
// sequence.editor, core.pager, pager.<cmd> ("a string value is the pager
// command"), core.sshCommand, core.askPass, core.gitProxy,
// core.alternateRefsCommand, core.fsmonitor (a value other than a boolean
// is "the path of a hook command"), diff.external, diff.<driver>.command,
// diff.<driver>.textconv, merge.<driver>.driver, mergetool.<tool>.cmd and
// .path, difftool.<tool>.cmd and .path, filter.<driver>.clean, .smudge and
// .process, credential.helper and credential.<url>.helper, gpg.program and
// gpg.<format>.program, gpg.ssh.defaultKeyCommand, sendemail.sendmailCmd,
// .toCmd, .ccCmd and .smtpServer (an absolute path is a sendmail program),
// uploadpack.packObjectsHook, remote.<name>.uploadpack and .receivepack,
// browser.<tool>.cmd and .path, man.<tool>.cmd and .path, imap.tunnel,
// submodule.<name>.update ("!command"), trailer.<token>.command and .cmd,
// interactive.diffFilter. boolish is true for keys that also take a boolean
// (core.fsmonitor, pager.<cmd>), which runs nothing.
func configCommandKey(lk string) (command, boolish bool) {
	switch lk {
	case "core.editor", "sequence.editor", "core.pager", "core.sshcommand", "core.askpass", "core.gitproxy",
		"core.alternaterefscommand", "diff.external", "credential.helper", "gpg.program", "gpg.ssh.defaultkeycommand",
		"sendemail.sendmailcmd", "sendemail.tocmd", "sendemail.cccmd", "sendemail.smtpserver",
		"uploadpack.packobjectshook", "imap.tunnel", "interactive.difffilter":
		return true, false
	case "core.fsmonitor":
		return true, true
	}
	first, rest, ok := strings.Cut(lk, ".")
	if !ok {
		return false, false
	}
	if first == "pager" {
		return true, true
	}
	i := strings.LastIndexByte(rest, '.')
	if i < 0 {
		return false, false
	}
	last := rest[i+1:]
	switch first {
	case "diff":
		return last == "command" || last == "textconv", false
	case "merge":
		return last == "driver", false
	case "mergetool", "difftool", "browser", "man":
		return last == "cmd" || last == "path", false
	case "filter":
		return last == "clean" || last == "smudge" || last == "process", false
	case "credential":
		return last == "helper", false
	case "gpg":
		return last == "program", false
	case "remote":
		return last == "uploadpack" || last == "receivepack", false
	case "submodule":
		return last == "update", false
	case "trailer":
		return last == "command" || last == "cmd", false
	}
	return false, false
}

// gitBool reports a git boolean spelling (git-config(1), "Values": true,
// yes, on, 1, false, no, off, 0, the empty value).
func gitBool(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "on", "1", "false", "no", "off", "0", "":
		return true
	}
	return false
}

// configCommand judges key=val for a key git runs as a command: the value
// is judged as the shell code git hands to sh -c (a leading "!" of
// credential helpers and submodule.<name>.update dropped); a value known
// only at run time is refused.
func (j *judge) configCommand(lk string, val field, depth int, env []envVar) {
	cmd, boolish := configCommandKey(lk)
	if !cmd {
		if lk == "protocol.ext.allow" || lk == "protocol.allow" {
			// The ext:: transport runs a command named in the URL
			// (git-remote-ext(1)); allowing it lets any URL run one.
			if val.dynamic() || !strings.EqualFold(strings.TrimSpace(val.val), "never") {
				j.hits.add(RuleGitConfigRedirect)
			}
		}
		return
	}
	if val.dynamic() {
		j.hits.add(RuleGitConfigRedirect)
		return
	}
	if boolish && gitBool(val.val) {
		return
	}
	j.script(strings.TrimPrefix(val.val, "!"), depth+1, env)
}

// gitCommandEnv lists environment variables git runs as commands
// (git(1), "ENVIRONMENT VARIABLES", git 2.39.5): GIT_EDITOR,
// GIT_SEQUENCE_EDITOR, GIT_PAGER, GIT_SSH_COMMAND, GIT_SSH, GIT_ASKPASS,
// GIT_PROXY_COMMAND, GIT_EXTERNAL_DIFF, and the EDITOR, VISUAL and PAGER
// git falls back to.
func gitCommandEnv(name string) bool {
	switch name {
	case "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER", "GIT_SSH_COMMAND", "GIT_SSH",
		"GIT_ASKPASS", "GIT_PROXY_COMMAND", "GIT_EXTERNAL_DIFF", "EDITOR", "VISUAL", "PAGER":
		return true
	}
	return false
}

// gitConfigFileEnv reports a variable that makes git read configuration
// from a file the command names (git-config(1), "FILES" and "ENVIRONMENT":
// GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM, and $XDG_CONFIG_HOME/git/config and
// $HOME/.gitconfig for XDG_CONFIG_HOME and HOME; GIT_CONFIG for git config
// itself). /dev/null (no configuration, as test suites use) is fine.
func gitConfigFileEnv(e envVar) bool {
	switch e.name {
	case "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG", "XDG_CONFIG_HOME", "HOME":
		return e.val.dynamic() || e.val.val != "/dev/null"
	}
	return false
}

// gitEnvConfig judges the environment of one git command: commands git
// runs from it, configuration read from elsewhere, and the configuration
// GIT_CONFIG_PARAMETERS and GIT_CONFIG_COUNT with GIT_CONFIG_KEY_<n> /
// GIT_CONFIG_VALUE_<n> carry (each pair judged as git -c would be, aliases
// added to aliases, which the caller owns).
func (j *judge) gitEnvConfig(env []envVar, depth int, aliases map[string]string) {
	for _, e := range env {
		switch {
		case gitCommandEnv(e.name):
			if e.val.dynamic() {
				j.hits.add(RuleGitConfigRedirect)
			} else {
				j.script(e.val.val, depth+1, nil)
			}
		case gitConfigFileEnv(e):
			j.hits.add(RuleGitConfigRedirect)
		case e.name == "GIT_CONFIG_PARAMETERS":
			pairs, ok := parseConfigParameters(e.val.val)
			if !ok || e.val.dynamic() {
				j.hits.add(RuleGitConfigRedirect)
			}
			for _, p := range pairs {
				j.gitConfigParam(lit(p), aliases, depth, env)
			}
		case isGitConfigKeyVar(e.name):
			n := strings.TrimPrefix(e.name, "GIT_CONFIG_KEY_")
			val := field{val: dyn, raw: dyn}
			for _, v := range env {
				if v.name == "GIT_CONFIG_VALUE_"+n {
					val = v.val
				}
			}
			if e.val.dynamic() {
				j.hits.add(RuleGitConfigRedirect)
				continue
			}
			j.gitConfigParam(field{val: e.val.val + "=" + val.val, raw: e.val.raw}, aliases, depth, env)
		}
	}
}

// parseConfigParameters splits GIT_CONFIG_PARAMETERS as git's
// git_config_from_parameters does (config.c, git 2.39): shell single-quoted
// words separated by blanks, each 'key=value' (the old form) or
// 'key'='value' (the form git 2.31 and later write); a backslash outside
// quotes escapes the next byte (sq_quote closes the quote, writes a
// backslash-escaped ' or !, and opens it again).
// It returns the pairs as key=value, and ok=false for text it cannot read
// (an unclosed quote).
func parseConfigParameters(s string) (pairs []string, ok bool) {
	var cur strings.Builder
	have := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return pairs, false
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
			have = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			have = true
		case c == ' ' || c == '\t' || c == '\n':
			if have {
				pairs = append(pairs, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteByte(c)
			have = true
		}
	}
	if have {
		pairs = append(pairs, cur.String())
	}
	return pairs, true
}

// aliasParameters renders aliases as GIT_CONFIG_PARAMETERS, the way git
// hands its -c options to the commands it starts (git(1), "-c": "passed
// ... to child processes through GIT_CONFIG_PARAMETERS"), so a "!" alias
// that runs git sees the aliases of the command line that ran it.
func aliasParameters(aliases map[string]string) envVar {
	var b strings.Builder
	sq := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	unknown := false
	for k, v := range aliases {
		if v == dyn {
			unknown = true
			continue
		}
		b.WriteString(sq("alias."+k) + "=" + sq(v) + " ")
	}
	f := lit(b.String())
	if unknown {
		f = lit(b.String() + dyn)
	}
	return envVar{name: "GIT_CONFIG_PARAMETERS", val: f}
}
