package policy

import (
	"strings"
	"unicode"
)

// Commands that run a command somewhere the hook does not see it run: on
// another host (ssh), in a container (docker, podman, nerdctl), as a
// transient systemd unit (systemd-run, in simpleLaunchers) or from the
// user's crontab. Each is judged as the command it runs, as the other
// launchers are: what an agent may not run here it may not hand to a host,
// a container or a scheduler either (the repository may be mounted there,
// or the host may be this one).

// sshSpec is ssh's option arity: the options ssh(1)'s synopsis shows with a
// value (OpenSSH 9). The first operand is the destination.
var sshSpec = launcherSpec{valShort: "BbcDEeFIiJLlmOoPpRSWw", positional: 1}

// sshCommand returns the remote command of `ssh [options] destination
// [command ...]`: its words joined with spaces, which the remote user's
// shell parses as a script (ssh(1): "command is executed on the remote host
// instead of a login shell"); ok is false when there is none (an
// interactive session, or one reading its commands on stdin).
func sshCommand(args []field) (field, bool) {
	rest := args[specIndex(sshSpec, len(args), func(i int) string { return args[i].val }):]
	if len(rest) == 0 {
		return field{}, false
	}
	return joinFields(rest), true
}

// containerValShort and containerValLong are the options of docker (and
// podman, nerdctl) run, exec and compose run/exec that take a value
// (docker run --help, Docker 27; podman-run(1)): those the command line
// before the image or container name may hold.
const containerValShort = "aceEhlmpuvw"

var containerValLong = []string{"--add-host", "--annotation", "--attach", "--blkio-weight", "--cap-add", "--cap-drop",
	"--cgroup-parent", "--cgroupns", "--cidfile", "--cpu-shares", "--cpus", "--cpuset-cpus", "--cpuset-mems",
	"--detach-keys", "--device", "--dns", "--dns-option", "--dns-search", "--domainname", "--entrypoint", "--env",
	"--env-file", "--expose", "--gpus", "--group-add", "--health-cmd", "--health-interval", "--health-retries",
	"--health-timeout", "--hostname", "--index", "--ip", "--ip6", "--ipc", "--isolation", "--label", "--label-file",
	"--link", "--log-driver", "--log-opt", "--mac-address", "--memory", "--memory-swap", "--mount", "--name",
	"--network", "--net", "--network-alias", "--pid", "--platform", "--publish", "--pull", "--restart", "--runtime",
	"--security-opt", "--shm-size", "--stop-signal", "--stop-timeout", "--storage-opt", "--sysctl", "--tmpfs",
	"--ulimit", "--user", "--userns", "--uts", "--volume", "--volumes-from", "--workdir"}

// containerCommand returns the command `docker [global options] [container
// | compose [options]] run|exec [options] IMAGE|CONTAINER|SERVICE [COMMAND
// ...]` runs, with --entrypoint's program in front when one is given and a
// leading sudo or doas taken off (root in the container is not root here);
// ok is false for any other subcommand or when no command is named (the
// image's own command runs, which nothing here names).
func containerCommand(args []field) ([]field, bool) {
	rest := skipOpts(args, "cHl", []string{"--context", "--host", "--config", "--log-level", "--tlscacert", "--tlscert", "--tlskey", "--url", "--connection"})
	if len(rest) > 0 && rest[0].val == "container" {
		rest = rest[1:]
	}
	if len(rest) > 0 && rest[0].val == "compose" {
		rest = skipOpts(rest[1:], "fp", []string{"--file", "--project-name", "--profile", "--env-file", "--project-directory", "--ansi", "--progress", "--parallel"})
	}
	if len(rest) == 0 || (rest[0].val != "run" && rest[0].val != "exec") {
		return nil, false
	}
	opts := rest[1:]
	k := skipOptsIndex(len(opts), func(i int) string { return opts[i].val }, containerValShort, containerValLong)
	if k >= len(opts) {
		return nil, false
	}
	var entry []field
	for i, a := range opts[:k] { // every option before the image, values included
		if a.val == "--entrypoint" && i+1 < k {
			entry = []field{opts[i+1]}
		} else if v, ok := strings.CutPrefix(a.val, "--entrypoint="); ok {
			entry = []field{withVal(a, v)}
		}
	}
	cmd := append(entry, opts[k+1:]...)
	if entry == nil && len(cmd) > 0 && runsAsGit(opts[k].val, cmd[0].val) {
		cmd = append([]field{{val: "git", raw: "git"}}, cmd...)
	}
	if len(cmd) > 0 && (cmd[0].val == "sudo" || cmd[0].val == "doas") {
		// root inside the container is the container's, not this host's:
		// the command sudo runs there is what is judged
		cmd = skipOpts(cmd[1:], sudoSpec.valShort, sudoSpec.valLong)
	}
	return cmd, len(cmd) > 0
}

// runsAsGit reports whether the words after a container image, run
// without --entrypoint, are git's arguments. The image's entrypoint is not
// known here. For an image named git (alpine/git, bitnami/git:2.47,
// registry.example/git@sha256:…) they are when the first starts with "-"
// or is a git command: alpine/git's ENTRYPOINT is ["git"], and its
// docker-entrypoint.sh runs any other first word as a program
// (github.com/alpine-docker/git, Dockerfile and docker-entrypoint.sh). For
// any other image they are taken as git's when the first is a hook-running
// git subcommand (docker run IMG commit -n): an entrypoint that runs git
// would commit there.
func runsAsGit(image, first string) bool {
	if hookRunningGitSub(first) {
		return true
	}
	name := image[strings.LastIndex(image, "/")+1:]
	if i := strings.IndexAny(name, ":@"); i >= 0 {
		name = name[:i]
	}
	return name == "git" && (strings.HasPrefix(first, "-") || isGitBuiltin(first))
}

// crontabReadsStdin reports whether crontab's arguments install a crontab
// read from stdin: no file operand, or "-" (crontab(1)); -l, -r and -e
// install none.
func crontabReadsStdin(args []field) bool {
	file, ok := crontabFile(args)
	return ok && (file == nil || isStdinPath(file.val))
}

// crontabFile returns the file operand of a crontab command that installs
// one (nil when it reads stdin); ok is false for -l, -r, -e and -V, which
// install nothing.
func crontabFile(args []field) (*field, bool) {
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "-u":
			i++ // -u USER
		case v == "-l" || v == "-r" || v == "-e" || v == "-V":
			return nil, false
		case strings.HasPrefix(v, "-") && v != "-":
		default:
			f := args[i]
			return &f, true
		}
	}
	return nil, true
}

// cronCommands returns the shell commands of a crontab's text, one per line:
// each job line without its schedule (five time fields, or one @word such
// as @reboot), cut at its first unescaped % (the rest is the job's stdin,
// crontab(5)); comments, blank lines and NAME=VALUE settings are left out.
func cronCommands(text string) string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || cronSetting(line) {
			continue
		}
		skip := 5
		if strings.HasPrefix(line, "@") {
			skip = 1
		}
		rest := line
		for range skip {
			rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
			if i := strings.IndexFunc(rest, unicode.IsSpace); i >= 0 {
				rest = rest[i:]
			} else {
				rest = ""
			}
		}
		out = append(out, cronCut(strings.TrimSpace(rest)))
	}
	return strings.Join(out, "\n")
}

// cronSetting reports whether a crontab line is a NAME=VALUE setting.
func cronSetting(line string) bool {
	name, _, ok := strings.Cut(line, "=")
	name = strings.TrimSpace(name)
	return ok && name != "" && !strings.ContainsFunc(name, func(r rune) bool {
		return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r))
	})
}

// cronCut returns cmd up to its first % not escaped by a backslash.
func cronCut(cmd string) string {
	for i := 0; i < len(cmd); i++ {
		if cmd[i] == '\\' {
			i++
			continue
		}
		if cmd[i] == '%' {
			return cmd[:i]
		}
	}
	return cmd
}

// crontab judges `crontab FILE` by the commands of the file it installs (as
// the command wrote it earlier, or on disk); one that cannot be read is
// judged as an unknown script, as at -f's is. A crontab read from stdin is judged where the evaluator
// follows stdin (feed).
func (j *judge) crontab(args []field, env []envVar, depth int, sc *scope) {
	file, installs := crontabFile(args)
	if !installs || file == nil || isStdinPath(file.val) {
		return
	}
	if !file.dynamic() {
		if src, ok := j.scriptSource(sc, file.val); ok {
			j.script(cronCommands(src), depth+1, env)
			return
		}
	}
	j.scriptField(field{val: dyn}, depth+1, env)
}

// hashShadows judges bash's `hash -p FILE NAME...`, after which this shell
// runs FILE for each NAME (bash(1), SHELL BUILTIN COMMANDS): as setting
// PATH for git does, naming git, a git-SUBCOMMAND, hookwarden or a hook
// manager's executable replaces what runs the repository's hooks
// (RuleHookManagerConfig). Other names, and hash without -p, change
// nothing the hooks depend on.
func (j *judge) hashShadows(args []field) {
	file := false
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "-p":
			file = true
			i++ // the FILE
		case strings.HasPrefix(v, "-p"):
			file = true // -pFILE
		case strings.HasPrefix(v, "-"):
		case file:
			if name, known := cmdName(args[i]); !known || hookProgram(name) {
				j.hits.add(RuleHookManagerConfig)
			}
		}
	}
}

// containerReadsScript reports whether a docker (podman, nerdctl) run or
// exec passes this command's stdin (-i, --interactive) to a shell in the
// container that reads its script there (echo CMD | docker run -i img sh).
func containerReadsScript(args []field) bool {
	cmd, ok := containerCommand(args)
	if !ok || !isShellName(cmd[0].val) || !stdinShell(cmd[1:]) {
		return false
	}
	return optionIn(args, "--interactive", "i")
}
