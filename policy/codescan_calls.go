package policy

import (
	"strings"
	"sync"
)

// callKind is what a call does with its arguments.
type callKind uint8

const (
	ckShell     callKind = iota + 1 // arg 0 is a shell command (a list: an argv)
	ckArgv                          // arg 0 is an argv list (a string: a shell command)
	ckVarArgv                       // every positional argument is one argv word
	ckExecList                      // (path, [arg0, args...]): os.execv and kin
	ckExecVar                       // (path, arg0, args...): os.execl and kin
	ckSpawnList                     // (mode, path, [arg0, args...]): os.spawnv
	ckSpawnVar                      // (mode, path, arg0, args...): os.spawnl
	ckCmdArgs                       // (cmd, [args], {options}): Node spawn/execFile, Deno.Command
	ckMulti                         // Ruby/Perl system/exec: one string is a shell command, several an argv
	ckCode                          // arg 0 is code of the same language (exec, eval)
	ckOpen                          // (path, mode): writes when the mode does
	ckWrite                         // every string argument is a path written or created
	ckRemove                        // every string argument is a path removed, moved or re-permissioned
	ckOptsCmd                       // ({cmd: [...]}) or ([...]): Bun.spawn, Deno.run
	ckCopy                          // (source..., destination): only the last path is written
	ckGitLib                        // a git library writes a commit or a ref itself (gitlib.go)
	ckGitCmd                        // GitPython's repo.git.SUB(*args, **kwargs): git SUB with them (gitlib.go)
	ckGitOpts                       // a commit call given git options as an object's keys: simple-git (gitlib.go)
)

// codeCalls maps, per language, a call name to what it does. A name with a
// dot matches a call whose resolved name (imports and aliases followed) is
// that name or ends with "."+name; a bare name matches that last component
// on any receiver (kept for names no other library uses for something
// else). Sources: the Python 3.12 library reference (os, subprocess, pty,
// asyncio, shutil, pathlib, tarfile, zipfile), Node 22's child_process and
// fs, Bun's and Deno's runtime APIs, Ruby 3.3's Kernel, Open3, IO, Process,
// File and FileUtils, perlfunc and File::Path/File::Copy.
//
// It is built on first use (a hook process that judges no code never
// builds it).
var codeCalls = sync.OnceValue(func() map[string]map[string]callKind {
	return map[string]map[string]callKind{
		"python": {
			"os.system": ckShell, "os.popen": ckShell, "getoutput": ckShell, "getstatusoutput": ckShell,
			"check_output": ckArgv, "check_call": ckArgv, "Popen": ckArgv, "subprocess.run": ckArgv, "subprocess.call": ckArgv,
			"pty.spawn": ckArgv, "create_subprocess_shell": ckShell, "create_subprocess_exec": ckVarArgv,
			"execv": ckExecList, "execve": ckExecList, "execvp": ckExecList, "execvpe": ckExecList,
			"posix_spawn": ckExecList, "posix_spawnp": ckExecList,
			"execl": ckExecVar, "execle": ckExecVar, "execlp": ckExecVar, "execlpe": ckExecVar,
			"spawnv": ckSpawnList, "spawnve": ckSpawnList, "spawnvp": ckSpawnList, "spawnvpe": ckSpawnList,
			"spawnl": ckSpawnVar, "spawnle": ckSpawnVar, "spawnlp": ckSpawnVar, "spawnlpe": ckSpawnVar,
			"exec": ckCode, "eval": ckCode, "compile": ckCode,
			"open": ckOpen, "fdopen": ckOpen, "os.open": ckOpen,
			"write_text": ckWrite, "write_bytes": ckWrite, "touch": ckWrite, "mkdir": ckWrite, "makedirs": ckWrite,
			"copy": ckCopy, "copy2": ckCopy, "copyfile": ckCopy, "copytree": ckCopy, "copymode": ckCopy, "copystat": ckCopy,
			"symlink": ckWrite, "link": ckWrite, "symlink_to": ckWrite, "hardlink_to": ckWrite, "link_to": ckWrite,
			"extractall": ckWrite, "extract": ckWrite, "mkfifo": ckWrite, "mknod": ckWrite, "utime": ckWrite, "truncate": ckWrite,
			"rmtree": ckRemove, "remove": ckRemove, "unlink": ckRemove, "rmdir": ckRemove, "removedirs": ckRemove,
			"rename": ckRemove, "renames": ckRemove, "os.replace": ckRemove, "move": ckRemove, "chmod": ckRemove,
			"lchmod": ckRemove, "chown": ckRemove, "lchown": ckRemove, "Path.replace": ckRemove,
			"create_commit": ckGitLib, "amend_commit": ckGitLib, "create_from_tree": ckGitLib, "index.commit": ckGitLib,
			"do_commit": ckGitLib, "porcelain.commit": ckGitLib, "commit_tree": ckGitLib, "git.commit": ckGitCmd,
			"git.merge": ckGitCmd, "git.push": ckGitCmd, "git.am": ckGitCmd, "git.rebase": ckGitCmd, "git.config": ckGitCmd,
			"git.execute": ckArgv,
		},
		"js": {
			"execSync": ckShell, "child_process.exec": ckShell, "execa.command": ckShell, "execaCommand": ckShell, "execaCommandSync": ckShell,
			"spawnSync": ckCmdArgs, "child_process.spawn": ckCmdArgs, "execFile": ckCmdArgs, "execFileSync": ckCmdArgs, "execa": ckCmdArgs, "execaSync": ckCmdArgs,
			"Bun.spawn": ckOptsCmd, "Bun.spawnSync": ckOptsCmd, "Deno.run": ckOptsCmd, "Deno.Command": ckCmdArgs,
			"eval": ckCode, "Function": ckCode, "runInThisContext": ckCode, "runInNewContext": ckCode, "runInContext": ckCode,
			"writeFileSync": ckWrite, "writeFile": ckWrite, "appendFileSync": ckWrite, "appendFile": ckWrite,
			"copyFileSync": ckCopy, "copyFile": ckCopy, "cpSync": ckCopy, "fs.cp": ckCopy, "mkdirSync": ckWrite, "fs.mkdir": ckWrite,
			"symlinkSync": ckWrite, "fs.symlink": ckWrite, "linkSync": ckWrite, "createWriteStream": ckWrite, "outputFile": ckWrite,
			"outputFileSync": ckWrite, "ensureDir": ckWrite, "ensureFile": ckWrite, "writeTextFile": ckWrite, "writeTextFileSync": ckWrite,
			"Bun.write": ckWrite, "truncateSync": ckWrite, "fs.truncate": ckWrite, "utimesSync": ckWrite,
			"openSync": ckOpen, "fs.open": ckOpen, "Deno.open": ckOpen, "Deno.openSync": ckOpen,
			"unlinkSync": ckRemove, "fs.unlink": ckRemove, "rmSync": ckRemove, "fs.rm": ckRemove, "rmdirSync": ckRemove, "fs.rmdir": ckRemove,
			"renameSync": ckRemove, "fs.rename": ckRemove, "chmodSync": ckRemove, "fs.chmod": ckRemove, "chownSync": ckRemove,
			"removeSync": ckRemove, "fs.remove": ckRemove, "emptyDir": ckRemove, "emptyDirSync": ckRemove, "moveSync": ckRemove,
			"Deno.remove": ckRemove, "Deno.removeSync": ckRemove, "Deno.rename": ckRemove, "Deno.renameSync": ckRemove, "Deno.chmod": ckRemove,
			"rimraf": ckRemove, "del": ckRemove,
			"isomorphic-git.commit": ckGitLib, "isomorphic-git.writeCommit": ckGitLib, "isomorphic-git.writeRef": ckGitLib,
			"createCommit": ckGitLib, "createCommitOnHead": ckGitLib, "commit": ckGitOpts,
		},
		"ruby": {
			"system": ckMulti, "exec": ckMulti, "spawn": ckMulti, "Process.spawn": ckMulti, "Process.exec": ckMulti,
			"capture2": ckMulti, "capture2e": ckMulti, "capture3": ckMulti, "popen2": ckMulti, "popen2e": ckMulti, "popen3": ckMulti,
			"pipeline": ckMulti, "pipeline_r": ckMulti, "pipeline_w": ckMulti, "IO.popen": ckMulti, "popen": ckMulti,
			"eval": ckCode, "instance_eval": ckCode, "class_eval": ckCode, "module_eval": ckCode,
			"File.open": ckOpen, "File.new": ckOpen, "open": ckOpen,
			"File.write": ckWrite, "IO.write": ckWrite, "binwrite": ckWrite, "touch": ckWrite, "mkdir_p": ckWrite, "makedirs": ckWrite,
			"mkpath": ckWrite, "FileUtils.mkdir": ckWrite, "Dir.mkdir": ckWrite, "FileUtils.cp": ckCopy, "cp_r": ckCopy, "copy_file": ckCopy,
			"ln_s": ckWrite, "ln_sf": ckWrite, "FileUtils.ln": ckWrite, "File.symlink": ckWrite, "File.link": ckWrite, "install": ckWrite,
			"File.delete": ckRemove, "File.unlink": ckRemove, "File.rename": ckRemove, "File.chmod": ckRemove, "File.truncate": ckRemove,
			"rm": ckRemove, "rm_f": ckRemove, "rm_r": ckRemove, "rm_rf": ckRemove, "rmtree": ckRemove, "remove_dir": ckRemove,
			"remove_entry": ckRemove, "remove_entry_secure": ckRemove, "FileUtils.mv": ckRemove, "FileUtils.move": ckRemove,
			"FileUtils.chmod": ckRemove, "chmod_R": ckRemove, "Dir.delete": ckRemove, "Dir.rmdir": ckRemove, "Dir.unlink": ckRemove,
			"FileUtils.remove": ckRemove, "safe_unlink": ckRemove,
		},
		"perl": {
			"system": ckMulti, "exec": ckMulti, "CORE.system": ckMulti, "readpipe": ckShell,
			"eval": ckCode,
			"open": ckOpen, "sysopen": ckOpen,
			"mkdir": ckWrite, "symlink": ckWrite, "link": ckWrite, "make_path": ckWrite, "mkpath": ckWrite, "copy": ckCopy,
			"cp": ckCopy, "utime": ckWrite, "truncate": ckWrite,
			"unlink": ckRemove, "rmdir": ckRemove, "rename": ckRemove, "chmod": ckRemove, "chown": ckRemove,
			"rmtree": ckRemove, "remove_tree": ckRemove, "move": ckRemove, "mv": ckRemove,
		},
	}
})

// lookupCall returns what the call named name does in the scanner's
// language.
func (s *codeScanner) lookupCall(name string) (callKind, bool) {
	tab := codeCalls()[s.lang.name]
	if k, ok := tab[name]; ok {
		return k, true
	}
	last := name
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		last = name[i+1:]
	}
	for key, k := range tab {
		if strings.Contains(key, ".") && strings.HasSuffix(name, "."+key) {
			return k, true
		}
	}
	if k, ok := tab[last]; ok {
		// A bare table name on a receiver: Python's exec/eval/open and
		// Ruby's open are builtins only without one.
		if k == ckCode && last != name && s.lang.name != "ruby" {
			return 0, false
		}
		if k == ckOpen && last != name && !(s.lang.name == "python" && (strings.HasSuffix(name, "io.open") || strings.HasSuffix(name, "codecs.open") || strings.HasSuffix(name, ".fdopen"))) {
			// Path(...).open(mode) writes like open; others are not files.
			if s.lang.name == "python" && strings.HasSuffix(name, ".open") && strings.Contains(name, "Path") {
				return ckOpen, true
			}
			return 0, false
		}
		return k, true
	}
	return 0, false
}

// callAt reads a call at token i: a name followed by parenthesised
// arguments, a JavaScript tagged template ($`...`), or (Ruby, Perl) a known
// name followed by arguments without parentheses. It reports false when
// there is none.
func (s *codeScanner) callAt(i int) (int, bool) {
	name, next, computed := s.nameAt(i)
	if next <= i {
		return i, false
	}
	// a method on the result of a call: Path('x').unlink()
	var recv []carg
	if i >= 2 && s.isPunct(i-1, ".") && s.isPunct(i-2, ")") {
		if c, ok := s.calls[i-2]; ok {
			name = c.name + "." + name
			recv = c.args
		}
	}
	if next < len(s.toks) && s.toks[next].kind == tkStr && s.toks[next].tmpl && (name == "$" || strings.HasSuffix(name, ".$") || name == "sh" || name == "execa") {
		s.runner = true
		s.shellCode(s.strVal(s.toks[next], 0))
		return next + 1, true
	}
	if s.isPunct(next, "(") {
		end := s.closeOf(next)
		args := s.splitArgs(next+1, end)
		if s.calls == nil {
			s.calls = map[int]codeCall{}
		}
		s.calls[end] = codeCall{name: name, args: args}
		s.call(name, computed, args, recv)
		return next + 1, true
	}
	if computed || !s.lang.parenless || next >= len(s.toks) {
		return i, false
	}
	k, ok := s.lookupCall(name)
	if !ok {
		return i, false
	}
	t := s.toks[next]
	if t.kind == tkEnd || (t.kind == tkPunct && t.val != "[" && t.val != "{" && t.val != "-" && t.val != "\\") {
		return next, true
	}
	end := s.stmtEnd(next)
	args := s.splitArgs(next, end)
	if s.lang.name == "perl" && s.isPunct(next, "{") && k == ckMulti {
		// system { PROGRAM } LIST: the block names the program, the
		// list is the argv
		next = s.closeOf(next) + 1
		args = s.splitArgs(next, end)
	}
	s.callKind(k, name, args, nil)
	return next, true
}

// codeCall is a call already read, kept by the index of its closing
// parenthesis for a method called on its result.
type codeCall struct {
	name string
	args []carg
}

// stmtEnd returns the end of a parenless argument list starting at i: the
// statement's end, a closing bracket at depth 0, or a modifier keyword.
func (s *codeScanner) stmtEnd(i int) int {
	d := 0
	for k := i; k < len(s.toks); k++ {
		t := s.toks[k]
		switch t.kind {
		case tkEnd:
			if d == 0 {
				return k
			}
		case tkPunct:
			switch t.val {
			case "(", "[", "{":
				d++
			case ")", "]", "}":
				if d == 0 {
					return k
				}
				d--
			}
		case tkIdent:
			if d == 0 && k > i {
				switch t.val {
				case "if", "unless", "or", "and", "while", "until", "rescue", "do":
					return k
				}
			}
		}
	}
	return len(s.toks)
}

// call judges one call with parenthesised arguments.
func (s *codeScanner) call(name string, computed bool, args, recv []carg) {
	if computed {
		s.unresolved(args)
		return
	}
	switch name {
	case "send", "public_send", "__send__", "method", "Reflect.apply", "Reflect.get", "apply", "call", "invoke":
	}
	last := name
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		last = name[i+1:]
	}
	if (last == "send" || last == "public_send" || last == "__send__") && s.lang.name == "ruby" && len(args) > 0 {
		m := s.eval(args[0].toks, 0)
		if !m.known || m.isList {
			s.unresolved(args[1:])
			return
		}
		name, args = strings.TrimSuffix(name, "."+last)+"."+strings.TrimPrefix(m.s, ":"), args[1:]
	}
	k, ok := s.lookupCall(name)
	if !ok {
		return
	}
	s.callKind(k, name, args, recv)
}

// positional returns the arguments without a keyword.
func positional(args []carg) []carg {
	var out []carg
	for _, a := range args {
		if a.kw == "" {
			out = append(out, a)
		}
	}
	return out
}

func kwArg(args []carg, kw string) ([]ctok, bool) {
	for _, a := range args {
		if a.kw == kw {
			return a.toks, true
		}
	}
	return nil, false
}

// callKind judges a call of kind k with args.
func (s *codeScanner) callKind(k callKind, name string, args, recv []carg) {
	pos := positional(args)
	if k == ckGitLib || k == ckGitCmd || k == ckGitOpts {
		s.gitLibCall(k, name, args, pos) // gitlib.go
		return
	}
	if len(pos) == 0 {
		for _, kw := range []string{"args", "cmd", "command", "file", "path"} {
			if t, ok := kwArg(args, kw); ok {
				pos = []carg{{toks: t}}
				break
			}
		}
	}
	if len(pos) == 0 && len(recv) == 0 {
		return // nothing to run or write (platform.system(), os.popen())
	}
	val := func(i int) cval {
		if i < len(pos) {
			return s.eval(pos[i].toks, 0)
		}
		return unknownVal
	}
	switch k {
	case ckShell:
		s.runner = true
		s.shellCode(val(0))
	case ckArgv:
		s.runner = true
		s.shellCode(s.argvCall(val(0), args))
	case ckVarArgv:
		s.runner = true
		s.shellCode(s.listVal(pos, 0))
	case ckExecList, ckSpawnList, ckExecVar, ckSpawnVar:
		s.runner = true
		s.shellCode(s.execCall(k, pos, val))
	case ckCmdArgs:
		s.runner = true
		s.cmdArgs(name, args, pos)
	case ckOptsCmd:
		s.runner = true
		v := val(0)
		if !v.isList && len(pos) > 0 {
			if c, ok := objMember(pos[0].toks, "cmd"); ok {
				v = s.eval(c, 0)
			}
		}
		s.shellCode(v)
	case ckMulti:
		s.runner = true
		s.multi(pos)
	case ckCode:
		s.evalCode(val(0))
	case ckOpen:
		s.openCall(name, pos, args, recv)
	case ckCopy:
		if len(pos) > 1 {
			s.pathArg(s.eval(pos[len(pos)-1].toks, 0), false)
		}
	case ckWrite, ckRemove:
		all := append(append([]carg(nil), recv...), pos...)
		for _, a := range all {
			v := s.eval(a.toks, 0)
			s.pathArg(v, k == ckRemove)
		}
	}
}

// argvCall returns the command an argv call (subprocess.run and kin) runs
// from its first argument v: executable= replaces the program argv[0]
// names, and shell=True with a list runs the list joined as a shell
// command.
func (s *codeScanner) argvCall(v cval, args []carg) cval {
	if ex, ok := kwArg(args, "executable"); ok && v.isList && len(v.list) > 0 {
		e := s.eval(ex, 0)
		v.list = append([]string{e.text()}, v.list[1:]...)
		v.known = v.known && e.known
	}
	if sh, ok := kwArg(args, "shell"); ok && len(sh) == 1 && sh[0].val == "True" && v.isList {
		v = cval{s: strings.Join(v.list, " "), known: v.known, decoded: v.decoded}
	}
	return v
}

// execCall returns the argv an exec-family call of kind k runs: the program
// (after the mode argument of the spawn kinds) with the argument list
// (ckExecList, ckSpawnList) or the remaining arguments (ckExecVar,
// ckSpawnVar) after their arg0; val evaluates the positional argument i.
func (s *codeScanner) execCall(k callKind, pos []carg, val func(int) cval) cval {
	first := 0
	if k == ckSpawnList || k == ckSpawnVar {
		first = 1
	}
	prog := val(first)
	var rest cval
	if k == ckExecList || k == ckSpawnList {
		rest = val(first + 1)
	} else if first+1 < len(pos) {
		rest = s.listVal(pos[first+1:], 0)
	}
	if !rest.isList {
		rest = cval{isList: true, list: []string{dyn, dyn}}
	}
	argv := cval{isList: true, list: []string{prog.text()}, known: prog.known && rest.known, decoded: prog.decoded || rest.decoded}
	if len(rest.list) > 1 {
		argv.list = append(argv.list, rest.list[1:]...)
	}
	return argv
}

// cmdArgs judges Node's spawn/execFile(cmd, [args], {shell}) and Deno's
// new Deno.Command(cmd, {args: [...]}).
func (s *codeScanner) cmdArgs(name string, args, pos []carg) {
	if len(pos) == 0 {
		return
	}
	cmd := s.eval(pos[0].toks, 0)
	if cmd.isList { // execa/Bun-style: a list alone
		s.shellCode(cmd)
		return
	}
	rest := cval{isList: true, known: true}
	shell := false
	for _, a := range pos[1:] {
		if len(a.toks) > 0 && a.toks[0].kind == tkPunct && a.toks[0].val == "{" {
			if v, ok := objMember(a.toks, "args"); ok {
				rest = s.eval(v, 0)
			}
			if v, ok := objMember(a.toks, "shell"); ok && !(len(v) == 1 && v[0].val == "false") {
				shell = true
			}
			continue
		}
		rest = s.eval(a.toks, 0)
	}
	if !rest.isList {
		rest = cval{isList: true, list: []string{dyn}}
	}
	argv := cval{isList: true, list: append([]string{cmd.text()}, rest.list...), known: cmd.known && rest.known, decoded: cmd.decoded || rest.decoded}
	if shell {
		argv = cval{s: strings.Join(argv.list, " "), known: argv.known, decoded: argv.decoded}
	}
	s.shellCode(argv)
}

// multi judges Ruby's and Perl's system/exec/spawn: an optional leading
// environment hash (Ruby), then one string (a shell command) or several
// (an argv).
func (s *codeScanner) multi(pos []carg) {
	if len(pos) > 0 && len(pos[0].toks) > 0 && pos[0].toks[0].kind == tkPunct && pos[0].toks[0].val == "{" {
		pos = pos[1:] // the environment hash: its keys are read by envKeyAt
	}
	// trailing options hash (chdir: ...)
	if n := len(pos); n > 1 {
		if t := pos[n-1].toks; len(t) > 0 && t[0].kind == tkPunct && t[0].val == "{" {
			pos = pos[:n-1]
		}
	}
	if len(pos) == 1 {
		s.shellCode(s.eval(pos[0].toks, 0))
		return
	}
	s.shellCode(s.listVal(pos, 0))
}

// objMember returns the tokens of member key of an object literal {...}.
func objMember(toks []ctok, key string) ([]ctok, bool) {
	if len(toks) < 2 || toks[0].kind != tkPunct || toks[0].val != "{" {
		return nil, false
	}
	d := 0
	for k := 0; k < len(toks); k++ {
		t := toks[k]
		if t.kind == tkPunct {
			switch t.val {
			case "(", "[", "{":
				d++
			case ")", "]", "}":
				d--
			}
		}
		if d != 1 || k+2 >= len(toks) || !(toks[k+1].kind == tkPunct && (toks[k+1].val == ":" || toks[k+1].val == "=>")) {
			continue
		}
		if (t.kind == tkIdent && t.val == key) || (t.kind == tkStr && strLit(t) == key) {
			start := k + 2
			e := start
			dd := 0
			for ; e < len(toks); e++ {
				if toks[e].kind != tkPunct {
					continue
				}
				v := toks[e].val
				if v == "(" || v == "[" || v == "{" {
					dd++
				} else if v == ")" || v == "]" || v == "}" {
					if dd == 0 {
						break
					}
					dd--
				} else if v == "," && dd == 0 {
					break
				}
			}
			return toks[start:e], true
		}
	}
	return nil, false
}

// openCall judges a file opened: Python open(path, mode), os.open(path,
// flags), Node fs.openSync(path, flags), Ruby File.open(path, mode), Perl
// open(FH, MODE, PATH...) and open(FH, "MODEPATH") (a pipe mode runs a
// command).
func (s *codeScanner) openCall(name string, pos, args, recv []carg) {
	if s.lang.name == "perl" {
		s.perlOpen(pos)
		return
	}
	if len(recv) > 0 && len(pos) <= 1 { // Path('x').open('w')
		if len(pos) == 1 {
			pos = []carg{recv[0], pos[0]}
		} else {
			pos = []carg{recv[0]}
		}
	}
	if len(pos) == 0 {
		return
	}
	var mode []ctok
	if len(pos) > 1 {
		mode = pos[1].toks
	} else if m, ok := kwArg(args, "mode"); ok {
		mode = m
	} else if m, ok := kwArg(args, "flags"); ok {
		mode = m
	}
	writes := false
	if mode != nil {
		m := s.eval(mode, 0)
		writes = !m.known || m.isList || writeMode(m.s)
		for _, t := range mode {
			if t.kind == tkIdent && (strings.Contains(t.val, "O_WRONLY") || strings.Contains(t.val, "O_RDWR") || strings.Contains(t.val, "O_CREAT") || strings.Contains(t.val, "O_APPEND") || strings.Contains(t.val, "O_TRUNC")) {
				writes = true
			}
		}
		if (s.lang.name == "python" && strings.HasSuffix(name, "os.open")) && !writes {
			writes = false
		}
	}
	if !writes {
		return
	}
	s.pathArg(s.eval(pos[0].toks, 0), false)
}

// perlOpen judges Perl's open: a '|' mode runs a command, a '>' or '+<'
// mode writes the file.
func (s *codeScanner) perlOpen(pos []carg) {
	if len(pos) < 2 {
		return
	}
	mode := s.eval(pos[1].toks, 0)
	if len(pos) == 2 {
		m := strings.TrimSpace(mode.s)
		switch {
		case strings.HasPrefix(m, "|") || strings.HasSuffix(m, "|"):
			s.runner = true
			s.shellCode(cval{s: strings.Trim(m, "| "), known: mode.known, decoded: mode.decoded})
		case strings.HasPrefix(m, ">") || strings.HasPrefix(m, "+<") || strings.HasPrefix(m, "+>"):
			s.pathArg(cval{s: strings.TrimSpace(strings.TrimLeft(m, "+<>&")), known: mode.known}, false)
		}
		return
	}
	m := strings.TrimSpace(mode.s)
	switch {
	case m == "-|" || m == "|-":
		s.runner = true
		if len(pos) == 3 {
			s.shellCode(s.eval(pos[2].toks, 0))
		} else {
			s.shellCode(s.listVal(pos[2:], 0))
		}
	case !mode.known || writeMode(m):
		s.pathArg(s.eval(pos[2].toks, 0), false)
	}
}

// pathArg judges one path a call writes (remove: removes, moves or
// re-permissions it).
func (s *codeScanner) pathArg(v cval, remove bool) {
	if v.isList {
		for _, p := range v.list {
			s.pathArg(cval{s: p, known: !strings.Contains(p, dyn)}, remove)
		}
		return
	}
	if strings.Trim(v.s, dyn) == "" {
		if s.sensitive(false) {
			s.j.hits.add(RuleCodeDynamic)
		}
		return
	}
	sc := &scope{vars: map[string]string{}}
	s.j.writeHit(sc.classify(field{val: v.s, raw: v.s}), remove)
}

// shellCode judges a value a call runs: a list is an argv, a string a
// shell command. A command whose name is known only at run time is refused
// when the code names a hook-sensitive word (RuleCodeDynamic), or decodes
// text (RuleDecodedCodeToShell).
func (s *codeScanner) shellCode(v cval) {
	if v.decoded && !v.known {
		s.j.hits.add(RuleDecodedCodeToShell)
	}
	sc := &scope{vars: map[string]string{}}
	if v.isList {
		if len(v.list) == 0 {
			return
		}
		if strings.Contains(v.list[0], dyn) && s.sensitive(true) {
			s.j.hits.add(RuleCodeDynamic)
		}
		argv := make([]field, len(v.list))
		for i, w := range v.list {
			argv[i] = field{val: w, raw: w, subst: strings.Contains(w, dyn)}
		}
		s.j.command(argv, s.env, s.depth+1, nil, sc)
		return
	}
	if first := strings.Fields(strings.TrimSpace(v.s)); (len(first) == 0 || strings.Contains(first[0], dyn)) && s.sensitive(true) {
		s.j.hits.add(RuleCodeDynamic)
	}
	s.j.scriptField(field{val: v.s, raw: v.s}, s.depth+1, s.env)
}

// evalCode judges code the code runs with exec/eval: a literal is scanned
// as code of the same language, anything else is refused when it decodes
// text or the code names a hook-sensitive word.
func (s *codeScanner) evalCode(v cval) {
	if v.known && !v.isList {
		if s.depth+1 > maxDepth {
			s.j.hits.add(RuleScanBoundNesting)
			return
		}
		if !s.j.codeScan(s.lang, v.s, s.depth+1, s.env) {
			s.j.code(field{val: v.s, raw: v.s}, s.depth+1, s.env)
		}
		return
	}
	switch {
	case v.decoded:
		s.j.hits.add(RuleDecodedCodeToShell)
	case s.sensitive(true):
		s.j.hits.add(RuleCodeDynamic)
	}
}

// unresolved judges a call whose callee is known only at run time
// (getattr with a computed name, obj[expr](...), Ruby send with a computed
// symbol): it may be any writer, so a literal path argument is judged as a
// removal, and it may run anything, so code naming a hook-sensitive word
// is refused.
func (s *codeScanner) unresolved(args []carg) {
	for _, a := range args {
		v := s.eval(a.toks, 0)
		if v.known && !v.isList && v.s != "" {
			s.pathArg(v, true)
		}
	}
	if s.sensitive(true) {
		s.j.hits.add(RuleCodeDynamic)
	}
}
