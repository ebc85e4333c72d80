package policy

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// tamper judges file-changing commands (Unix, cmd.exe, PowerShell) whose
// target is the hooks directory, a git config file or a guard file: what
// each family of commands writes is named by its own judge below.
func (j *judge) tamper(name string, args []field, sc *scope) {
	isOpt := optionTest(name)
	check := func(f field, allowGitDir bool) { j.writeHit(sc.classify(f), allowGitDir) }
	for _, v := range removedOperands(name, args) {
		j.holderHit(sc, v)
		check(v, true)
	}
	if j.guardWriters(name, args, sc, isOpt) {
		return
	}
	switch name {
	case "sponge", "patch", "ed", "ex", "vi", "vim", "nvim", "nano", "emacs", "pico", "joe", "mcedit":
		j.editorTargets(name, args, sc, isOpt)
	case "touch", "mkdir", "mkfifo", "mknod":
		// Creating entries inside hookwarden's store can stop it: a .lock
		// makes every call wait and fail, more than its scan bound of
		// entries fails every sweep (engine/dispatch), and a return is then
		// a stated skip. Elsewhere (.git/hooks included) they stay allowed.
		for _, a := range args {
			if !isOpt(a.val) && sc.classify(a).store {
				j.hits.add(RuleHooksDirTamper)
			}
		}
	case "mv":
		j.mvTargets(args, sc, isOpt, check)
	case "rm", "rmdir", "unlink", "shred", "truncate", "chmod", "chown", "chgrp", "chattr", "setfacl",
		"tee",
		"del", "erase", "rd", "move", "ren", "rename", "attrib", "icacls", "cacls", "takeown",
		"remove-item", "ri", "move-item", "mi", "rename-item", "rni", "set-content", "sc", "add-content", "ac",
		"out-file", "clear-content", "clc", "new-item", "ni", "set-acl", "set-itemproperty", "sp", "clear-item", "cli":
		for _, a := range args {
			if isOpt(a.val) && !strings.Contains(a.val, "=") {
				continue
			}
			v := a
			if _, after, ok := strings.Cut(a.val, "="); ok && isOpt(a.val) {
				v = field{val: after, raw: after}
			} else if followsLinks(name, args) {
				j.holderHitFollow(sc, v)
			} else if removesOnly(name) {
				j.holderHitRemoving(sc, v)
			} else if removesWhole(name) {
				j.holderHit(sc, v)
			}
			check(v, true)
		}
	case "cp", "ln", "install", "rsync", "scp", "copy", "xcopy", "robocopy", "copy-item", "cpi":
		pos, dest := copyOperands(name, args, isOpt)
		if dest != nil {
			j.copyInto(name, args, pos, *dest, sc)
		}
		j.linkTargets(name, args, pos, dest, sc, isOpt)
	case "sed", "perl", "ruby":
		inPlace := false
		for _, a := range args {
			v := a.val
			if v == "--in-place" || strings.HasPrefix(v, "--in-place=") || (strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "i")) {
				inPlace = true
			}
		}
		for _, a := range args {
			if inPlace && !isOpt(a.val) {
				check(a, false)
			}
		}
	case "dd":
		for _, a := range args {
			if strings.HasPrefix(a.val, "of=") {
				check(field{val: a.val[3:], raw: strings.TrimPrefix(a.raw, "of=")}, false)
			}
		}
	default:
		j.outputOption(name, args, sc, isOpt)
	}
}

// shortTarget reads a bundle of short options of cp, ln, install or mv
// for -t (GNU getopt: -rt DIR, -ft DIR, -t.claude): ok when the bundle
// holds t; val is the directory written after the t ("" when it is the
// next word). A value-taking option before the t (-S SUFFIX; install's -m,
// -o, -g) ends the bundle. Found 2026-12-06 (adversarial pass h36): `cp -ft
// .claude /tmp/x/settings.json` overwrote Claude's settings, as -t was
// recognised only as a word of its own.
func shortTarget(name, v string) (val string, ok bool) {
	switch name {
	case "cp", "ln", "install", "mv":
	default:
		return "", false
	}
	if len(v) < 2 || v[0] != '-' || v[1] == '-' {
		return "", false
	}
	for i := 1; i < len(v); i++ {
		switch c := v[i]; {
		case c == 't':
			return v[i+1:], true
		case c == 'S', name == "install" && (c == 'm' || c == 'o' || c == 'g'):
			return "", false
		}
	}
	return "", false
}

// removedOperands returns the words of a command that removes or moves
// what it is given besides its main job, each taken as a path it removes
// (every word not an option: fail closed on an option's value): tar
// --remove-files (and bsdtar's), zip -m/--move, 7z -sdel, gio
// trash/remove/move/rename, gvfs-trash/rm/move, trash, trash-put, rmtrash,
// gtrash put and mmv. Found 2026-12-06 (adversarial pass h36): `tar -cf
// /tmp/x.tar --remove-files .hookwarden.yaml`, `zip -m x.zip
// .hookwarden.yaml`, `gio trash .hookwarden.yaml`, `trash-put
// .hookwarden` and `7z a -sdel x.7z .hookwarden` were allowed.
func removedOperands(name string, args []field) []field {
	removes := false
	skip := 0 // leading words that are not paths (gio's subcommand, 7z's command letter)
	switch name {
	case "tar", "bsdtar", "gtar":
		removes = slices.ContainsFunc(args, func(a field) bool { return a.val == "--remove-files" })
	case "zip":
		for _, a := range args {
			v := a.val
			if v == "--move" || strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "m") {
				removes = true
			}
		}
	case "7z", "7za", "7zz", "7zr":
		removes = slices.ContainsFunc(args, func(a field) bool { return strings.EqualFold(a.val, "-sdel") })
		skip = 1
	case "gio":
		if len(args) > 0 {
			switch args[0].val {
			case "trash", "remove", "rm", "move", "mv", "rename":
				removes, skip = true, 1
			}
		}
	case "gtrash":
		removes, skip = len(args) > 0 && args[0].val == "put", 1
	case "gvfs-trash", "gvfs-rm", "gvfs-move", "gvfs-rename", "trash", "trash-put", "rmtrash", "mmv":
		removes = true
	}
	if !removes {
		return nil
	}
	var out []field
	words := 0
	for _, a := range args {
		if strings.HasPrefix(a.val, "-") && len(a.val) > 1 {
			continue
		}
		if words++; words <= skip {
			continue
		}
		out = append(out, a)
	}
	return out
}

// removesWhole reports the commands of tamper's removal family that
// remove, move or re-permission a directory operand with what it holds
// (holderHit), unlike those that write into a file (tee, truncate,
// Set-Content).
func removesWhole(name string) bool {
	switch name {
	case "rm", "rmdir", "shred", "chmod", "chown", "chgrp", "chattr", "setfacl",
		"del", "erase", "rd", "move", "ren", "rename", "attrib", "icacls", "cacls", "takeown",
		"remove-item", "ri", "move-item", "mi", "rename-item", "rni", "set-acl":
		return true
	}
	return false
}

// editorTargets judges the files commands that write the files they are
// given take (moreutils sponge, patch's target, the editors): the guard's
// files; a git config file or hook too when the edit is scripted (ed, ex,
// sponge, and vi/vim/nvim given commands or run silent: -e, -s, -c,
// +CMD), since an editor opened on a file to read it is ordinary.
func (j *judge) editorTargets(name string, args []field, sc *scope, isOpt func(string) bool) {
	scripted := editsScripted(name, args)
	for _, a := range args {
		switch {
		case isOpt(a.val) || strings.HasPrefix(a.val, "+"):
		case scripted:
			j.writeHit(sc.classify(a), false)
		default:
			j.guardHit(sc.classify(a), false)
		}
	}
}

// outputOption judges, for any program but those whose words are data
// (grep -o, ps -o), the value of an output-file option as a file it
// writes (openssl enc -out FILE, go build -o FILE, gcc -o FILE); only a
// guarded path there counts, and a glob is not one (the program gets it
// as written: grep -o '.*/').
func (j *judge) outputOption(name string, args []field, sc *scope, isOpt func(string) bool) {
	if argsAreData(name) {
		return
	}
	w := writeTargets{j: j, args: literalOnly(args), sc: sc, isOpt: isOpt}
	w.optValue([]string{"-o"}, []string{"--output", "--out", "-out", "--output-file", "--outfile", "-outfile"}, false)
}

// literalOnly returns args with each word holding a glob character
// replaced by an empty word, for judges that take a word as one path.
func literalOnly(args []field) []field {
	out := make([]field, len(args))
	for i, a := range args {
		if !strings.ContainsAny(a.val, "*?[") {
			out[i] = a
		}
	}
	return out
}

// editsScripted reports an editor run that writes without a person at it:
// ed, ex and sponge always; vi, vim and nvim in Ex or silent mode or given
// commands (-e, -E, -s, -es, -c CMD, --cmd CMD, +CMD; vim(1)).
func editsScripted(name string, args []field) bool {
	switch name {
	case "ed", "ex", "sponge":
		return true
	case "vi", "vim", "nvim":
		for _, a := range args {
			if v := a.val; strings.HasPrefix(v, "+") || v == "--cmd" || strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.ContainsAny(v, "eEsc") {
				return true
			}
		}
	}
	return false
}

// optionTest returns how tamper tells an option from an operand for the
// command name: a word starting with "-" (but not "-" alone), and for
// cmd.exe's commands also a short "/X" switch holding no further slash.
func optionTest(name string) func(string) bool {
	cmdStyle := false
	switch name {
	case "del", "erase", "rd", "rmdir", "move", "copy", "xcopy", "robocopy", "ren", "rename", "attrib", "icacls", "cacls", "takeown":
		cmdStyle = true
	}
	return func(v string) bool {
		if strings.HasPrefix(v, "-") && v != "-" {
			return true
		}
		return cmdStyle && strings.HasPrefix(v, "/") && len(v) <= 12 && !strings.Contains(v[1:], "/") && !strings.Contains(v[1:], `\`)
	}
}

// copyOperands returns the operands of a copy or link command (cp, ln,
// install, rsync, scp, cmd.exe's copy and xcopy, robocopy, PowerShell's
// Copy-Item) and its destination: -t/--target-directory/-Destination when
// given, else the last operand (robocopy's and xcopy's second); nil when
// there is none.
func copyOperands(name string, args []field, isOpt func(string) bool) (pos []field, dest *field) {
	powershell := name == "copy-item" || name == "cpi" || name == "copy"
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if powershell {
			v = strings.ToLower(v) // PowerShell parameter names are case-insensitive
		}
		if !isOpt(v) {
			pos = append(pos, args[i])
			continue
		}
		if d, next, ok := bundledTarget(name, args, i); ok {
			// -rt DIR, -ft DIR, -t.claude: -t inside a bundle of cp's,
			// ln's or install's short options.
			if d != nil {
				dest = d
			}
			i = next
			continue
		}
		switch {
		case v == "-t" || v == "--target-directory" || (powershell && strings.HasPrefix(v, "-d") && strings.HasPrefix("-destination", v)):
			if i+1 < len(args) {
				d := args[i+1]
				dest = &d
				i++
			}
		case strings.HasPrefix(v, "--target-directory="):
			d := lit(args[i].val[len("--target-directory="):])
			dest = &d
		case strings.HasPrefix(v, "-destination:"):
			d := lit(args[i].val[len("-destination:"):])
			dest = &d
		case powershell && (v == "-path" || v == "-literalpath" || v == "-filter" || v == "-include" || v == "-exclude"),
			v == "-S" || v == "--suffix", // cp, ln, install: backup suffix
			name == "install" && (v == "-m" || v == "-o" || v == "-g"),
			name == "rsync" && (v == "-e" || v == "--rsh"):
			i++
		}
	}
	if dest == nil && len(pos) >= 2 {
		d := pos[len(pos)-1]
		if name == "robocopy" || name == "xcopy" {
			d = pos[1]
		}
		dest = &d
	}
	return pos, dest
}

// copyInto judges what a copy writes at dest: dest itself, what a mirroring
// copy deletes there, the shell start-up files, the guard's files a copy
// into the repository root or a guard directory writes, and the hooks
// directory a copy into the git directory may write.
func (j *judge) copyInto(name string, args, pos []field, dest field, sc *scope) {
	dk := sc.classify(dest)
	j.writeHit(dk, false)
	j.contentsCopy(name, args, pos, dest, sc)
	if mirrorDeletes(name, args) {
		// rsync --delete empty/ ./ and robocopy /MIR remove what the
		// source lacks from the destination: the guard's files when it
		// holds them (the repository root: dots only where the command
		// runs at the root or somewhere unknown).
		root := dotsOnly(dest.val) && (sc.cwd == "" || sc.cwdUnknown) || j.holdsWord(sc, dest)
		if root || dk.guard.ownParent || dk.guard.own {
			j.hits.add(RuleSelfProtect)
		}
		if root || dk.guard.clientParent || dk.guard.client {
			j.hits.add(RuleSelfProtectClientHooks)
		}
		if dk.hooks || dk.gitDir {
			j.hits.add(RuleHooksDirTamper)
		}
	}
	j.startupInto(dest, pos)
	// cp x/settings.json .claude writes .claude/settings.json, and
	// cp -r /tmp/x/.hookwarden . writes over .hookwarden/ (a destination of
	// dots only is the current directory or one above it, which may be the
	// repository root); so does cp /tmp/x/.hookwarden.yaml /abs/repo, into a
	// directory that exists (found 2026-12-06: allowed).
	if dotsOnly(dest.val) || dk.guard.ownParent || dk.guard.clientParent || j.isDirAt(sc, dest.val) {
		for _, s := range pos {
			if s.val != dest.val {
				j.guardHit(sc.classify(lit(into(dest.val, s.val))), true)
			}
		}
	}
	// cp -r /tmp/hooks .git writes .git/hooks, and a directory's contents
	// (x/., rsync's x/, a glob x/*) copied into the git directory may hold
	// hooks/ or hookwarden/.
	if !dk.gitDir {
		return
	}
	for _, s := range pos {
		if s.val == dest.val {
			continue
		}
		src := strings.ReplaceAll(s.val, `\`, "/")
		base := strings.TrimRight(src, "/")
		if i := strings.LastIndexByte(base, '/'); i >= 0 {
			base = base[i+1:]
		}
		if base == "." || base == "" || (name == "rsync" && strings.HasSuffix(src, "/")) || sc.classify(lit(dest.val+"/"+base)).hooks {
			j.hits.add(RuleHooksDirTamper)
		}
	}
}

// linkTargets judges a link to a guard file, the hooks directory or
// hookwarden's store (ln, cp -l/-s), which lets a later write through the
// link's own name change it, and a link named like a directory holding a
// client hook file (ln -s /tmp/x pkg/.codex makes /tmp/x/config.toml
// Codex's), which points it somewhere no rule guards.
func (j *judge) linkTargets(name string, args, pos []field, dest *field, sc *scope, isOpt func(string) bool) {
	link := name == "ln"
	for _, a := range args {
		if name == "cp" && (a.val == "--link" || a.val == "--symbolic-link" || (isOpt(a.val) && !strings.HasPrefix(a.val, "--") && strings.ContainsAny(a.val, "ls"))) {
			link = true
		}
	}
	if !link {
		return
	}
	if dest != nil {
		j.guardHit(sc.classify(*dest), true)
	}
	for _, s := range pos {
		k := sc.classify(s)
		j.guardHit(k, false)
		if k.hooks {
			j.hits.add(RuleHooksDirTamper) // ln -s .git/hookwarden s && rm -rf s/
		}
	}
}

// pipeline judges what flows between stages: a listing of the hooks
// directory piped into a removal, and literal text piped into a shell.
func (j *judge) pipeline(b *syntax.BinaryCmd, depth int, env []envVar, sc *scope) {
	var ps pipeState
	for _, s := range pipeStages(b) {
		call, ok := s.Cmd.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			if w, ok := s.Cmd.(*syntax.WhileClause); ok {
				j.whileReadOperands(w, ps.unbounded, sc)
			}
			// What a compound stage prints is not read: unbounded.
			ps = pipeState{decoded: ps.decoded, unbounded: true}
			continue
		}
		var argv []field
		for _, w := range call.Args {
			argv = append(argv, sc.fields(w)...)
		}
		if len(argv) == 0 {
			ps = pipeState{decoded: ps.decoded, unbounded: true}
			continue
		}
		j.pipeStage(s, argv, &ps, depth, env, sc)
	}
}

// pipeStages returns the stages of the pipeline b, nested pipelines
// flattened, in order.
func pipeStages(b *syntax.BinaryCmd) []*syntax.Stmt {
	var stages []*syntax.Stmt
	var flatten func(s *syntax.Stmt)
	flatten = func(s *syntax.Stmt) {
		if bc, ok := s.Cmd.(*syntax.BinaryCmd); ok && (bc.Op == syntax.Pipe || bc.Op == syntax.PipeAll) {
			flatten(bc.X)
			flatten(bc.Y)
			return
		}
		stages = append(stages, s)
	}
	flatten(b.X)
	flatten(b.Y)
	return stages
}

// pipeState is what the stages of a pipeline so far hand the next one:
// whether the previous stage printed names not bounded away from the
// guard's files, whether it listed the hooks directory or a guard file
// (find .git/hooks | xargs rm), whether a decoder ran earlier (base64 -d |
// sh), and the known text the previous stage printed (echo '…' | python3).
type pipeState struct {
	// unbounded: the previous stage printed names the judge cannot bound
	// away from the guard's files (pipeoperands.go).
	unbounded   bool
	hooksListed bool
	guardListed pathKind
	decoded     bool
	text        *field
}

// pipeStage judges one stage (argv, from statement s) of a pipeline with
// what the earlier stages handed it (ps), and updates ps for the next.
func (j *judge) pipeStage(s *syntax.Stmt, argv []field, ps *pipeState, depth int, env []envVar, sc *scope) {
	names := stageNames(argv)
	first, known := cmdName(argv[0])
	j.pipeOperands(argv, ps.unbounded, sc)
	ps.unbounded = j.stageUnbounded(argv, ps.unbounded, sc)
	if ps.hooksListed || ps.guardListed.guard != (guardKind{}) {
		for _, n := range names {
			switch n {
			case "rm", "rmdir", "unlink", "shred", "mv", "chmod", "chown", "del", "erase", "rd", "remove-item", "ri", "move-item", "mi", "rename-item", "rni", "set-content", "sc", "clear-content", "clc", "truncate":
				if ps.hooksListed {
					j.hits.add(RuleHooksDirTamper)
				}
				j.guardHit(ps.guardListed, true)
			}
		}
	}
	if stdinProgram(argv) {
		if ps.decoded {
			j.hits.add(RuleDecodedCodeToShell)
		}
		if ps.text != nil && known && !isShellName(first) {
			interp := first
			if inner, _ := innerCommand(argv); len(inner) > 0 {
				interp, _ = cmdName(inner[0])
			}
			j.codeIn(interp, *ps.text, depth, env) // echo '...' | python3
		}
	}
	if isDecoder(argv) {
		ps.decoded = true
	}
	if ps.text != nil && known {
		switch first {
		case "bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "cmd", "powershell", "pwsh", "iex", "invoke-expression":
			if len(skipOpts(argv[1:], "", nil)) == 0 || first == "iex" || first == "invoke-expression" {
				j.scriptField(*ps.text, depth+1, env)
			}
		}
	}
	ps.hooksListed, ps.guardListed, ps.text = false, pathKind{}, nil
	for _, a := range argv[1:] {
		k := sc.classify(a)
		if k.hooks {
			ps.hooksListed = true
		}
		g := &ps.guardListed.guard
		g.own = g.own || k.guard.own
		g.client = g.client || k.guard.client
		g.ownParent = g.ownParent || k.guard.ownParent
		g.clientParent = g.clientParent || k.guard.clientParent
	}
	if first == "echo" || first == "printf" || first == "write-output" || first == "write-host" {
		t := joinFields(skipOpts(argv[1:], "", nil))
		ps.text = &t
	}
	if first == "cat" && len(argv) == 1 {
		// cat <<EOF | python3: the here-document is the program.
		for _, t := range hereDocs(s) {
			ps.text = &t
		}
	}
}

// stageNames lists the command names of a pipeline stage: its own, the one
// xargs or ForEach-Object runs, and command names appearing among its words.
func stageNames(argv []field) []string {
	var out []string
	for _, a := range argv {
		if n, ok := cmdName(a); ok {
			out = append(out, n)
		}
	}
	return out
}

// guardWriters judges, for the guard's files, the hooks directory and
// hookwarden's store (.git/hookwarden), commands that write a
// file named by an option or rewrite their operands in place: curl -o and
// --output, wget -O/--output-document and -P (a directory), sort -o, yq
// -i/--inplace, sd, dos2unix/unix2dos, chflags, tar in extract mode (its
// members and -C), unzip (its members and -d), and every archive
// extraction (judgeArchive: tar, unzip, cpio, 7z, jar, pax, ar; python -m
// zipfile/tarfile from environmentRunner) of members not
// known into a directory that may hold guard files. It reports whether
// name was one of them.
func (j *judge) guardWriters(name string, args []field, sc *scope, isOpt func(string) bool) bool {
	w := writeTargets{j: j, args: args, sc: sc, isOpt: isOpt}
	switch name {
	case "curl":
		w.optValue([]string{"-o"}, []string{"--output"}, false)
		w.optValue(nil, []string{"--output-dir"}, true)
	case "wget":
		w.optValue([]string{"-O"}, []string{"--output-document"}, false)
		w.optValue([]string{"-P"}, []string{"--directory-prefix"}, true)
	case "sort":
		w.optValue([]string{"-o"}, []string{"--output"}, false)
	case "yq":
		if optionIn(args, "--inplace", "i") {
			w.operands()
		}
	case "sd", "dos2unix", "unix2dos", "chflags":
		w.operands()
	case "tar", "bsdtar", "gtar":
		if tarExtracts(args) {
			w.optValue([]string{"-C"}, []string{"--directory"}, true)
			w.operands()
		}
		j.judgeArchive(name, args, sc)
	case "unzip":
		w.optValue([]string{"-d"}, nil, true)
		w.operands()
		j.judgeArchive(name, args, sc)
	case "cpio", "bsdcpio", "7z", "7za", "7zz", "7zr", "jar":
		j.judgeArchive(name, args, sc)
	case "awk", "gawk":
		// gawk -i inplace (gawk(1), "The inplace extension"): each file
		// operand after the program text is rewritten.
		if awkInPlace(args) {
			w.awkFiles()
		}
	default:
		if name == "pax" || name == "ar" {
			j.judgeArchive(name, args, sc) // and their options as any program's (tamper)
		}
		return false
	}
	return true
}

// awkInPlace reports gawk's in-place extension loaded: -i inplace,
// -iinplace, --include inplace or --include=inplace.
func awkInPlace(args []field) bool {
	for i, a := range args {
		v := a.val
		if v == "-iinplace" || v == "--include=inplace" || (v == "-i" || v == "--include") && i+1 < len(args) && args[i+1].val == "inplace" {
			return true
		}
	}
	return false
}

// awkFiles judges awk's file operands: the words after the program text
// (the first operand, unless -f/--file gives the program), options and
// their values (-f, -v, -i, --include, -F) skipped.
func (w writeTargets) awkFiles() {
	program := !optionIn(w.args, "--file", "f")
	for i := 0; i < len(w.args); i++ {
		v := w.args[i].val
		switch {
		case v == "-f" || v == "-v" || v == "-i" || v == "-F" || v == "--file" || v == "--include" || v == "--assign" || v == "--field-separator":
			i++
		case strings.HasPrefix(v, "-") && v != "-":
		case program:
			program = false
		default:
			w.hit(w.sc.classify(w.args[i]), false)
		}
	}
}

// tarExtracts reports whether tar's arguments select extraction: --extract,
// --get, x in a short cluster, or x in the first word's old-style letters.
func tarExtracts(args []field) bool {
	for i, a := range args {
		v := a.val
		if v == "--extract" || v == "--get" || (strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "x")) ||
			(i == 0 && !strings.HasPrefix(v, "-") && strings.Contains(v, "x")) {
			return true
		}
	}
	return false
}

// writeTargets judges the files one command (args, in scope sc; isOpt tells
// its options) writes for guardWriters.
type writeTargets struct {
	j     *judge
	args  []field
	sc    *scope
	isOpt func(string) bool
}

// hit judges one target: a guard file, or (parents: a directory the
// command writes into) one holding one; the hooks directory or
// hookwarden's store, or (parents) the git directory itself; a git
// configuration file.
func (w writeTargets) hit(k pathKind, parents bool) {
	w.j.writeHit(k, parents) // a git config file too (curl -o .git/config URL)
}

// optValue judges the value of each short option in short (-o FILE,
// -oFILE, or the letter ending a cluster: -sSfo FILE) and long option in
// long (--output FILE, --output=FILE) as a target.
func (w writeTargets) optValue(short []string, long []string, parents bool) {
	args := w.args
	for i, a := range args {
		v := a.val
		for _, s := range short {
			if !strings.HasPrefix(v, "-") || strings.HasPrefix(v, "--") {
				continue
			}
			p := strings.IndexByte(v[1:], s[1])
			switch {
			case p < 0:
			case p+2 == len(v) && i+1 < len(args):
				w.hit(w.sc.classify(args[i+1]), parents)
			case p+2 < len(v):
				w.hit(w.sc.classify(lit(v[p+2:])), parents)
			}
		}
		for _, l := range long {
			if v == l && i+1 < len(args) {
				w.hit(w.sc.classify(args[i+1]), parents)
			} else if strings.HasPrefix(v, l+"=") {
				w.hit(w.sc.classify(lit(v[len(l)+1:])), parents)
			}
		}
	}
}

// operands judges every operand (not an option) as a target.
func (w writeTargets) operands() {
	for _, a := range w.args {
		if !w.isOpt(a.val) {
			w.hit(w.sc.classify(a), false)
		}
	}
}

// bundledTarget reads args[i] of name (cp, ln, install, mv) when it is
// -t inside a bundle of short options (shortTarget; -t alone is the
// caller's): the target directory it names (the rest of the word, or the
// next word; nil when neither is there) and the index of the last word it
// took; ok is false for any other word.
func bundledTarget(name string, args []field, i int) (dest *field, last int, ok bool) {
	v := args[i].val
	val, ok := shortTarget(name, v)
	if !ok || v == "-t" {
		return nil, i, false
	}
	switch {
	case val != "":
		d := withVal(args[i], val)
		return &d, i, true
	case i+1 < len(args):
		d := args[i+1]
		return &d, i + 1, true
	}
	return nil, i, true
}

// mvTargets judges mv's operands (GNU coreutils mv(1)): each source is
// moved away (check with its parents, so moving a directory that holds a
// guard file counts); the destination (-t DIR, --target-directory=DIR, or
// the last operand) is written, itself and, when it is a directory that
// holds a guard file or the engine (mv x ~/.local/bin/), as DIR/BASE of each
// source: moving a file named hookwarden there replaces or shadows the
// engine, moving x there does not.
func (j *judge) mvTargets(args []field, sc *scope, isOpt func(string) bool, check func(field, bool)) {
	var pos []field
	var dest *field
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if d, next, ok := bundledTarget("mv", args, i); ok {
			// -ft DIR, -t.claude: -t inside a bundle of short options.
			if d != nil {
				dest = d
			}
			i = next
			continue
		}
		switch {
		case (v == "-t" || v == "--target-directory") && i+1 < len(args):
			d := args[i+1]
			dest = &d
			i++
		case strings.HasPrefix(v, "--target-directory="):
			d := lit(strings.TrimPrefix(v, "--target-directory="))
			dest = &d
		case v == "-S" || v == "--suffix":
			i++
		case isOpt(v):
		default:
			pos = append(pos, args[i])
		}
	}
	if dest == nil && len(pos) >= 2 {
		dest, pos = &pos[len(pos)-1], pos[:len(pos)-1]
	}
	for _, src := range pos {
		check(src, true)
		j.holderHit(sc, src)
	}
	if dest == nil {
		return
	}
	j.startupInto(*dest, pos)
	dk := sc.classify(*dest)
	if !dk.guard.ownParent && !dk.guard.clientParent && !dotsOnly(dest.val) {
		check(*dest, true)
		return
	}
	check(*dest, false)
	for _, src := range pos {
		j.guardHit(sc.classify(lit(into(dest.val, src.val))), true)
	}
}

// startupInto refuses copying or moving a file named like a shell start-up
// file into a home directory (cp dotfiles/.bashrc ~/): DEST/BASE of each
// source is a start-up file.
func (j *judge) startupInto(dest field, srcs []field) {
	for _, src := range srcs {
		if src.val != dest.val && shellStartupPath(into(dest.val, src.val)) {
			j.hits.add(RuleShellStartupWrite)
		}
	}
}

// into returns the path a copy or move of src into the directory dest
// writes: dest/BASE, BASE the last component of src (slashes or
// backslashes, a trailing one dropped).
func into(dest, src string) string {
	base := strings.TrimRight(strings.ReplaceAll(src, `\`, "/"), "/")
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	return strings.TrimRight(dest, "/") + "/" + base
}

// dotsOnly reports a path made of "." and ".." components only (".", "./",
// "..", "../.."): a directory whose own name says nothing.
func dotsOnly(p string) bool {
	p = strings.ReplaceAll(p, `\`, "/")
	seen := false
	for _, c := range strings.Split(p, "/") {
		switch c {
		case "", ".", "..":
			seen = seen || c != ""
		default:
			return false
		}
	}
	return seen
}

// mirrorDeletes reports a copy that also deletes from its destination what
// the source lacks: rsync's --delete and its variants (--del,
// --delete-before, -during, -delay, -after, -excluded; rsync(1)) and
// robocopy's /MIR and /PURGE (robocopy's documentation).
func mirrorDeletes(name string, args []field) bool {
	for _, a := range args {
		v := strings.ToLower(a.val)
		switch name {
		case "rsync":
			if v == "--del" || strings.HasPrefix(v, "--delete") {
				return true
			}
		case "robocopy":
			if v == "/mir" || v == "/purge" {
				return true
			}
		}
	}
	return false
}
