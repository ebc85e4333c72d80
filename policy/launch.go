package policy

import "strings"

// launcherSpec is what the policy knows of a launcher that only runs its
// arguments as a command: short options whose letter takes a value (stuck or
// the next argument), long options taking a value unless written
// --opt=value, and how many positional words (a duration, a priority, a CPU
// mask) stand between its options and the command it runs. The arities come
// from the --help of GNU coreutils (nice, timeout, stdbuf, env), findutils
// (xargs), util-linux (setsid, ionice, chrt, taskset, flock) as installed on
// the build machine, and the sudo(8) and time(1) manuals.
type launcherSpec struct {
	valShort   string
	valLong    []string
	positional int
}

// simpleLaunchers are the launchers whose whole effect, for the policy and
// for the target scan (ScanTargets), is to run the command after
// their options. The policy's launcher step and launchedCommand share this
// one table.
func simpleLaunchers(name string) (launcherSpec, bool) {
	switch name {
	case "exec":
		return launcherSpec{valShort: "a"}, true
	case "builtin", "nohup", "setsid", "nocorrect", "noglob", "caffeinate", "unbuffer", "catchsegv":
		return launcherSpec{}, true
	case "nice":
		return launcherSpec{valShort: "n", valLong: []string{"--adjustment"}}, true
	case "time":
		return launcherSpec{valShort: "fo", valLong: []string{"--format", "--output"}}, true
	case "timeout":
		return launcherSpec{valShort: "sk", valLong: []string{"--signal", "--kill-after"}, positional: 1}, true
	case "stdbuf":
		return launcherSpec{valShort: "ioe", valLong: []string{"--input", "--output", "--error"}}, true
	case "ionice":
		return launcherSpec{valShort: "cnpPu", valLong: []string{"--class", "--classdata", "--pid", "--pgid", "--uid"}}, true
	case "chrt", "taskset":
		return launcherSpec{positional: 1}, true
	case "xargs":
		return launcherSpec{valShort: "InLPdEas", valLong: []string{"--max-args", "--max-procs", "--delimiter", "--arg-file", "--max-chars",
			"--process-slot-var"}}, true
	// systemd-run(1) (systemd 252): the command runs as a transient unit,
	// now or at a timer's time.
	case "systemd-run":
		return launcherSpec{valShort: "upEHM", valLong: []string{"--unit", "--property", "--description", "--slice", "--uid", "--gid",
			"--nice", "--working-directory", "--setenv", "--service-type", "--on-active", "--on-boot", "--on-startup",
			"--on-unit-active", "--on-unit-inactive", "--on-calendar", "--timer-property", "--path-property",
			"--socket-property", "--host", "--machine", "--expand-environment"}}, true
	}
	return launcherSpec{}, false
}

// sudoSpec is the option arity of sudo, doas, pkexec and run0 (sudo(8),
// systemd-run0(1)).
var sudoSpec = launcherSpec{valShort: "ugphCDrtTU", valLong: []string{"--user", "--group", "--host", "--prompt", "--close-from", "--chdir", "--role", "--type", "--command-timeout", "--other-user", "--machine", "--description", "--slice", "--unit", "--property", "--nice", "--setenv", "--background"}}

// launchedCommand reports whether name (a command's base name) is a launcher
// that runs the command in its arguments (env excepted: its assignments and
// -C/-S options need their own reading), and returns the words of the
// command it runs: args without the launcher's options, their values and
// its positional words. For sudo, doas, pkexec and run0 the NAME=VALUE
// assignments after the options are kept at the front of the returned words.
// `command -v`/`-V` runs nothing: ok is true and the result is empty.
func launchedCommand(name string, args []string) (cmd []string, ok bool) {
	switch name {
	case "command":
		for _, a := range args {
			if a == "-v" || a == "-V" {
				return nil, true
			}
		}
		return args[skipOptsIndex(len(args), func(i int) string { return args[i] }, "", nil):], true
	case "sudo", "doas", "pkexec", "run0":
		return args[skipOptsIndex(len(args), func(i int) string { return args[i] }, sudoSpec.valShort, sudoSpec.valLong):], true
	}
	spec, ok := simpleLaunchers(name)
	if !ok {
		return nil, false
	}
	return args[specIndex(spec, len(args), func(i int) string { return args[i] }):], true
}

// specIndex is the index in a launcher's n arguments (read through val) of
// the command it runs: past its options and positional words (n when none).
func specIndex(spec launcherSpec, n int, val func(int) string) int {
	i := skipOptsIndex(n, val, spec.valShort, spec.valLong)
	return min(i+spec.positional, n)
}

// skipOptsIndex is skipOpts over n arguments read through val: the index of
// the first argument after the leading options (n when none is left).
func skipOptsIndex(n int, val func(int) string, valShort string, valLong []string) int {
	for i := 0; i < n; i++ {
		v := val(i)
		if v == "--" {
			return i + 1
		}
		if !strings.HasPrefix(v, "-") || v == "-" {
			return i
		}
		if strings.HasPrefix(v, "--") {
			if !strings.Contains(v, "=") {
				for _, l := range valLong {
					if v == l {
						i++
						break
					}
				}
			}
			continue
		}
		for k := 1; k < len(v); k++ {
			if strings.IndexByte(valShort, v[k]) >= 0 {
				if k == len(v)-1 {
					i++
				}
				break
			}
		}
	}
	return n
}

// runsCode reports whether the command name (a base name) with args is an
// interpreter of codeFlags, deno eval or awk that runs a program given on
// its command line or read from stdin, rather than a script file or a
// python -m module: a program whose effects (a chdir, a git call) no static
// reading of the shell command can follow. The target scan leaves such a
// command unresolved, so the engine judges it instead of skipping it.
func runsCode(name string, args []string) bool {
	name = interpreterName(name)
	switch name {
	case "deno":
		rest := args[skipOptsIndex(len(args), func(i int) string { return args[i] }, "", nil):]
		return len(rest) > 0 && rest[0] == "eval"
	case "awk", "gawk", "mawk", "nawk", "busybox-awk":
		for _, a := range args {
			if a == "-f" || a == "--file" || strings.HasPrefix(a, "--file=") {
				return false
			}
		}
		return true
	}
	spec, ok := codeFlags(name)
	if !ok {
		return false
	}
	for _, a := range args {
		switch {
		case a == "--" || a == "-":
			return true // the program is read from stdin
		case !strings.HasPrefix(a, "-"):
			return false // a script file
		case strings.HasPrefix(a, "--"):
			for _, l := range spec.long {
				if a == l || strings.HasPrefix(a, l+"=") {
					return true
				}
			}
		case strings.HasPrefix(name, "py") && strings.ContainsRune(a, 'm'):
			return false // python -m runs a module
		case strings.ContainsAny(a[1:], spec.short):
			return true
		}
	}
	return true // no script: the program comes from stdin
}
