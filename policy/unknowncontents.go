package policy

import (
	"path"
	"strconv"
	"strings"
)

// Writes whose file names the judge cannot know: an archive extracted, or
// a directory's contents copied, where the guard's files live
// (RuleUnknownContentsOverGuard). What an archive or a source directory
// holds is not known when the command is judged, so an extraction or a
// contents copy into a governed repository's root, a folder holding one or
// a guard directory (.claude, .git, .hookwarden, …) is refused unless the
// command names what it writes (tar -xf x.tar src/a.go): into a
// subdirectory holding no guard files it stays allowed (tar -xf deps.tgz
// -C vendor, unzip x.zip -d build, cp -r src/. dist/). Exclusion options
// (tar --exclude, unzip -x) are not read: listing the members or a
// subdirectory is the plain spelling.

// guardDest reports whether dest, a directory a command writes into, may
// hold guard files: a guard directory or one holding a guard file by its
// name (.claude, .github, .hookwarden), the git directory or a hooks
// directory, or a directory that is or holds a governed repository's root
// (the root itself, an ancestor of it, or, below the directory the
// command starts in, a folder of repositories: holderWord).
func (j *judge) guardDest(sc *scope, dest field) bool {
	k := sc.classify(dest)
	if k.gitDir || k.hooks || k.guard != (guardKind{}) {
		return true
	}
	return j.holderWord(sc, dest, true) != holdsNo
}

// extraction is what one archive command extracts: the directories it
// writes into (dests; "." when none is named), the members it names, and
// whether the members are known (false for none named, a glob that may
// name a guard entry, ".", a list read from a file, renaming options, or a
// member stripped down to nothing).
type extraction struct {
	dests   []field
	members []field
	unknown bool
	// strip: tar's --strip-components; a member of at most that many
	// components puts what it holds at the destination itself.
	strip int
}

// judgeExtraction refuses an extraction of unknown members into a
// destination that may hold guard files, and one whose named member is a
// directory that holds them (tar -xf x.tar .claude, or repo from a folder
// of repositories).
func (j *judge) judgeExtraction(sc *scope, x extraction) {
	if len(x.dests) == 0 {
		x.dests = []field{lit(".")}
	}
	for _, m := range x.members {
		if dotsOnly(m.val) || globMayNameGuard(m.val) || x.strip > 0 && len(strings.Split(strings.Trim(m.val, "/"), "/")) <= x.strip {
			x.unknown = true
		}
	}
	if len(x.members) == 0 {
		x.unknown = true
	}
	for _, d := range x.dests {
		if x.unknown {
			if j.guardDest(sc, d) {
				j.hits.add(RuleUnknownContentsOverGuard)
			}
			continue
		}
		for _, m := range x.members {
			p := lit(path.Join(d.val, m.val))
			if k := sc.classify(p); k.gitDir || k.guard.ownParent || k.guard.clientParent || j.holderWord(sc, p, true) != holdsNo {
				j.hits.add(RuleUnknownContentsOverGuard)
			}
		}
	}
}

// tarValueLetters are GNU tar's short options that take a value (tar(1)):
// -f, -C, -T, -X, -b, -g, -H, -I, -K, -L, -N, -V, -F.
const tarValueLetters = "fCTXbgHIKLNVF"

// tarLongValue reports tar's long options that take a value given as
// the next word.
func tarLongValue(name string) bool {
	switch name {
	case "--file", "--directory", "--files-from", "--exclude-from", "--exclude",
		"--use-compress-program", "--to-command", "--transform", "--xform",
		"--owner", "--group", "--mode", "--format", "--label", "--newer",
		"--after-date", "--blocking-factor", "--checkpoint-action", "--index-file",
		"--info-script", "--new-volume-script", "--rmt-command", "--rsh-command",
		"--tape-length", "--volno-file", "--record-size", "--suffix", "--listed-incremental",
		"--strip-components", "--strip":
		return true
	}
	return false
}

// tarExtraction reads tar's words in extract mode (tarExtracts): -C and
// --directory are destinations; -T/--files-from (members from a file) and
// --transform/--xform make the members unknown; --strip-components is
// kept (extraction.strip).
func tarExtraction(args []field) extraction {
	var x extraction
	var pending []byte // value letters of a cluster waiting for their words
	take := func(letter byte, v field) {
		switch letter {
		case 'C':
			x.dests = append(x.dests, v)
		case 'T':
			x.unknown = true
		}
	}
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case len(pending) > 0:
			take(pending[0], args[i])
			pending = pending[1:]
		case strings.HasPrefix(v, "--"):
			name, val, hasVal := strings.Cut(v, "=")
			if tarLongValue(name) && !hasVal && i+1 < len(args) {
				i++
				val = args[i].val
			}
			switch name {
			case "--directory":
				x.dests = append(x.dests, lit(val))
			case "--files-from", "--transform", "--xform":
				x.unknown = true
			case "--strip-components", "--strip":
				x.strip, _ = strconv.Atoi(val)
			}
		case strings.HasPrefix(v, "-") && len(v) > 1 || i == 0 && !strings.HasPrefix(v, "-"):
			pending = tarCluster(strings.TrimPrefix(v, "-"), i == 0 && !strings.HasPrefix(v, "-"), take)
		default:
			x.members = append(x.members, args[i])
		}
	}
	return x
}

// tarCluster reads one cluster of tar's short options (oldStyle: the
// first word without a dash, whose value letters all take the following
// words): a value letter with text after it in a new-style cluster takes
// that text (take); the value letters still waiting for words are
// returned in order.
func tarCluster(c string, oldStyle bool, take func(byte, field)) []byte {
	var pending []byte
	for k := 0; k < len(c); k++ {
		if !strings.ContainsRune(tarValueLetters, rune(c[k])) {
			continue
		}
		if !oldStyle && k+1 < len(c) {
			take(c[k], lit(c[k+1:]))
			return nil
		}
		pending = append(pending, c[k])
	}
	// The archive (-f) is no member: its letter is kept so its word is
	// taken, and take ignores it.
	return pending
}

// unzipExtraction reads unzip's words (unzip(1)): -d DIR is the
// destination, the first operand the archive, the operands after it the
// members up to -x (exclusions); -l, -t, -v, -z, -Z, -p and -c list, test
// or print and write nothing (ok false).
func unzipExtraction(args []field) (x extraction, ok bool) {
	archive := false
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "-d" && i+1 < len(args):
			i++
			x.dests = append(x.dests, args[i])
		case strings.HasPrefix(v, "-d") && len(v) > 2:
			x.dests = append(x.dests, lit(v[2:]))
		case v == "-x":
			// Exclusions run to the end (or to -d, handled above when
			// given first); they are not read.
			for i+1 < len(args) && args[i+1].val != "-d" {
				i++
			}
		case v == "-P" && i+1 < len(args):
			i++
		case strings.HasPrefix(v, "-") && len(v) > 1:
			if v == "-Z" || strings.ContainsAny(v[1:], "ltvzpc") {
				return x, false
			}
		case !archive:
			archive = true
		default:
			x.members = append(x.members, args[i])
		}
	}
	return x, true
}

// cpioExtraction reads cpio's words in copy-in mode (-i, --extract;
// cpio(1)): -D/--directory is the destination; the operands are member
// patterns (globs; -f/--nonmatching inverts them, -E/--pattern-file and
// -r/--rename make them unknown). ok is false outside copy-in mode or with
// -t/--list or --to-stdout.
func cpioExtraction(args []field) (x extraction, ok bool) {
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "--extract":
			ok = true
		case v == "--list" || v == "--to-stdout":
			return x, false
		case v == "--nonmatching" || v == "--rename" || strings.HasPrefix(v, "--pattern-file"):
			x.unknown = true
		case strings.HasPrefix(v, "--directory="):
			x.dests = append(x.dests, lit(strings.TrimPrefix(v, "--directory=")))
		case v == "--directory" && i+1 < len(args):
			i++
			x.dests = append(x.dests, args[i])
		case strings.HasPrefix(v, "--"):
		case strings.HasPrefix(v, "-") && len(v) > 1:
			c := v[1:]
			if strings.Contains(c, "t") {
				return x, false
			}
			ok = ok || strings.Contains(c, "i")
			x.unknown = x.unknown || strings.ContainsAny(c, "frE")
			if k := strings.IndexAny(c, "DEFHIRCM"); k >= 0 {
				val := c[k+1:]
				if val == "" && i+1 < len(args) {
					i++
					val = args[i].val
				}
				if c[k] == 'D' {
					x.dests = append(x.dests, lit(val))
				}
			}
		default:
			x.members = append(x.members, args[i])
		}
	}
	return x, ok
}

// sevenZipExtraction reads 7-Zip's words (7z x|e ARCHIVE [MEMBERS]
// [-oDIR]): e extracts every member into one directory whatever its path,
// so its members count as unknown. ok is false for other commands.
func sevenZipExtraction(args []field) (x extraction, ok bool) {
	archive := false
	for i, a := range args {
		v := a.val
		switch {
		case i == 0:
			if v != "x" && v != "e" {
				return x, false
			}
			x.unknown = v == "e"
		case strings.HasPrefix(v, "-o"):
			x.dests = append(x.dests, lit(v[2:]))
		case strings.HasPrefix(v, "-i") || strings.HasPrefix(v, "-ai"):
			x.unknown = true
		case strings.HasPrefix(v, "-"):
		case !archive:
			archive = true
		default:
			x.members = append(x.members, a)
		}
	}
	return x, len(args) > 0
}

// jarExtraction reads jar's words (jar xf JAR [MEMBERS], jar -xf, jar
// --extract --file JAR [--dir DIR]): the current directory, or --dir, is
// the destination. ok is false for other modes.
func jarExtraction(args []field) (x extraction, ok bool) {
	archive := false
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case i == 0 && !strings.HasPrefix(v, "-"):
			ok = strings.Contains(v, "x")
		case v == "--extract" || strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "x"):
			ok = true
		case (v == "--dir" || v == "-C" || v == "--file") && i+1 < len(args):
			i++
			if v != "--file" {
				x.dests = append(x.dests, args[i])
			} else {
				archive = true
			}
		case strings.HasPrefix(v, "--dir="):
			x.dests = append(x.dests, lit(strings.TrimPrefix(v, "--dir=")))
		case strings.HasPrefix(v, "--file="):
			archive = true
		case strings.HasPrefix(v, "-"):
		case !archive:
			archive = true
		default:
			x.members = append(x.members, args[i])
		}
	}
	return x, ok
}

// judgeArchive judges the extraction, if any, of the archive command name
// (python3 for every python interpreter: its -m zipfile and tarfile) with
// args.
func (j *judge) judgeArchive(name string, args []field, sc *scope) {
	var x extraction
	ok := false
	switch name {
	case "tar", "bsdtar", "gtar":
		x, ok = tarExtraction(args), tarExtracts(args)
	case "unzip":
		x, ok = unzipExtraction(args)
	case "cpio", "bsdcpio":
		x, ok = cpioExtraction(args)
	case "7z", "7za", "7zz", "7zr":
		x, ok = sevenZipExtraction(args)
	case "jar":
		x, ok = jarExtraction(args)
	case "pax":
		x, ok = paxExtraction(args)
	case "ar":
		x, ok = arExtraction(args)
	case "python3":
		x, ok = pythonArchiveExtraction(args)
	}
	if ok {
		j.judgeExtraction(sc, x)
	}
}

// contentsCopy judges a copy into a destination that may hold guard files
// (guardDest) of sources whose names the command does not show. A glob
// source is matched on disk where it can be: each match is judged by the
// name it lands under (cp /tmp/x/* . with /tmp/x/lefthook.yml is
// self-protect-client-hooks; cp -a template/* . of ordinary files is
// allowed); a glob the judge cannot match is RuleUnknownContentsOverGuard
// when its last component may name a guard entry (src/* may match
// lefthook.yml; src/*.go cannot). A recursive copy (cp -r/-R/-a, rsync
// -r/-a) of a directory's contents (src/., rsync's src/, any source of cp
// -T) is RuleUnknownContentsOverGuard too.
func (j *judge) contentsCopy(name string, args, pos []field, dest field, sc *scope) {
	recursive := copiesRecursively(name, args)
	noTarget := name == "cp" && noTargetDir(args)
	for _, s := range pos {
		if s.val == dest.val {
			continue
		}
		if strings.ContainsAny(s.val, "*?[") {
			j.globCopy(s, dest, sc)
			continue
		}
		if recursive && (noTarget || contentsSource(name, s.val)) && j.guardDest(sc, dest) {
			j.hits.add(RuleUnknownContentsOverGuard)
		}
	}
}

// globCopy judges one glob source of a copy into dest (contentsCopy).
func (j *judge) globCopy(s, dest field, sc *scope) {
	if !j.guardDest(sc, dest) {
		return
	}
	if matches, ok := sc.globMatches(s.val); ok && len(matches) > 0 {
		// (None matching now: an earlier statement may make them, and the
		// glob is judged by its last component below.)
		for _, m := range matches {
			k := sc.classify(lit(into(dest.val, m)))
			j.writeHit(k, true)
		}
		return
	}
	if contentsSource("", s.val) {
		j.hits.add(RuleUnknownContentsOverGuard)
	}
}

// noTargetDir reports cp's -T/--no-target-directory (GNU coreutils): the
// destination is written as the source itself, so cp -rT src . copies
// src's contents into the current directory.
func noTargetDir(args []field) bool {
	for _, a := range args {
		v := a.val
		if v == "--no-target-directory" || strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "T") {
			return true
		}
	}
	return false
}

// contentsSource reports a copy source whose contents are copied under
// their own names: x/. (x/./ too), rsync's x/ (and a bare "." or "./"), or
// a glob whose last component may match a guard entry's name.
func contentsSource(name, s string) bool {
	s = strings.ReplaceAll(s, `\`, "/")
	if s == "." || strings.HasSuffix(s, "/.") || strings.HasSuffix(s, "/./") {
		return true
	}
	if name == "rsync" && strings.HasSuffix(s, "/") {
		return true
	}
	last := strings.TrimRight(s, "/")
	if i := strings.LastIndexByte(last, '/'); i >= 0 {
		last = last[i+1:]
	}
	return strings.ContainsAny(last, "*?[") && globMayNameGuardEntry(last)
}

// globMayNameGuard reports a member pattern holding a glob whose last
// component may match a component of a guard path, the git directory or a
// hooks directory (*, .*, *.json; not */golangci-lint or *.go; tar's
// wildcards match a leading dot): what such a pattern selects may be or
// hold a guard file.
func globMayNameGuard(m string) bool {
	last := strings.TrimRight(strings.ReplaceAll(m, `\`, "/"), "/")
	if i := strings.LastIndexByte(last, '/'); i >= 0 {
		last = last[i+1:]
	}
	return strings.ContainsAny(last, "*?[") && globMayNameGuardComp(last, false)
}

// globMayNameGuardEntry reports whether the glob component c may match the
// first component of a guard path, the git directory or a hook manager's
// directory (.hookwarden.yaml, .claude, .git, .husky, lefthook.yml, …).
func globMayNameGuardEntry(c string) bool {
	c = asciiLower(c)
	names := []string{".git", ".husky", ".lefthook", ".lefthook-local", ".githooks"}
	for _, g := range guardTables().comps {
		names = append(names, g[0])
	}
	for _, n := range names {
		if matchGlob(c, n) {
			return true
		}
	}
	return false
}

// copiesRecursively reports a copy that descends into directories: cp
// with -r, -R, -a, --recursive or --archive; rsync with -r, -a,
// --recursive or --archive; Copy-Item with -Recurse.
func copiesRecursively(name string, args []field) bool {
	for _, a := range args {
		v := a.val
		switch {
		case v == "--recursive" || v == "--archive":
			return name == "cp" || name == "rsync"
		case (name == "copy-item" || name == "cpi") && strings.EqualFold(v, "-recurse"):
			return true
		case (name == "cp" || name == "rsync") && strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.ContainsAny(v, "rRa"):
			return true
		}
	}
	return false
}

// paxExtraction reads pax's words (POSIX pax): -r reads an archive (from
// -f FILE or stdin) into the current directory, its operands the member
// patterns; -r with -w copies the operands, each under its own path, into
// the last operand (a directory). -s renames and -c inverts the patterns,
// so both make the members unknown. ok is false in list mode (neither -r
// nor -w) and in write mode (-w alone writes an archive).
func paxExtraction(args []field) (x extraction, ok bool) {
	read, write := false, false
	var ops []field
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(v, "-") && len(v) > 1:
			for k := 1; k < len(v); k++ {
				c := v[k]
				read = read || c == 'r'
				write = write || c == 'w'
				x.unknown = x.unknown || c == 's' || c == 'c'
				if strings.IndexByte("bfopsxGTUBE", c) >= 0 {
					if k == len(v)-1 {
						i++
					}
					break
				}
			}
		default:
			ops = append(ops, args[i])
		}
	}
	switch {
	case read && write:
		if len(ops) < 2 {
			return x, false
		}
		x.dests = []field{ops[len(ops)-1]}
		x.members = ops[:len(ops)-1]
		return x, true
	case read:
		x.members = ops
		return x, true
	}
	return x, false
}

// arExtraction reads ar's words (GNU binutils ar x, ar -x): the members
// named after the archive are extracted into the current directory, or
// --output's (binutils 2.34 and later); none named extracts every one.
// The N modifier takes a count before the archive. ok is false for keys
// without x.
func arExtraction(args []field) (x extraction, ok bool) {
	var words []field
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "--output" || v == "--plugin" || v == "--target" || v == "--record-libdeps":
			if i+1 < len(args) && v == "--output" {
				x.dests = append(x.dests, args[i+1])
			}
			i++
		case strings.HasPrefix(v, "--output="):
			x.dests = append(x.dests, lit(strings.TrimPrefix(v, "--output=")))
		case strings.HasPrefix(v, "--"):
		default:
			words = append(words, args[i])
		}
	}
	if len(words) == 0 || !strings.Contains(words[0].val, "x") {
		return x, false
	}
	rest := words[1:]
	if strings.Contains(words[0].val, "N") && len(rest) > 0 {
		rest = rest[1:]
	}
	if len(rest) > 0 {
		x.members = rest[1:]
	}
	return x, true
}

// pythonArchiveExtraction reads python -m zipfile -e ARCHIVE DIR and
// python -m tarfile -e ARCHIVE [DIR] (--extract too; the standard
// library's command-line interfaces): every member is extracted into DIR
// (tarfile's default: the current directory), none can be named. ok is
// false for any other module or mode.
func pythonArchiveExtraction(args []field) (x extraction, ok bool) {
	module := ""
	var rest []field
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if v == "-m" && i+1 < len(args) {
			module, rest = args[i+1].val, args[i+2:]
			break
		}
		if strings.HasPrefix(v, "-m") {
			module, rest = v[2:], args[i+1:]
			break
		}
		if !strings.HasPrefix(v, "-") || v == "-" || v == "-c" {
			return x, false // a script, stdin or inline code: not a module
		}
		if v == "-W" || v == "-X" || v == "-Q" {
			i++
		}
	}
	if module != "zipfile" && module != "tarfile" {
		return x, false
	}
	for i, a := range rest {
		if a.val != "-e" && a.val != "--extract" {
			continue
		}
		var ops []field
		for _, b := range rest[i+1:] {
			if !strings.HasPrefix(b.val, "-") {
				ops = append(ops, b)
			}
		}
		if len(ops) > 1 {
			x.dests = []field{ops[1]}
		}
		x.unknown = true
		return x, true
	}
	return x, false
}
